"""Model families added from vllm-ascend's supported-models page and tutorials: every fact a
rule reads has a launch that fails on it and one that passes (rules skip unknown facts)."""

import pytest

from conftest import hits_at
from qlint.knowledge.base import load


hits = hits_at("a3", "main")


@pytest.mark.parametrize("reference,model_id", [
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen3-Next-80B-A3B"),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "Qwen3-Coder-30B-A3B"),
    ("Eco-Tech/Qwen3-8B-w8a8sc-310-vllm", "Qwen3-8B"),
    ("Qwen/Qwen3.5-9B", "Qwen3.5-9B"),
    ("Eco-Tech/Qwen3.5-122B-A10B-w4a8", "Qwen3.5-122B-A10B"),
    ("Eco-Tech/Qwen3.8-27B-w8a8", "Qwen3.8-27B"),
    ("Eco-Tech/Qwen3.8-2.4T-A95B-w4a8", "Qwen3.8-2.4T-A95B"),
    ("Qwen/Qwen3-VL-30B-A3B-Instruct", "Qwen3-VL-30B-A3B"),
    ("Qwen/Qwen3-VL-8B-Instruct", "Qwen3-VL-8B"),
    ("vllm-ascend/DeepSeek-V3.2-Exp-W8A8", "DeepSeek-V3.2"),
    ("/models/DeepSeek-V3.1-W8A8", "DeepSeek-V3.1"),  # the longer id wins over DeepSeek-V3
    ("Eco-Tech/DeepSeek-V4-Pro-w4a8-mtp", "DeepSeek-V4-Pro"),
    ("ZhipuAI/GLM-4.5", "GLM-4.5"),
    ("Eco-Tech/GLM-4.7-W8A8-floatmtp", "GLM-4.7"),
    ("Eco-Tech/GLM-5.2-w4a8c8", "GLM-5.2"),
    ("moonshotai/Kimi-K2-Thinking", "Kimi-K2"),
    ("Eco-Tech/Kimi-K2.6-W4A8", "Kimi-K2.6"),
    ("Eco-Tech/MiniMax-M2.5-w8a8-QuaRot", "MiniMax-M2.5"),
    ("Eco-Tech/MiniMax-M3-w8a8-0626", "MiniMax-M3"),
    ("unsloth/gpt-oss-120b-BF16", "gpt-oss-120b"),
])
def test_tutorial_checkpoints_resolve(reference, model_id):
    match = load().match_model(reference)
    assert match is not None and match.model.id == model_id


def test_families_before_and_after():
    families = {m.family for m in load().models}
    assert {"Qwen3-Next", "Qwen3.8", "Qwen3-VL", "GLM-4.x", "GLM-5", "Kimi-K2", "MiniMax-M2", "MiniMax-M3",
            "gpt-oss", "DeepSeek-V4"} <= families


# -- heads: QL206 ---------------------------------------------------------------------

@pytest.mark.parametrize("model,bad,good", [
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", 3, 2),  # 16 heads / 2 KV heads
    ("ZhipuAI/GLM-4.5", 3, 8),  # 96 heads / 8 KV heads
    ("Eco-Tech/MiniMax-M3-w8a8-0626", 3, 4),  # 64 / 4
])
@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_tp_must_divide_heads(model, bad, good, version):
    assert hits(f"vllm serve {model} --tensor-parallel-size {bad}\n", "QL206", version=version)
    assert not hits(f"vllm serve {model} --tensor-parallel-size {good}\n", "QL206", version=version)


# -- experts: QL207 -------------------------------------------------------------------

@pytest.mark.parametrize("model,experts", [("moonshotai/Kimi-K2-Thinking", 384), ("ZhipuAI/GLM-4.5", 160),
                                           ("Qwen/Qwen3-Next-80B-A3B-Instruct", 512)])
def test_ep_must_divide_routed_experts(model, experts):
    bad = f"vllm serve {model} --tensor-parallel-size 1 --data-parallel-size 7 --enable-expert-parallel\n"
    good = f"vllm serve {model} --tensor-parallel-size 1 --data-parallel-size 16 --enable-expert-parallel\n"
    found = hits(bad, "QL207")
    assert found and str(experts) in found[0].message
    assert not hits(good, "QL207")


# -- context length: QL301 -------------------------------------------------------------

@pytest.mark.parametrize("model,limit", [
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", 262144),
    ("Eco-Tech/Qwen3.8-27B-w8a8", 262144),
    ("Eco-Tech/Kimi-K2.6-W4A8", 262144),
    ("Eco-Tech/MiniMax-M3-w8a8-0626", 524288),
    ("vllm-ascend/DeepSeek-V3.2-Exp-W8A8", 163840),
    ("Eco-Tech/DeepSeek-V4-Pro-w4a8-mtp", 1048576),
    ("Qwen/Qwen3-VL-235B-A22B-Instruct", 262144),
])
def test_max_model_len_against_the_model(model, limit):
    base = f"vllm serve {model} --tensor-parallel-size 16 --max-num-seqs 4"
    found = hits(f"{base} --max-model-len {limit + 1}\n", "QL301")
    assert len(found) == 1 and f"above the {limit} maximum" in found[0].message
    assert not hits(f"{base} --max-model-len {limit}\n", "QL301")


