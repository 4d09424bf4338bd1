"""Parallelism rules: EP vs MoE-TP, EP on dense models, NPU counts, DP-first sizing,
TP vs attention heads, EP vs routed experts.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, Unknown, check

EP_MIXED = RuleMeta(
    id="QL201",
    name="ep-mixed-with-moe-tp",
    groups=("parallelism",),
    severity="error",
    requires=("expert_parallel", "moe_tp"),
    fix="safe",
    title=Text(en="Expert parallel mixed with MoE tensor parallel",
               zh="专家并行与 MoE 张量并行混用"),
    why=Text(
        en="With --enable-expert-parallel the MoE layers are split purely by experts. Asking for an "
        "expert tensor-parallel size above 1 at the same time (ETP and EP mixed) is not a layout vLLM "
        "supports and gives wrong output: an MoE layer is either pure EP or pure TP.",
        zh="开启 --enable-expert-parallel 后，MoE 层只按专家切分。此时再要求专家张量并行度大于 1"
        "（ETP 与 EP 混用）并不是 vLLM 支持的布局，会产生错误输出：MoE 层只能是纯 EP 或纯 TP。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L81-L140",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L88-L149",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/user_guide/release_notes.md?plain=1#L1772",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/docs/serving/expert_parallel_deployment.md?plain=1#L34-L52",
    ),
    examples=(
        Example(
            bad="vllm serve /models/DeepSeek-R1-W8A8 -tp=16 --enable-expert-parallel "
            "--additional-config '{\"expert_tensor_parallel_size\":16}'\n",
            good="vllm serve /models/DeepSeek-R1-W8A8 -tp=16 --enable-expert-parallel\n",
            fixed="vllm serve /models/DeepSeek-R1-W8A8 -tp=16 --enable-expert-parallel "
            "--additional-config '{\"expert_tensor_parallel_size\":1}'\n",
        ),
    ),
)

EP_DENSE = RuleMeta(
    id="QL202",
    name="ep-on-dense-model",
    groups=("parallelism",),
    severity="error",
    requires=("expert_parallel", "moe", "model"),
    fix="safe",
    title=Text(en="Expert parallel on a dense model: vLLM refuses to start",
               zh="稠密模型开启专家并行：vLLM 拒绝启动"),
    why=Text(
        en="When --enable-expert-parallel is set, vLLM checks the model while building its configuration and stops "
        "with 'Number of experts in the model must be greater than 0 when expert parallelism is enabled' if the "
        "model has no experts. Every vLLM release from 0.9.0 to 0.27.1 does this. The flag usually comes from a "
        "MoE recipe copied onto a dense model, so check the rest of that recipe too.",
        zh="设置 --enable-expert-parallel 后，vLLM 在构建配置时会检查模型；模型没有专家时，它以 "
        "“Number of experts in the model must be greater than 0 when expert parallelism is enabled” 报错退出。"
        "vLLM 0.9.0 到 0.27.1 的每个版本都如此。这个参数通常来自照搬到稠密模型上的 MoE 配置，"
        "因此也请检查该配置的其余部分。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1197-L1198",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1137-L1142",
        "https://github.com/vllm-project/vllm/blob/v0.17.0/vllm/config/model.py#L998-L1003",
        "https://github.com/vllm-project/vllm/blob/v0.27.1/vllm/config/model.py#L1262-L1267",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L3-L9",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --enable-expert-parallel\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
        ),
    ),
)

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

VISIBLE_DEVICES = RuleMeta(
    id="QL204",
    name="visible-devices-mismatch",
    groups=("parallelism",),
    severity="error",
    requires=("tp", "dp_local", "pp", "visible_devices", "container_devices"),
    optional=("hardware",),
    title=Text(en="ASCEND_RT_VISIBLE_DEVICES does not match TP x local DP",
               zh="ASCEND_RT_VISIBLE_DEVICES 与 TP x 本地 DP 不一致"),
    why=Text(
        en="vllm-ascend places ranks on the devices listed in ASCEND_RT_VISIBLE_DEVICES. Listing fewer "
        "devices than TP x local DP x PP fails at startup; listing more leaves NPUs idle.",
        zh="vllm-ascend 只在 ASCEND_RT_VISIBLE_DEVICES 列出的设备上放置 rank。列出的设备少于 "
        "TP x 本地 DP x PP 会启动失败；多于所需则有 NPU 闲置。",
    ),
    sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L134",),
    examples=(
        Example(
            bad="export ASCEND_RT_VISIBLE_DEVICES=0,1\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4\n",
            good="export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4\n",
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

EP_EXPERTS = RuleMeta(
    id="QL207",
    name="ep-divides-experts",
    groups=("parallelism",),
    severity="error",
    requires=("ep_size", "routed_experts", "model_label"),
    title=Text(en="The EP size does not divide the routed experts", zh="EP 大小不能整除路由专家数"),
    why=Text(
        en="With --enable-expert-parallel the EP size is TP x DP and every rank holds the same number of "
        "routed experts; an EP size that does not divide the expert count cannot be laid out.",
        zh="开启 --enable-expert-parallel 时 EP 大小为 TP x DP，每个 rank 持有相同数量的路由专家；"
        "EP 大小不能整除专家数时无法完成切分。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/issues/52435",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/docs/serving/expert_parallel_deployment.md?plain=1#L34-L52",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 3 --enable-expert-parallel\n",
            good="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --enable-expert-parallel\n",
        ),
    ),
)


@check(EP_MIXED, relations=(("conflicts", "expert_parallel", "moe_tp"),))
def ep_mixed(scope: Scope):
    moe_tp = scope.get("moe_tp")
    if scope.get("expert_parallel") and moe_tp is not None and moe_tp > 1:
        span = kit.span_of(scope.serve, "--additional-config", "expert_tensor_parallel_size")
        yield Finding(
            EP_MIXED,
            Text(
                en=f"additional-config expert_tensor_parallel_size={moe_tp} with --enable-expert-parallel mixes MoE "
                f"tensor parallel and expert parallel (etp={moe_tp}); MoE must be pure EP or pure TP",
                zh=f"additional-config 中 expert_tensor_parallel_size={moe_tp} 与 --enable-expert-parallel 同时使用，"
                f"混用了 MoE 张量并行与专家并行（etp={moe_tp}）；MoE 只能是纯 EP 或纯 TP",
            ),
            span,
            Fix(Text(en="set expert_tensor_parallel_size to 1 and keep --enable-expert-parallel",
                     zh="将 expert_tensor_parallel_size 设为 1，并保留 --enable-expert-parallel"),
                kit.set_key(scope.serve, "--additional-config", "expert_tensor_parallel_size", 1)),
        )


@check(EP_DENSE)
def ep_dense(scope: Scope):
    if scope.get("expert_parallel") and not scope.get("moe"):
        option = scope.serve.opt("--enable-expert-parallel")
        model = scope.get("model").model.id
        yield Finding(
            EP_DENSE,
            Text(
                en=f"--enable-expert-parallel on {model}, a dense model without experts: vLLM stops at startup with "
                "'Number of experts in the model must be greater than 0 when expert parallelism is enabled'",
                zh=f"{model} 是没有专家的稠密模型，却设置了 --enable-expert-parallel：vLLM 启动时以 "
                "'Number of experts in the model must be greater than 0 when expert parallelism is enabled' 报错退出",
            ),
            kit.option_span(scope.serve, "--enable-expert-parallel"),
            Fix(Text(en="remove --enable-expert-parallel", zh="删除 --enable-expert-parallel"), kit.drop_option(option)),
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
            f"{tp * pp} of the node's {npus} NPUs), or spread the model over nodes with --nnodes",
            zh=f"把 --tensor-parallel-size 降到 {best}（仅 TP {tp}{f' x PP {pp}' if pp > 1 else ''} 就需要 "
            f"{tp * pp} 张 NPU，而节点只有 {npus} 张），或通过 --nnodes 把模型分布到多个节点",
        ))
    return Fix(Text(
        en=f"TP {tp}{f' x PP {pp}' if pp > 1 else ''} alone needs {tp * pp} NPUs: spread the model over nodes "
        "with --nnodes",
        zh=f"仅 TP {tp}{f' x PP {pp}' if pp > 1 else ''} 就需要 {tp * pp} 张 NPU：通过 --nnodes 把模型分布到多个节点",
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


@check(VISIBLE_DEVICES)
def visible_devices(scope: Scope):
    devices = scope.get("visible_devices")
    if devices is None:
        yield from _container_devices(scope)
        return
    tp, dp_local, pp = scope.get("tp"), scope.get("dp_local"), scope.get("pp")
    needed = tp * dp_local * pp
    listed = len(devices)
    setting = scope.serve.env["ASCEND_RT_VISIBLE_DEVICES"]
    if needed > listed:
        yield Finding(
            VISIBLE_DEVICES,
            Text(
                en=f"TP x DP(local) = {tp} x {dp_local} = {needed} NPUs, but ASCEND_RT_VISIBLE_DEVICES lists {listed}",
                zh=f"TP x DP(local) = {tp} x {dp_local} = {needed} 张 NPU，但 ASCEND_RT_VISIBLE_DEVICES 只列出了 {listed} 张",
            ),
            setting.span,
            Fix(Text(en=f"list {needed} devices in ASCEND_RT_VISIBLE_DEVICES or lower TP/DP",
                     zh=f"在 ASCEND_RT_VISIBLE_DEVICES 中列出 {needed} 个设备，或降低 TP/DP")),
        )
    elif needed < listed:
        yield Finding(
            VISIBLE_DEVICES,
            Text(
                en=f"ASCEND_RT_VISIBLE_DEVICES lists {listed} NPUs but TP x DP(local) = {tp} x {dp_local} uses {needed}; "
                f"{listed - needed} stay idle",
                zh=f"ASCEND_RT_VISIBLE_DEVICES 列出了 {listed} 张 NPU，但 TP x DP(local) = {tp} x {dp_local} 只用 {needed} 张；"
                f"{listed - needed} 张闲置",
            ),
            setting.span,
            severity="info",
        )


def _container_devices(scope: Scope):
    """Without ASCEND_RT_VISIBLE_DEVICES the engine sees the NPUs its container maps (``--device``)."""
    devices = scope.get("container_devices")
    if devices is None:
        return
    tp, dp_local, pp = scope.get("tp"), scope.get("dp_local"), scope.get("pp")
    needed = tp * dp_local * pp
    hardware = scope.known("hardware")
    node = scope.kb.hardware_by_id(hardware.value) if hardware is not None else None
    if node is not None and len(devices) >= node.npus_per_node:
        return  # the container maps the whole node: QL203 (npus-exceed-node) says it
    if needed > len(devices):
        yield Finding(
            VISIBLE_DEVICES,
            Text(
                en=f"TP x DP(local) = {tp} x {dp_local} = {needed} NPUs, but the container maps {len(devices)} "
                f"(--device {', '.join(devices[:3])}{', ...' if len(devices) > 3 else ''})",
                zh=f"TP x DP(local) = {tp} x {dp_local} = {needed} 张 NPU，但容器只映射了 {len(devices)} 张"
                f"（--device {', '.join(devices[:3])}{', ...' if len(devices) > 3 else ''}）",
            ),
            scope.serve.devices[-1].span if scope.serve.devices else scope.serve.span,
            Fix(Text(en=f"map {needed} /dev/davinciN devices into the container or lower TP/DP",
                     zh=f"向容器映射 {needed} 个 /dev/davinciN 设备，或降低 TP/DP")),
        )


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


def _divisors_near(total: int, limit: int = 16) -> list[int]:
    return [d for d in range(2, limit + 1) if total % d == 0]


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


@check(EP_EXPERTS, relations=(("divides", "ep_size", "routed_experts"),))
def ep_experts(scope: Scope):
    ep_size = scope.get("ep_size")
    experts = scope.get("routed_experts")
    if ep_size is None or not experts or ep_size <= 1:
        return
    if experts % ep_size:
        choices = ", ".join(str(d) for d in _divisors_near(experts)[:4])
        yield Finding(
            EP_EXPERTS,
            Text(
                en=f"EP size {ep_size} (TP x DP with --enable-expert-parallel) does not divide the "
                f"{experts} routed experts of {scope.get('model_label')}",
                zh=f"EP 大小 {ep_size}（开启 --enable-expert-parallel 时为 TP x DP）不能整除 "
                f"{scope.get('model_label')} 的 {experts} 个路由专家",
            ),
            kit.option_span(scope.serve, "--tensor-parallel-size", "--enable-expert-parallel"),
            Fix(Text(en=f"choose TP x DP that divides {experts} (e.g. {choices})",
                     zh=f"选择能整除 {experts} 的 TP x DP（如 {choices}）"), safety="unsafe"),
        )

EXTERNAL_DP_DENSE = RuleMeta(
    id="QL208",
    name="external-dp-on-dense-model",
    behaviours=("vllm_external_dp_rejects_dense",),
    applies="vllm_external_dp_rejects_dense",
    groups=("parallelism",),
    severity="error",
    requires=("dp", "moe", "model", "version"),
    title=Text(en="External data parallel (--data-parallel-rank) on a dense model",
               zh="稠密模型使用外部数据并行（--data-parallel-rank）"),
    why=Text(
        en="With --data-parallel-rank each process is one rank of an externally balanced DP group. vLLM only "
        "allows that for MoE models and stops a dense model with 'Non-MoE models do not support external "
        "data parallel mode' when DP > 1. The Qwen3.5-27B/Qwen3.6-27B tutorial's PD recipe for the dense 27B models launches exactly "
        "this through launch_online_dp.py (reported in vllm-ascend#11863); run independent DP=1 instances "
        "behind the proxy instead.",
        zh="使用 --data-parallel-rank 时，每个进程是外部负载均衡 DP 组中的一个 rank。vLLM 只允许 MoE 模型这样做，"
        "稠密模型在 DP > 1 时会以 “Non-MoE models do not support external data parallel mode” 退出。Qwen3.5-27B/Qwen3.6-27B 教程 "
        "为稠密 27B 模型给出的 PD 方案正是通过 launch_online_dp.py 这样启动的（vllm-ascend#11863）；应改为在代理后面运行"
        "多个互相独立的 DP=1 实例。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1860-L1870",
        "https://github.com/vllm-project/vllm-ascend/issues/11863",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    ),
    faq="external-dp-dense",
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --data-parallel-size 8 --data-parallel-rank 0\n",
            good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 8 --data-parallel-rank 0\n",
        ),
    ),
)


@check(EXTERNAL_DP_DENSE)
def external_dp_dense(scope: Scope):
    option = scope.serve.opt("--data-parallel-rank")
    if option is None or scope.get("moe") or scope.get("dp") <= 1 or not kit.holds(scope, "vllm_external_dp_rejects_dense"):
        return
    yield Finding(
        EXTERNAL_DP_DENSE,
        Text(
            en=f"--data-parallel-rank with --data-parallel-size {scope.get('dp')} on the dense model "
            f"{scope.get('model').model.id}: vLLM stops with 'Non-MoE models do not support external data "
            "parallel mode'",
            zh=f"在稠密模型 {scope.get('model').model.id} 上将 --data-parallel-rank 与 --data-parallel-size "
            f"{scope.get('dp')} 一起使用：vLLM 会以 'Non-MoE models do not support external data parallel mode' 退出",
        ),
        option.span,
        Fix(Text(
            en="launch independent instances without --data-parallel-* (one per NPU group) behind the proxy",
            zh="在代理后面启动多个不带 --data-parallel-* 的独立实例（每组 NPU 一个）",
        )),
    )
