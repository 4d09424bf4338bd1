"""Read a local model directory's metadata (config.json, quant description).

Only small JSON files are read, never the weights: the weight files are only
``stat``-ed for their size. Config layouts differ between families, so the
reader looks in ``text_config`` first (Qwen3.5/3.6 multimodal checkpoints nest
the language model there) and accepts the several names used for the routed
expert count (``num_experts``, ``n_routed_experts``, ``num_local_experts``).
"""

from __future__ import annotations

import json
import os
import re

from qlint.rules.local_model import LocalModel

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_JSON_BYTES = 4 * 1024 * 1024
"""JSON files above this size are not parsed (a config.json is a few KiB)."""

CONFIG = "config.json"
QUANT_DESCRIPTION = "quant_model_description.json"
EXPERT_KEYS = ("num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts")
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt")
# patterns compiled on first use (re's cache): most scripts name no local model directory
_QUANT_TYPE = rb'"model_quant_type"\s*:\s*"([^"]+)"'
_TENSOR_TYPE = rb'"[^"]+\.weight"\s*:\s*"([A-Za-z0-9_]+)"'
_KV_C8 = rb'"kv_cache_type"\s*:\s*"C8"'
_GROUP_SIZE = rb'"group_size"\s*:\s*(\d{1,9})\b'
_QUANT_VERSION = rb'"version"\s*:\s*"([0-9][0-9A-Za-z.\-]{0,30})"'


def read_model_dir(path: str) -> LocalModel | None:
    """The metadata of a local model directory, or None when ``path`` is not one.

    A directory counts when it holds a ``config.json``. Unreadable, oversized
    or broken JSON gives a LocalModel whose ``error`` says what went wrong.
    """
    if not path or not os.path.isdir(path):
        return None
    config_path = os.path.join(path, CONFIG)
    if not os.path.isfile(config_path):
        return None
    weights = _weights_bytes(path)
    quantization, group_size, quant_version = _ascend_quantization(path)
    data, error = _load_json(config_path)
    if data is None:
        return LocalModel(path=path, quantization=quantization, modelslim=quantization is not None,
                          quant_group_size=group_size, quant_version=quant_version,
                          weights_bytes=weights, error=error)
    nested = data.get("text_config")
    text: dict[str, Any] = nested if isinstance(nested, dict) else {}

    def pick(*keys: str) -> Any:
        for source in (text, data):
            for key in keys:
                if key in source and source[key] is not None:
                    return source[key]
        return None

    heads = _int(pick("num_attention_heads", "n_head"))
    hidden = _int(pick("hidden_size", "d_model", "n_embd"))
    layers = _int(pick("num_hidden_layers", "n_layer", "num_layers"))
    experts = _int(pick(*EXPERT_KEYS))
    kv_lora_rank = _int(pick("kv_lora_rank"))
    head_dim = _int(pick("head_dim"))
    if head_dim is None and kv_lora_rank is None and heads and hidden and hidden % heads == 0:
        head_dim = hidden // heads
    full, linear = _layer_split(pick, layers, str(pick("model_type") or ""))
    architectures = data.get("architectures")
    return LocalModel(
        path=path,
        model_type=_str(data.get("model_type")) or _str(text.get("model_type")),
        architectures=tuple(a for a in architectures if isinstance(a, str)) if isinstance(architectures, list) else (),
        torch_dtype=_str(pick("torch_dtype", "dtype")),
        quantization=quantization or _config_quantization(pick("quantization_config")),
        modelslim=quantization is not None,
        quant_group_size=group_size,
        quant_version=quant_version,
        num_attention_heads=heads,
        num_key_value_heads=_int(pick("num_key_value_heads", "num_kv_heads")) or (heads if kv_lora_rank is None else None),
        num_hidden_layers=layers,
        num_experts=experts,
        max_position_embeddings=_int(pick("max_position_embeddings", "n_positions", "max_sequence_length")),
        hidden_size=hidden,
        head_dim=head_dim,
        moe_intermediate_size=_int(pick("moe_intermediate_size")),
        moe_layers=_moe_layers(pick, layers, experts),
        full_attention_layers=full,
        linear_attention_layers=linear,
        linear_num_key_heads=_int(pick("linear_num_key_heads")),
        linear_num_value_heads=_int(pick("linear_num_value_heads")),
        linear_key_head_dim=_int(pick("linear_key_head_dim")),
        linear_value_head_dim=_int(pick("linear_value_head_dim")),
        linear_conv_kernel_dim=_int(pick("linear_conv_kernel_dim")),
        kv_lora_rank=kv_lora_rank,
        qk_rope_head_dim=_int(pick("qk_rope_head_dim")),
        weights_bytes=weights,
        error=error,
    )


