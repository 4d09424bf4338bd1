"""The check path reads with string operations what it used to match with patterns compiled at start-up
(issue #16: each compile costs a cold ``qlint FILE`` about 0.2-0.8 M instructions). Each reader must give
exactly what its pattern gives, on texts built from the pattern's own pieces, tricky characters (Unicode
digits and whitespace, newlines) and noise."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from qlint.knowledge import images, text, versions
from qlint.linter import planner, source, suppressions
from qlint.rules import base
from qlint.rules.kit import options

TRICKY = ["\n", "\r", "\t", " ", "\x0b", "\x1c", "\x85", "\xa0", "\u2028", "\u3000", "\u0661", "\u00b2", "\u2167",
          "é", "_", ".", "-", "'", '"', "(", ")", "\\", "\033"]


def texts(*pieces: str, size: int = 12, near: tuple[str, ...] = ()):
    """Texts joined from ``pieces``, TRICKY characters and any character, or one of ``near`` changed a little."""
    joined = st.lists(st.sampled_from([*pieces, *TRICKY]) | st.characters(), max_size=size).map("".join)
    return joined | _changed(near) if near else joined


@st.composite
def _changed(draw, examples: tuple[str, ...]):
    """An example with up to three characters inserted, replaced or deleted anywhere."""
    changed = draw(st.sampled_from(examples))
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.integers(0, len(changed)))
        char = draw(st.sampled_from(TRICKY) | st.characters())
        change = draw(st.sampled_from(["insert", "replace", "delete"]))
        if change == "insert":
            changed = changed[:where] + char + changed[where:]
        else:
            changed = changed[:where] + (char if change == "replace" else "") + changed[where + 1:]
    return changed


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from([b"\n", b"\r", b"\r\n", b"\\", b"a", b" ", b"\xc3\xa9"]), max_size=30).map(b"".join))
def test_line_starts_and_continuations_are_the_patterns_matches(data):
    assert source.line_starts(data) == [0] + [m.end() for m in re.finditer(b"\n", data)]
    assert planner.continuations(data) == [m.span() for m in re.finditer(rb"\\\r?\n", data)]


@settings(max_examples=1500, deadline=None)
@given(texts("QL", "1", "23", "a", "b-c", "--", "z9", "QL123", "A", near=("QL123", "QL001\n", "tp-size", "a-b-c9\n")))
def test_rule_ids_and_names_are_told_as_the_patterns_tell_them(candidate):
    assert base.is_rule_id(candidate) == (re.match(base._RULE_ID, candidate) is not None)
    assert base.is_rule_name(candidate) == (re.match(base._RULE_NAME, candidate) is not None)


@settings(max_examples=1500, deadline=None)
@given(texts("v", "0", "23", "1", ".", "rc", "rc1", ".post", ".post2", "post", "r", "c",
             near=("v0.23.0", "0.10.1.1", "v0.11.0rc3", "0.9.2.post1")))
def test_plain_versions_are_read_as_the_pattern_reads_them(candidate):
    match = re.fullmatch(versions._PLAIN, candidate)
    assert versions.plain(candidate) == (match.groups() if match else None)


IMAGE_PIECES = ["vllm-ascend:", "quay.io/ascend/", "v", "0", "23", ".", "rc", "rc1", ".post", ".post1", "main",
                "-a3", "-310p", "-openeuler", "-ubuntu", "-ubuntu22.04", "-", "a3", "x"]


@settings(max_examples=3000, deadline=None)
@given(texts(*IMAGE_PIECES, size=14, near=("quay.io/ascend/vllm-ascend:v0.23.0rc1-a3-openeuler", "vllm-ascend:main",
                                           " vllm-ascend:v0.10.1.1-310p-ubuntu22.04_x\n", "vllm-ascend:v0.9.2.post1")))
def test_image_references_are_read_as_the_pattern_reads_them(reference):
    match = re.search(images._IMAGE, reference.strip()) if "vllm-ascend:" in reference else None
    assert images.parse_image(reference) == (match.group("tag", "suffix") if match else None)
    assert planner.images_in(reference) == [(m.start(), m.group()) for m in re.finditer(planner._IMAGE_IN_COMMENT,
                                                                                        reference)]


def test_image_references_of_the_usual_forms():
    for tag in ("v0.23.0", "v0.10.1.1", "v0.11.0rc3", "v0.9.2.post1", "main"):
        for suffix in ("", "-a3", "-310p"):
            for system in ("", "-openeuler", "-ubuntu22.04"):
                assert images.parse_image(f" quay.io/ascend/vllm-ascend:{tag}{suffix}{system}\n") == \
                    (tag, suffix or None)
    assert images.parse_image("quay.io/ascend/vllm-ascend:v0.23-a3") is None


CITATION_PIECES = ["https://", "github.com/vllm-project/", "vllm", "vllm-ascend", "/", "blob/", "tree/", "v0.23.0",
                   "main", "x.py", "#L1", " (", "(", ")", "note", " ", "\n", "https://github.com/vllm-project/"]


@settings(max_examples=3000, deadline=None)
@given(texts(*CITATION_PIECES, size=14, near=("https://github.com/vllm-project/vllm/blob/v0.25.1/a.py#L1 (a note)\n",
                                               "https://github.com/vllm-project/vllm-ascend/tree/main/x",
                                               "https://x.org/a ((b) c)")))
def test_citations_and_pinned_refs_are_read_as_the_patterns_read_them(citation):
    match = text._compiled("CITATION").match(citation)
    assert text._citation(citation) == (match.group("url", "note") if match else None)
    assert text.citation_url(citation) == (match.group("url") if match else citation)
    assert text.citation_note(citation) == ((match.group("note") or "") if match else "")
    pinned = text._compiled("_PINNED_AT").match(citation)
    assert text.pinned_ref(citation) == (pinned.groups() if pinned else None)


@settings(max_examples=1500, deadline=None)
@given(texts("self.", "self", ".", "x", "tp_size", "_", " is not None", " is not", " None", "is", size=8,
             near=("self.tp_size is not None", "self.x is not None\n")))
def test_fields_set_at_all_are_read_as_the_pattern_reads_them(condition):
    match = re.match(options._SET_AT_ALL, condition)
    assert options.set_at_all(condition) == (match.group(1) if match else None)


@settings(max_examples=1000, deadline=None)
@given(texts("#", " ", "qlint:", "qlint", "disable", "disable-file", "=QL101", "x", size=8,
             near=("# qlint: disable=QL101", "#qlint:disable-file")))
def test_comments_without_the_mark_are_neither_suppressions_nor_directives(comment):
    assert suppressions.is_suppression_comment(comment) == (re.match(suppressions._COMMENT, comment) is not None)
    if "qlint:" not in comment:
        assert re.match(planner._DIRECTIVE, comment) is None


_PROBE = r"""
import re, sys
import re._compiler as compiler
compiled = []
original = compiler.compile


