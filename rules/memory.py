"""Memory fit (QL310-QL312): weights per NPU against HBM x --gpu-memory-utilization, the headroom left
after them, and KV cache + GDN state of one --max-model-len sequence. The facts they read are
``facts_model`` (model metadata) and ``facts_memory`` (weights per NPU, usable HBM, KV need); the
Mamba-cache-blocks limit of hybrid models is ``memory_mamba`` (QL313).

Units: GB = 10^9 bytes throughout, as the vendors state HBM ("64 GB") and as
knowledge/data/models.toml states weights_gb. Estimates leave out activations and graph
memory (vLLM measures those in its profile run), so they are lower bounds of the need.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

HEADROOM = 0.10  # warn when less than this share of usable HBM is left after weights


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


@check(WEIGHTS_FIT)
def weights_fit(scope: Scope):
    """Weights per NPU above HBM x --gpu-memory-utilization."""
    (per_npu, formula), memory = scope.get("weights_per_npu"), scope.get("usable_hbm")
    if per_npu <= memory.usable:
        return
    import math  # only when the weights do not fit

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
