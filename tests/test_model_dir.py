"""linter/model_dir.py: what is read from a local model directory, and what is not."""

import builtins
import json
import os

import pytest

from qlint.linter.model_dir import MAX_JSON_BYTES, read_model_dir


def make_dir(tmp_path, name, config=None, raw=None, quant=None, weights=()):
    """A model directory with config.json (dict or raw text), an optional quant description
    and sparse weight files of the given sizes."""
    path = tmp_path / name
    path.mkdir()
    if config is not None or raw is not None:
        (path / "config.json").write_text(raw if raw is not None else json.dumps(config))
    if quant is not None:
        (path / "quant_model_description.json").write_text(json.dumps(quant) if isinstance(quant, dict) else quant)
    for index, size in enumerate(weights):
        with open(path / f"model-{index:05d}.safetensors", "wb") as handle:
            handle.truncate(size)
    return str(path)


QWEN35_27B = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "text_config": {
        "model_type": "qwen3_5_text", "dtype": "bfloat16", "hidden_size": 5120, "num_hidden_layers": 64,
        "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256, "full_attention_interval": 4,
        "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "max_position_embeddings": 262144,
    },
    "vision_config": {"hidden_size": 1152, "num_heads": 16, "depth": 27},
}

QWEN36_35B = {
    "architectures": ["Qwen3_5MoeForConditionalGeneration"],
    "model_type": "qwen3_5_moe",
    "text_config": {
        "hidden_size": 2048, "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2,
        "head_dim": 256, "num_experts": 256, "moe_intermediate_size": 512, "max_position_embeddings": 262144,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"],
    },
}

DEEPSEEK = {
    "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "torch_dtype": "bfloat16",
    "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
    "n_routed_experts": 256, "first_k_dense_replace": 3, "moe_intermediate_size": 2048,
    "kv_lora_rank": 512, "qk_rope_head_dim": 64, "max_position_embeddings": 163840,
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
}


def test_qwen35_nested_text_config(tmp_path):
    model = read_model_dir(make_dir(tmp_path, "Qwen3.5-27B", QWEN35_27B, weights=[1000, 2000]))
    assert model.error is None
    assert (model.num_attention_heads, model.num_key_value_heads, model.num_hidden_layers) == (24, 4, 64)
    assert (model.hidden_size, model.head_dim, model.max_position_embeddings) == (5120, 256, 262144)
    assert (model.full_attention_layers, model.linear_attention_layers) == (16, 48)
    assert model.hybrid and model.num_experts is None and model.moe is None
    assert (model.linear_num_key_heads, model.linear_num_value_heads, model.linear_conv_kernel_dim) == (16, 48, 4)
    assert model.model_type == "qwen3_5" and model.architectures == ("Qwen3_5ForConditionalGeneration",)
    assert model.torch_dtype == "bfloat16" and model.quantization is None
    assert model.weights_bytes == 3000 and model.name == "Qwen3.5-27B"


def test_vision_fields_do_not_leak_into_text_fields(tmp_path):
    config = {"model_type": "qwen3_5", "text_config": {"num_hidden_layers": 8}, "vision_config": {"hidden_size": 1}}
    model = read_model_dir(make_dir(tmp_path, "m", config))
    assert model.hidden_size is None and model.num_hidden_layers == 8
    # no interval given: vLLM's Qwen3.5 default (one full-attention layer in four)
    assert (model.full_attention_layers, model.linear_attention_layers) == (2, 6)


def test_qwen35_moe_layer_types_and_experts(tmp_path):
    model = read_model_dir(make_dir(tmp_path, "Qwen3.6-35B-A3B", QWEN36_35B))
    assert model.num_experts == 256 and model.moe and model.moe_layers == 4
    assert (model.full_attention_layers, model.linear_attention_layers) == (1, 3)
    assert model.moe_intermediate_size == 512