def compile(pattern, flags=0):
    frame = sys._getframe(1)
    while frame is not None and "/re/" in frame.f_code.co_filename:
        frame = frame.f_back
    compiled.append(frame.f_globals.get("__name__", "?") if frame is not None else "?")
    return original(pattern, flags)


compiler.compile = compile
sys.argv = ["qlint", sys.argv[1]]
from qlint.linter.cli import entry
try:
    entry()
except SystemExit:
    pass
print("COMPILED", " ".join(sorted({name for name in compiled if name.startswith("qlint.")})))
"""
STILL_COMPILING = {"qlint.rules.server_ready", "qlint.rules.known_defects", "qlint.knowledge.base"}
"""The modules (outside the check path's start) whose patterns a run of the bundled example still compiles."""


def test_a_cold_run_of_the_example_compiles_no_pattern_of_the_check_path():
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "examples" / "qwen36_27b_a2.sh"
    done = subprocess.run([sys.executable, "-c", _PROBE, str(script)], capture_output=True, text=True, timeout=120)
    line = next(line for line in done.stdout.splitlines() if line.startswith("COMPILED "))
    compiled = set(line.split()[1:])
    assert compiled <= STILL_COMPILING, compiled


def _may_have_qlint_table_line_by_line(text: str) -> bool:
    """``config._may_have_qlint_table`` as it was written: every line translated and tested in turn."""
    from qlint.linter.config import _KEY_NOISE

    if "\\u" in text or "\\U" in text:
        return True
    if "qlint" not in text:
        return False
    lines = [line.translate(_KEY_NOISE) for line in text.split("\n")]
    under_tool = any(line == "[tool]" or line.startswith("[tool]#") for line in lines)
    for line in lines:
        if line.startswith(("[tool.qlint", "[[tool.qlint", "tool.qlint")):
            return True
        if line.startswith("tool=") and "qlint" in line:
            return True
        if under_tool and line.startswith("qlint") and line[5:6] in (".", "="):
            return True
    return False


@settings(max_examples=3000, deadline=None)
@given(texts("[tool]", "[tool]#x", "[tool.qlint]", "[[tool.qlint", "tool.qlint", "tool", "tool=", "qlint", "qlint.",
             "qlint=", "qlintx", "[", "]", "=", "#", "\n", " ", "\t", '"', "'", "x", "\\u", size=16,
             near=('[tool]\nqlint = {hardware = "a3"}\n', '[tool.setuptools]\npackages = ["qlint"]\n',
                   'tool = { qlint = {} }\n', '[ "tool" . qlint ]\n', '[tool] # c\n"qlint".x = 1\n')))
def test_a_pyproject_may_have_the_qlint_table_as_the_line_by_line_reading_says(text):
    from qlint.linter.config import _may_have_qlint_table

    assert _may_have_qlint_table(text) == _may_have_qlint_table_line_by_line(text)
