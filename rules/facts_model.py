"""Facts about the served model: attention and KV heads, MLA attention, routed experts, the model's own
maximum length, how messages name it, and the architecture numbers memory estimates use, from a local
directory's config.json first, else the knowledge (models.toml, architectures.toml).
"""

from __future__ import annotations


from qlint.rules.graph import Known, Scope, Unknown, fact
from qlint.rules.local_model import Arch, LocalModel

BYTES_PER_PARAM = {"w8a8": 1.0, "w8a8c8": 1.0, "int8": 1.0, "fp8": 1.0, "w4a8": 0.5, "w4a16": 0.5,
                   "w4a4": 0.5, "awq": 0.5, "gptq": 0.5, None: 2.0}


def _local(scope: Scope) -> LocalModel | None:
    return scope.get("local_model")


# -- facts: model metadata ------------------------------------------------------

def _from_local_or_model(scope: Scope, name: str, local_field: str, model_field: str):
    local = _local(scope)
    value = getattr(local, local_field) if local is not None else None
    if local is not None and value is not None:
        return Known(value, f"{local_field} in config.json of {local.name}")
    match = scope.known("model")
    if match is not None and getattr(match.value.model, model_field) is not None:
        return Known(getattr(match.value.model, model_field), f"{model_field} of {match.value.model.id}")
    raise Unknown(name)


@fact("mla_attention", requires=("model",))
def mla_attention(scope: Scope):
    """True for DeepSeek-V3-style MLA models, False for Qwen models, unknown otherwise."""
    model = scope.get("model").model
    if model.family.startswith("Qwen"):
        return Known(False, f"{model.family} uses GQA attention")
    if model.family == "DeepSeek-V3":
        return Known(True, "DeepSeek-V3 family uses MLA")
    raise Unknown("mla_attention")


@fact("checkpoint_min_npus", requires=("model",))
def checkpoint_min_npus(scope: Scope):
    """The NPUs the model's tutorial says its checkpoint (the variant the argument names) needs, or None."""
    variant = scope.get("model").variant
    if variant is None or variant.min_npus is None:
        return Known(None, "no NPU count in the tutorial")
    return Known(variant.min_npus, f"tutorial NPU count of {variant.name}")


@fact("attention_heads", requires=("local_model", "model"))
def attention_heads(scope: Scope):
    """Attention heads: local config.json first, else the knowledge."""
    return _from_local_or_model(scope, "attention_heads", "num_attention_heads", "num_attention_heads")


@fact("kv_heads", requires=("local_model", "model"))
def kv_heads(scope: Scope):
    """KV heads of the full-attention layers: local config.json first, else the knowledge."""
    return _from_local_or_model(scope, "kv_heads", "num_key_value_heads", "num_key_value_heads")


@fact("routed_experts", requires=("local_model", "model"))
def routed_experts(scope: Scope):
    """Routed experts (0 for dense): local config.json first, else the knowledge."""
    return _from_local_or_model(scope, "routed_experts", "num_experts", "num_experts")


@fact("model_max_len", requires=("local_model", "model"))
def model_max_len(scope: Scope):
    """The model's max_position_embeddings: local config.json first, else the knowledge."""
    return _from_local_or_model(scope, "model_max_len", "max_position_embeddings", "max_model_len")


@fact("model_label", requires=("local_model", "model", "model_ref"))
def model_label(scope: Scope):
    """How messages name the model: knowledge id, else the local directory name, else the argument."""
    match = scope.known("model")
    if match is not None:
        return match.value.model.id
    local = _local(scope)
    return local.name if local is not None else scope.get("model_ref")


@fact("architecture", requires=("local_model", "model"))
def architecture(scope: Scope):
    """Arch numbers for memory estimates: config.json, else knowledge/data/architectures.toml."""
    local, match = _local(scope), scope.known("model")
    record = None
    if match is not None:
        record = scope.kb.architecture(match.value.model.id)
    if local is not None and local.full_attention_layers and (local.head_dim or local.mla):
        mla = (local.kv_lora_rank or 0) + (local.qk_rope_head_dim or 0) if local.mla else None
        fraction = _local_expert_fraction(local)
        if fraction is None and record is not None:
            fraction = record.expert_fraction
        return Known(Arch(local.head_dim, local.num_key_value_heads, local.full_attention_layers,
                          local.linear_attention_layers or 0, local.linear_num_key_heads,
                          local.linear_num_value_heads, local.linear_key_head_dim, local.linear_value_head_dim,
                          local.linear_conv_kernel_dim, mla, fraction), f"config.json of {local.name}")
    if record is None:
        raise Unknown("architecture")
    return Known(Arch(record.head_dim, record.num_key_value_heads, record.full_attention_layers,
                      record.linear_attention_layers, record.linear_num_key_heads, record.linear_num_value_heads,
                      record.linear_key_head_dim, record.linear_value_head_dim, record.linear_conv_kernel_dim,
                      record.mla_kv_dim, record.expert_fraction), f"architectures.toml {record.model}")


def _local_expert_fraction(local: LocalModel) -> float | None:
    """Routed-expert share of the weight files: experts x 3 x hidden x moe_intermediate x MoE layers."""
    if local.num_experts == 0:
        return 0.0
    experts, layers, hidden, inner, size = (local.num_experts, local.moe_layers, local.hidden_size,
                                            local.moe_intermediate_size, local.weights_bytes)
    if not (experts and layers and hidden and inner and size) or local.quantization not in BYTES_PER_PARAM:
        return None
    params = experts * layers * 3 * hidden * inner
    return min(0.99, params * BYTES_PER_PARAM[local.quantization] / size)
