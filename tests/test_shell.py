"""The shell reader: expansion, symbolic values, spans, bad input. No execution."""

import string

from hypothesis import given, strategies as st

from qlint.linter.shell import ShellSyntaxError, parse_script
from qlint.linter.source import InputError, SourceText

import pytest


def parse(text, bindings=None):
    return parse_script(SourceText.from_bytes("t.sh", text.encode()), bindings)


def words(command):
    return [w.value for w in command.words]


def test_known_variables_expand_and_unknown_stay_symbolic():
    script = parse('export MODEL=/m/Qwen3.6-27B\nIP=1.2.3.4\nvllm serve $MODEL --host ${IP} --port $2 --x "$(hostname)"\n')
    command = script.commands[0]
    assert words(command)[:5] == ["vllm", "serve", "/m/Qwen3.6-27B", "--host", "1.2.3.4"]
    assert command.words[6].value is None and command.words[6].symbols == ["$2"]
    assert command.words[8].value is None


def test_bindings_fill_positional_parameters():
    script = parse("vllm serve m --tensor-parallel-size $7\n", {"7": "2"})
    assert words(script.commands[0])[-1] == "2"


def test_default_expansion_uses_default_when_unset():
    script = parse('vllm serve ${MODEL:-/models/Qwen3-32B}\n')
    assert words(script.commands[0])[-1] == "/models/Qwen3-32B"


def test_quotes_are_removed_and_json_kept_verbatim():
    script = parse("""vllm serve m --speculative-config '{"method": "mtp"}' --a "x y" --b x\\ y\n""")
    assert words(script.commands[0])[4:] == ['{"method": "mtp"}', "--a", "x y", "--b", "x y"]


def test_spans_are_one_based_and_in_characters():
    script = parse("# 中文注释\nvllm serve m --port 8000\n")
    port = script.commands[0].words[-1]
    assert (port.span.line, port.span.column, port.span.end_column) == (2, 21, 25)
    comment = script.comments[0]
    assert comment.span.end_column == 7  # 6 characters, not 14 bytes


def test_continuation_lines_join_one_command():
    script = parse("vllm serve m \\\n  --port 1 \\\n  --host h\n")
    assert len(script.commands) == 1
    assert script.commands[0].words[-1].span.line == 3


def test_unset_removes_a_variable():
    script = parse("A=1\nunset A\necho $A\n")
    assert script.commands[0].words[1].value is None
    assert "A" in script.unsets


def test_prefix_assignment_is_command_env_only():
    script = parse("FOO=1 vllm serve m\necho $FOO\n")
    assert script.commands[0].env["FOO"].word.value == "1"
    assert script.commands[1].words[1].value is None


def test_unterminated_quote_is_a_syntax_error_with_location():
    with pytest.raises(ShellSyntaxError) as error:
        parse("vllm serve m \\\n  --x '{\"a\": 1}\n")
    assert error.value.span.line >= 1


@pytest.mark.parametrize("data,needle", [
    (b"\x00\x01binary", "binary"),
    (b"echo \xff\xfe\n", "UTF-8"),
])
def test_bad_bytes_are_input_errors(data, needle):
    with pytest.raises(InputError) as error:
        SourceText.from_bytes("x", data)
    assert needle in error.value.message


def test_crlf_scripts_parse():
    script = parse("vllm serve m \\\r\n  --port 8000\r\n".replace("\r\n", "\n"))
    assert words(script.commands[0])[-1] == "8000"


SAFE = st.text(alphabet=string.ascii_letters + string.digits + "-_./:,=", min_size=1, max_size=12)


@given(st.lists(SAFE, min_size=1, max_size=8))
def test_plain_words_round_trip(items):
    """Words written plainly (single-quoted) come back exactly as written."""
    line = "cmd " + " ".join("'" + item + "'" for item in items) + "\n"
    script = parse(line)
    assert words(script.commands[0])[1:] == items


@given(st.text(max_size=200))
def test_reader_never_crashes(text):
    """Any text either parses or raises the documented errors; nothing else escapes."""
    try:
        source = SourceText.from_bytes("f.sh", text.encode("utf-8", "surrogatepass"))
        parse_script(source)
    except (ShellSyntaxError, InputError):
        pass


def test_upper_plane_characters_after_a_brace_do_not_crash_the_parser():
    """tree-sitter-bash's scanner segfaults on "{" + a plane 11-16 code point; qlint never hands it one.

    Run in a child process: a regression would kill the interpreter, not fail an assert.
    """
    import subprocess
    import sys

    code = (
        "from qlint.linter.shell import parse_script\n"
        "from qlint.linter.source import SourceText\n"
        "for cp in (0xB0000, 0xC0000, 0xD0000, 0xE0000, 0xF0000, 0x10FFFD):\n"
        "    for _ in range(40):\n"
        "        script = parse_script(SourceText.from_bytes('f.sh', ('vllm serve {' + chr(cp) + '} m\\n').encode()))\n"
        "assert [w.value for w in script.commands[0].words][:2] == ['vllm', 'serve']\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stderr[-2000:])


def test_non_ascii_words_keep_their_text_and_spans():
    script = parse("vllm serve /models/模型 --served-model-name ‘名字’\n")
    values = words(script.commands[0])
    assert values[2] == "/models/模型" and values[4] == "‘名字’"


def test_a_text_read_again_gives_the_same_spans_and_keeps_them_from_then_on():
    from qlint.linter import source as source_module

    data = b"#!/bin/bash\nvllm serve Qwen/Qwen3.6-27B \\\n  --port 8000\n# unique-to-this-test \xe4\xbd\xa0\n"
    source_module._TEXTS.pop(data, None)
    first = SourceText.from_bytes("a.sh", data)
    assert source_module._TEXTS[data][2] is None  # read once: no table of spans
    spans = [first.span(start, start + 4) for start in (0, 12, 46, len(data) - 8)]
    again, third = SourceText.from_bytes("b.sh", data), SourceText.from_bytes("c.sh", data)
    assert [again.span(start, start + 4) for start in (0, 12, 46, len(data) - 8)] == spans
    assert spans[1].line == 2 and spans[2].line == 3 and spans[3].line == 4
    assert third.span(12, 16) is again.span(12, 16)  # read again: kept, one frozen Span per range
