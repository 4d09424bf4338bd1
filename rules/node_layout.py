"""Rules over what runs on one node, and DP groups read as ``linter/topology.py`` instances.

QL615 ``launcher-npu-demand``: ``launch_online_dp.py`` starts ``--dp-size-local`` engines of
``--tp-size`` NPUs each on the node it runs on (devices ``i*tp .. (i+1)*tp-1``,
``launch_online_dp.py`` L54-58); asking for more NPUs than the node has fails at the first
missing device. QL616 ``engines-collide-on-node``: the engines one script starts run on one
node, so their API and RPC ports, their NPUs and their Mooncake kv_port ranges
(``kv_port + rank``) must not meet. QL617 ``dp-group-endpoints``: the nodes of one internal DP
group (``--data-parallel-size-local`` below ``--data-parallel-size``, ranks adding up to it)
must name the same address and RPC port, or the head waits for ranks that never arrive; so must the
``launch_online_dp.py`` calls of one external DP group (``--dp-address``, ``--dp-rpc-port``).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import LauncherCommand

LAUNCHER = "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/examples/external_online_dp/launch_online_dp.py#L54-L58"
PD_SOURCES = (
    "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
)
DP_ARGS = "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1818-L1935"

DEMAND = RuleMeta(
    id="QL615",
    name="launcher-npu-demand",
    groups=("parallelism", "pd"),
    severity="error",
    scope="script",
    requires=("hardware",),
    title=Text(en="launch_online_dp.py asks for more NPUs than the node has",
               zh="launch_online_dp.py 申请的 NPU 多于节点所有"),
    why=Text(
        en="launch_online_dp.py starts --dp-size-local engines on its node (all of --dp-size when it is not set), "
        "engine i on devices i x --tp-size .. (i + 1) x --tp-size - 1. More than the node's NPUs (8 on an "
        "Atlas 800 A2, 16 on an A3) and the engines past the last device fail at startup.",
        zh="launch_online_dp.py 在所在节点上启动 --dp-size-local 个引擎（未设置时为 --dp-size 个），第 i 个引擎使用设备 "
        "i x --tp-size .. (i + 1) x --tp-size - 1。超过节点的 NPU 数（Atlas 800 A2 为 8，A3 为 16）时，"
        "超出最后一个设备的引擎会启动失败。",
    ),
    sources=(LAUNCHER,) + PD_SOURCES[:1],
    examples=(Example(
        bad="# qlint: hardware=a3\npython launch_online_dp.py --dp-size 8 --tp-size 4 --dp-size-local 8 --dp-address 10.0.0.1\n",
        good="# qlint: hardware=a3\npython launch_online_dp.py --dp-size 8 --tp-size 4 --dp-size-local 4 --dp-address 10.0.0.1\n",
    ),),
)


@check(DEMAND, when=("command:launcher",))
def launcher_demand(scope: Scope):
    from qlint.linter.topology_read import launcher_share  # (the topology reader, only for a launcher)

    npus = scope.kb.hardware_by_id(scope.get("hardware")).npus_per_node
    for command in scope.plan.commands:
        if not isinstance(command, LauncherCommand):
            continue
        share = launcher_share(scope.plan.path, command)  # the ranks it starts on its node, as the topology holds them
        if share is None or share.dp_local < 1 or share.npus <= npus:
            continue
        local, tp = share.dp_local, share.tp
        at = command.options.get("--dp-size-local") or command.options.get("--dp-size")
        fits = max(npus // tp, 0)
        yield Finding(
            DEMAND,
            Text(en=f"{local} local DP engines x TP {tp} = {local * tp} NPUs, but the node has {npus}",
                 zh=f"{local} 个本地 DP 引擎 x TP {tp} = {local * tp} 个 NPU，而该节点只有 {npus} 个"),
            at.span if at is not None else command.span,
            Fix(Text(en=f"run at most {fits} local engines per node (--dp-size-local {fits}) and start the "
                     "other ranks on more nodes with --dp-rank-start",
                     zh=f"每个节点最多运行 {fits} 个本地引擎（--dp-size-local {fits}），其余 rank 用 --dp-rank-start "
                     "在更多节点上启动")),
        )


COLLIDE = RuleMeta(
    id="QL616",
    name="engines-collide-on-node",
    groups=("parallelism", "pd"),
    severity="error",
    scope="script",
    title=Text(en="Two engines of one node share a port, NPUs or kv_port range",
               zh="同一节点上的两个引擎共用端口、NPU 或 kv_port 范围"),
    why=Text(
        en="The engines one script starts run on the same node. Two that listen on the same --port or "
        "--data-parallel-rpc-port fail to bind; two whose ASCEND_RT_VISIBLE_DEVICES overlap fight for the "
        "same NPUs; and a Mooncake engine takes kv_port + 0 .. kv_port + ranks - 1, so a second kv_port "
        "inside that range fails with 'Address already in use'.",
        zh="同一个脚本启动的引擎运行在同一节点上。两个引擎监听相同的 --port 或 --data-parallel-rpc-port 会绑定失败；"
        "ASCEND_RT_VISIBLE_DEVICES 重叠的两个引擎会争用同一批 NPU；Mooncake 引擎占用 kv_port + 0 .. kv_port + rank 数 - 1，"
        "另一个 kv_port 落在其中会报 “Address already in use”。",
    ),
    sources=PD_SOURCES + ("https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/examples/disaggregated_prefill_v1/mooncake_connector_deployment_guide.md",),
    examples=(Example(
        bad="ASCEND_RT_VISIBLE_DEVICES=0,1 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8100 --tensor-parallel-size 2 &\n"
        "ASCEND_RT_VISIBLE_DEVICES=2,3 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8100 --tensor-parallel-size 2 &\n",
        good="ASCEND_RT_VISIBLE_DEVICES=0,1 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8100 --tensor-parallel-size 2 &\n"
        "ASCEND_RT_VISIBLE_DEVICES=2,3 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8101 --tensor-parallel-size 2 &\n",
    ),),
)


COLLIDE_FIXES = {
    "port": Text(en="give each engine of the node its own port", zh="为节点上的每个引擎分配独立端口"),
    "devices": Text(en="give each engine its own devices", zh="为每个引擎分配独立的设备"),
}


@check(COLLIDE, when=("command:serve>1",))
def collide(scope: Scope):
    """The engines of this script's node, as the topology sees them (``Topology.collisions``)."""
    if len(scope.plan.serve_commands()) < 2:
        return  # one engine collides with nothing (and reading its layout would cost every lint)
    topology = kit.node_topology(scope)
    for problem in topology.collisions(scope.plan.path):
        engine = problem.share.engine if problem.share is not None else None
        if engine is None:
            continue
        serve = engine.serve
        if problem.kind == "kv-port":
            yield Finding(COLLIDE, problem.text, kit.span_of(serve, "--kv-transfer-config", "kv_port"),
                          Fix(Text(en="move kv_port past the other engine's ranks",
                                   zh="把 kv_port 移到另一个引擎各 rank 占用的范围之外"), safety="unsafe"))
        elif problem.kind == "devices":
            yield Finding(COLLIDE, problem.text, serve.env["ASCEND_RT_VISIBLE_DEVICES"].span, Fix(COLLIDE_FIXES["devices"]))
        elif problem.kind == "port" and problem.flag is not None:
            yield Finding(COLLIDE, problem.text, kit.span_of(serve, problem.flag), Fix(COLLIDE_FIXES["port"]))