def test_deepseek_routed_experts_and_mla(tmp_path):
    model = read_model_dir(make_dir(tmp_path, "DeepSeek-R1", DEEPSEEK))
    assert model.num_experts == 256 and model.moe_layers == 58
    assert model.mla and model.kv_lora_rank == 512 and model.qk_rope_head_dim == 64
    assert model.head_dim is None  # MLA: no per-head KV size to derive
    assert model.quantization == "fp8" and model.max_position_embeddings == 163840
    assert (model.full_attention_layers, model.linear_attention_layers) == (61, 0)


@pytest.mark.parametrize("key", ["num_experts", "n_routed_experts", "num_local_experts"])
def test_expert_count_key_spellings(tmp_path, key):
    config = {"num_attention_heads": 32, "hidden_size": 4096, "num_hidden_layers": 32, key: 8}
    model = read_model_dir(make_dir(tmp_path, "m", config))
    assert model.num_experts == 8
    assert model.head_dim == 128 and model.num_key_value_heads == 32  # derived: hidden / heads; KV = heads


def test_broken_json_gives_an_error_not_an_exception(tmp_path):
    model = read_model_dir(make_dir(tmp_path, "broken", raw='{"num_attention_heads": 24,,}', weights=[10]))
    assert model.error.startswith("config.json: invalid JSON at line 1")
    assert model.num_attention_heads is None and model.weights_bytes == 10


@pytest.mark.parametrize("raw", ["[" * 100000 + "]" * 100000, '{"hidden_size": ' + "9" * 5000 + "}"])
def test_hostile_json_is_an_error(tmp_path, raw):
    model = read_model_dir(make_dir(tmp_path, "hostile", raw=raw))
    assert model.error and "config.json" in model.error


def test_non_object_json_is_an_error(tmp_path):
    model = read_model_dir(make_dir(tmp_path, "list", raw="[1, 2]"))
    assert "not an object" in model.error


def test_huge_config_is_not_read(tmp_path, monkeypatch):
    path = make_dir(tmp_path, "huge", raw="")
    with open(os.path.join(path, "config.json"), "wb") as handle:
        handle.truncate(MAX_JSON_BYTES + 1)
    opened = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    model = read_model_dir(path)
    assert "above the" in model.error and "not read" in model.error
    assert not any(name.endswith("config.json") for name in opened)


def test_weights_are_never_opened(tmp_path, monkeypatch):
    path = make_dir(tmp_path, "w", QWEN35_27B, weights=[5 * 10**9])  # sparse: no disk used
    opened = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    model = read_model_dir(path)
    assert model.weights_bytes == 5 * 10**9
    assert opened and not any(name.endswith(".safetensors") for name in opened)


@pytest.mark.parametrize("description,expected", [
    ({"model_quant_type": "W8A8_DYNAMIC", "model.layers.0.mlp.down_proj.weight": "W8A8_DYNAMIC"}, "w8a8"),
    ({"model_quant_type": "W4A8"}, "w4a8"),
    ({"model.embed_tokens.weight": "FLOAT"}, "w8a8"),
    ("not json at all", "w8a8"),
])
def test_modelslim_description_means_ascend_quantization(tmp_path, description, expected):
    model = read_model_dir(make_dir(tmp_path, "q", {"num_attention_heads": 8}, quant=description))
    assert model.quantization == expected


def test_quant_description_wins_over_config_quant_method(tmp_path):
    config = dict(DEEPSEEK)
    model = read_model_dir(make_dir(tmp_path, "q", config, quant={"model_quant_type": "W8A8"}))
    assert model.quantization == "w8a8"


def test_not_a_model_directory(tmp_path):
    assert read_model_dir(str(tmp_path / "missing")) is None
    assert read_model_dir(make_dir(tmp_path, "empty")) is None  # no config.json
    file_path = tmp_path / "file"
    file_path.write_text("x")
    assert read_model_dir(str(file_path)) is None
    assert read_model_dir("Qwen/Qwen3.6-27B") is None  # a hub id, not a directory
    assert read_model_dir("") is None
