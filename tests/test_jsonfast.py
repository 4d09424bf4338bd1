"""``qlint.jsonfast`` gives what :mod:`json` gives: the same values, texts and errors (type, message,
position) for every input, valid or not, and the same decoder behaviour (``scan_once``, ``raw_decode``,
``decode``, ``object_hook``)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qlint import jsonfast

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)
KEYS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4)
OPTIONS = st.fixed_dictionaries({}, optional={
    "ensure_ascii": st.booleans(), "sort_keys": st.booleans(),
    "separators": st.sampled_from([(",", ":"), (", ", ": "), (",", ": "), (" , ", " : ")]),
    "indent": st.sampled_from([None, 0, 2])})
TEXT_PIECES = st.sampled_from(['{', '}', '[', ']', ',', ':', '"', '"a"', '1', '-0', '1e5', '2.5', 'true', 'nul',
                               'null', 'NaN', '-Infinity', ' ', '\n', '\t', '\\', '\\u00e9', 'é', '\ufeff', '\x00',
                               '"\\ud800"', '01', '1.', '{"k": 1}', '[1, 2]', '\r'])
TEXTS = st.lists(TEXT_PIECES, max_size=12).map("".join)


def _same(value, other) -> bool:
    """Equal, NaN included (json reads NaN as a float that equals nothing)."""
    if isinstance(value, float) and isinstance(other, float) and math.isnan(value):
        return math.isnan(other)
    if isinstance(value, (list, tuple)) and type(other) is type(value):
        return len(value) == len(other) and all(_same(a, b) for a, b in zip(value, other))
    if isinstance(value, dict) and isinstance(other, dict):
        return list(value) == list(other) and all(_same(value[key], other[key]) for key in value)
    return type(value) is type(other) and value == other


def _outcome(call, *args, **kwargs):
    try:
        return "value", call(*args, **kwargs)
    except Exception as error:  # the error is part of the behaviour compared
        return "error", (type(error), str(error), getattr(error, "pos", None))


def _agree(mine, theirs) -> None:
    assert mine[0] == theirs[0], (mine, theirs)
    if mine[0] == "value":
        assert _same(mine[1], theirs[1]), (mine, theirs)
    else:
        assert mine[1] == theirs[1]


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_loads_reads_every_text_as_json_does(text):
    _agree(_outcome(jsonfast.loads, text), _outcome(json.loads, text))
    data = text.encode("utf-8", "surrogatepass")
    _agree(_outcome(jsonfast.loads, data), _outcome(json.loads, data))


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_loads_reads_back_what_json_writes(value):
    for text in (json.dumps(value), json.dumps(value, indent=2), " " + json.dumps(value) + "\n"):
        _agree(_outcome(jsonfast.loads, text), _outcome(json.loads, text))


@settings(max_examples=300, deadline=None)
@given(VALUES, OPTIONS)
def test_dumps_writes_what_json_writes(value, options):
    _agree(_outcome(jsonfast.dumps, value, **options), _outcome(json.dumps, value, **options))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(KEYS, st.integers(), max_size=4), OPTIONS)
def test_dumps_writes_keys_as_json_does(value, options):
    _agree(_outcome(jsonfast.dumps, value, **options), _outcome(json.dumps, value, **options))


@pytest.mark.parametrize("value", [object(), {1: object()}, {(1, 2): 3}, float("nan"), [float("inf")], b"bytes"])
def test_dumps_refuses_what_json_refuses(value):
    _agree(_outcome(jsonfast.dumps, value), _outcome(json.dumps, value))
    circular: list = []
    circular.append(circular)
    _agree(_outcome(jsonfast.dumps, circular), _outcome(json.dumps, circular))


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(min_value=0, max_value=12))
def test_the_decoder_scans_as_json_s_does(text, index):
    def hook(obj):
        return ("object", sorted(obj.items(), key=repr))

    for mine, theirs in ((jsonfast.JSONDecoder(), json.JSONDecoder()),
                         (jsonfast.JSONDecoder(object_hook=hook), json.JSONDecoder(object_hook=hook))):
        _agree(_outcome(mine.decode, text), _outcome(theirs.decode, text))
        _agree(_outcome(mine.raw_decode, text, index), _outcome(theirs.raw_decode, text, index))
        _agree(_outcome(mine.scan_once, text, index), _outcome(theirs.scan_once, text, index))


def test_json_decode_error_is_json_s():
    with pytest.raises(jsonfast.JSONDecodeError) as error:
        jsonfast.loads('{"a": }')
    assert type(error.value) is json.JSONDecodeError and error.value.pos == 6
    assert jsonfast.scanstring('"a\\u00e9" rest', 1) == json.decoder.scanstring('"a\\u00e9" rest', 1)  # type: ignore[attr-defined]


def test_an_interpreter_without_the_c_accelerator_gets_jsons_own_functions(monkeypatch):
    """Where ``_json`` cannot be imported, jsonfast still imports and gives json's values and errors."""
    import importlib.util
    import sys

    monkeypatch.setitem(sys.modules, "_json", None)  # (import _json raises ImportError)
    for name in ("json", "json.decoder", "json.scanner", "json.encoder"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    spec = importlib.util.spec_from_file_location("jsonfast_without_c", jsonfast.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module._json is None
    assert module.loads('{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}
    assert module.dumps({"b": "é"}, sort_keys=True) == '{"b": "\\u00e9"}'
    assert module.JSONDecoder().raw_decode('[1] x') == ([1], 3)
    assert module.scanstring('ab"', 0) == ("ab", 3)  # (the index after the closing quote)
    with pytest.raises(ValueError, match="Expecting value"):
        module.loads("[")
