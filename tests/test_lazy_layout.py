"""A JSON option's layout (key spans, entries, objects, separators, quote) read when first asked for is the one
read at once; the layouts and trees kept for a text read again (a DP template per local rank) are the ones
read afresh."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from qlint.knowledge.base import load
from qlint.linter import planner, shell
from qlint.linter.lint import lint_bytes
from qlint.linter.planner import build_plan
from qlint.linter.shell import parse_script, parse_tree
from qlint.linter.source import SourceText
from qlint.rules.plan import JsonValue

FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.sh"))
LAID_OUT = ("data", "key_spans", "entry_spans", "objects", "item_separator", "key_separator", "quote")


def _json_values(data: bytes, path: str = "run.sh") -> list[JsonValue]:
    plan = build_plan(load(), parse_script(SourceText.from_bytes(path, data)))
    return [option.json for serve in plan.serve_commands() for option in serve.all_options if option.json is not None]


def _fields(value: JsonValue) -> tuple:
    return tuple(getattr(value, name) for name in LAID_OUT)


def _scripts_with_json() -> list[Path]:
    return [path for path in FIXTURES if b"{" in path.read_bytes() and b"-config" in path.read_bytes()]


@pytest.mark.parametrize("path", _scripts_with_json()[::3], ids=lambda path: path.name)
def test_a_layout_read_when_asked_is_the_one_read_at_once(path, monkeypatch):
    data = path.read_bytes()
    try:
        SourceText.from_bytes(str(path), data)
        lazy = _json_values(data, str(path))
    except Exception:  # not a script qlint reads (exit 2): nothing to lay out
        return
    planner._LAYOUTS.clear()
    monkeypatch.setattr(planner, "_LAZY_NESTING", -1)  # every layout read at once
    eager = _json_values(data, str(path))
    assert all(value.layout is None for value in eager)
    assert [_fields(value) for value in lazy] == [_fields(value) for value in eager]


def test_a_layout_is_read_only_when_asked_for():
    script = b"vllm serve Qwen/Qwen3.6-27B --additional-config '{\"a\": {\"b\": 1},  \"c\":2}'\n"
    [value] = _json_values(script)
    assert value.layout is not None  # not read yet
    assert value.data == {"a": {"b": 1}, "c": 2}
    assert value.key_separator == ": " and value.item_separator is not None
    assert value.layout is not None  # the spans are not read yet
    assert sorted(value.key_spans) == ["a", "a.b", "c"] and sorted(value.objects) == ["", "a"]
    assert value.layout is not None  # nor the entries
    assert value.quote == "'" and value.key_spans["a.b"].column == 62 and value.entry_spans
    assert value.layout is None


@pytest.mark.parametrize("path", _scripts_with_json()[1::3], ids=lambda path: path.name)
def test_each_layout_field_read_first_is_the_one_read_at_once(path, monkeypatch):
    """Whichever field a rule reads first (a finding's span reads the key spans alone), each field is the
    one the whole layout read at once gives."""
    data = path.read_bytes()
    try:
        SourceText.from_bytes(str(path), data)
        lazy = {name: _json_values(data, str(path)) for name in LAID_OUT}
    except Exception:  # not a script qlint reads (exit 2): nothing to lay out
        return
    planner._LAYOUTS.clear()
    monkeypatch.setattr(planner, "_LAZY_NESTING", -1)  # every layout read at once
    eager = _json_values(data, str(path))
    for first, values in lazy.items():
        planner._LAYOUTS.clear()
        assert [getattr(value, first) for value in values] == [getattr(value, first) for value in eager]
        assert [_fields(value) for value in values] == [_fields(value) for value in eager]
        assert all(value.layout is None for value in values)


def test_an_unread_layout_compares_and_shows_as_a_read_one():
    script = b"vllm serve Qwen/Qwen3.6-27B --speculative-config '{\"method\": \"mtp\"}'\n"
    [lazy] = _json_values(script)
    [again] = _json_values(script)
    assert lazy.layout is not None and again.layout is not None
    assert repr(lazy) == repr(again) and "method" in repr(lazy)
    assert lazy == again


def test_a_deeply_nested_object_is_laid_out_at_once():
    text = "{" + "".join(f'"k{i}": {{' for i in range(planner._LAZY_NESTING + 1)) + "}" * (planner._LAZY_NESTING + 2)
    [value] = _json_values(f"vllm serve Qwen/Qwen3.6-27B --additional-config '{text}'\n".encode())
    assert value.layout is None and "k0.k1" in value.key_spans


def test_a_text_read_again_gets_the_same_layout_in_dicts_of_its_own():
    script = b"vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_role\": \"kv_producer\", \"kv_port\": 30000}'\n"
    planner._LAYOUTS.clear()
    [first] = _json_values(script)
    [second] = _json_values(script)
    assert _fields(first) == _fields(second)
    assert first.key_spans is not second.key_spans and first.objects is not second.objects
    first.key_spans.clear()
    assert sorted(second.key_spans) == ["kv_port", "kv_role"]
    [moved] = _json_values(b"\n" + script)  # the same JSON text elsewhere: its own spans
    assert moved.key_spans["kv_port"].line == second.key_spans["kv_port"].line + 1


def test_a_tree_kept_for_a_text_is_the_one_parsed_afresh():
    data = FIXTURES[0].read_bytes()
    assert parse_tree(data) is parse_tree(data)
    kept = parse_script(SourceText.from_bytes("a.sh", data), {"1": "0"})
    shell._TREES.clear()
    fresh = parse_script(SourceText.from_bytes("a.sh", data), {"1": "0"})
    assert [(w.value, w.span) for c in kept.commands for w in c.words] == \
        [(w.value, w.span) for c in fresh.commands for w in c.words]


@pytest.mark.parametrize("path", FIXTURES[::41], ids=lambda path: path.name)
def test_linting_a_file_again_reports_what_it_did(path):
    data = path.read_bytes()
    first = lint_bytes(str(path), data)
    again = lint_bytes(str(path), data)
    shell._TREES.clear()
    planner._LAYOUTS.clear()
    fresh = lint_bytes(str(path), data)
    seen = [[(f.rule.id, f.message, f.message_zh, f.span, f.fix) for f in result.findings] for result in (first, again, fresh)]
    assert seen[0] == seen[1] == seen[2]


def _reference_span(data: bytes, start: int, end: int) -> tuple[int, int, int, int]:
    """Line and column (in characters) of two byte offsets, counted from the text itself."""
    def position(offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(data)))
        line_start = data.rfind(b"\n", 0, offset) + 1
        return data.count(b"\n", 0, offset) + 1, len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return (*position(start), *position(end))


@pytest.mark.parametrize("data", [b"a\nbc\n\ndef", "x = 'é'\n  ü\n".encode(), b"", b"\n\n"])
def test_spans_of_a_kept_text_are_those_counted_afresh(data):
    ranges = [(start, end) for start in range(-1, len(data) + 2) for end in range(start, len(data) + 2)]
    first, again = SourceText("a.sh", data), SourceText("b.sh", data)
    for start, end in ranges:
        span = first.span(start, end)
        assert (span.line, span.column, span.end_line, span.end_column) == _reference_span(data, start, end)
        assert again.span(start, end) == span
    assert again._line_starts == first._line_starts


def test_commands_that_share_a_variable_see_its_setting():
    script = b"export A=1\nB=2 vllm serve Qwen/Qwen3.6-27B --port 1\nexport B=3\nvllm serve Qwen/Qwen3.6-27B --port 2\n"
    plan = build_plan(load(), parse_script(SourceText.from_bytes("run.sh", script)))
    first, second = plan.serve_commands()
    assert first.env["A"] == second.env["A"] and first.env["A"].value.text == "1" and first.env["A"].exported
    assert first.env["B"].value.text == "2" and second.env["B"].value.text == "3"
    assert first.env["B"].span.line == 2 and second.env["B"].span.line == 3


def test_a_model_argument_resolves_as_the_knowledge_says_each_time():
    from qlint.rules.facts import _match_model

    kb = load()
    names = [model.id for model in kb.models] + ["/data/ckpt/final", "Eco-Tech/Qwen3.6-27B-w8a8", "GLM5-w8a8"]
    for name in names + names:
        assert _match_model(kb, name) == kb.match_model(name)


def test_normalised_names_are_the_patterns_result():
    import re

    from qlint.rules.known_defects import _norm

    for text in ["Qwen3.6-27B", "GLM-5.1", "DeepSeek_V3.2", "", "Kimi K2.5 ", "Qwen3.6-27B"]:
        assert _norm(text) == re.sub(r"[^a-z0-9]", "", text.lower())


def test_an_unread_layout_travels_between_processes():
    import pickle

    script = b"vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_role\": \"kv_producer\", \"kv_port\": 30000}'\n"
    [value] = _json_values(script)
    assert value.layout is not None
    back = pickle.loads(pickle.dumps(value))  # (pickling reads it)
    assert _fields(back) == _fields(value) and back.key_spans["kv_port"].column == 89


@lru_cache(maxsize=1)
def _every_defect():
    """The known defects validated from the data files (not the linted knowledge base's, left as it is)."""
    from qlint.knowledge import base

    return base._build(base._blobs_and_digest()[0]).defects


def _reported_by_match_entry(scope, severity):
    """The known-defect findings of ``known_defects._report``, each entry read by ``match_entry`` (the model
    matched entry by entry)."""
    from qlint.rules import known_defects as kd

    tag = scope.get("version")
    known_hardware = scope.known("hardware")
    hardware = known_hardware.value if known_hardware is not None else None
    for entry in _every_defect():  # every entry, none left out by the rows of the release or their conditions
        if entry.severity != severity or not kd._release_in(entry, tag) or (
                entry.hardware != ["any"] and hardware not in entry.hardware):
            continue
        try:
            found = kd.match_entry(scope, entry)
        except (kd._Undecided, kd.Unknown):
            continue
        if found is not None:
            yield entry.id, found


@pytest.mark.parametrize("path", FIXTURES[::7], ids=lambda path: path.name)
def test_known_defects_match_models_as_match_entry_does(path, monkeypatch):
    from qlint.rules import known_defects as kd

    data = path.read_bytes()
    seen: list = []
    original = kd._conditions_match
    monkeypatch.setattr(kd, "_conditions_match", lambda scope, entry: seen.append(
        (entry.id, found := original(scope, entry))) or found)
    first = lint_bytes(str(path), data)
    monkeypatch.undo()
    expected: list = []
    reference = kd._report

    def report(scope, severity):
        expected.extend(_reported_by_match_entry(scope, severity))
        return reference(scope, severity)

    monkeypatch.setattr(kd, "_report", report)
    again = lint_bytes(str(path), data)
    assert [item for item in seen if item[1] is not None] == expected
    assert [(f.rule.id, f.message, f.span) for f in first.findings] == [(f.rule.id, f.message, f.span) for f in again.findings]
