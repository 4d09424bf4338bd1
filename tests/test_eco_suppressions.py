"""Inline suppressions: scope (next command, same line, file), QL901 unused-suppression, opting out."""

import pytest
from click.testing import CliRunner

from qlint.linter.cli import main
from qlint.linter.fixes import apply_edits, fix_edits
from qlint.linter.lint import Policy, lint_text
from qlint.linter.suppressions import UNUSED_SUPPRESSION
from qlint.rules.graph import Settings

SETTINGS = Settings(hardware="a3", version="v0.23.0")
SERVE_TP3 = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3"


def lint(text, **policy):
    result = lint_text("run.sh", text, settings=SETTINGS, policy=Policy(**policy))
    assert result.error is None
    return result


def ids(result):
    return sorted(f.rule.id for f in result.findings)


def test_baseline_is_flagged():
    assert "QL206" in ids(lint(SERVE_TP3 + "\n"))


def test_own_line_covers_the_whole_continued_command():
    text = ("# qlint: disable=QL206 -- we benchmark TP 3 on purpose\n"
            "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 \\\n"
            "  --quantization ascend \\\n"
            "  --tensor-parallel-size 3\n")
    result = lint(text)
    assert "QL206" not in ids(result) and "QL901" not in ids(result)
    [hidden] = result.suppressed
    assert hidden.finding.rule.id == "QL206" and hidden.finding.span.line == 4
    assert hidden.reason == "we benchmark TP 3 on purpose"


def test_own_line_covers_only_the_next_command():
    text = "# qlint: disable=tp-divides-heads\n" + SERVE_TP3 + "\n" + SERVE_TP3 + "\n"
    result = lint(text)
    assert [f.span.line for f in result.findings if f.rule.id == "QL206"] == [3]
    assert [s.finding.span.line for s in result.suppressed] == [2]


def test_comments_and_blank_lines_between_comment_and_command():
    text = "# qlint: disable=QL206 -- reason\n\n# launch\n" + SERVE_TP3 + "\n"
    assert "QL206" not in ids(lint(text))


def test_trailing_comment_covers_its_own_line_only():
    text = ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend \\\n"
            "  --tensor-parallel-size 3  # qlint: disable=ql206\n")
    assert "QL206" not in ids(lint(text))
    elsewhere = ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend  # qlint: disable=QL206\n"
                 + SERVE_TP3 + "\n")
    result = lint(elsewhere)
    assert "QL206" in ids(result)
    assert any(f.rule.id == "QL901" and f.span.line == 1 for f in result.findings)


def test_disable_file_anywhere():
    text = SERVE_TP3 + "\n" + SERVE_TP3 + "\n# qlint: disable-file=QL206 -- known\n"
    result = lint(text)
    assert "QL206" not in ids(result) and len(result.suppressed) == 2
    assert all(s.reason == "known" for s in result.suppressed)


def test_no_inline_suppressions_ignores_them_all():
    text = "# qlint: disable-file=QL206\n# qlint: disable=QL999\n" + SERVE_TP3 + "\n"
    result = lint(text, inline_suppressions=False)
    assert "QL206" in ids(result) and "QL901" not in ids(result)
    assert result.suppressed == []


def test_unused_suppression_reported_with_safe_fix():
    text = "#!/bin/bash\n# qlint: disable=QL203 -- stale\n" + SERVE_TP3 + "\n"
    result = lint(text)
    [unused] = [f for f in result.findings if f.rule.id == "QL901"]
    assert (unused.span.line, unused.span.column, unused.span.end_column) == (2, 18, 23)
    assert "QL203 [npus-exceed-node]" in unused.message
    fixed, _ = apply_edits(text, fix_edits([unused]))
    assert fixed == "#!/bin/bash\n" + SERVE_TP3 + "\n"


def test_partly_used_suppression_keeps_the_used_code():
    text = "# qlint: disable=QL206,QL203 -- mixed\n" + SERVE_TP3 + "\n"
    result = lint(text)
    [unused] = [f for f in result.findings if f.rule.id == "QL901"]
    assert "QL203" in unused.message and "QL206" not in unused.message
    fixed, _ = apply_edits(text, fix_edits([unused]))
    assert fixed.splitlines()[0] == "# qlint: disable=QL206 -- mixed"