ENDPOINTS = RuleMeta(
    id="QL617",
    name="dp-group-endpoints",
    groups=("parallelism", "pd"),
    severity="error",
    scope="deployment",
    fix="unsafe",
    title=Text(en="The nodes of one DP group name different addresses or RPC ports",
               zh="同一 DP 组的各节点写了不同的地址或 RPC 端口"),
    why=Text(
        en="An internal DP group over nodes is found by its ranks: scripts of one role whose "
        "--data-parallel-size-local values add up to the same --data-parallel-size, one head and the rest "
        "--headless. Every one of them must point --data-parallel-address at the head node and use the same "
        "--data-parallel-rpc-port; a node that names another address or port never joins, and the head "
        "waits for its ranks until the startup times out. The same holds for an external DP group: every "
        "node's launch_online_dp.py call passes its --dp-address and --dp-rpc-port to each rank it starts "
        "(--data-parallel-address, --data-parallel-rpc-port), so all of them name the head node's, the node "
        "that starts rank 0.",
        zh="跨节点的内部 DP 组由其 rank 确定：同一角色的若干脚本，其 --data-parallel-size-local 之和等于相同的 "
        "--data-parallel-size，一个主节点，其余为 --headless。它们都必须把 --data-parallel-address 指向主节点，并使用相同的 "
        "--data-parallel-rpc-port；写了别的地址或端口的节点永远加入不了，主节点会一直等待其 rank 直到启动超时。"
        "外部 DP 组同样如此：每个节点的 launch_online_dp.py 调用把自己的 --dp-address 和 --dp-rpc-port 传给它启动的每个 rank"
        "（即 --data-parallel-address、--data-parallel-rpc-port），因此都必须写主节点（启动 rank 0 的节点）的地址和端口。",
    ),
    sources=PD_SOURCES + (DP_ARGS,) + kit.LAUNCHER_SOURCES,
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13390 --data-parallel-start-rank 1 --headless\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --data-parallel-start-rank 1 --headless\n",
        fixed="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --data-parallel-start-rank 1 --headless\n",
        peers=("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389\n",),
    ), Example(
        bad="python launch_online_dp.py --dp-size 4 --tp-size 2 --dp-size-local 2 --dp-rank-start 2 --dp-address 10.0.0.1 --dp-rpc-port 12322\n",
        good="python launch_online_dp.py --dp-size 4 --tp-size 2 --dp-size-local 2 --dp-rank-start 2 --dp-address 10.0.0.1 --dp-rpc-port 12321\n",
        fixed="python launch_online_dp.py --dp-size 4 --tp-size 2 --dp-size-local 2 --dp-rank-start 2 --dp-address 10.0.0.1 --dp-rpc-port 12321\n",
        peers=("python launch_online_dp.py --dp-size 4 --tp-size 2 --dp-size-local 2 --dp-rank-start 0 --dp-address 10.0.0.1 --dp-rpc-port 12321\n",),
    )),
)


