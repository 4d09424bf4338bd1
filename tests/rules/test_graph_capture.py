"""ACLGraph capture rules QL401-QL404: behaviour beyond the rule examples, the
capture-size arithmetic, and no false alarms on the seed launch blocks."""

import json

import pytest

from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings
from qlint.rules.kit import default_capture_sizes, round_for_spec

from conftest import FIXTURES, lint, hits, fixed

MODEL = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8"
MOE = "vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8"


def spec(k, eager=True):
    extra = ', "enforce_eager": true' if eager else ""
    return f"--speculative-config '{{\"method\": \"mtp\", \"num_speculative_tokens\": {k}{extra}}}'"


def cc(sizes=None, mode="FULL_DECODE_ONLY", spaced=True):
    body = f'"cudagraph_mode": "{mode}"'
    if sizes is not None:
        body += ', "cudagraph_capture_sizes": ' + json.dumps(sizes, separators=(", " if spaced else ",", ": "))
    return f"--compilation-config '{{{body}}}'"


# -- arithmetic (mirrors vLLM 0.23.0 / vllm-ascend v0.23.0) ------------------------

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


# -- QL401 capture-sizes-not-multiple-of-spec -------------------------------------

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


@pytest.mark.parametrize("k,sizes,rounded", [
    (3, [1, 8], [4, 8]),
    (3, [1, 2, 4, 8, 16, 24, 32], [4, 8, 16, 24, 32]),
    (2, [4, 8, 16], [6, 9]),  # 16 -> 18 is above the largest size and is dropped
    (1, [1, 5], [2]),
])
def test_ql401_rounding_is_reported(k, sizes, rounded):
    text = f"{MODEL} {spec(k)} {cc(sizes)}\n"
    [finding] = hits(text, "QL401")
    assert f"to {json.dumps(rounded, separators=(', ', ': '))}" in finding.message
    assert json.loads(fixed(text, finding).split("--compilation-config '")[1].rstrip("'\n"))[
        "cudagraph_capture_sizes"] == rounded


def test_ql401_no_size_left_is_an_error():
    [finding] = hits(f"{MODEL} {spec(3)} {cc([1, 2, 3])}\n", "QL401")
    assert finding.level == "error" and "3 + 1 = 4" in finding.message and "ValueError" in finding.message
    assert finding.fix.edits == [] and "[4, 8]" in finding.fix.description


def test_ql401_sizes_above_the_token_budget_are_named():
    text = f"{MODEL} --max-num-batched-tokens 2048 {spec(1)} {cc([1, 8, 4096])}\n"
    [finding] = hits(text, "QL401")
    assert "[1, 8, 4096] to [2, 8]" in finding.message and "(4096)" in finding.message


def test_ql401_unmapped_json_gets_advice_only():
    # inside double quotes the JSON is escaped: no key span, so no edit that could clobber the option
    text = MODEL + " " + spec(1) + ' --compilation-config "{\\"cudagraph_capture_sizes\\": [1, 8]}"\n'
    [finding] = hits(text, "QL401")
    assert "[1, 8] to [2, 8]" in finding.message and finding.fix.edits == []


@pytest.mark.parametrize("text", [
    f"{MODEL} {spec(3)} {cc([4, 8, 16, 32])}\n",  # already n x (k+1)
    f"{MODEL} {spec(3)} {cc([1, 8], mode='PIECEWISE')}\n",  # no FULL decode graphs
    f"{MODEL} {cc([1, 8])}\n",  # no speculative decoding
    f"{MODEL} {spec(3)} {cc()}\n",  # default sizes
])
def test_ql401_quiet(text):
    assert not hits(text, "QL401")


# -- QL402 enforce-eager-overrides-graph -------------------------------------------

def test_ql402_points_at_the_overridden_mode():
    text = f"{MODEL} --enforce-eager {cc(mode='FULL_DECODE_ONLY')}\n"
    [finding] = hits(text, "QL402")
    assert finding.level == "warning" and "FULL_DECODE_ONLY" in finding.message
    assert text[finding.span.column - 1:finding.span.end_column - 1] == '"FULL_DECODE_ONLY"'
    assert finding.fix.edits == []
    assert hits(f"{MODEL} --enforce-eager {cc(mode='piecewise')}\n", "QL402")


@pytest.mark.parametrize("text", [
    f"{MODEL} --enforce-eager {cc(mode='NONE')}\n",
    f"{MODEL} --enforce-eager\n",
    f"{MODEL} {cc(mode='FULL_DECODE_ONLY')}\n",
])
def test_ql402_quiet(text):
    assert not hits(text, "QL402")