def test_trailing_unused_fix_removes_comment_and_blanks():
    text = SERVE_TP3 + "   # qlint: disable=QL203\n"
    [unused] = [f for f in lint(text).findings if f.rule.id == "QL901"]
    fixed, _ = apply_edits(text, fix_edits([unused]))
    assert fixed == SERVE_TP3 + "\n"


@pytest.mark.parametrize("comment,needle", [
    ("# qlint: disable=QL999", "QL999 (not a rule"),
    ("# qlint: disable", "names no rule"),
    ("# qlint: disable QL206", "names no rule"),
])
def test_unknown_or_malformed_codes(comment, needle):
    result = lint(comment + "\n" + SERVE_TP3 + "\n")
    [unused] = [f for f in result.findings if f.rule.id == "QL901"]
    assert needle in unused.message
    assert unused.fix is None  # a typo is the user's to correct, not ours to delete
    assert "QL206" in ids(result)


def test_suppression_at_end_of_file_suppresses_nothing():
    result = lint(SERVE_TP3 + "\n# qlint: disable=QL206\n")
    assert "QL206" in ids(result)
    assert any("no command follows" in f.message for f in result.findings if f.rule.id == "QL901")


def test_codes_of_rules_not_enabled_are_not_judged():
    enabled = frozenset({"QL206", "QL901"})
    result = lint("# qlint: disable=QL203\n" + SERVE_TP3 + "\n", enabled=enabled)
    assert ids(result) == ["QL206"]


def test_unused_suppression_itself_can_be_ignored_or_disabled():
    text = "# qlint: disable=QL203\n" + SERVE_TP3 + "\n"
    assert "QL901" not in ids(lint(text, enabled=frozenset({"QL206", "QL203"})))
    silenced = lint("# qlint: disable-file=QL901\n" + text)
    assert "QL901" not in ids(silenced)
    assert [s.finding.rule.id for s in silenced.suppressed] == ["QL901"]


def test_disable_comments_do_not_become_directives():
    text = "# qlint: hardware=a2\n# qlint: disable=QL206 -- x\n" + SERVE_TP3 + "\n"
    result = lint_text("run.sh", text, settings=Settings(version="v0.23.0"))
    assert [d.settings for d in result.plan.directives] == [{"hardware": "a2"}]


def test_severity_override_and_suppression_together():
    result = lint("# qlint: disable=QL203\n" + SERVE_TP3 + "\n", severity={"QL901": "error", "QL206": "info"})
    levels = {f.rule.id: f.level for f in result.findings}
    assert levels["QL901"] == "error" and levels["QL206"] == "info"


def test_meta_rule_is_listed_explained_and_its_example_holds():
    runner = CliRunner()
    assert "QL901  unused-suppression" in runner.invoke(main, ["rules"]).output
    explained = runner.invoke(main, ["explain", "unused-suppression"])
    assert explained.exit_code == 0 and "suppresses nothing" in explained.output
    assert runner.invoke(main, ["explain", "QL901", "--lang", "zh"]).exit_code == 0
    [example] = UNUSED_SUPPRESSION.examples
    settings = Settings(hardware=example.hardware, version=example.version)

    def flagged(text):
        return [f for f in lint_text("x.sh", text, settings=settings).findings if f.rule.id == "QL901"]

    bad = flagged(example.bad)
    assert len(bad) == 1 and not flagged(example.good)
    assert apply_edits(example.bad, fix_edits(bad))[0] == example.fixed
    assert not flagged(example.fixed)


def test_cli_flag_and_show_suppressed(tmp_path):
    path = tmp_path / "run.sh"
    path.write_text("# qlint: disable=QL206 -- TP 3 on purpose\n" + SERVE_TP3 + "\n")
    base = [str(path), "--hardware", "a3", "--vllm-ascend-version", "v0.23.0", "--select", "QL206,QL901"]
    runner = CliRunner()
    quiet = runner.invoke(main, base)
    assert quiet.exit_code == 0, quiet.output
    assert "1 suppressed" in quiet.output and "QL206" not in quiet.output
    shown = runner.invoke(main, base + ["--show-suppressed"])
    assert "QL206 [tp-divides-heads]" in shown.output and "(suppressed: TP 3 on purpose)" in shown.output
    assert shown.exit_code == 0
    central = runner.invoke(main, base + ["--no-inline-suppressions"])
    assert central.exit_code == 1 and "QL206" in central.output