@check(ENDPOINTS, when=("option:--data-parallel-size-local | command:launcher",))  # as QL612
def endpoints(scope: Scope):
    """Nodes of a DP group found by its ranks (``kit.topology``) that name another address or RPC port."""
    for instance in kit.topology(scope).groups():
        for problem in instance.checks():
            launch = problem.share.launch if problem.share is not None else None
            head_launch = instance.head.launch if instance.head is not None else None
            if problem.kind == "endpoint" and launch is not None and head_launch is not None and problem.flag:
                value = head_launch.command.options.get(problem.flag)
                yield kit.launcher_finding(ENDPOINTS, launch.command, launch.path, Text(
                    en=problem.text.en + " (launch_online_dp.py passes it to every rank)",
                    zh=problem.text.zh + "（launch_online_dp.py 会把它传给每个 rank）"), problem.flag, problem.want,
                    Text(en=f"use the head's {problem.flag}", zh=f"使用主节点的 {problem.flag}"), value.raw if value is not None and value.raw else None)
                continue
            engine = problem.share.engine if problem.share is not None else None
            if problem.kind != "endpoint" or engine is None or problem.flag is None or problem.want is None:
                continue
            head = instance.head.engine if instance.head is not None else None
            written = head.serve.opt(problem.flag) if head is not None else None
            # the head's word as written ("${NODE0_IP:?...}" stays a variable), else its value
            text = written.value.raw if written is not None and written.value is not None and written.value.raw \
                else kit.shell_word(problem.want)
            yield Finding(
                ENDPOINTS, problem.text, kit.span_of(engine.serve, problem.flag),
                Fix(Text(en=f"use {problem.flag} {problem.want} as the head does",
                         zh=f"与主节点一致，使用 {problem.flag} {problem.want}"),
                    kit.set_value(engine.serve, problem.flag, text), safety="unsafe"),
                path=engine.path,
            )


TOO_FEW = RuleMeta(
    id="QL618",
    name="fewer-npus-than-checkpoint-needs",
    groups=("parallelism", "memory"),
    severity="error",
    requires=("model", "tp", "dp", "pp", "checkpoint_min_npus"),
    optional=("hardware",),
    title=Text(en="The instance has fewer NPUs than its tutorial says the checkpoint needs",
               zh="实例的 NPU 数少于教程给出的该权重所需数量"),
    why=Text(
        en="The model's tutorial states how many 64 GB NPUs a checkpoint needs: Qwen3.5-397B-A17B in BF16 takes "
        "2 Atlas 800 A3 nodes or 4 A2 nodes (32 NPUs), the W8A8 checkpoint 1 A3 or 2 A2 nodes (16). One "
        "instance (TP x DP x PP over its nodes) with fewer runs out of memory at load or leaves no KV cache; "
        "qlint generate refuses the same launch.",
        zh="模型教程写明了每种权重需要多少张 64 GB NPU：Qwen3.5-397B-A17B 的 BF16 权重需要 2 台 Atlas 800 A3 或 4 台 A2"
        "（32 张），W8A8 权重需要 1 台 A3 或 2 台 A2（16 张）。一个实例（跨节点的 TP x DP x PP）少于这个数量时，加载即显存不足，"
        "或没有 KV 缓存的空间；qlint generate 也会拒绝同样的启动。",
    ),
    sources=("https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L19-L24",),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.5-397B-A17B --tensor-parallel-size 16 --enable-expert-parallel\n",
        good="vllm serve Qwen/Qwen3.5-397B-A17B --tensor-parallel-size 16 --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --enable-expert-parallel\n",
        hardware="a3", version="v0.23.0",
    ),),
)


@check(TOO_FEW, when=("checkpoint_min_npus",))
def too_few_npus(scope: Scope):
    variant = scope.get("model").variant
    hardware = scope.known("hardware")
    if variant is None or variant.min_npus is None or (hardware is not None and hardware.value == "310p"):
        return
    npus = scope.get("tp") * scope.get("dp") * scope.get("pp")
    if npus >= variant.min_npus:
        return
    yield Finding(
        TOO_FEW,
        Text(en=f"{variant.name} needs {variant.min_npus} NPUs by its tutorial; this instance has TP x DP x PP = {npus}",
             zh=f"按教程，{variant.name} 需要 {variant.min_npus} 张 NPU；该实例的 TP x DP x PP 只有 {npus}"),
        kit.model_span(scope.serve),
        Fix(Text(en=f"spread the instance over more nodes (qlint generate --nodes) or use a quantized checkpoint",
                 zh="把实例扩展到更多节点（qlint generate --nodes），或改用量化权重")),
    )
