"""Model metadata and memory fit: model facts from a local config.json or the knowledge,
weights per NPU against HBM x --gpu-memory-utilization, KV cache + GDN state for
--max-model-len, and the Mamba-cache-blocks limit of hybrid models (QL310-QL313).

Units: GB = 10^9 bytes throughout, as the vendors state HBM ("64 GB") and as
knowledge/data/models.toml states weights_gb. Estimates leave out activations and graph
memory (vLLM measures those in its profile run), so they are lower bounds of the need.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, Unknown, check, fact
from qlint.rules.local_model import Arch, LocalModel

GB = 1e9
GMU_DEFAULT = 0.92  # behaviour vllm_gpu_memory_utilization_092 (vllm/config/cache.py)
GMU_DOCUMENTED = 0.9  # vllm-ascend@v0.23.0:docs/source/faqs.md L148, seeds
LARGEST_HBM = {"310p": 48}  # 96 GB Atlas 300I Duo: 48 GB per chip (hardware.toml disagreement, vllm-ascend#1141)
HEADROOM = 0.10  # warn when less than this share of usable HBM is left after weights
LONG_CONTEXT = 131072
DEFAULT_MAX_NUM_SEQS = 256
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
        record = next((a for a in scope.kb.architectures if a.model == match.value.model.id), None)
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


# -- facts: memory --------------------------------------------------------------

@fact("weights_gb", requires=("local_model", "model", "weight_format"))
def weights_gb(scope: Scope):
    """Size of all weights in GB: the weight files of a local directory, else the variant's weights_gb,
    else the BF16 variant's size scaled by the format's bytes per parameter (a lower bound)."""
    local = _local(scope)
    if local is not None and local.weights_bytes:
        return Known(local.weights_bytes / GB, f"weight files in {local.name}")
    match = scope.known("model")
    if match is None:
        raise Unknown("weights_gb")
    variant = match.value.variant
    if variant is not None and variant.weights_gb is not None:
        return Known(variant.weights_gb, f"weights_gb of {variant.name}")
    weights = scope.known("weight_format")
    bf16 = next((v for v in match.value.model.variants if v.quantization == "bf16" and v.weights_gb), None)
    if weights is None or bf16 is None:
        raise Unknown("weights_gb")
    fmt = weights.value.format
    return Known(bf16.weights_gb * fmt.bytes_per_param / 2,
                 f"at least {bf16.weights_gb:g} GB (BF16) x {fmt.bytes_per_param:g}/2 bytes per parameter ({fmt.label})")


@fact("gpu_memory_utilization", requires=("version",))
def gpu_memory_utilization(scope: Scope):
    """--gpu-memory-utilization, else vLLM's default for the release (0.92 where behaviour
    vllm_gpu_memory_utilization_092 holds, else 0.9)."""
    option = scope.serve.opt("--gpu-memory-utilization")
    if option is not None and option.value is not None:
        value = option.value.as_float()
        if value is None or not 0 < value <= 1:
            raise Unknown("gpu_memory_utilization")
        return Known(value, f"{option.spelled} {option.value.text}", option.value.span)
    if kit.holds(scope, "vllm_gpu_memory_utilization_092"):
        return Known(GMU_DEFAULT, "vLLM default 0.92 (vllm/config/cache.py)")
    return Known(GMU_DOCUMENTED, "documented default 0.9")


@fact("weights_per_npu", requires=("weights_gb", "tp", "pp", "ep_size", "architecture", "moe", "local_model"))
def weights_per_npu(scope: Scope):
    """(GB of weights on one NPU, formula text). Dense or no EP: W / TP. MoE with EP:
    W x (1 - f) / TP + W x f / EP, f = expert fraction; f unknown: W / EP (a lower bound)."""
    total, tp, pp, ep = scope.get("weights_gb"), scope.get("tp"), scope.get("pp"), scope.get("ep_size")
    arch = scope.known("architecture")
    moe = scope.known("moe")
    local = _local(scope)
    is_moe = moe.value if moe is not None else (local.moe if local is not None else None)
    pp_text = f" / PP {pp}" if pp > 1 else ""
    if not ep or ep <= 1 or not is_moe:
        return Known((total / tp / pp, f"{total:.1f} GB / TP {tp}{pp_text}"), "weights / TP")
    fraction = arch.value.expert_fraction if arch is not None else None
    if fraction is None:
        return Known((total / ep / pp, f"at least {total:.1f} GB / EP {ep}{pp_text}"), "weights / EP (lower bound)")
    value = (total * (1 - fraction) / tp + total * fraction / ep) / pp
    text = (f"{total:.1f} GB x {1 - fraction:.3f} (non-expert) / TP {tp} + {total:.1f} GB x {fraction:.3f} "
            f"(experts) / EP {ep}{pp_text}")
    return Known((value, text), "weights split by TP and EP")


@dataclass(frozen=True)
class Hbm:
    """Memory of one NPU: ``hbm`` GB (knowledge), ``largest`` GB of the biggest card of the family,
    ``gmu`` = --gpu-memory-utilization; ``usable`` = hbm x gmu (GB = 10^9 bytes)."""

    hbm: float
    largest: float
    gmu: float

    @property
    def usable(self) -> float:
        return self.hbm * self.gmu

    def text(self, hbm: float | None = None) -> str:
        hbm = self.hbm if hbm is None else hbm
        return f"{hbm * self.gmu:.1f} GB usable ({hbm:g} GB HBM x gpu-memory-utilization {self.gmu:g}; {_UNITS})"

    def text_zh(self, hbm: float | None = None) -> str:
        hbm = self.hbm if hbm is None else hbm
        return (f"{hbm * self.gmu:.1f} GB 可用显存（{hbm:g} GB HBM x gpu-memory-utilization {self.gmu:g}；"
                f"{_UNITS_ZH}）")


@fact("usable_hbm", requires=("hardware", "gpu_memory_utilization"))
def usable_hbm(scope: Scope):
    """HBM of one NPU and the share vLLM may use (Hbm)."""
    hardware = scope.get("hardware")
    hbm = scope.kb.hardware_by_id(hardware).hbm_gb
    value = Hbm(hbm, max(hbm, LARGEST_HBM.get(hardware, hbm)), scope.get("gpu_memory_utilization"))
    return Known(value, f"{hbm} GB HBM x {value.gmu}")


@fact("kv_shards")
def kv_shards(scope: Scope):
    """How many ranks share one sequence's KV cache: decode x prefill context-parallel sizes.
    vLLM keeps only cdiv(max_model_len, dcp x pcp) tokens of a sequence per rank
    (vllm/v1/kv_cache_interface.py FullAttentionSpec.max_memory_usage_bytes; MLA inherits it)."""
    dcp = kit.integer(scope.serve, "--decode-context-parallel-size", 1).value
    pcp = kit.integer(scope.serve, "--prefill-context-parallel-size", 1).value
    shards = max(1, dcp) * max(1, pcp)
    return Known(shards, f"DCP {dcp} x PCP {pcp}" if shards > 1 else "no context parallel")


@fact("kv_need", requires=("architecture", "tp", "pp", "max_model_len", "context_limit", "max_num_seqs", "kv_shards",
                           "weight_format"))
def kv_need(scope: Scope):
    """(GB for one max-model-len sequence on one NPU, tokens, KV GB, state GB) from the architecture.
    With context parallel each rank holds 1 / (DCP x PCP) of the sequence's tokens; the GDN state
    is per sequence and not divided."""
    arch = scope.get("architecture")
    tp, pp = scope.get("tp"), scope.get("pp")
    tokens = scope.get("max_model_len")
    if tokens is None:
        tokens = scope.get("context_limit")
    shards = scope.get("kv_shards")
    local_tokens = -(-tokens // shards)  # cdiv: the tokens of one sequence each context-parallel rank keeps
    cache_dtype = scope.serve.opt("--kv-cache-dtype")
    text = (cache_dtype.value.text or "") if cache_dtype is not None and cache_dtype.value else "auto"
    weights = scope.known("weight_format")
    c8 = weights is not None and weights.value.format.kv_int8  # W8A8C8: int8 KV cache from the checkpoint
    kv_bytes = 1 if text.startswith(("fp8", "int8")) or c8 else 2
    per_token = arch.kv_bytes_per_token(tp, pp, kv_bytes)
    state = arch.state_bytes_per_seq(tp, pp, _ssm_bytes(scope))
    if per_token is None or state is None:
        raise Unknown("kv_need")
    kv = per_token * local_tokens / GB
    return Known((kv + state / GB, tokens, kv, state / GB, shards), "KV + GDN state of one sequence")


def _ssm_bytes(scope: Scope) -> int:
    """Bytes per GDN state value: 4 with --mamba-ssm-cache-dtype float32, else 2 (16-bit)."""
    ssm = scope.serve.opt("--mamba-ssm-cache-dtype")
    return 4 if ssm is not None and ssm.value is not None and ssm.value.text == "float32" else 2


# -- rules ------------------------------------------------------------------------

_UNITS = "GB = 10^9 bytes"
_UNITS_ZH = "GB = 10^9 字节"


def _formula_zh(formula: str) -> str:
    """The weights-per-NPU formula text of the weights_per_npu fact, worded in Chinese."""
    return (formula.replace("at least ", "至少 ").replace(" (non-expert)", "（非专家部分）")
            .replace(" (experts)", "（专家部分）"))
_MEMORY_SOURCES = (
    "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/cache.py#L67 (gpu_memory_utilization default 0.92)",
    "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/faqs.md?plain=1#L148 (docs: default 0.9)",
    "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378 (usable KV = gpu-memory-utilization x HBM - profiled peak)",
)
_GMU_WHY_EN = (" Usable memory is HBM x --gpu-memory-utilization; without the flag qlint takes vLLM's code "
               "default 0.92 for releases paired with vLLM 0.20.2 or later (the docs and tutorials say 0.9, which "
               "qlint keeps for older releases). Sizes are in GB = 10^9 bytes, as HBM is marketed.")
_GMU_WHY_ZH = ("可用显存 = HBM x --gpu-memory-utilization；未设置时，对配套 vLLM 0.20.2 及以后的版本 qlint 采用代码默认值 "
               "0.92（文档与教程写的是 0.9，qlint 对更早的版本沿用 0.9）。容量单位为 GB = 10^9 字节，与 HBM 标称一致。")

WEIGHTS_FIT = RuleMeta(
    id="QL310",
    name="weights-exceed-hbm",
    groups=("memory",),
    behaviours=("vllm_gpu_memory_utilization_092",),
    severity="error",
    requires=("weights_per_npu", "usable_hbm", "model_label", "weights_gb"),
    faq="oom",
    title=Text(en="The weights alone do not fit in one NPU's usable HBM", zh="仅权重就放不进单卡可用显存"),
    why=Text(
        en="Each NPU holds its TP share of the dense weights and its EP share of the routed experts. When "
        "that share is already larger than the memory vLLM may use, loading fails with an out-of-memory "
        "error before any KV cache is allocated: add NPUs (TP/EP, more nodes) or use a W8A8 checkpoint. "
        "Atlas 300I Duo chips come with 24 or 48 GB; a share that fits only the larger chip is a warning."
        + _GMU_WHY_EN,
        zh="每张 NPU 持有稠密权重按 TP 切分后的一份，以及路由专家按 EP 切分后的一份。若这一份已超过 vLLM 可用的显存，"
        "在分配任何 KV 缓存之前加载就会因显存不足失败：应增加 NPU（TP/EP、更多节点）或改用 W8A8 权重。"
        "Atlas 300I Duo 的单芯片显存有 24 GB 和 48 GB 两种；只在较大芯片上放得下时报告为警告。" + _GMU_WHY_ZH,
    ),
    sources=_MEMORY_SOURCES + (
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L19-L24",
        "https://github.com/vllm-project/vllm-ascend/issues/1141 (Atlas 300I Duo 96 GB card: about 44 GB per 310P3 chip)",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.5-397B-A17B --tensor-parallel-size 8 --enable-expert-parallel\n",
            good="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp --tensor-parallel-size 16 --enable-expert-parallel\n",
            hardware="a2", version="v0.23.0",
        ),
    ),
)

HEADROOM_RULE = RuleMeta(
    id="QL311",
    name="little-hbm-headroom",
    groups=("memory",),
    behaviours=("vllm_gpu_memory_utilization_092",),
    severity="warning",
    requires=("weights_per_npu", "usable_hbm", "model_label"),
    optional=("kv_need",),
    faq="oom",
    title=Text(en="Little memory is left after the weights", zh="加载权重后剩余显存很少"),
    why=Text(
        en="vLLM sizes the KV cache from what is left of the usable memory after the weights and the "
        "activation peak of its profile run. With less than a tenth of the usable memory left, the profile "
        "run, graph capture or the first long requests are likely to run out of memory." + _GMU_WHY_EN,
        zh="vLLM 用扣除权重和 profile 运行激活峰值之后剩余的可用显存来确定 KV 缓存大小。若剩余不足可用显存的十分之一，"
        "profile 运行、图捕获或最初的长请求很可能显存不足。" + _GMU_WHY_ZH,
    ),
    sources=_MEMORY_SOURCES + ("https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L256-L282 (Q1: OOM at startup)",),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --max-model-len 4096 --gpu-memory-utilization 0.9\n",
            good="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --max-model-len 4096 --gpu-memory-utilization 0.9\n",
            hardware="a2", version="v0.23.0",
        ),
    ),
)

KV_FIT = RuleMeta(
    id="QL312",
    name="kv-cannot-hold-one-sequence",
    groups=("memory",),
    behaviours=("vllm_gpu_memory_utilization_092",),
    severity="warning",
    requires=("weights_per_npu", "usable_hbm", "kv_need", "model_label", "max_num_seqs"),
    faq="oom",
    title=Text(en="The KV cache cannot hold even one --max-model-len sequence",
               zh="KV 缓存连一条 --max-model-len 长度的序列都放不下"),
    why=Text(
        en="vLLM refuses to start when the KV cache cannot hold one request of --max-model-len tokens. Per "
        "NPU a token needs 2 x KV heads per rank x head_dim x full-attention layers x 2 bytes (KV heads fewer "
        "than TP are replicated; MLA keeps one latent vector per layer on every rank); with decode / prefill context "
        "parallel each rank keeps only 1 / (DCP x PCP) of a sequence's tokens; hybrid GDN models add a "
        "fixed recurrent state per sequence (estimated in 16-bit unless --mamba-ssm-cache-dtype float32). "
        "Activations are not counted, so the real room is smaller still." + _GMU_WHY_EN,
        zh="若 KV 缓存放不下一条 --max-model-len 长度的请求，vLLM 拒绝启动。每张 NPU 上每个 token 需要 "
        "2 x 每 rank 的 KV 头数 x head_dim x 全注意力层数 x 2 字节（KV 头少于 TP 时会复制；MLA 在每个 rank 上每层保存一个潜向量）；"
        "启用解码 / 预填充上下文并行时，每个 rank 只保存一条序列 1 / (DCP x PCP) 的 token；"
        "GDN 混合模型每条序列还需固定大小的循环状态（按 16 位估算，除非设置 --mamba-ssm-cache-dtype float32）。"
        "估算未计入激活，实际余量更小。" + _GMU_WHY_ZH,
    ),
    sources=_MEMORY_SOURCES + (
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/patch/platform/patch_mamba_config.py#L58-L121 (attention and GDN state pages)",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/v1/kv_cache_interface.py#L226-L234",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/transformers_utils/configs/qwen3_5_moe.py#L94-L102 (one full-attention layer in four)",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828 (large TP for 256K contexts shards the KV cache)",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --max-model-len 262144 --max-num-seqs 4\n",
            good="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 4 --max-model-len 262144 --max-num-seqs 4\n",
            hardware="a2", version="v0.23.0",
        ),
    ),
)

MAMBA_BLOCKS = RuleMeta(
    id="QL313",
    name="hybrid-long-context-default-max-num-seqs",
    groups=("memory", "scheduling"),
    behaviours=("vllm_gpu_memory_utilization_092",),
    severity="warning",
    requires=("hybrid", "max_model_len", "cudagraph_mode", "model_label", "tp", "pp"),
    optional=("architecture", "weights_per_npu", "usable_hbm"),
    title=Text(en="Hybrid model with a long context keeps the default 256 --max-num-seqs",
               zh="长上下文的混合模型沿用默认的 256 个 --max-num-seqs"),
    why=Text(
        en="Hybrid GDN models (Qwen3.5/3.6) keep one Mamba cache block of recurrent state per running "
        "sequence, taken from the same pool as the KV cache. With FULL graph modes vLLM checks at capture time "
        "that --max-num-seqs (default 256) does not exceed the available Mamba cache blocks and stops with "
        "ValueError otherwise; long contexts leave few blocks. Set --max-num-seqs to the concurrency you "
        "really need (the tutorial serves 262144 tokens with 32).",
        zh="GDN 混合模型（Qwen3.5/3.6）每条运行中的序列占用一个 Mamba 缓存块保存循环状态，与 KV 缓存共用同一块池。"
        "在 FULL 图模式下，vLLM 在捕获时检查 --max-num-seqs（默认 256）不超过可用 Mamba 缓存块数，否则以 ValueError 退出；"
        "长上下文下可用块很少。应把 --max-num-seqs 设为实际需要的并发数（教程在 262144 上下文时用 32）。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/compilation.py#L1453-L1468",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378 (262144 tokens with --max-num-seqs 32)",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --max-model-len 262144\n",
            good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --max-model-len 262144 --max-num-seqs 32\n",
            hardware="a2", version="v0.23.0",
        ),
    ),
)

FULL_GRAPH_MODES = ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


@check(WEIGHTS_FIT)
def weights_fit(scope: Scope):
    """Weights per NPU above HBM x --gpu-memory-utilization."""
    (per_npu, formula), memory = scope.get("weights_per_npu"), scope.get("usable_hbm")
    if per_npu <= memory.usable:
        return
    npus = math.ceil(scope.get("weights_gb") / memory.usable)
    larger = per_npu <= memory.largest * memory.gmu  # fits only the family's bigger card
    tail = (f"; it fits only the {memory.largest:g} GB-per-chip card ({memory.text(memory.largest)})"
            if larger else "")
    tail_zh = (f"；只有单芯片 {memory.largest:g} GB 的卡放得下（{memory.text_zh(memory.largest)}）"
               if larger else "")
    yield Finding(
        WEIGHTS_FIT,
        Text(
            en=f"the weights of {scope.get('model_label')} alone need about {per_npu:.1f} GB per NPU ({formula}), "
            f"more than the {memory.text()}{tail}",
            zh=f"仅 {scope.get('model_label')} 的权重每张 NPU 就需要约 {per_npu:.1f} GB（{_formula_zh(formula)}），"
            f"超过了 {memory.text_zh()}{tail_zh}",
        ),
        kit.span_of(scope.serve, ("--tensor-parallel-size", "--gpu-memory-utilization"), absent=kit.model_span(scope.serve)),
        Fix(Text(en=f"spread the weights over at least {npus} NPUs (raise TP, or EP over more DP ranks / nodes) "
                 "or use a W8A8 checkpoint",
                 zh=f"把权重分布到至少 {npus} 张 NPU 上（提高 TP，或在更多 DP rank / 节点上做 EP），"
                 "或改用 W8A8 权重")),
        severity="warning" if larger else None,
    )


@check(HEADROOM_RULE)
def headroom(scope: Scope):
    """Less than HEADROOM of usable HBM left after the weights (and KV for one sequence still fits)."""
    (per_npu, formula), memory = scope.get("weights_per_npu"), scope.get("usable_hbm")
    room = memory.usable - per_npu
    if room < 0 or room >= HEADROOM * memory.usable:
        return
    need = scope.known("kv_need")
    if need is not None and need.value[0] > room:
        return  # QL312 says the sharper thing
    yield Finding(
        HEADROOM_RULE,
        Text(
            en=f"after the weights of {scope.get('model_label')} ({per_npu:.1f} GB per NPU: {formula}) only "
            f"{room:.1f} GB of the {memory.text()} is left for activations, graphs and KV cache "
            f"(less than {HEADROOM:.0%})",
            zh=f"加载 {scope.get('model_label')} 的权重（每张 NPU {per_npu:.1f} GB：{_formula_zh(formula)}）后，"
            f"{memory.text_zh()} 中只剩 {room:.1f} GB 留给激活、图和 KV 缓存（不足 {HEADROOM:.0%}）",
        ),
        kit.span_of(scope.serve, ("--gpu-memory-utilization", "--tensor-parallel-size"), absent=kit.model_span(scope.serve)),
        Fix(Text(en="raise TP (or EP), use a W8A8 checkpoint, or lower --max-num-batched-tokens / --max-num-seqs",
                 zh="提高 TP（或 EP）、改用 W8A8 权重，或降低 --max-num-batched-tokens / --max-num-seqs")),
    )


@check(KV_FIT)
def kv_fit(scope: Scope):
    """KV cache + GDN state of one max-model-len sequence larger than the room after weights."""
    (per_npu, _), memory = scope.get("weights_per_npu"), scope.get("usable_hbm")
    need, tokens, kv, state, shards = scope.get("kv_need")
    room = memory.usable - per_npu
    if room < 0 or need <= room:
        return
    seqs = scope.get("max_num_seqs")
    state_text = f" + {state:.2f} GB GDN state" if state else ""
    state_text_zh = f" + {state:.2f} GB GDN 状态" if state else ""
    per_rank_token = kv / -(-tokens // shards)  # GB per token this rank keeps
    fits = int((room - state) / per_rank_token * shards // 1024 * 1024) if room > state else 0
    cp_text = f", its KV split over {shards} context-parallel ranks" if shards > 1 else ""
    cp_text_zh = f"，其 KV 分布在 {shards} 个上下文并行 rank 上" if shards > 1 else ""
    advice = f"lower --max-model-len to about {fits} tokens" if fits >= 1024 else "lower --max-model-len"
    advice_zh = f"将 --max-model-len 降到约 {fits} token" if fits >= 1024 else "降低 --max-model-len"
    yield Finding(
        KV_FIT,
        Text(
            en=f"one {tokens}-token sequence of {scope.get('model_label')} needs about {need:.1f} GB per NPU "
            f"({kv:.1f} GB KV cache{state_text}{cp_text}), but only {room:.1f} GB of the {memory.text()} is left "
            f"after {per_npu:.1f} GB of weights; --max-num-seqs {seqs} such sequences would need {need * seqs:.0f} GB",
            zh=f"{scope.get('model_label')} 的一条 {tokens} token 的序列每张 NPU 需要约 {need:.1f} GB"
            f"（{kv:.1f} GB KV 缓存{state_text_zh}{cp_text_zh}），但扣除 {per_npu:.1f} GB 权重后，{memory.text_zh()} 中"
            f"只剩 {room:.1f} GB；--max-num-seqs {seqs} 条这样的序列需要 {need * seqs:.0f} GB",
        ),
        kit.span_of(scope.serve, ("--max-model-len", "--tensor-parallel-size"), absent=kit.model_span(scope.serve)),
        Fix(Text(en=f"{advice}, or raise TP to shard the KV cache and weights",
                 zh=f"{advice_zh}，或提高 TP 以切分 KV 缓存和权重")),
    )


@check(MAMBA_BLOCKS)
def mamba_blocks(scope: Scope):
    """Hybrid + explicit long --max-model-len + FULL graphs + no explicit --max-num-seqs.

    With the architecture known, the block pool is estimated as (HBM left after weights) /
    (full-attention layers x page), page = 2 x GDN recurrent state + conv state of one layer
    (Ascend sizes an attention block's K page equal to the recurrent state). Activations are not
    subtracted, so an estimate of four times the default or more is reported as info only."""
    tokens = scope.get("max_model_len")
    if tokens is None or tokens < LONG_CONTEXT or not scope.get("hybrid"):
        return
    if scope.serve.opt("--max-num-seqs") is not None or scope.get("cudagraph_mode") not in FULL_GRAPH_MODES:
        return
    blocks = _mamba_blocks(scope)
    estimate = "" if blocks is None else f" (estimated pool before activations: about {blocks} blocks)"
    estimate_zh = "" if blocks is None else f"（未扣除激活时估计块池约有 {blocks} 块）"
    yield Finding(
        MAMBA_BLOCKS,
        Text(
            en=f"--max-model-len {tokens} on hybrid {scope.get('model_label')} without --max-num-seqs: vLLM allows "
            f"{DEFAULT_MAX_NUM_SEQS} sequences, each holding a Mamba (GDN state) cache block from the KV pool, and "
            f"graph capture stops with 'max_num_seqs ({DEFAULT_MAX_NUM_SEQS}) exceeds available Mamba cache blocks' "
            f"when the pool is smaller{estimate}",
            zh=f"混合模型 {scope.get('model_label')} 设置了 --max-model-len {tokens} 却未设置 --max-num-seqs：vLLM 允许 "
            f"{DEFAULT_MAX_NUM_SEQS} 条序列并发，每条都从 KV 池中占用一个 Mamba（GDN 状态）缓存块；池较小时，"
            f"图捕获会以 'max_num_seqs ({DEFAULT_MAX_NUM_SEQS}) exceeds available Mamba cache blocks' 退出{estimate_zh}",
        ),
        kit.span_of(scope.serve, "--max-model-len", absent=kit.model_span(scope.serve)),
        Fix(Text(en="set --max-num-seqs to the concurrency you need (the tutorial uses 32 at 262144 tokens)",
                 zh="将 --max-num-seqs 设为实际需要的并发数（教程在 262144 token 时用 32）")),
        severity="info" if blocks is not None and blocks >= 4 * DEFAULT_MAX_NUM_SEQS else None,
    )


def _mamba_blocks(scope: Scope) -> int | None:
    arch, weights, usable = (scope.known(n) for n in ("architecture", "weights_per_npu", "usable_hbm"))
    if arch is None or weights is None or usable is None:
        return None
    page = arch.value.state_bytes_per_seq(scope.get("tp"), 1, _ssm_bytes(scope), recurrent_factor=2)
    if not page:
        return None
    room = (usable.value.usable - weights.value[0]) * GB
    layers_per_group = arch.value.full_layers / scope.get("pp")
    return max(0, int(room / (page / arch.value.linear_layers * layers_per_group)))