# -- QL403 spec-decode-eager-draft --------------------------------------------------

def test_ql403_inserts_enforce_eager_into_the_json():
    text = f"{MODEL} {spec(1, eager=False)} {cc([2, 8])}\n"
    [finding] = hits(text, "QL403")
    assert finding.level == "info" and "FULL_DECODE_ONLY" in finding.message
    after = fixed(text, finding)
    config = json.loads(after.split("--speculative-config '")[1].split("'")[0])
    assert config == {"method": "mtp", "num_speculative_tokens": 1, "enforce_eager": True}
    assert not hits(after, "QL403")


def test_ql403_double_quoted_json_gets_advice_only():
    text = MODEL + ' --speculative-config "{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": 1}"\n'
    [finding] = hits(text, "QL403")
    assert finding.fix.edits == []


@pytest.mark.parametrize("text", [
    f"{MODEL} {spec(1)}\n",
    MODEL + " --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1, \"enforce_eager\": false}'\n",
    f"{MODEL} --enforce-eager {spec(1, eager=False)}\n",
    f"{MODEL} {spec(1, eager=False)} {cc(mode='NONE')}\n",
])
def test_ql403_quiet(text):
    assert not hits(text, "QL403")


# -- QL404 flashcomm1-constraints ----------------------------------------------------

FC_ENV = "export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\n"
FC_KEY = "--additional-config '{\"enable_flashcomm1\": true}'"


def test_ql404_tp1_is_an_error():
    [finding] = hits(f"{FC_ENV}{MODEL} --tensor-parallel-size 1\n", "QL404", version="v0.23.0")
    assert finding.level == "error"
    assert "VLLM_ASCEND_ENABLE_FLASHCOMM1=1" in finding.message and "tp_size > 1" in finding.message
    assert "v0.23.0" in finding.message
    [keyed] = hits(f"{MODEL} {FC_KEY}\n", "QL404", version="v0.22.1rc1")  # TP defaults to 1
    assert "enable_flashcomm1=true" in keyed.message and "v0.22.1rc1" in keyed.message


def test_ql404_additional_config_wins_over_env():
    text = f"{FC_ENV}{MODEL} --additional-config '{{\"enable_flashcomm1\": false}}'\n"
    assert not hits(text, "QL404", version="v0.23.0")
    assert not hits(f"export VLLM_ASCEND_ENABLE_FLASHCOMM1=0\n{MODEL}\n", "QL404", version="v0.23.0")


def test_ql404_moe_needs_expert_parallel():
    [finding] = hits(f"{MOE} -tp 2 {FC_KEY}\n", "QL404", version="v0.23.0")
    assert "enable_expert_parallel" in finding.message and finding.level == "error"
    assert not hits(f"{MOE} -tp 2 --enable-expert-parallel {FC_KEY}\n", "QL404", version="v0.23.0")
    assert not hits(f"{MODEL} -tp 2 {FC_KEY}\n", "QL404", version="v0.23.0")  # dense: no EP needed


def test_ql404_capture_sizes_must_be_multiples_of_tp():
    text = f"{MODEL} -tp 4 {cc([1, 2, 4, 8, 12])} {FC_KEY}\n"
    [finding] = hits(text, "QL404", version="v0.23.0")
    assert finding.level == "warning"
    assert "[1, 2]" in finding.message and "[4, 8, 12]" in finding.message and "TP 4" in finding.message
    [none_left] = hits(f"{MODEL} -tp 4 {cc([1, 2, 3])} {FC_KEY}\n", "QL404", version="v0.23.0")
    assert none_left.level == "error" and "AssertionError" in none_left.message
    assert not hits(f"{MODEL} -tp 4 {cc([4, 8, 16])} {FC_KEY}\n", "QL404", version="v0.23.0")
    assert not hits(f"{MODEL} -tp 4 --enforce-eager {cc([1, 2, 3], mode='NONE')} {FC_KEY}\n", "QL404",
                    version="v0.23.0")


def test_ql404_on_main_is_only_a_note():
    for text in (f"{MODEL} {FC_KEY}\n", f"{FC_ENV}{MODEL}\n", f"export VLLM_ASCEND_ENABLE_FLASHCOMM1=0\n{MODEL}\n"):
        [finding] = hits(text, "QL404", version="main")
        assert finding.level == "info" and "ignored on main" in finding.message


# -- seeds: no false alarm where the seed is right --------------------------------

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
