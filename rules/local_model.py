"""What a local model directory's ``config.json`` says, as the rules see it, and the
architecture numbers memory estimates use (:class:`Arch`).

The linter (``qlint.linter.model_dir.read_model_dir``) fills a
:class:`LocalModel` from the JSON files of a model directory named on the
``vllm serve`` line; rules only read it. Every field is ``None`` when the
config does not state it. No I/O happens here.
"""

from __future__ import annotations

from qlint.record import record


@record(frozen=True)  # (not slotted: one per model directory read; a slotted record class is built twice at import)
class LocalModel:
    """Architecture facts read from a local checkpoint directory.

    ``error`` says why the directory could not be read completely (broken or
    oversized JSON); the other fields hold whatever could be read.
    ``quantization`` is the lower-case ModelSlim type of an Ascend ModelSlim checkpoint
    (``quant_model_description.json`` is present: ``"w8a8"``, ``"w4a8"``, ``"w8a8c8"`` with a
    C8 KV cache, ...; then ``modelslim`` is True) or ``quantization_config.quant_method`` of
    config.json (``"fp8"``, ``"compressed-tensors"``, ...; ``modelslim`` False). ``weights_bytes`` is the summed size of
    the weight files on disk (``*.safetensors`` / ``*.bin``), never their content.
    Layer counts: ``full_attention_layers`` + ``linear_attention_layers`` =
    ``num_hidden_layers`` for hybrid GDN models (``layer_types`` or
    ``full_attention_interval``); for other models every layer is full attention.
    """

    path: str
    model_type: str | None = None
    architectures: tuple[str, ...] = ()
    torch_dtype: str | None = None
    quantization: str | None = None
    modelslim: bool | None = None
    quant_group_size: int | None = None  # quant_model_description.json group_size (W4A8: 0 = per-channel)
    quant_version: str | None = None  # quant_model_description.json version ("1.0.0": new int4 packing)
    num_attention_heads: int | None = None
    num_key_value_heads: int | None = None
    num_hidden_layers: int | None = None
    num_experts: int | None = None
    max_position_embeddings: int | None = None
    hidden_size: int | None = None
    head_dim: int | None = None
    moe_intermediate_size: int | None = None
    moe_layers: int | None = None
    full_attention_layers: int | None = None
    linear_attention_layers: int | None = None
    linear_num_key_heads: int | None = None
    linear_num_value_heads: int | None = None
    linear_key_head_dim: int | None = None
    linear_value_head_dim: int | None = None
    linear_conv_kernel_dim: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    weights_bytes: int | None = None
    error: str | None = None

    @property
    def name(self) -> str:
        """The directory's last path component (how messages name the model)."""
        return self.path.rstrip("/").rsplit("/", 1)[-1] or self.path

    @property
    def moe(self) -> bool | None:
        """True when the config names routed experts, None when it does not say."""
        return None if self.num_experts is None else self.num_experts > 0

    @property
    def hybrid(self) -> bool:
        """True for GDN / linear-attention hybrids (Qwen3.5/3.6, Qwen3-Next)."""
        return bool(self.linear_attention_layers)

    @property
    def mla(self) -> bool:
        """True for multi-head latent attention (DeepSeek-V2/V3 family)."""
        return self.kv_lora_rank is not None


@record(frozen=True)
class Arch:
    """Numbers a memory estimate needs (from config.json or architectures.toml)."""

    head_dim: int | None
    kv_heads: int | None
    full_layers: int
    linear_layers: int = 0
    linear_key_heads: int | None = None
    linear_value_heads: int | None = None
    linear_key_dim: int | None = None
    linear_value_dim: int | None = None
    conv_kernel: int | None = None
    mla_kv_dim: int | None = None
    expert_fraction: float | None = None

    def kv_bytes_per_token(self, tp: int, pp: int, dtype_bytes: int) -> float | None:
        """KV bytes one token takes on one NPU: 2 x KV heads/rank x head_dim x layers/PP x bytes."""
        layers = self.full_layers / pp
        if self.mla_kv_dim:
            return self.mla_kv_dim * layers * dtype_bytes  # latent KV replicated on every TP rank
        if not self.head_dim or not self.kv_heads:
            return None
        per_rank = max(1, -(-self.kv_heads // tp))  # ceil(kv_heads / tp), both ints: KV heads < TP are replicated
        return 2 * per_rank * self.head_dim * layers * dtype_bytes

    def state_bytes_per_seq(self, tp: int, pp: int, dtype_bytes: int, recurrent_factor: int = 1) -> float | None:
        """GDN state (conv + recurrent) of one sequence on one NPU; 0 without linear layers."""
        if not self.linear_layers:
            return 0.0
        shape = (self.linear_key_heads, self.linear_value_heads, self.linear_key_dim,
                 self.linear_value_dim, self.conv_kernel)
        hk, hv, dk, dv, kernel = shape
        if hk is None or hv is None or dk is None or dv is None or kernel is None:
            return None
        conv = (kernel - 1) * (2 * hk * dk + hv * dv) / tp
        recurrent = hv * dk * dv / tp
        return self.linear_layers / pp * (conv + recurrent_factor * recurrent) * dtype_bytes