# -- helpers ------------------------------------------------------------------

def _load_json(path: str) -> tuple[dict | None, str | None]:
    name = os.path.basename(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_JSON_BYTES:
            return None, f"{name} is {size} bytes, above the {MAX_JSON_BYTES} byte limit; not read"
        with open(path, "rb") as handle:
            raw = handle.read(MAX_JSON_BYTES + 1)
    except OSError as error:
        return None, f"{name}: cannot read ({error.strerror or error})"
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, f"{name}: not UTF-8 text"
    except json.JSONDecodeError as error:
        return None, f"{name}: invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"
    except (ValueError, RecursionError) as error:  # over-long integers, absurd nesting
        return None, f"{name}: unreadable JSON ({type(error).__name__})"
    if not isinstance(data, dict):
        return None, f"{name}: top level is {type(data).__name__}, not an object"
    return data, None


def _ascend_quantization(directory: str) -> tuple[str | None, int | None, str | None]:
    """(lower-case ModelSlim type, group_size, version) of a checkpoint's description: the type is
    ``w8a8``, ``w4a8``, ``w8a8c8``, ``w8a8_mxfp8``, ...; all None without a description file.

    The description lists every tensor, so only its first and last 64 KiB are read:
    ``model_quant_type``, ``kv_cache_type`` (``C8``: INT8 KV cache, read by
    vllm-ascend's ModelSlim config), ``group_size`` and ``version`` (read by the W4A8
    schemes) are top-level keys found at either end. Without a
    ``model_quant_type`` the most common per-tensor type other than FLOAT is used.
    """
    path = os.path.join(directory, QUANT_DESCRIPTION)
    if not os.path.isfile(path):
        return None, None, None
    try:
        with open(path, "rb") as handle:
            head = handle.read(64 * 1024)
            size = os.fstat(handle.fileno()).st_size
            tail = b""
            if size > 128 * 1024:
                handle.seek(size - 64 * 1024)
                tail = handle.read(64 * 1024)
    except OSError:
        return "w8a8", None, None
    text = head + b"\n" + tail
    match = re.search(_QUANT_TYPE, text)
    if match is not None:
        kind = match.group(1).decode("utf-8", "replace").lower()
    else:
        counts: dict[bytes, int] = {}
        for value in re.findall(_TENSOR_TYPE, head):
            if value.upper() != b"FLOAT":
                counts[value] = counts.get(value, 0) + 1
        kind = max(counts, key=lambda value: counts[value]).decode("utf-8", "replace").lower() if counts else "w8a8"
    kind = kind.removesuffix("_dynamic").removesuffix("_static") or "w8a8"
    if re.search(_KV_C8, text) and kind == "w8a8":
        kind = "w8a8c8"
    group = re.search(_GROUP_SIZE, text)
    version = re.search(_QUANT_VERSION, text)
    return (kind, int(group.group(1)) if group else None,
            version.group(1).decode("utf-8", "replace") if version else None)


def _config_quantization(config: Any) -> str | None:
    if isinstance(config, dict):
        method = config.get("quant_method")
        return method.lower() if isinstance(method, str) and method else None
    return None


def _layer_split(pick, layers: int | None, model_type: str) -> tuple[int | None, int | None]:
    """(full-attention layers, linear-attention layers)."""
    types = pick("layer_types")
    if isinstance(types, list) and types and all(isinstance(t, str) for t in types):
        linear = sum(1 for t in types if "linear" in t or "mamba" in t)
        return len(types) - linear, linear
    has_linear = pick("linear_num_value_heads") is not None or model_type.startswith(("qwen3_5", "qwen3_next"))
    if layers is None:
        return None, None
    if not has_linear:
        return layers, 0
    interval = _int(pick("full_attention_interval")) or 4  # vLLM's Qwen3.5/Qwen3-Next config default
    full = sum(1 for i in range(layers) if (i + 1) % interval == 0)
    return full, layers - full


def _moe_layers(pick, layers: int | None, experts: int | None) -> int | None:
    if not experts or layers is None:
        return 0 if experts == 0 else None
    dense_first = _int(pick("first_k_dense_replace")) or 0
    only_mlp = pick("mlp_only_layers")
    skipped = len(only_mlp) if isinstance(only_mlp, list) else 0
    step = _int(pick("decoder_sparse_step")) or 1
    sparse = sum(1 for i in range(dense_first, layers) if (i + 1) % step == 0)
    return max(0, sparse - skipped)


def _weights_bytes(directory: str) -> int | None:
    total, found = 0, False
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.endswith(WEIGHT_SUFFIXES) and entry.is_file():
                    total += entry.stat().st_size
                    found = True
    except OSError:
        return None
    return total if found else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
