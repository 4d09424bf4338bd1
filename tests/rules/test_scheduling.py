"""Scheduling / context rules QL301-QL304: advice-only fixes, the handed cases 10 and 13, and no
false alarms on the seed launch blocks (edge cases: tests/fixtures/rules/QL301-QL304.toml)."""

import pytest

from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings

from conftest import FIXTURES, SHARED, hits, fixed


def test_ql302_default_budget_is_stated():
    [finding] = hits("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 4096\n", "QL302")
    assert finding.level == "error" and "default max-num-batched-tokens 2048" in finding.message
    assert finding.fix.edits == []  # nothing to edit: the option is absent


def test_ql302_seed_003_decode_node_is_sized_right():
    assert not hits((FIXTURES / "seeds" / "s003_pd_run_d0.sh").read_text(), "QL302", version="v0.20.2rc1")


def test_case_13_ascend_scheduler_without_chunked_prefill():
    text = (SHARED / "cases" / "case-13.sh").read_text()
    [finding] = hits(text, "QL303")  # image v0.11.0rc1-a3: the ascend scheduler is still read
    assert finding.level == "error"
    assert "ascend_scheduler_config.enabled=true" in finding.message
    assert "(4096)" in finding.message and "(32768)" in finding.message and "ValueError" in finding.message
    assert "ascend_scheduler_config was removed in vllm-ascend v0.12.0rc1" in finding.message
    assert "raise --max-num-batched-tokens to >= 32768" in finding.fix.description
    assert "lower --max-model-len" in finding.fix.description and "8192" in finding.fix.description
    assert [e.text for e in finding.fix.edits] == ["32768"]
    after = fixed(text, finding)
    assert "--max-num-batched-tokens 32768 \\\n" in after
    assert not hits(after, "QL303")


def test_ql303_ascend_scheduler_ignored_after_its_removal():
    text = (SHARED / "cases" / "case-13.sh").read_text()
    assert not hits(text, "QL303", version="v0.12.0rc1")
    assert not hits(text, "QL303", version="v0.23.0")


def test_case_10_max_num_seqs_12_falls_between_8_and_16():
    text = (SHARED / "cases" / "case-10.sh").read_text()
    [finding] = hits(text, "QL304")
    assert finding.level == "warning"
    message = finding.message
    assert "--max-num-seqs 12" in message and "FULL_DECODE_ONLY" in message
    assert "(1,2,4, multiples of 8)" in message
    assert "stops at 8" in message and "9-12 run eager" in message
    assert "--max-num-seqs 8 or 16" in finding.fix.description
    assert "including 12 (e.g. [1,2,4,8,12])" in finding.fix.description
    assert finding.fix.safety == "unsafe" and [e.text for e in finding.fix.edits] == ["16"]
    after = fixed(text, finding)
    assert "--max-num-seqs 16 \\\n" in after
    assert not hits(after, "QL304")


SEED_CONTEXT = {
    "s000_a3_w8a8_single_node.sh": ("a3", "v0.22.1rc1"),
    "s001_a2a3_qwen35_27b_w8a8.sh": ("a3", "v0.22.1rc1"),
    "s001_a2a3_qwen36_27b_w8a8_262k.sh": ("a3", "v0.22.1rc1"),
    "s001_310p_qwen35_27b_w8a8.sh": ("310p", "v0.23.0rc1"),
    "s001_pd_decode_template.sh": ("a3", "v0.22.1rc1"),
    "s001_pd_prefill_template.sh": ("a3", "v0.22.1rc1"),
    "s003_a3_w8a8_single_node.sh": ("a3", "v0.20.2rc1"),
    "s003_pd_run_d0.sh": ("a3", "v0.20.2rc1"),
    "s003_pd_run_d1.sh": ("a3", "v0.20.2rc1"),
    "s003_pd_run_p.sh": ("a3", "v0.20.2rc1"),
}


@pytest.mark.parametrize("name", sorted(SEED_CONTEXT))
def test_seeds_raise_no_scheduling_findings(name):
    hardware, version = SEED_CONTEXT[name]
    result = lint_text(name, (FIXTURES / "seeds" / name).read_text(), settings=Settings(hardware, version))
    if result.error is not None:  # a shell-reader limitation, not this rule family's concern
        pytest.skip(f"{name}: {result.error.message}")
    assert not [f.message for f in result.findings if f.rule.id.startswith("QL30")]
