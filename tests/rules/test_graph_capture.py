"""ACLGraph capture rules QL401-QL404: the capture-size arithmetic, spans and advice-only fixes, and
no false alarms on the seed launch blocks (edge cases: tests/fixtures/rules/QL401-QL404.toml)."""

import json

import pytest

from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings
from qlint.rules.kit import default_capture_sizes, round_for_spec

from conftest import FIXTURES, lint, hits, fixed

MODEL = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8"


def spec(k, eager=True):
    extra = ', "enforce_eager": true' if eager else ""
    return f"--speculative-config '{{\"method\": \"mtp\", \"num_speculative_tokens\": {k}{extra}}}'"


def cc(sizes=None, mode="FULL_DECODE_ONLY", spaced=True):
    body = f'"cudagraph_mode": "{mode}"'
    if sizes is not None:
        body += ', "cudagraph_capture_sizes": ' + json.dumps(sizes, separators=(", " if spaced else ",", ": "))
    return f"--compilation-config '{{{body}}}'"


def test_default_capture_sizes_grid():
    assert default_capture_sizes(12, 2048) == [1, 2, 4, 8]
    assert default_capture_sizes(128, 2048)[-3:] == [112, 120, 128]
    assert default_capture_sizes(300, 2048)[-3:] == [256, 272, 288]
    assert default_capture_sizes(512, 2048)[-1] == 512
    assert default_capture_sizes(128, 100) == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 100]


def test_round_for_spec():
    assert round_for_spec([1, 8], 2) == [2, 8]
    assert round_for_spec([1, 8], 4) == [4, 8]
    assert round_for_spec([1, 5], 2) == [2]
    assert round_for_spec([1, 2, 3], 4) == []
    assert round_for_spec([1, 2, 4, 8], 1) == [1, 2, 4, 8]


def test_ql401_seed_001_310p_block():
    # seed 001 Atlas 300I: [1,8] with num_speculative_tokens 1 -> vLLM captures [2, 8]
    text = (FIXTURES / "seeds" / "s001_310p_qwen35_27b_w8a8.sh").read_text()
    [finding] = hits(text, "QL401", hardware="310p", version="v0.23.0rc1")
    assert finding.level == "warning"
    assert "[1, 8] to [2, 8]" in finding.message and "num_speculative_tokens 1" in finding.message
    assert finding.fix.safety == "safe"
    assert [e.text for e in finding.fix.edits] == ["[2,8]"]  # the seed writes [1,8] without spaces
    after = fixed(text, finding)
    assert '"cudagraph_capture_sizes": [2,8]}' in after
    assert not hits(after, "QL401", hardware="310p", version="v0.23.0rc1")


def test_ql401_no_size_left_is_an_error():
    [finding] = hits(f"{MODEL} {spec(3)} {cc([1, 2, 3])}\n", "QL401")
    assert finding.level == "error" and "3 + 1 = 4" in finding.message and "ValueError" in finding.message
    assert finding.fix.edits == [] and "[4, 8]" in finding.fix.description


def test_ql401_unmapped_json_gets_advice_only():
    # inside double quotes the JSON is escaped: no key span, so no edit that could clobber the option
    text = MODEL + " " + spec(1) + ' --compilation-config "{\\"cudagraph_capture_sizes\\": [1, 8]}"\n'
    [finding] = hits(text, "QL401")
    assert "[1, 8] to [2, 8]" in finding.message and finding.fix.edits == []


def test_ql402_points_at_the_overridden_mode():
    text = f"{MODEL} --enforce-eager {cc(mode='FULL_DECODE_ONLY')}\n"
    [finding] = hits(text, "QL402")
    assert finding.level == "warning" and "FULL_DECODE_ONLY" in finding.message
    assert text[finding.span.column - 1:finding.span.end_column - 1] == '"FULL_DECODE_ONLY"'
    assert finding.fix.edits == []


def test_ql403_double_quoted_json_gets_advice_only():
    text = MODEL + ' --speculative-config "{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": 1}"\n'
    [finding] = hits(text, "QL403")
    assert finding.fix.edits == []




SEED_CONTEXT = {
    "s000_a3_w8a8_single_node.sh": ("a3", "v0.22.1rc1"),
    "s001_a2a3_qwen35_27b_w8a8.sh": ("a3", "v0.22.1rc1"),
    "s001_a2a3_qwen36_27b_w8a8_262k.sh": ("a3", "v0.22.1rc1"),
    "s001_pd_decode_template.sh": ("a3", "v0.22.1rc1"),
    "s001_pd_prefill_template.sh": ("a3", "v0.22.1rc1"),
    "s003_a3_w8a8_single_node.sh": ("a3", "v0.20.2rc1"),
    "s003_pd_run_d0.sh": ("a3", "v0.20.2rc1"),
    "s003_pd_run_d1.sh": ("a3", "v0.20.2rc1"),
    "s003_pd_run_p.sh": ("a3", "v0.20.2rc1"),
}


@pytest.mark.parametrize("name", sorted(SEED_CONTEXT))
def test_seeds_raise_no_capture_findings(name):
    hardware, version = SEED_CONTEXT[name]
    result = lint_text(name, (FIXTURES / "seeds" / name).read_text(), settings=Settings(hardware, version))
    if result.error is not None:  # a shell-reader limitation, not this rule family's concern
        pytest.skip(f"{name}: {result.error.message}")
    assert not [f.message for f in result.findings if f.rule.id.startswith("QL40")]


def test_seed_310p_blocks_only_get_the_known_rounding_and_a_note():
    # the 310P blocks write [1,8] with MTP 1 (the tutorials' 310P example) and no draft enforce_eager
    for name in ("s001_310p_qwen35_27b_w8a8.sh", "s001_310p_qwen36_27b_w8a8.sh"):
        findings = lint((FIXTURES / "seeds" / name).read_text(), "310p", "v0.23.0rc1", path=name)
        assert sorted((f.rule.id, f.level) for f in findings if f.rule.id.startswith("QL40")) == [
            ("QL401", "warning"), ("QL403", "info")]
