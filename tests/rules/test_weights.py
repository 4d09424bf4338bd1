"""Weight formats (knowledge/data/weight_formats.toml, rules/weights.py): names, local
quant descriptions, the QL508/QL509/QL310 behaviour on W4A8/W4A4/W8A8C8/FP8 checkpoints,
and QL514 (format without kernels on the hardware); script-only edge cases are in tests/fixtures/rules."""

import json

import pytest

from conftest import lint, hits_at

hits = hits_at("a2", "v0.23.0")
from qlint.knowledge.base import load


@pytest.mark.parametrize("name,expected", [
    ("Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp", "w4a8"),
    ("vllm-ascend/Qwen3-32B-W4A4", "w4a4"),
    ("/models/GLM-5.1-W8A8C8", "w8a8c8"),
    ("Eco-Tech/Qwen3.6-27B-w8a8-mxfp8", "mxfp8"),  # MXFP8 outranks the w8a8 mark
    ("Eco-Tech/DeepSeek-V3.1-w4a4c8-mxfp4", "mxfp4"),
    ("vllm-ascend/Qwen3-30B-A3B-quantized.w4a8", "w4a8"),
    ("Qwen3-32B-Int8", "int8"),
    ("/path_to_weight/DeepSeek-V3.1_w8a8mix_mtp", "w8a8"),  # a mark followed by letters
    ("Eco-Tech/Qwen3.6-27B-w8a8", "w8a8"),
    ("Qwen/Qwen3.6-27B", None),
    ("/models/sw4a8x", None),  # a mark must be a whole word
])
def test_format_from_name(name, expected):
    found = load().format_from_name(name)
    assert (found.id if found else None) == expected


def test_known_model_with_a_new_format_gets_no_bf16_variant():
    match = load().match_model("Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp")
    assert match.model.id == "Qwen3.5-397B-A17B" and match.variant is None


NIGHTLY_W4A8 = (  # tests/e2e/nightly/single_node/models/configs/Qwen3.5-397B-A17B-w4a8-mtp-A2.yaml
    "vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --tensor-parallel-size 8 --enable-expert-parallel "
    "--max-num-seqs 128 --quantization ascend --max-model-len 133120 --max-num-batched-tokens 16384 "
    "--gpu-memory-utilization 0.9\n"
)


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_w4a8_checkpoint_is_quantized_and_fits(version):
    found = {f.rule.id for f in lint(NIGHTLY_W4A8, "a2", version) if f.level == "error"}
    assert "QL509" not in found and "QL310" not in found, found


@pytest.mark.parametrize("name", ["vllm-ascend/Qwen3-32B-W4A4", "vllm-ascend/Qwen3-32B-W8A8C8",
                                  "Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp"])
def test_ql508_names_the_format(name):
    missing = hits(f"vllm serve {name} --tensor-parallel-size 8\n", "QL508", version="v0.11.0rc1")
    label = load().format_from_name(name).label
    assert [f.level for f in missing] == ["warning"] and missing[0].message.startswith(f"{label} weights")


def _model_dir(tmp_path, name, description, config=None):
    path = tmp_path / name
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config or {"model_type": "qwen3_5_moe"}))
    if description is not None:
        (path / "quant_model_description.json").write_text(json.dumps(description))
    return path


@pytest.mark.parametrize("description,label", [
    ({"model_quant_type": "W4A8_DYNAMIC"}, "W4A8"),
    ({"model_quant_type": "W4A4_DYNAMIC"}, "W4A4"),
    ({"model_quant_type": "W8A8_DYNAMIC", "kv_cache_type": "C8"}, "W8A8C8"),
    ({"model.layers.0.mlp.down_proj.weight": "W4A8_DYNAMIC", "model.embed_tokens.weight": "FLOAT"}, "W4A8"),
])
def test_local_description_sets_the_format(tmp_path, description, label):
    path = _model_dir(tmp_path, "Qwen3.5-397B-A17B", description)  # the name says nothing: BF16 by name
    script = f"vllm serve {path} --tensor-parallel-size 8 --quantization ascend\n"
    assert not hits(script, "QL509")
    missing = hits(f"vllm serve {path} --tensor-parallel-size 8\n", "QL508", version="v0.11.0rc1")
    assert missing and missing[0].message.startswith(f"{label} weights")


def test_local_directory_without_description_is_not_modelslim(tmp_path):
    path = _model_dir(tmp_path, "Qwen3.6-27B-w8a8", None)
    found = hits(f"vllm serve {path} --tensor-parallel-size 2 --quantization ascend\n", "QL509")
    assert len(found) == 1 and "not from ModelSlim" in found[0].message


def test_ql514_fp8_original_from_local_config(tmp_path):
    path = _model_dir(tmp_path, "DeepSeek-V3", None,
                      {"model_type": "deepseek_v3", "quantization_config": {"quant_method": "fp8"}})
    found = hits(f"vllm serve {path} --tensor-parallel-size 16\n", "QL514", "a3")
    assert len(found) == 1 and "FP8" in found[0].message


# -- QL515 ---------------------------------------------------------------------------

W4A8_397B = "vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --quantization ascend"


def test_ql515_moe_tp_above_16_on_main():
    found = hits(f"{W4A8_397B} --tensor-parallel-size 32\n", "QL515", "a3", "main")
    assert len(found) == 1 and "moe part tp>16" in found[0].message and found[0].level == "error"
    assert not hits(f"{W4A8_397B} --tensor-parallel-size 32 --enable-expert-parallel\n", "QL515", "a3", "main")
    assert not hits(f"{W4A8_397B} --tensor-parallel-size 16\n", "QL515", "a3", "main")
    # tagged releases refuse it only for description version 1.0.0, which a name does not tell: info
    unsure = hits(f"{W4A8_397B} --tensor-parallel-size 32\n", "QL515", "a3", "v0.23.0")
    assert [f.level for f in unsure] == ["info"] and "check its version" in unsure[0].message


@pytest.mark.parametrize("version,refused", [("1.0.0", True), ("0", False)])
def test_ql515_description_version_on_tags(tmp_path, version, refused):
    path = _model_dir(tmp_path, "Qwen3.5-397B-A17B-w4a8", {"model_quant_type": "W4A8_DYNAMIC", "version": version})
    found = hits(f"vllm serve {path} --tensor-parallel-size 32 --quantization ascend\n", "QL515", "a3", "v0.23.0")
    assert [f.level for f in found] == (["error"] if refused else [])


@pytest.mark.parametrize("version,group,refused", [("main", 256, True), ("main", 0, False),
                                                   ("v0.25.1rc1", 256, False)])
def test_ql515_per_group_moe_weights_on_main(tmp_path, version, group, refused):
    path = _model_dir(tmp_path, "Qwen3.6-35B-A3B-w4a8", {"model_quant_type": "W4A8_DYNAMIC", "group_size": group})
    found = hits(f"vllm serve {path} --tensor-parallel-size 4 --enable-expert-parallel\n", "QL515", "a3", version)
    assert bool(found) is refused
    if refused:
        assert "group_size 256" in found[0].message and "per-channel" in found[0].message


def test_ql515_dense_w4a8_is_not_moe():
    assert not hits("vllm serve Eco-Tech/Qwen3.6-27B-w4a8 --tensor-parallel-size 32\n", "QL515", "a3", "main")
