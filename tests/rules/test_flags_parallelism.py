"""QL106 and QL203 behaviour found while linting vllm-ascend's tutorials (issue 3 item 8).

Each case is a false alarm seen on a tutorial block (named in the test) plus the
neighbouring true positive that must stay.
"""

import pytest

from conftest import hits

MODEL = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 "


# -- QL106: human-readable integers (vLLM human_readable_int / _or_auto) ----------------

@pytest.mark.parametrize("option", [
    "--kv-cache-memory-bytes 2816M",  # Dots3-Note.md @ main
    "--kv-cache-memory-bytes 4G",
    "--max-num-batched-tokens 16k",
    "--max-num-batched-tokens 25.6k",
    "--max-model-len 128K",
    "--max-model-len auto",
    "--max-model-len -1",
])
def test_ql106_accepts_human_readable_ints(option):
    assert not hits(MODEL + option + "\n", "QL106")


@pytest.mark.parametrize("option", [
    "--max-num-seqs 16k",  # plain int: no suffixes
    "--max-model-len 1.5K",  # binary suffixes take no decimals
    "--kv-cache-memory-bytes 4GB",
    "--port 0.9",
])
def test_ql106_still_rejects_other_ints(option):
    [finding] = hits(MODEL + option + "\n", "QL106")
    assert finding.level == "error"


# -- QL106: --additional-config keys are read with dict.get, not validated ----------------

def test_ql106_true_string_in_bool_key_is_info():
    # DeepSeek-V3.1.md / GLM5.md: "enable_cpu_binding": "True"
    text = MODEL + "--additional-config '{\"enable_cpu_binding\": \"True\"}'\n"
    [finding] = hits(text, "QL106")
    assert finding.level == "info"
    assert "works" in finding.message


def test_ql106_false_string_in_bool_key_stays_error():
    text = MODEL + "--additional-config '{\"multistream_overlap_shared_expert\": \"False\"}'\n"
    [finding] = hits(text, "QL106")
    assert finding.level == "error"
    assert "turns multistream_overlap_shared_expert on" in finding.message


def test_ql106_json_bool_in_int_key_is_info():
    # MiniMax-M2.md: "enable_fused_mc2": true, "weight_nz_mode": true (True == 1 in Python)
    text = MODEL + "--additional-config '{\"enable_fused_mc2\": true, \"weight_nz_mode\": true}'\n"
    findings = hits(text, "QL106")
    assert len(findings) == 2
    assert {f.level for f in findings} == {"info"}


def test_ql106_closed_sub_config_type_still_error():
    text = MODEL + "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": \"three\"}'\n"
    assert [f.level for f in hits(text, "QL106")] == ["error"]


# -- QL203: workers spread over nodes ---------------------------------------------------

RAY = "vllm serve Qwen/Qwen3-235B-A22B --distributed-executor-backend ray --tensor-parallel-size 16 --enable-expert-parallel\n"


def test_ql203_ray_backend_spans_nodes():
    # features/ray.md: TP 16 (or TP 8 x PP 2) over two 8-NPU nodes with Ray
    assert not hits(RAY, "QL203", hardware="a2")
    assert not hits(RAY.replace("--tensor-parallel-size 16", "--pipeline-parallel-size 2 --tensor-parallel-size 8"),
                    "QL203", hardware="a2")


def test_ql203_mp_without_ray_still_reported():
    assert hits(RAY.replace("--distributed-executor-backend ray ", ""), "QL203", hardware="a2")


def test_ql203_nnodes_divides_the_world():
    text = "vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 --nnodes 2 --node-rank 0 --master-addr 10.0.0.1\n"
    assert not hits(text, "QL203", hardware="a2")
    assert hits(text.replace("--nnodes 2", "--nnodes 1"), "QL203", hardware="a2")
    assert hits(text.replace("--tensor-parallel-size 16", "--tensor-parallel-size 32"), "QL203", hardware="a2")
