"""Fixes are applied whole (ruff's way): all the edits of a fix or none of them, and a fix
that overlaps another waits for the next round of ``--fix``."""

from __future__ import annotations

from qlint.linter.fixer import fix_bytes
from qlint.linter.fixes import apply_fixes
from qlint.linter.lint import LintResult
from qlint.linter.source import SourceText
from qlint.rules.base import Edit, Finding, Fix
from qlint.rules.graph import default_graph
from qlint.rules.plan import Span

SCRIPT = (
    "export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n"
    "vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 8 --data-parallel-size 1\n"
)
META = next(r.meta for r in default_graph().order() if r.meta.id == "QL205")


def _span(text: str, needle: str) -> Span:
    """The span of the first ``needle`` in ``text`` (one line)."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Span(line, column, line, column + len(needle))


def _resize(text: str, tp: str, dp: str, devices: str) -> Fix:
    """A TP/DP resize: three edits that only make sense together."""
    return Fix("resize", [
        Edit(_span(text, "0,1,2,3,4,5,6,7"), devices),
        Edit(_value(text, "--tensor-parallel-size 8"), tp),
        Edit(_value(text, "--data-parallel-size 1"), dp),
    ], "unsafe")


def _value(text: str, option: str) -> Span:
    span = _span(text, option)
    width = len(option.rsplit(" ", 1)[1])
    return Span(span.line, span.end_column - width, span.line, span.end_column)


def test_overlapping_fixes_apply_one_whole_and_leave_the_other_whole():
    first = _resize(SCRIPT, "2", "4", "0,1,2,3,4,5,6,7")     # TP 2 x DP 4 on the 8 listed NPUs
    second = _resize(SCRIPT, "4", "2", "0,1,2,3,4,5,6,7")    # TP 4 x DP 2: overlaps the first everywhere
    third = Fix("port", [Edit(Span(2, 29, 2, 29), " --port 8001")])  # touches neither
    text, applied = apply_fixes(SCRIPT, [first, second, third])
    assert applied == [first, third]
    assert "--tensor-parallel-size 2 --data-parallel-size 4" in text   # all of the first fix
    assert "--tensor-parallel-size 4" not in text and "--data-parallel-size 2" not in text  # none of the second
    assert "--port 8001" in text


def test_a_fix_overlapping_partly_is_left_out_entirely():
    resize = _resize(SCRIPT, "2", "4", "0,1,2,3,4,5,6,7")
    # its DP edit overlaps the resize; its --port insertion does not, and must not be applied alone
    dp_and_port = Fix("dp", [Edit(_value(SCRIPT, "--data-parallel-size 1"), "8"), Edit(Span(2, 29, 2, 29), " --port 8001")])
    text, applied = apply_fixes(SCRIPT, [dp_and_port, resize])
    assert applied == [resize]
    assert "--port" not in text and "--data-parallel-size 4" in text


def test_a_fix_whose_own_edits_overlap_is_never_applied():
    broken = Fix("broken", [Edit(_value(SCRIPT, "--tensor-parallel-size 8"), "2"),
                            Edit(_span(SCRIPT, "--tensor-parallel-size 8"), "")])
    assert apply_fixes(SCRIPT, [broken]) == (SCRIPT, [])


def test_two_insertions_at_one_place_conflict():
    here = Span(2, 29, 2, 29)
    one, two = Fix("a", [Edit(here, " --a")]), Fix("b", [Edit(here, " --b")])
    text, applied = apply_fixes(SCRIPT, [one, two])
    assert applied == [one] and " --a" in text and " --b" not in text


def _linter(rounds: list[int]):
    """A lint function with two findings while TP is 8, whose fixes overlap on the TP value only:
    TP 2 x DP 4 on the 8 listed NPUs, or TP 4 on the first 4 NPUs."""

    def lint(data: bytes) -> LintResult:
        rounds.append(1)
        text = data.decode("utf-8")
        findings = []
        if "--tensor-parallel-size 8" in text:
            tp = _value(text, "--tensor-parallel-size 8")
            wider = Fix("dp", [Edit(tp, "2"), Edit(_value(text, "--data-parallel-size 1"), "4")], "unsafe")
            fewer = Fix("devices", [Edit(_span(text, "0,1,2,3,4,5,6,7"), "0,1,2,3"), Edit(tp, "4")], "unsafe")
            findings = [Finding(META, "use DP", tp, wider, path="run.sh"),
                        Finding(META, "use fewer NPUs", tp, fewer, path="run.sh")]
        return LintResult("run.sh", findings=findings, source=SourceText.from_bytes("run.sh", data))

    return lint


def test_fix_bytes_never_mixes_two_overlapping_fixes():
    rounds: list[int] = []
    outcome = fix_bytes("run.sh", SCRIPT.encode(), _linter(rounds), unsafe=True)
    text = outcome.data.decode()
    one_whole = ("DEVICES=0,1,2,3,4,5,6,7\n" in text and "--tensor-parallel-size 2 --data-parallel-size 4" in text) or \
        ("DEVICES=0,1,2,3\n" in text and "--tensor-parallel-size 4 --data-parallel-size 1" in text)
    assert one_whole, text  # edit by edit, TP 2 x DP 4 was applied with the 4 devices of the other fix
    assert outcome.applied == 1  # the other fix waited, and after the first one no longer applies
    assert len(rounds) == 2  # lint, fix, lint again: nothing left to fix


def test_unsafe_fixes_wait_for_unsafe_fixes():
    outcome = fix_bytes("run.sh", SCRIPT.encode(), _linter([]))
    assert outcome.data is None and outcome.applied == 0


# -- where an added option goes (ruff keeps the author's layout: isort adds an import on a line of its own) --

MULTI_LINE = (
    "#!/bin/bash\n"
    "# qlint: hardware=a2 vllm-ascend=v0.23.0\n"
    "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 \\\n"
    "\t--served-model-name qwen3.6 \\\n"
    "\t--port 8000\n"
    "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8001\n"
)


def _fixed_with_real_rules(text: str, crlf: bool = False, without: frozenset[str] = frozenset()) -> str:
    from qlint.linter.lint import Policy, lint_bytes
    from qlint.rules.graph import default_graph

    data = text.replace("\n", "\r\n").encode() if crlf else text.encode()
    policy = Policy(enabled=frozenset(default_graph().rule_ids()) - without) if without else None
    outcome = fix_bytes("run.sh", data, lambda raw: lint_bytes("run.sh", raw, policy=policy))
    assert outcome.data is not None
    return outcome.data.decode()


def test_an_added_option_gets_a_continuation_line_of_its_own_in_a_one_option_per_line_command():
    fixed = _fixed_with_real_rules(MULTI_LINE)
    before, after = MULTI_LINE.splitlines(), fixed.splitlines()
    # the multi-line command gains exactly one line, indented like its options (a tab here); every
    # line that was there is still there, unchanged and in order
    assert after[3] == "\t--quantization ascend \\"
    assert [line for index, line in enumerate(after) if index != 3] == before[:5] + [after[-1]]
    # a command on one line keeps it: the option is added after the model
    assert after[-1] == "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --port 8001"
    import subprocess  # bash -n: the result still parses (read, never run)
    assert subprocess.run(["bash", "-n"], input=fixed, text=True).returncode == 0


def test_an_added_option_line_keeps_crlf_line_endings():
    # QL111's safe fix makes CRLF endings LF (below); without it, an added option line keeps the file's endings
    fixed = _fixed_with_real_rules(MULTI_LINE, crlf=True, without=frozenset({"QL111"}))
    assert "\t--quantization ascend \\\r\n" in fixed and "\n" not in fixed.replace("\r\n", "")


def test_with_every_rule_a_crlf_script_is_fixed_to_lf_endings_and_gets_its_option():
    fixed = _fixed_with_real_rules(MULTI_LINE, crlf=True)
    assert "\r" not in fixed and "\t--quantization ascend \\\n" in fixed
