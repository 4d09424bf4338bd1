"""Parallelism sizing: NPUs per node (QL203), DP-first sizing (QL205) and TP against the attention
heads (QL206), with the TP sizes every TP check accepts. The devices are ``parallelism_devices``
(QL204), expert parallelism ``parallelism_ep`` (QL201, QL202, QL207, QL208).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, Unknown, check

NPUS_PER_NODE = RuleMeta(
    id="QL203",
    name="npus-exceed-node",
    groups=("parallelism",),
    severity="error",
    requires=("tp", "dp_local", "pp", "hardware"),
    optional=("attention_heads", "kv_heads", "expert_parallel", "routed_experts", "dp"),
    title=Text(en="TP x local DP needs more NPUs than the node has", zh="TP 与本地 DP 的乘积超过节点 NPU 数"),
    why=Text(
        en="Every local DP rank owns TP x PP NPUs of this node. When the product exceeds the node's NPUs "
        "(8 on Atlas 800 A2, 16 on A3) the engines cannot all get a device and startup fails; spread DP "
        "over nodes with --data-parallel-size-local instead.",
        zh="每个本地 DP rank 占用本节点 TP x PP 张 NPU。乘积超过节点 NPU 数（Atlas 800 A2 为 8，A3 为 16）时，"
        "引擎无法全部拿到设备，启动失败；应通过 --data-parallel-size-local 把 DP 分布到多个节点。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/examples/external_online_dp/launch_online_dp.py#L54-L58",
    ),
    examples=(
        Example(
            bad="# qlint: hardware=a2\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --data-parallel-size 8\n",
            good="# qlint: hardware=a2\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --data-parallel-size 4\n",
        ),
    ),
)

DP_FIRST = RuleMeta(
    id="QL205",
    name="dp-first-sizing",
    groups=("parallelism",),
    severity="warning",
    requires=("model", "tp", "dp", "hardware", "max_model_len"),
    optional=("dp_local", "pp", "visible_devices", "kv_transfer", "kv_role", "flashcomm1", "capture_sizes"),
    fix="unsafe",
    title=Text(en="A model that fits one NPU is split with large TP instead of DP",
               zh="单卡即可容纳的模型使用了大 TP 而不是 DP"),
    why=Text(
        en="When the weights fit in one NPU's HBM, extra tensor parallelism mostly adds all-reduce traffic. "
        "The tutorials' DP-first recipe keeps TP at 2 and gives the remaining NPUs to data parallel "
        "groups; large TP is only recommended for 256K+ contexts, where the KV cache must be sharded.",
        zh="权重能放进单张 NPU 的 HBM 时，更大的张量并行主要只增加 all-reduce 通信。教程的 DP 优先方案把 TP "
        "定为 2，其余 NPU 分给数据并行组；只有 256K 以上的超长上下文才建议大 TP，以便切分 KV 缓存。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    ),
    examples=(
        Example(
            bad="# qlint: hardware=a3\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 8 --max-model-len 131072\n",
            good="# qlint: hardware=a3\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --data-parallel-size 8 --max-model-len 131072\n",
        ),
    ),
)

TP_HEADS = RuleMeta(
    id="QL206",
    name="tp-divides-heads",
    groups=("parallelism",),
    severity="error",
    requires=("tp", "attention_heads", "model_label"),
    optional=("kv_heads", "hardware", "pp", "dp_local", "dp", "expert_parallel", "routed_experts"),
    title=Text(en="TP does not divide the model's attention heads", zh="TP 不能整除模型的注意力头数"),
    why=Text(
        en="Tensor parallelism gives each rank an equal share of attention heads; vLLM refuses a TP size "
        "that does not divide the number of attention heads (and KV heads must divide TP or be divided by it).",
        zh="张量并行让每个 rank 平分注意力头；TP 不能整除注意力头数时 vLLM 拒绝启动"
        "（KV 头数也必须与 TP 互为整除关系）。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/issues/52435",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1183-L1195",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-32B --tensor-parallel-size 3\n",
            good="vllm serve /models/Qwen3-32B --tensor-parallel-size 4\n",
        ),
    ),
)


@check(NPUS_PER_NODE)
def npus_per_node(scope: Scope):
    hardware = scope.kb.hardware_by_id(scope.get("hardware"))
    tp, dp_local, pp = scope.get("tp"), scope.get("dp_local"), scope.get("pp")
    for name in ("--distributed-executor-backend", "--data-parallel-backend"):
        if kit.option(scope.serve, name, strict=False).value == "ray":
            # Ray places the workers on any node of its cluster (ray.md: TP 16 over two 8-NPU
            # nodes); how many land on this node is the cluster's business, not the script's.
            return
    nnodes = kit.integer(scope.serve, "--nnodes", 1).value
    if nnodes is None:
        return
    needed = tp * dp_local * pp
    if nnodes > 1:
        # multi-node mp: each node runs world_size / nnodes ranks, world_size = DP x PP x TP
        # (vllm@v0.23.0:vllm/engine/arg_utils.py L1828-1840)
        dp = kit.integer(scope.serve, "--data-parallel-size", 1).value
        if dp is None:
            return
        needed = tp * pp * dp // nnodes
    if needed > hardware.npus_per_node:
        pp_text = f" x PP {pp}" if pp > 1 else ""
        yield Finding(
            NPUS_PER_NODE,
            Text(
                en=f"TP x DP(local){' x PP' if pp > 1 else ''} = {tp} x {dp_local}{pp_text} = {needed} NPUs, but one "
                f"{hardware.names[0]} node has {hardware.npus_per_node}",
                zh=f"TP x DP(local){' x PP' if pp > 1 else ''} = {tp} x {dp_local}{pp_text} = {needed} 张 NPU，"
                f"但一个 {hardware.names[0]} 节点只有 {hardware.npus_per_node} 张",
            ),
            kit.option_span(scope.serve, "--data-parallel-size-local", "--data-parallel-size", "--tensor-parallel-size"),
            _node_advice(scope, tp, dp_local, pp, hardware.npus_per_node),
        )


def _node_advice(scope: Scope, tp: int, dp_local: int, pp: int, npus: int) -> Fix:
    """QL203's advice: fewer local DP ranks when one rank fits the node, else a smaller TP that
    the head and expert checks accept (``tp_choices``), else more nodes."""
    if tp * pp <= npus:
        local = npus // (tp * pp)
        return Fix(Text(
            en=f"lower DP(local) to {local} (--data-parallel-size-local {local}) and run the other DP ranks on "
            "more nodes",
            zh=f"把 DP(local) 降到 {local}（--data-parallel-size-local {local}），其余 DP rank 放到更多节点上运行",
        ))
    choices = [c for c in tp_choices(scope, npus // pp, dp_local=1) if c < tp]
    if choices:
        best = choices[-1]
        return Fix(Text(
            en=f"lower --tensor-parallel-size to {best} (TP {tp}{f' x PP {pp}' if pp > 1 else ''} alone needs "
            f"{tp * pp} of the node's {npus} NPUs), or spread the model over nodes with --nnodes or a Ray cluster "
            "(--distributed-executor-backend ray)",
            zh=f"把 --tensor-parallel-size 降到 {best}（仅 TP {tp}{f' x PP {pp}' if pp > 1 else ''} 就需要 "
            f"{tp * pp} 张 NPU，而节点只有 {npus} 张），或通过 --nnodes 或 Ray 集群（--distributed-executor-backend ray）"
            "把模型分布到多个节点",
        ))
    return Fix(Text(
        en=f"TP {tp}{f' x PP {pp}' if pp > 1 else ''} alone needs {tp * pp} NPUs: spread the model over nodes "
        "with --nnodes or a Ray cluster (--distributed-executor-backend ray)",
        zh=f"仅 TP {tp}{f' x PP {pp}' if pp > 1 else ''} 就需要 {tp * pp} 张 NPU：通过 --nnodes 或 Ray 集群"
        "（--distributed-executor-backend ray）把模型分布到多个节点",
    ))


def _fact(scope: Scope, name: str):
    known = scope.known(name)
    return known.value if known is not None else None


def tp_choices(scope: Scope, limit: int | None = None, dp_local: int | None = None) -> list[int]:
    """TP sizes (2 .. ``limit``, default: the node's NPUs or 16) that every TP check accepts for
    this command: they divide the attention heads (QL206), divide the KV heads or are a multiple
    of them (QL206), fit the node with the command's PP and local DP (QL203), and with
    --enable-expert-parallel give an EP size TP x DP that divides the routed experts (QL207).
    Facts the script does not fix are not judged."""
    heads, kv_heads = _fact(scope, "attention_heads"), _fact(scope, "kv_heads")
    pp = _fact(scope, "pp") or 1
    local = dp_local if dp_local is not None else (_fact(scope, "dp_local") or 1)
    hardware_id = _fact(scope, "hardware")
    node = scope.kb.hardware_by_id(hardware_id) if hardware_id else None
    if limit is None:
        limit = node.npus_per_node if node is not None else 16
    experts = _fact(scope, "routed_experts") if _fact(scope, "expert_parallel") else None
    dp = _fact(scope, "dp") or 1
    out = []
    for tp in range(2, limit + 1):
        if heads and heads % tp:
            continue
        if kv_heads and (kv_heads % tp if tp <= kv_heads else tp % kv_heads):
            continue
        if node is not None and tp * pp * local > node.npus_per_node:
            continue
        if experts and (tp * dp) > 1 and experts % (tp * dp):
            continue
        out.append(tp)
    return out


LONG_CONTEXT = 200_000  # tokens; the tutorials' TP=8 exception is for 256K+ contexts


@check(DP_FIRST)
def dp_first(scope: Scope):
    match = scope.get("model")
    hardware = scope.kb.hardware_by_id(scope.get("hardware"))
    if hardware.id == "310p" or match.variant is None or match.variant.weights_gb is None:
        return  # a checkpoint whose size no source states
    tp, dp = scope.get("tp"), scope.get("dp")
    max_len = scope.get("max_model_len") or match.model.max_model_len
    fits_one = match.variant.weights_gb <= hardware.hbm_gb / 2
    if not fits_one or tp <= 2 or max_len is None or max_len >= LONG_CONTEXT:
        return
    suggested_dp = max(1, (tp * dp) // 2)
    fix = Fix(Text(en=f"use --tensor-parallel-size 2 --data-parallel-size {suggested_dp}",
                   zh=f"改用 --tensor-parallel-size 2 --data-parallel-size {suggested_dp}"), safety="unsafe")
    if scope.serve.opt("--data-parallel-size-local") is None:
        try:
            change = kit.resize(scope, 2, suggested_dp)
        except Unknown:
            change = None
        if change is not None and change.refusal is None:
            fix.edits = change.edits  # TP, DP and what follows them (devices, kv extra config)
        elif change is not None and change.refusal is not None:
            fix = Fix(Text(en=f"{fix.description} (not applied: {change.refusal.en})",
                           zh=f"{fix.description_zh}（未自动修改：{change.refusal.zh}）"), safety="unsafe")
    yield Finding(
        DP_FIRST,
        Text(
            en=f"{match.variant.name} weights (~{match.variant.weights_gb:g} GB) fit one {hardware.hbm_gb} GB NPU, "
            f"yet TP={tp} with DP={dp}; DP-first sizing uses TP=2 and DP={suggested_dp} on the same "
            f"{tp * dp} NPUs (large TP only for 256K+ contexts)",
            zh=f"{match.variant.name} 的权重（约 {match.variant.weights_gb:g} GB）可放进一张 {hardware.hbm_gb} GB 的 NPU，"
            f"却使用了 TP={tp}、DP={dp}；按 DP 优先的方案，同样 {tp * dp} 张 NPU 应使用 TP=2、DP={suggested_dp}"
            f"（大 TP 仅用于 256K 以上的超长上下文）",
        ),
        kit.option_span(scope.serve, "--tensor-parallel-size"),
        fix,
    )


def kv_heads_of(scope: Scope) -> int | None:
    return _fact(scope, "kv_heads")


@check(TP_HEADS, relations=(("divides", "tp", "attention_heads"),))
def tp_heads(scope: Scope):
    label = scope.get("model_label")
    tp = scope.get("tp")
    heads = scope.get("attention_heads")
    if not heads or tp <= 1:
        return
    span = kit.span_of(scope.serve, "--tensor-parallel-size")
    choices = ", ".join(str(d) for d in tp_choices(scope)[:4])
    advice_en, advice_zh = (f" (e.g. {choices})", f"（如 {choices}）") if choices else ("", "")
    if heads % tp:
        yield Finding(
            TP_HEADS,
            Text(
                en=f"--tensor-parallel-size {tp} does not divide the {heads} attention heads of {label}",
                zh=f"--tensor-parallel-size {tp} 不能整除 {label} 的 {heads} 个注意力头",
            ),
            span,
            Fix(Text(en=f"use a TP size that divides {heads}"
                     + (f" and fits the {kv_heads_of(scope)} KV heads" if kv_heads_of(scope) else "") + advice_en,
                     zh=f"使用能整除 {heads}"
                     + (f"、并与 {kv_heads_of(scope)} 个 KV 头相容" if kv_heads_of(scope) else "") + f"的 TP 大小{advice_zh}"),
                safety="unsafe"),
        )
        return
    kv = scope.known("kv_heads")
    kv_heads = kv.value if kv is not None else None
    if kv_heads and (kv_heads % tp if tp <= kv_heads else tp % kv_heads):
        yield Finding(
            TP_HEADS,
            Text(
                en=f"--tensor-parallel-size {tp} and the {kv_heads} KV heads of {label} do not divide one another",
                zh=f"--tensor-parallel-size {tp} 与 {label} 的 {kv_heads} 个 KV 头互不整除",
            ),
            span,
            Fix(Text(en=f"use a TP size that divides both {heads} and {kv_heads}, or a multiple of {kv_heads} "
                     f"that divides {heads}{advice_en}",
                     zh=f"使用同时整除 {heads} 与 {kv_heads} 的 TP 大小，或能整除 {heads} 的 {kv_heads} 的整数倍{advice_zh}"),
                safety="unsafe"),
        )
