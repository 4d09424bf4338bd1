"""Hybrid (GDN) models at long context with the default --max-num-seqs (QL313): the Mamba cache
needs one block per sequence, and the block pool left after the weights may hold fewer.
"""

from __future__ import annotations


from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.facts_memory import GB, ssm_bytes

LONG_CONTEXT = 131072
DEFAULT_MAX_NUM_SEQS = 256

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


@check(MAMBA_BLOCKS, when=("!option:--max-num-seqs", "hybrid"))
def mamba_blocks(scope: Scope):
    """Hybrid + explicit long --max-model-len + FULL graphs + no explicit --max-num-seqs.

    With the architecture known, the block pool is estimated as (HBM left after weights) /
    (full-attention layers x page), page = 2 x GDN recurrent state + conv state of one layer
    (Ascend sizes an attention block's K page equal to the recurrent state). Activations are not
    subtracted (activations and graphs take part of that room), so an estimate of four times the
    default or more shows no risk and the rule keeps quiet; below that it warns with the estimate."""
    tokens = scope.get("max_model_len")
    if tokens is None or tokens < LONG_CONTEXT or not scope.get("hybrid"):
        return
    if scope.serve.opt("--max-num-seqs") is not None or scope.get("cudagraph_mode") not in FULL_GRAPH_MODES:
        return
    blocks = _mamba_blocks(scope)
    if blocks is not None and blocks >= 4 * DEFAULT_MAX_NUM_SEQS:
        return  # the estimate shows no risk, even with activations taken from the pool
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
    )


def _mamba_blocks(scope: Scope) -> int | None:
    arch, weights, usable = (scope.known(n) for n in ("architecture", "weights_per_npu", "usable_hbm"))
    if arch is None or weights is None or usable is None:
        return None
    page = arch.value.state_bytes_per_seq(scope.get("tp"), 1, ssm_bytes(scope), recurrent_factor=2)
    if not page:
        return None
    room = (usable.value.usable - weights.value[0]) * GB
    layers_per_group = arch.value.full_layers / scope.get("pp")
    return max(0, int(room / (page / arch.value.linear_layers * layers_per_group)))
