"""Scheduling / context rules QL301-QL304: behaviour beyond the rule examples,
the handed cases 10 and 13, and no false alarms on the seed launch blocks."""

import pytest

from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings

from conftest import FIXTURES, SHARED, hits, fixed

MTP3 = "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3, \"enforce_eager\": true}'"
FDO = "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'"


# -- QL301 max-model-len-above-model-max ----------------------------------------

def test_ql301_seed_001_long_context_row():
    # seed 001 table 2: --max-model-len 266000 for Qwen3.6-27B, whose maximum is 262144
    text = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 8 --data-parallel-size 2 --max-model-len 266000\n"
    [finding] = hits(text, "QL301")
    assert finding.level == "error"
    assert "266000" in finding.message and "262144" in finding.message and "ValueError" in finding.message
    assert finding.fix.safety == "unsafe"
    assert "--max-model-len 262144" in fixed(text, finding)
    assert not hits(fixed(text, finding), "QL301")


@pytest.mark.parametrize("env", ["export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n", "export VLLM_ALLOW_LONG_MAX_MODEL_LEN=true\n"])
def test_ql301_allow_long_env_downgrades_to_warning(env):
    [finding] = hits(env + "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 300000\n", "QL301")
    assert finding.level == "warning"
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" in finding.message


def test_ql301_prefix_env_counts_and_zero_does_not():
    prefixed = "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 300000\n"
    assert [f.level for f in hits(prefixed, "QL301")] == ["warning"]
    zero = "export VLLM_ALLOW_LONG_MAX_MODEL_LEN=0\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 300000\n"
    assert [f.level for f in hits(zero, "QL301")] == ["error"]


def test_ql301_other_models_and_bounds():
    [finding] = hits("vllm serve /models/Qwen3-30B-A3B --max-model-len 65536\n", "QL301")
    assert "40960" in finding.message
    assert not hits("vllm serve /models/Qwen3-30B-A3B --max-model-len 40960\n", "QL301")
    assert not hits("vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --max-model-len 262144\n", "QL301")


def test_ql301_skips_symbolic_and_unknown_models():
    assert not hits("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len $LEN\n", "QL301")
    assert not hits("vllm serve /models/SomethingElse-7B --max-model-len 999999\n", "QL301")


# -- QL302 batched-tokens-below-decode-need --------------------------------------

def test_ql302_below_max_num_seqs_is_an_error():
    text = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 256 --max-num-batched-tokens 128\n"
    [finding] = hits(text, "QL302")
    assert finding.level == "error"
    assert "128" in finding.message and "256" in finding.message
    assert "--max-num-batched-tokens 256" in fixed(text, finding)


def test_ql302_mtp_decode_need_is_a_warning():
    text = f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 32 --max-num-batched-tokens 100 {MTP3}\n"
    [finding] = hits(text, "QL302")
    assert finding.level == "warning"
    assert "32 x 4 = 128" in finding.message
    assert "--max-num-batched-tokens 128" in fixed(text, finding)
    assert not hits(fixed(text, finding), "QL302")


