"""The rule kit reads values with their spans under one fallback policy and builds whole
edits that keep the author's quoting and JSON layout."""

from __future__ import annotations

import pytest

from qlint.linter.fixes import apply_edits
from qlint.linter.lint import lint_text
from qlint.rules import kit
from qlint.rules.graph import Unknown


def serve_of(text: str):
    result = lint_text("run.sh", text)
    assert result.error is None and result.plan is not None
    return result.plan.serve_commands()[0]


def after(text: str, edits) -> str:
    assert edits, "no edit"
    return apply_edits(text, edits)[0]


def _cut(text: str, span) -> str:
    line = text.splitlines()[span.line - 1]
    return line[span.column - 1:span.end_column - 1]


# -- reading ---------------------------------------------------------------------

def test_span_falls_back_from_key_to_value_to_option_to_absent():
    text = "vllm serve M --compilation-config '{\"mode\": 3}' --enforce-eager\n"
    serve = serve_of(text)
    assert _cut(text, kit.span_of(serve, "--compilation-config", "mode")) == "3"
    assert _cut(text, kit.span_of(serve, "--compilation-config", "level")) == "'{\"mode\": 3}'"
    assert _cut(text, kit.span_of(serve, "--enforce-eager")) == "--enforce-eager"
    assert kit.span_of(serve, "--dtype") == serve.span
    assert kit.span_of(serve, "--dtype", absent=kit.model_span(serve)) == serve.model.span
    assert _cut(text, kit.span_of(serve, ("--dtype", "--compilation-config"), "mode")) == "3"


def test_integer_reader_and_unknown_values():
    serve = serve_of("vllm serve M --max-num-seqs 16 --max-model-len $LEN --port abc\n")
    assert kit.integer(serve, "--max-num-seqs").value == 16
    assert kit.integer(serve, "--tensor-parallel-size", 1).value == 1
    with pytest.raises(Unknown):
        kit.integer(serve, "--max-model-len")
    with pytest.raises(Unknown):
        kit.integer(serve, "--port")
    assert kit.integer(serve, "--port", strict=False).value is None


def test_env_reader():
    serve = serve_of("export A=1\nB=' true ' vllm serve M\n")
    assert kit.env(serve, "A").value == "1" and kit.env_on(serve, "B") and not kit.env_on(serve, "C")
    assert kit.env(serve, "C").span == serve.span


# -- edits -------------------------------------------------------------------------

@pytest.mark.parametrize("config,expected", [
    ('{"method": "mtp"}', '{"method": "mtp", "enforce_eager": true}'),
    ('{"method":"mtp","k":1}', '{"method":"mtp","k":1,"enforce_eager":true}'),  # the author's compact layout
    ('{}', '{"enforce_eager": true}'),
])
def test_set_key_inserts_with_the_author_layout(config, expected):
    text = f"vllm serve M --speculative-config '{config}'\n"
    assert after(text, kit.set_key(serve_of(text), "--speculative-config", "enforce_eager", True)) == \
        text.replace(config, expected)


def test_set_key_replaces_a_value_and_keeps_list_spacing():
    text = "vllm serve M --compilation-config '{\"cudagraph_capture_sizes\": [1,2,4]}'\n"
    edits = kit.set_key(serve_of(text), "--compilation-config", "cudagraph_capture_sizes", [2, 4])
    assert after(text, edits) == text.replace("[1,2,4]", "[2,4]")


def test_set_key_creates_missing_objects():
    text = "vllm serve M --additional-config '{\"a\": 1}'\n"
    edits = kit.set_key(serve_of(text), "--additional-config", "ascend_compilation_config.enable_npugraph_ex", False)
    assert after(text, edits) == text.replace('{"a": 1}', '{"a": 1, "ascend_compilation_config": {"enable_npugraph_ex": false}}')


def test_set_key_refuses_what_the_quoting_cannot_hold():
    text = "vllm serve M --speculative-config '{\"method\": \"mtp\"}'\n"
    assert kit.set_key(serve_of(text), "--speculative-config", "model", "it's") == []
    escaped = 'vllm serve M --speculative-config "{\\"method\\": \\"mtp\\"}"\n'  # not 1:1 with the file
    assert kit.set_key(serve_of(escaped), "--speculative-config", "enforce_eager", True) == []


@pytest.mark.parametrize("config,key,expected", [
    ('{"a": 1, "b": 2, "c": 3}', "a", '{"b": 2, "c": 3}'),
    ('{"a": 1, "b": 2, "c": 3}', "b", '{"a": 1, "c": 3}'),
    ('{"a": 1, "b": 2, "c": 3}', "c", '{"a": 1, "b": 2}'),
    ('{"a": 1, "s": {"x": true}}', "s.x", '{"a": 1}'),  # the object it empties goes too
    ('{"s": {"x": true, "y": 1}}', "s.x", '{"s": {"y": 1}}'),
])
def test_drop_key_removes_one_entry(config, key, expected):
    text = f"vllm serve M --additional-config '{config}' --port 8000\n"
    assert after(text, kit.drop_key(serve_of(text), "--additional-config", key)) == text.replace(config, expected)


def test_drop_key_of_the_only_key_drops_the_option():
    text = "vllm serve M --additional-config '{\"s\": {\"x\": true}}' --port 8000\n"
    assert after(text, kit.drop_key(serve_of(text), "--additional-config", "s.x")) == "vllm serve M --port 8000\n"


def test_set_value_replaces_or_inserts_after_the_model():
    text = "vllm serve M --dtype bfloat16\n"
    serve = serve_of(text)
    assert after(text, kit.set_value(serve, "--dtype", "float16")) == "vllm serve M --dtype float16\n"
    assert after(text, kit.set_value(serve, "--max-num-seqs", "16")) == "vllm serve M --max-num-seqs 16 --dtype bfloat16\n"
    assert kit.set_value(serve, "--dtype", "bfloat16") == []
    assert kit.set_value(serve, "--tensor-parallel-size", "1", default="1") == []
