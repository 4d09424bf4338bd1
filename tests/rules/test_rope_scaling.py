"""--hf-overrides RoPE scaling raises the context limit (rules/rope_scaling.py, QL301)."""

import json

import pytest

from conftest import lint, serve_facts


def ql301(text, hardware="a3", version="main"):
    return [f for f in lint(text, hardware, version) if f.rule.id == "QL301"]


def overrides(data) -> str:
    return f"--hf-overrides '{json.dumps(data)}'"


# the weekly million-token run: tests/e2e/weekly/multi_node/external_dp/config/Qwen3.5-397B-w4a8_986k-function-PD.yaml
QWEN35_YARN = {"text_config": {"rope_parameters": {
    "mrope_interleaved": True, "mrope_section": [11, 11, 10], "rope_type": "yarn", "rope_theta": 10000000,
    "partial_rotary_factor": 0.25, "factor": 4.0, "original_max_position_embeddings": 262144}}}
QWEN35 = "vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --tensor-parallel-size 16 --enable-expert-parallel --max-num-seqs 4"


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_yarn_extends_the_limit(version):
    assert not ql301(f"{QWEN35} --max-model-len 1010000 {overrides(QWEN35_YARN)}\n", version=version)
    assert not ql301(f"{QWEN35} --max-model-len 1048576 {overrides(QWEN35_YARN)}\n", version=version)


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_beyond_the_scaled_limit_still_fails(version):
    found = ql301(f"{QWEN35} --max-model-len 1048577 {overrides(QWEN35_YARN)}\n", version=version)
    assert len(found) == 1 and found[0].level == "error"
    assert "above the 1048576 maximum" in found[0].message
    assert "original_max_position_embeddings 262144 x factor 4" in found[0].message
    assert [e.text for e in found[0].fix.edits] == ["1048576"]


def test_without_overrides_the_checkpoint_limit_holds():
    found = ql301(f"{QWEN35} --max-model-len 1010000\n")
    assert len(found) == 1 and "above the 262144 maximum of Qwen3.5-397B-A17B:" in found[0].message


QWEN3 = "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4"


@pytest.mark.parametrize("key", ["rope_parameters", "rope_scaling"])
def test_both_spellings_at_top_level(key):
    # Qwen3-30B-A3B.md (main) L615: yarn factor 4 over 32768 -> 131072; config max is 40960
    spec = {key: {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}}
    assert not ql301(f"{QWEN3} --max-model-len 131072 {overrides(spec)}\n", "a2", "v0.23.0")
    found = ql301(f"{QWEN3} --max-model-len 131073 {overrides(spec)}\n", "a2", "v0.23.0")
    assert len(found) == 1 and "131072" in found[0].message
    assert ql301(f"{QWEN3} --max-model-len 131072\n", "a2", "v0.23.0")  # 40960 without the override


def test_legacy_type_key_and_other_scalings():
    legacy = {"rope_scaling": {"type": "yarn", "factor": 2, "original_max_position_embeddings": 32768}}
    assert not ql301(f"{QWEN3} --max-model-len 65536 {overrides(legacy)}\n", "a2", "v0.23.0")
    dynamic = {"rope_scaling": {"rope_type": "dynamic", "factor": 2}}  # multiplies max_position_embeddings 40960
    assert not ql301(f"{QWEN3} --max-model-len 81920 {overrides(dynamic)}\n", "a2", "v0.23.0")
    assert ql301(f"{QWEN3} --max-model-len 81921 {overrides(dynamic)}\n", "a2", "v0.23.0")
    llama3 = {"rope_scaling": {"rope_type": "llama3", "factor": 8}}  # vLLM does not scale the length
    assert ql301(f"{QWEN3} --max-model-len 81920 {overrides(llama3)}\n", "a2", "v0.23.0")


def test_yarn_without_original_length_is_unknown_not_an_error():
    spec = {"rope_parameters": {"rope_type": "yarn", "factor": 4}}
    assert not ql301(f"{QWEN3} --max-model-len 131072 {overrides(spec)}\n", "a2", "v0.23.0")


def test_default_context_follows_the_scaled_limit():
    spec = {"rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}}
    found = serve_facts(f"{QWEN3} {overrides(spec)}\n", "context_limit", "model_len_limit", hardware="a2", version="v0.23.0")
    assert found["context_limit"].value == 131072 and found["model_len_limit"].value == 131072


def test_rope_parameters_is_ignored_before_vllm_0_12():
    # releases.toml pairs v0.11.0rc1 with vLLM 0.11.0, which reads rope_scaling only
    spec = {"rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}}
    found = ql301(f"{QWEN3} --max-model-len 131072 {overrides(spec)}\n", "a2", "v0.11.0rc1")
    assert len(found) == 1 and "above the 40960 maximum" in found[0].message
    assert "reads rope_scaling, not rope_parameters" in found[0].message
    legacy = {"rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}}
    assert not ql301(f"{QWEN3} --max-model-len 131072 {overrides(legacy)}\n", "a2", "v0.11.0rc1")
    assert not ql301(f"{QWEN3} --max-model-len 131072 {overrides(spec)}\n", "a2", "v0.17.0rc1")


def test_tutorial_yarn_block_past_the_scaled_limit():
    # Qwen3-235B-A22B.md at v0.20.2rc1 asked for 133000 over yarn 4 x 32768 = 131072; the docs
    # changed it to 131072 (pull 11139), as vLLM raises ValueError above the scaled limit
    spec = {"rope_parameters": {"rope_type": "yarn", "rope_theta": 1000000, "factor": 4,
                                "original_max_position_embeddings": 32768}}
    text = f"vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 8 --max-model-len 133000 {overrides(spec)}\n"
    assert len(ql301(text, "a2", "v0.20.2rc1")) == 1