def test_coder_yarn_to_one_million_passes():
    # Qwen3-Coder-30B-A3B.md L567 (main)
    text = ("vllm serve Qwen/Qwen3-Coder-30B-A3B-Instruct --tensor-parallel-size 4 --max-model-len 1048576 "
            "--hf-overrides '{\"rope_parameters\": {\"rope_type\":\"yarn\",\"factor\":4,"
            "\"original_max_position_embeddings\":262144}}'\n")
    assert not hits(text, "QL301", "a2", "v0.23.0")


def test_unknown_length_is_not_guessed():
    # Qwen3-235B-A22B: no source states max_position_embeddings, so long launches pass QL301
    assert not hits("vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 --max-model-len 135000\n", "QL301")


# -- first release: QL511 ---------------------------------------------------------------

def test_first_release_of_new_families():
    qwen38 = "vllm serve Eco-Tech/Qwen3.8-27B-w8a8 --tensor-parallel-size 2\n"
    assert hits(qwen38, "QL511", "a2", "v0.22.1rc1") and not hits(qwen38, "QL511", "a2", "v0.23.0")
    next80 = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4\n"
    assert hits(next80, "QL511", "a2", "v0.10.1rc1") and not hits(next80, "QL511", "a2", "v0.10.2rc1")
    glm5 = "vllm serve ZhipuAI/GLM-5 --tensor-parallel-size 16 --enable-expert-parallel\n"
    assert hits(glm5, "QL511", "a3", "v0.16.0rc1") and not hits(glm5, "QL511", "a3", "v0.17.0rc1")


# -- MoE / dense: QL202; hybrid: is_hybrid ------------------------------------------------

def test_dense_families_reject_expert_parallel():
    assert hits("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --enable-expert-parallel\n", "QL202")
    assert not hits("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 2 "
                    "--enable-expert-parallel\n", "QL202")


def test_hybrid_long_context_default_seqs():
    # QL313 reads is_hybrid: Qwen3.8-27B is a GDN hybrid, Qwen3-Coder is not
    assert hits("vllm serve Eco-Tech/Qwen3.8-27B-w8a8 --tensor-parallel-size 2 --max-model-len 262144\n", "QL313")
    assert not hits("vllm serve Qwen/Qwen3-Coder-30B-A3B-Instruct --tensor-parallel-size 2 "
                    "--max-model-len 262144\n", "QL313")


# -- weights: QL310 ----------------------------------------------------------------------

def test_qwen38_flagship_weights():
    bf16 = "vllm serve Qwen/Qwen3.8-2.4T-A95B --tensor-parallel-size 16 --enable-expert-parallel\n"
    found = hits(bf16, "QL310")
    assert found and "4890.0 GB" in found[0].message
    w8a8 = ("vllm serve Eco-Tech/Qwen3.8-2.4T-A95B-w8a8 --tensor-parallel-size 16 --data-parallel-size 4 "
            "--enable-expert-parallel\n")
    assert not hits(w8a8, "QL310")


def test_minimax_m3_disagreement_is_recorded():
    model = load().model("MiniMax-M3")
    assert model.max_model_len == 524288 and "524288" in model.disagreement.en and "1M" in model.disagreement.en


@pytest.mark.parametrize("reference", ["mistralai/Mixtral-8x7B-Instruct-v0.1", "tencent/Hy3-preview",
                                       "Qwen/Qwen3-Omni-30B-A3B-Thinking", "Tencent-Hunyuan/Hunyuan-A13B-Instruct"])
def test_moe_tutorial_models_take_expert_parallel(reference):
    text = f"vllm serve {reference} --tensor-parallel-size 2 --enable-expert-parallel\n"
    assert not hits(text, "QL202") and not hits(text, "QL314")


@pytest.mark.parametrize("reference", ["Qwen/Qwen3-Embedding-8B", "CohereLabs/cohere-transcribe-03-2026"])
def test_dense_tutorial_models_reject_expert_parallel(reference):
    assert hits(f"vllm serve {reference} --tensor-parallel-size 2 --enable-expert-parallel\n", "QL202")


def test_mixtral_experts():
    assert hits("vllm serve mistralai/Mixtral-8x7B-Instruct-v0.1 --data-parallel-size 3 --enable-expert-parallel\n",
                "QL207")
    assert not hits("vllm serve mistralai/Mixtral-8x7B-Instruct-v0.1 --data-parallel-size 4 "
                    "--enable-expert-parallel\n", "QL207")


@pytest.mark.parametrize("reference,model_id", [
    ("/root/.cache/modelscope/hub/models/vllm-ascend/GLM5-w8a8", "GLM-5"),  # GLM5.md serves this path
    ("/models/Qwen3_6-27B-w8a8", "Qwen3.6-27B"),
    ("Qwen3-52B", None),  # a dot is not dropped: not Qwen3.5-2B
])
def test_names_without_dashes(reference, model_id):
    match = load().match_model(reference)
    assert (match.model.id if match else None) == model_id
