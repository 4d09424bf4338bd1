"""Memory facts (GB = 10^9 bytes): the weights' size and their share on one NPU, the usable HBM
(HBM x --gpu-memory-utilization, vLLM's default per release), and the KV cache + GDN state of one
--max-model-len sequence (split by context parallel).
"""

from __future__ import annotations

from qlint.record import record
from qlint.rules import kit
from qlint.rules.graph import Known, Scope, Unknown, fact

GB = 1e9
GMU_DEFAULT = 0.92  # behaviour vllm_gpu_memory_utilization_092 (vllm/config/cache.py)
GMU_DOCUMENTED = 0.9  # vllm-ascend@v0.23.0:docs/source/faqs.md L148, seeds
LARGEST_HBM = {"310p": 48}  # 96 GB Atlas 300I Duo: 48 GB per chip (hardware.toml disagreement, vllm-ascend#1141)


# -- facts: memory --------------------------------------------------------------

@fact("weights_gb", requires=("local_model", "model", "weight_format"))
def weights_gb(scope: Scope):
    """Size of all weights in GB: the weight files of a local directory, else the variant's weights_gb,
    else the BF16 variant's size scaled by the format's bytes per parameter (a lower bound)."""
    local = scope.get("local_model")
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
    local = scope.get("local_model")
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


@record(frozen=True)
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
    state = arch.state_bytes_per_seq(tp, pp, ssm_bytes(scope))
    if per_token is None or state is None:
        raise Unknown("kv_need")
    kv = per_token * local_tokens / GB
    return Known((kv + state / GB, tokens, kv, state / GB, shards), "KV + GDN state of one sequence")


def ssm_bytes(scope: Scope) -> int:
    """Bytes per GDN state value: 4 with --mamba-ssm-cache-dtype float32, else 2 (16-bit)."""
    ssm = scope.serve.opt("--mamba-ssm-cache-dtype")
    return 4 if ssm is not None and ssm.value is not None and ssm.value.text == "float32" else 2


# -- rules ------------------------------------------------------------------------

_UNITS = "GB = 10^9 bytes"
_UNITS_ZH = "GB = 10^9 字节"