def test_ql302_default_budget_is_stated():
    [finding] = hits("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 4096\n", "QL302")
    assert finding.level == "error" and "default max-num-batched-tokens 2048" in finding.message
    assert finding.fix.edits == []  # nothing to edit: the option is absent
    [warned] = hits(f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 1024 {MTP3}\n", "QL302")
    assert warned.level == "warning" and "1024 x 4 = 4096" in warned.message


def test_ql302_default_without_chunked_prefill_is_not_guessed():
    text = "vllm serve /models/SomethingElse-7B --max-num-seqs 4096 --no-enable-chunked-prefill\n"
    assert not hits(text, "QL302")


def test_ql302_seed_003_decode_node_is_sized_right():
    assert not hits((FIXTURES / "seeds" / "s003_pd_run_d0.sh").read_text(), "QL302", version="v0.20.2rc1")


# -- QL303 batched-tokens-below-model-len ----------------------------------------

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


def test_ql303_ascend_scheduler_with_its_own_chunked_prefill_is_fine():
    text = ("# qlint: vllm-ascend=v0.11.0rc1\nvllm serve /models/DeepSeek-V3.1-W8A8 --max-model-len 32768 "
            "--max-num-batched-tokens 4096 --additional-config "
            "'{\"ascend_scheduler_config\": {\"enabled\": true, \"enable_chunked_prefill\": true}}'\n")
    assert not hits(text, "QL303")
    disabled = text.replace('"enabled": true, ', '"enabled": false, ')
    assert not hits(disabled, "QL303")


def test_ql303_vllm_switch_and_model_maximum():
    text = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-batched-tokens 8192 --no-enable-chunked-prefill\n"
    [finding] = hits(text, "QL303")
    assert "--no-enable-chunked-prefill" in finding.message
    assert "262144" in finding.message and "note" not in finding.message
    explicit = "vllm serve /models/Qwen3-30B-A3B --max-model-len 16384 --max-num-batched-tokens 16384 --no-enable-chunked-prefill\n"
    assert not hits(explicit, "QL303")


def test_ql303_only_explicit_budgets_are_checked():
    # vLLM raises its own default to max_model_len when chunked prefill is off
    assert not hits("vllm serve /models/Qwen3-30B-A3B --max-model-len 32768 --no-enable-chunked-prefill\n", "QL303")
    # chunked prefill on (default): a small budget is fine
    assert not hits("vllm serve /models/Qwen3-30B-A3B --max-model-len 32768 --max-num-batched-tokens 4096\n", "QL303")


# -- QL304 max-num-seqs-off-capture-grid -----------------------------------------

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


@pytest.mark.parametrize("seqs,stop,batches,choices", [
    (20, "16", "17-20", "16 or 24"),
    (5, "4", "5-5", "4 or 8"),
    (300, "288", "289-300", "288 or 304"),
])
def test_ql304_other_sizes(seqs, stop, batches, choices):
    [finding] = hits(f"vllm serve /models/Qwen3-30B-A3B --max-num-seqs {seqs} {FDO}\n", "QL304")
    assert f"stops at {stop}" in finding.message and f"{batches} run eager" in finding.message
    assert choices in finding.fix.description


@pytest.mark.parametrize("seqs", [1, 2, 4, 8, 16, 24, 128, 256, 512])
def test_ql304_grid_values_are_quiet(seqs):
    assert not hits(f"vllm serve /models/Qwen3-30B-A3B --max-num-seqs {seqs} {FDO}\n", "QL304")


def test_ql304_with_mtp_counts_tokens():
    mtp2 = "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 2, \"enforce_eager\": true}'"
    [finding] = hits(f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 10 {mtp2} {FDO}\n", "QL304")
    assert "10 x (1 + 2 speculative tokens) = 30 tokens" in finding.message
    assert "stops at 24 tokens (8 requests)" in finding.message and "9-10 run eager" in finding.message
    # seeds 001/003: 32 requests x 4 tokens = 128 is on the grid
    assert not hits(f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 32 {MTP3} {FDO}\n", "QL304")
    # 12 x 2 = 24 is on the grid even though 12 alone is not
    mtp1 = mtp2.replace('"num_speculative_tokens": 2', '"num_speculative_tokens": 1')
    assert not hits(f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 12 {mtp1} {FDO}\n", "QL304")


def test_ql304_default_graph_mode_counts_too():
    [finding] = hits("vllm serve /models/Qwen3-30B-A3B --max-num-seqs 12\n", "QL304")
    assert "FULL_AND_PIECEWISE" in finding.message


@pytest.mark.parametrize("extra", [
    "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 2, 4, 8, 12]}'",
    "--compilation-config '{\"cudagraph_mode\": \"PIECEWISE\"}'",
    "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"max_cudagraph_capture_size\": 16}'",
    "--enforce-eager",
    "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}' " + FDO,
])
def test_ql304_quiet_when_the_default_list_is_not_used(extra):
    assert not hits(f"vllm serve /models/Qwen3-30B-A3B --max-num-seqs 12 {extra}\n", "QL304")


def test_ql304_needs_the_ascend_default_cap():
    # before v0.18.0rc1 vllm-ascend sized the default list differently
    text = f"vllm serve /models/Qwen3-30B-A3B --max-num-seqs 12 {FDO}\n"
    assert not hits(text, "QL304", version="v0.17.0rc1")
    assert hits(text, "QL304", version="v0.18.0rc1")


def test_ql304_batches_beyond_the_512_cap_are_by_design():
    assert not hits(f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 200 {MTP3} {FDO}\n", "QL304")


# -- seeds: no false alarm where the seed is right --------------------------------

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
