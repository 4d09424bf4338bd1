"""Ray multi-node deployments, read as ``linter/ray_cluster.py`` clusters.

The Ray tutorial (vllm-ascend ``docs/source/tutorials/features/ray.md``): every node exports its
NIC and device variables *before* ``ray start`` (the raylet passes its environment to the workers it
spawns; vLLM copies only its own ``VLLM_*``-style variables from the driver, ``vllm/ray/ray_env.py``),
the head runs ``ray start --head`` (port 6379 by default), each worker ``ray start
--address=HEAD:6379``, and one ``vllm serve --distributed-executor-backend ray`` on the head spreads
TP x PP over the cluster: vLLM asks Ray for one ``{"NPU": 1}`` bundle per worker and waits up to
1800 s for them (``vllm/v1/executor/ray_utils.py``).

QL620 ``ray-worker-address``, QL621 ``ray-serve-on-worker``, QL622 ``ray-engines-per-cluster``,
QL623 ``ray-cluster-npus``, QL624 ``ray-nic-env-differs``, QL625 ``ray-env-after-start``,
QL626 ``ray-noset-visible-devices``, QL627 ``ray-with-nnodes``, QL628 ``ray-num-gpus``, QL629 ``ray-host-ip-differs``, QL630 ``ray-cluster-not-read``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.linter.ray_cluster import (
    DEFAULT_PORT,
    NIC_VARIABLES,
    NOSET,
    VISIBLE,
    RayCluster,
    RayNode,
    ray_backend,
    starts,
)
from qlint.rules import kit
from qlint.rules.base import Edit, Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import ServeCommand, Span

RAY_MD = "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/features/ray.md?plain=1"
RAY_MD_MAIN = ("https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/"
               "docs/source/tutorials/features/ray.md?plain=1")
PP_GUIDE_MAIN = ("https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/"
                 "docs/source/user_guide/feature_guide/pipeline_parallel.md?plain=1#L108-L123")
RAY_UTILS = "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/v1/executor/ray_utils.py"
DEVICE_KEY = "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L133-L137"
RAY_ENV = "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/ray/ray_env.py#L36-L47"

HEAD = ("export HCCL_IF_IP=10.0.0.1\nexport GLOO_SOCKET_IFNAME=eth0\nexport TP_SOCKET_IFNAME=eth0\n"
        "ray start --head --port 6379\n")
WORKER = ("export HCCL_IF_IP=10.0.0.2\nexport GLOO_SOCKET_IFNAME=eth0\nexport TP_SOCKET_IFNAME=eth0\n"
          "ray start --address=10.0.0.1:{port} --node-ip-address=10.0.0.2\n")
SERVE = ("vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8 --distributed-executor-backend ray "
         "--tensor-parallel-size 8 --pipeline-parallel-size {pp}\n")


def _clusters(scope: Scope) -> list[RayCluster]:
    """The Ray clusters of the deployment, as the deployment's Topology read them (``kit.topology``)."""
    return kit.topology(scope).ray


def _name(node: RayNode) -> str:
    return node.name


def _scope_for(scope: Scope, node: RayNode) -> Scope:
    return Scope(plan=node.plan, kb=scope.kb, settings=scope.settings)


# -- QL620 ---------------------------------------------------------------------------------------

ADDRESS = RuleMeta(
    id="QL620",
    faq="ray-multi-node",
    name="ray-worker-address",
    groups=("ray", "parallelism"),
    severity="error",
    scope="deployment",
    fix="safe",
    title=Text(en="A Ray worker node does not name the head's address and port",
               zh="Ray worker 节点没有指向主节点的地址和端口"),
    why=Text(
        en="A worker joins the cluster with ray start --address=HEAD_IP:PORT, where PORT is the head's --port "
        "(6379 when the head does not set it) and HEAD_IP the head's address. A worker that names another port "
        "or host, or a ray start with neither --head nor --address, never joins: the head sees fewer NPUs and "
        "vllm serve waits for its placement group until it gives up.",
        zh="worker 节点通过 ray start --address=主节点IP:端口 加入集群，其中端口是主节点的 --port（未设置时为 6379），"
        "IP 是主节点的地址。写了别的端口或主机的 worker，或者既没有 --head 也没有 --address 的 ray start，"
        "都无法加入集群：主节点看到的 NPU 变少，vllm serve 会一直等待其放置组直到放弃。",
    ),
    sources=(f"{RAY_MD}#L109-L131", f"{RAY_MD_MAIN}#L108-L130"),
    examples=(Example(
        bad=WORKER.format(port=6380), good=WORKER.format(port=6379), fixed=WORKER.format(port=6379),
        peers=(HEAD,), version="v0.23.0",
    ),),
)


def _ip(text: str | None) -> str | None:
    """``text`` when it is an IP address (placeholders such as ``{head_node_ip}`` are not compared)."""
    import ipaddress  # here, not at start-up (~1.5 ms), as rules/server_ready.py's urllib.parse

    try:
        return str(ipaddress.ip_address(text)) if text is not None else None
    except ValueError:
        return None


def _head_host(head: RayNode) -> str | None:
    """The head's IP address as written: --node-ip-address, else HCCL_IF_IP at ray start."""
    if head.node_ip is not None:
        return _ip(head.node_ip)
    setting = head.env.get("HCCL_IF_IP")
    return _ip(setting.value.text) if setting is not None and setting.value is not None else None


@check(ADDRESS, when=("command:ray-start",))
def worker_address(scope: Scope):
    for cluster in _clusters(scope):
        head = cluster.head
        for worker in cluster.workers:
            start = worker.start
            if start.value("--address") is None and "RAY_ADDRESS" not in worker.env:
                yield Finding(
                    ADDRESS,
                    Text(en="ray start without --head or --address: this node starts no head and joins no cluster",
                         zh="ray start 既没有 --head 也没有 --address：该节点既不启动主节点，也不加入任何集群"),
                    start.span,
                    Fix(Text(en="add --address=HEAD_IP:6379 (the head's address and --port), or --head on the head node",
                             zh="加上 --address=主节点IP:6379（主节点的地址与 --port），主节点上则加 --head")),
                    path=worker.plan.path,
                )
                continue
            if head is None:
                continue
            host, port, written = worker.target()
            address = start.value("--address")
            at = address.span if address is not None else start.span
            want = head.port
            if want is not None and port is not None and port != want:
                edits = kit.replace(start.address_port.span, str(want)) if start.address_port is not None else []
                yield Finding(
                    ADDRESS,
                    Text(en=f"ray start --address names port {port}, but the head ({_name(head)}) listens on {want}",
                         zh=f"ray start --address 指向端口 {port}，而主节点（{_name(head)}）监听的是 {want}"),
                    at,
                    Fix(Text(en=f"use the head's port {want}", zh=f"改用主节点的端口 {want}"), edits),
                    path=worker.plan.path,
                )
            elif want is not None and not written and want != DEFAULT_PORT:
                yield Finding(
                    ADDRESS,
                    Text(en=f"ray start --address names no port (Ray tries {DEFAULT_PORT}), but the head "
                         f"({_name(head)}) listens on {want}",
                         zh=f"ray start --address 没有写端口（Ray 会尝试 {DEFAULT_PORT}），而主节点（{_name(head)}）监听的是 {want}"),
                    at,
                    Fix(Text(en=f"write the head's port: --address=HOST:{want}", zh=f"写上主节点的端口：--address=主机:{want}")),
                    path=worker.plan.path,
                )
            want_host, host = _head_host(head), _ip(host)
            if host is not None and want_host is not None and host != want_host and worker.plan is not head.plan:
                yield Finding(
                    ADDRESS,
                    Text(en=f"ray start --address names host {host}, but the head ({_name(head)}) is {want_host}",
                         zh=f"ray start --address 指向主机 {host}，而主节点（{_name(head)}）的地址是 {want_host}"),
                    at,
                    Fix(Text(en=f"point --address at the head: {want_host}:{want or DEFAULT_PORT}",
                             zh=f"把 --address 指向主节点：{want_host}:{want or DEFAULT_PORT}")),
                    path=worker.plan.path,
                )


# -- QL621 / QL622 -------------------------------------------------------------------------------

ON_WORKER = RuleMeta(
    id="QL621",
    faq="ray-multi-node",
    name="ray-serve-on-worker",
    groups=("ray", "parallelism"),
    severity="warning",
    scope="deployment",
    title=Text(en="The Ray-backed vllm serve runs on a worker node", zh="基于 Ray 的 vllm serve 运行在 worker 节点上"),
    why=Text(
        en="With --distributed-executor-backend ray the engine is started once, on the head node, after every "
        "node has joined; Ray places the workers on all nodes. A script that joins the cluster as a worker and "
        "then starts vllm serve runs the API server on that node instead, usually before the other workers "
        "have joined, and its first placement-group bundle is pinned to that node.",
        zh="使用 --distributed-executor-backend ray 时，引擎只在主节点上启动一次，并且要在所有节点加入之后；"
        "Ray 会把 worker 放到所有节点上。以 worker 身份加入集群后又启动 vllm serve 的脚本，会把 API 服务放在该节点上，"
        "通常此时其他 worker 还没加入，而且放置组的第一个 bundle 会被固定在这个节点上。",
    ),
    sources=(PP_GUIDE_MAIN, f"{RAY_MD}#L139-L147", f"{RAY_UTILS}#L646-L658"),
    examples=(Example(
        bad=WORKER.format(port=6379) + SERVE.format(pp=2), good=WORKER.format(port=6379),
        peers=(HEAD,), version="v0.23.0",
    ),),
)

PER_CLUSTER = RuleMeta(
    id="QL622",
    faq="ray-multi-node",
    name="ray-engines-per-cluster",
    groups=("ray", "parallelism"),
    severity="error",
    scope="deployment",
    title=Text(en="More than one node of a Ray cluster starts the Ray-backed engine",
               zh="同一 Ray 集群中有多个节点启动基于 Ray 的引擎"),
    why=Text(
        en="vllm serve --distributed-executor-backend ray uses the NPUs of the whole cluster: it asks Ray for one "
        "NPU per worker (TP x PP). The tutorial runs it on one node only. A second engine started from another "
        "node's script asks for the same NPUs again; its placement group cannot be created and it waits 1800 s "
        "before failing with 'Cannot provide a placement group'.",
        zh="vllm serve --distributed-executor-backend ray 使用整个集群的 NPU：它为每个 worker（TP x PP）向 Ray 申请一张 NPU。"
        "教程只在一个节点上运行它。从另一个节点的脚本再启动一个引擎会再次申请同样的 NPU，其放置组无法创建，"
        "等待 1800 秒后以 “Cannot provide a placement group” 失败。",
    ),
    sources=(f"{RAY_MD}#L141-L143", f"{RAY_UTILS}#L443-L505"),
    examples=(Example(
        bad=WORKER.format(port=6379) + SERVE.format(pp=2), good=WORKER.format(port=6379),
        peers=(HEAD + SERVE.format(pp=2),), version="v0.23.0",
    ),),
)


@check(ON_WORKER, when=("command:ray-start",))
def serve_on_worker(scope: Scope):
    for cluster in _clusters(scope):
        if cluster.head is None:
            continue
        for found in cluster.serves:
            if found.node is None or found.node.head:
                continue
            yield Finding(
                ON_WORKER,
                Text(en=f"this script joins the Ray cluster as a worker (head: {_name(cluster.head)}) and starts the "
                     "engine here",
                     zh=f"该脚本以 worker 身份加入 Ray 集群（主节点：{_name(cluster.head)}），却在这里启动引擎"),
                found.serve.span,
                Fix(Text(en=f"run vllm serve on the head node ({_name(cluster.head)}) once every node has joined",
                         zh=f"在所有节点加入后，于主节点（{_name(cluster.head)}）上运行 vllm serve")),
                path=found.plan.path,
            )


@check(PER_CLUSTER, when=("command:ray-start",))
def engines_per_cluster(scope: Scope):
    for cluster in _clusters(scope):
        scripts = list(dict.fromkeys(found.plan.path for found in cluster.serves))
        if len(scripts) < 2:
            continue
        first = scripts[0].rsplit("/", 1)[-1]
        for found in cluster.serves:
            if found.plan.path == scripts[0]:
                continue
            yield Finding(
                PER_CLUSTER,
                Text(en=f"a second Ray-backed engine of the same cluster ({first} starts one already): both ask Ray "
                     "for the cluster's NPUs",
                     zh=f"同一集群的第二个基于 Ray 的引擎（{first} 已经启动了一个）：两者都向 Ray 申请集群的 NPU"),
                found.serve.span,
                Fix(Text(en="start vllm serve from one node's script only (the head)",
                         zh="只在一个节点（主节点）的脚本中启动 vllm serve")),
                path=found.plan.path,
            )


# -- QL623 ---------------------------------------------------------------------------------------

NPUS = RuleMeta(
    id="QL623",
    faq="ray-multi-node",
    name="ray-cluster-npus",
    groups=("ray", "parallelism"),
    severity="error",
    scope="deployment",
    title=Text(en="The Ray-backed engine asks for more NPUs than the Ray cluster has",
               zh="基于 Ray 的引擎申请的 NPU 多于 Ray 集群所有"),
    why=Text(
        en="The Ray executor reserves one NPU per worker, TP x PP workers per DP rank, in a placement group "
        "(vllm-ascend's Ray device key is NPU). A node offers its visible NPUs (ASCEND_RT_VISIBLE_DEVICES at "
        "ray start, or --resources '{\"NPU\": n}'; --num-gpus offers GPUs, which the engine never asks for), "
        "else all of its NPUs. When the engine asks for more than the head and its workers offer, the placement "
        "group is never created: vllm serve waits 1800 s and fails with 'Cannot provide a placement group'. The "
        "tutorial sets TP to the NPUs of one node and PP to the number of nodes.",
        zh="Ray 执行器在放置组中为每个 worker 预留一张 NPU，每个 DP rank 有 TP x PP 个 worker（vllm-ascend 的 Ray 设备键是 NPU）。"
        "每个节点提供其可见的 NPU（ray start 时的 ASCEND_RT_VISIBLE_DEVICES，或 --resources '{\"NPU\": n}'；--num-gpus 提供的是 GPU，"
        "引擎从不申请），否则为其全部 NPU。引擎申请的数量超过主节点与 worker 提供的总数时，放置组永远无法创建："
        "vllm serve 等待 1800 秒后以 “Cannot provide a placement group” 失败。教程把 TP 设为单节点的 NPU 数，PP 设为节点数。",
    ),
    sources=(f"{RAY_MD}#L145-L176", f"{RAY_UTILS}#L634-L637", f"{RAY_UTILS}#L483-L505", f"{RAY_UTILS}#L660-L663",
             DEVICE_KEY),
    optional=("hardware",),
    examples=(Example(
        bad=HEAD + SERVE.format(pp=4), good=HEAD + SERVE.format(pp=2),
        peers=(WORKER.format(port=6379),), hardware="a2", version="v0.23.0",
    ),),
)


def _offered(scope: Scope, node: RayNode) -> int | None:
    npus = node.offered_npus()
    if npus is not None:
        return npus
    hardware = _scope_for(scope, node).known("hardware")
    if hardware is None or not isinstance(hardware.value, str):
        return None
    return scope.kb.hardware_by_id(hardware.value).npus_per_node


def _world(serve: ServeCommand) -> tuple[int, int, int] | None:
    sizes = []
    for flag in ("--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size"):
        value = kit.integer(serve, flag, 1, strict=False).value
        if value is None or value < 1:
            return None
        sizes.append(value)
    return sizes[0], sizes[1], sizes[2]


@check(NPUS, when=("command:ray-start",))
def cluster_npus(scope: Scope):
    for cluster in _clusters(scope):
        if cluster.head is None or not cluster.serves or not cluster.workers:
            continue  # no worker read: the cluster is not known (QL630 says so)
        offered = [_offered(scope, node) for node in cluster.nodes]
        if any(count is None for count in offered):
            continue
        total = sum(count for count in offered if count is not None)
        for found in cluster.serves:
            world = _world(found.serve)
            if world is None:
                continue
            tp, pp, dp = world
            needed = tp * pp * dp
            shown = f"TP x PP{' x DP' if dp > 1 else ''} = {tp} x {pp}{f' x {dp}' if dp > 1 else ''}"
            nodes = len(cluster.nodes)
            spare = total - needed
            if 0 < needed <= total and nodes > 1 and spare >= min(count for count in offered if count is not None):
                # Ray packs the bundles (strategy PACK): the spare NPUs leave at least one node without a worker
                yield Finding(
                    NPUS,
                    Text(en=f"{shown} = {needed} NPUs of the {total} the Ray cluster's {nodes} nodes offer: Ray packs "
                         f"the workers, so {spare} NPUs (a whole node or more) stay idle",
                         zh=f"{shown} = {needed} 张 NPU，而 Ray 集群的 {nodes} 个节点提供 {total} 张：Ray 会紧凑放置 worker，"
                         f"{spare} 张 NPU（至少一整个节点）闲置"),
                    kit.option_span(found.serve, "--pipeline-parallel-size", "--tensor-parallel-size"),
                    Fix(Text(en=f"use the whole cluster (TP x PP = {total}) or start fewer nodes",
                             zh=f"用满整个集群（TP x PP = {total}），或少启动几个节点")),
                    path=found.plan.path,
                    severity="info",
                )
                continue
            if needed <= total:
                continue
            yield Finding(
                NPUS,
                Text(en=f"{shown} = {needed} NPUs, but the Ray cluster's {nodes} node(s) offer {total}",
                     zh=f"{shown} = {needed} 张 NPU，而 Ray 集群的 {nodes} 个节点只提供 {total} 张"),
                kit.option_span(found.serve, "--pipeline-parallel-size", "--tensor-parallel-size"),
                Fix(Text(en=f"size the engine to the cluster (TP x PP = {total}, e.g. TP {offered[0]} x PP {nodes}) or "
                         "join more worker nodes",
                         zh=f"按集群规模设置引擎（TP x PP = {total}，例如 TP {offered[0]} x PP {nodes}），或加入更多 worker 节点")),
                path=found.plan.path,
            )


# -- QL624 / QL625 -------------------------------------------------------------------------------

NIC = RuleMeta(
    id="QL624",
    faq="ray-multi-node",
    name="ray-nic-env-differs",
    groups=("ray", "env"),
    severity="warning",
    scope="deployment",
    title=Text(en="The nodes of a Ray cluster do not set the same network variables",
               zh="Ray 集群各节点设置的网络变量不一致"),
    why=Text(
        en="The tutorial exports HCCL_IF_IP, GLOO_SOCKET_IFNAME and TP_SOCKET_IFNAME (and HCCL_SOCKET_IFNAME in "
        "the model tutorials) on every node before ray start; the workers Ray starts on a node use that node's "
        "values. A node that leaves one of them out lets Gloo or HCCL pick an interface by itself, which on "
        "hosts with several NICs is often not the one the other nodes reach: the engine hangs in its first "
        "collective or the workers cannot find each other.",
        zh="教程在每个节点上、ray start 之前导出 HCCL_IF_IP、GLOO_SOCKET_IFNAME 和 TP_SOCKET_IFNAME（模型教程还有 HCCL_SOCKET_IFNAME）；"
        "Ray 在某节点上启动的 worker 使用该节点的取值。漏掉其中某个变量的节点会让 Gloo 或 HCCL 自行选择网卡，"
        "在有多块网卡的主机上往往不是其他节点能访问的那块：引擎卡在第一次集合通信，或 worker 互相找不到。",
    ),
    sources=(f"{RAY_MD}#L111-L131",
             "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L440-L448"),
    examples=(Example(
        bad=WORKER.format(port=6379).replace("export TP_SOCKET_IFNAME=eth0\n", ""), good=WORKER.format(port=6379),
        peers=(HEAD,), version="v0.23.0",
    ),),
)


@check(NIC, when=("command:ray-start",))
def nic_env(scope: Scope):
    for cluster in _clusters(scope):
        nodes = cluster.nodes
        if len(nodes) < 2:
            continue
        for name in NIC_VARIABLES:
            having = [node for node in nodes if name in node.env]
            if not having or len(having) == len(nodes):
                continue
            example = _name(having[0])
            for node in nodes:
                if name in node.env:
                    continue
                yield Finding(
                    NIC,
                    Text(en=f"{name} is not set before this ray start, but {example} sets it",
                         zh=f"此 ray start 之前没有设置 {name}，而 {example} 设置了"),
                    node.start.span,
                    Fix(Text(en=f"export {name} (this node's own value) before ray start",
                             zh=f"在 ray start 之前导出 {name}（取本节点自己的值）")),
                    path=node.plan.path,
                )


AFTER = RuleMeta(
    id="QL625",
    faq="ray-multi-node",
    name="ray-env-after-start",
    groups=("ray", "env"),
    severity="warning",
    scope="script",
    title=Text(en="A communication or device variable is set after ray start",
               zh="通信或设备变量在 ray start 之后才设置"),
    why=Text(
        en="Ray's workers get the environment of the raylet, which ray start fixed; the tutorial says to set the "
        "variables before starting the cluster and to restart it after changing them. vLLM copies only its own "
        "variables (VLLM_*, HF_*, NCCL_*, ...) from the vllm serve process to the workers, not HCCL_*, "
        "GLOO_SOCKET_IFNAME, TP_SOCKET_IFNAME or ASCEND_*: set after ray start, the engine's workers never see them.",
        zh="Ray 的 worker 继承 raylet 的环境，而该环境在 ray start 时就已确定；教程要求在启动集群之前设置变量，修改后要重启集群。"
        "vLLM 只把自己的变量（VLLM_*、HF_*、NCCL_* 等）从 vllm serve 进程复制给 worker，不包括 HCCL_*、GLOO_SOCKET_IFNAME、"
        "TP_SOCKET_IFNAME 或 ASCEND_*：在 ray start 之后设置，引擎的 worker 永远看不到它们。",
    ),
    sources=(f"{RAY_MD}#L96-L99", RAY_ENV),
    examples=(Example(
        bad="ray start --head\nexport HCCL_IF_IP=10.0.0.1\n" + SERVE.format(pp=2),
        good="export HCCL_IF_IP=10.0.0.1\nray start --head\n" + SERVE.format(pp=2),
        version="v0.23.0",
    ),),
)

_WORKER_ENV_PREFIXES = ("HCCL_", "ASCEND_", "GLOO_", "TP_SOCKET_", "RAY_EXPERIMENTAL_")


@check(AFTER, when=("command:ray-start",))
def env_after_start(scope: Scope):
    started = starts(scope.plan)
    if not started:
        return
    start = next((s for s in started if s.head), started[0])
    for serve in scope.plan.serve_commands():
        if not ray_backend(serve) or (serve.span.line, serve.span.column) < (start.span.line, start.span.column):
            continue
        for name, setting in serve.env.items():
            if not name.startswith(_WORKER_ENV_PREFIXES):
                continue
            before = start.env.get(name)
            if before is not None and (before.value is None or setting.value is None
                                       or before.value.text == setting.value.text):
                continue
            change = "changed" if before is not None else "set"
            yield Finding(
                AFTER,
                Text(en=f"{name} is {change} after ray start (line {start.span.line}): the Ray workers of this node keep "
                     "the environment ray start had",
                     zh=f"{name} 在 ray start（第 {start.span.line} 行）之后才{'修改' if before is not None else '设置'}："
                     "本节点的 Ray worker 仍使用 ray start 时的环境"),
                setting.span,
                Fix(Text(en=f"set {name} before ray start (and restart Ray after changing it)",
                         zh=f"在 ray start 之前设置 {name}（修改后要重启 Ray）")),
            )


# -- QL626 ---------------------------------------------------------------------------------------

NOSET_RULE = RuleMeta(
    id="QL626",
    name="ray-noset-visible-devices",
    groups=("ray", "env"),
    severity="warning",
    scope="script",
    fix="safe",
    requires=("version",),
    applies="ray_noset_visible_devices_left_to_user",
    behaviours=("ray_noset_visible_devices_left_to_user",),
    title=Text(en="ray start limits the NPUs without RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1",
               zh="ray start 限定了 NPU，却没有设置 RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1"),
    why=Text(
        en="Ray rewrites ASCEND_RT_VISIBLE_DEVICES for each worker to the NPU it assigned, unless "
        "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES is set; vLLM-Ascend then picks devices itself and "
        "the two numberings disagree. The tutorial exports it (with ASCEND_RT_VISIBLE_DEVICES) on every node "
        "before ray start. Before v0.21.0rc1 the engine does not set it for its workers, so the node must.",
        zh="除非设置了 RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES，Ray 会把每个 worker 的 ASCEND_RT_VISIBLE_DEVICES "
        "改写为它分配的那张 NPU；而 vLLM-Ascend 自己也会选择设备，两套编号互相冲突。教程在每个节点上、ray start 之前"
        "（与 ASCEND_RT_VISIBLE_DEVICES 一起）导出它。v0.21.0rc1 之前引擎不会为其 worker 设置该变量，只能由节点自行设置。",
    ),
    sources=(f"{RAY_MD}#L105-L118",
             "https://github.com/vllm-project/vllm-ascend/blob/v0.21.0rc1/vllm_ascend/platform.py#L139-L143"),
    examples=(Example(
        bad="export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\nray start --head\n",
        good="export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\nexport RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1\nray start --head\n",
        fixed="export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n"
        "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1 ray start --head\n",
        version="v0.20.2rc1",
    ),),
)


@check(NOSET_RULE, when=("command:ray-start",))
def noset_visible_devices(scope: Scope):
    if not kit.holds(scope, "ray_noset_visible_devices_left_to_user"):
        return
    for start in starts(scope.plan):
        if VISIBLE not in start.env:
            continue
        setting = start.env.get(NOSET)
        if setting is not None and (setting.value is None or setting.value.text is None
                                    or setting.value.text.strip() not in ("", "0")):
            continue
        at = start.argv[0].span
        edits = [Edit(Span(at.line, at.column, at.line, at.column), f"{NOSET}=1 ")] if setting is None else []
        yield Finding(
            NOSET_RULE,
            Text(en=f"{VISIBLE} is set for ray start but {NOSET} is not 1: Ray renumbers the workers' NPUs",
                 zh=f"ray start 设置了 {VISIBLE}，但 {NOSET} 不为 1：Ray 会重新编号 worker 的 NPU"),
            start.span,
            Fix(Text(en=f"set {NOSET}=1 for ray start", zh=f"为 ray start 设置 {NOSET}=1"), edits),
        )


# -- QL627 ---------------------------------------------------------------------------------------

NNODES = RuleMeta(
    id="QL627",
    name="ray-with-nnodes",
    groups=("ray", "parallelism"),
    severity="error",
    fix="safe",
    requires=("version",),
    applies="vllm_ray_rejects_nnodes",
    behaviours=("vllm_ray_rejects_nnodes",),
    title=Text(en="--nnodes with the Ray executor", zh="--nnodes 与 Ray 执行器同用"),
    why=Text(
        en="--nnodes (with --node-rank and --master-addr) spreads the mp executor over nodes; the Ray executor "
        "finds the nodes in its cluster instead. vLLM refuses --nnodes above 1 with "
        "--distributed-executor-backend ray ('nnodes > 1 can only be set when distributed executor backend is mp, "
        "uni or external_launcher').",
        zh="--nnodes（以及 --node-rank、--master-addr）用于把 mp 执行器分布到多个节点；Ray 执行器则从其集群中找到节点。"
        "vLLM 不接受 --nnodes 大于 1 与 --distributed-executor-backend ray 同用"
        "（“nnodes > 1 can only be set when distributed executor backend is mp, uni or external_launcher”）。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/parallel.py#L897-L905", PP_GUIDE_MAIN),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8 --distributed-executor-backend ray --tensor-parallel-size 8 "
        "--pipeline-parallel-size 2 --nnodes 2\n",
        good="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8 --distributed-executor-backend ray --tensor-parallel-size 8 "
        "--pipeline-parallel-size 2\n",
        fixed="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8 --distributed-executor-backend ray --tensor-parallel-size 8 "
        "--pipeline-parallel-size 2\n",
        version="v0.23.0",
    ),),
)


@check(NNODES, when=("option:--distributed-executor-backend",))
def with_nnodes(scope: Scope):
    serve = scope.serve
    if not ray_backend(serve) or not kit.holds(scope, "vllm_ray_rejects_nnodes"):
        return
    nnodes = kit.integer(serve, "--nnodes", 1).value
    if nnodes <= 1:
        return
    yield Finding(
        NNODES,
        Text(en=f"--nnodes {nnodes} with --distributed-executor-backend ray: vLLM stops with ValueError",
             zh=f"--nnodes {nnodes} 与 --distributed-executor-backend ray 同用：vLLM 会以 ValueError 退出"),
        kit.option_span(serve, "--nnodes"),
        Fix(Text(en="drop --nnodes (the Ray cluster gives the nodes), or use --distributed-executor-backend mp",
                 zh="去掉 --nnodes（节点由 Ray 集群提供），或改用 --distributed-executor-backend mp"),
            kit.drop_option(serve.opt("--nnodes"))),
    )



# -- QL628 ---------------------------------------------------------------------------------------

NUM_GPUS = RuleMeta(
    id="QL628",
    faq="ray-multi-node",
    name="ray-num-gpus",
    groups=("ray",),
    severity="warning",
    scope="script",
    requires=("version",),
    behaviours=("ray_reserves_npu_resources",),
    title=Text(en="ray start --num-gpus on an Ascend node", zh="在昇腾节点上使用 ray start --num-gpus"),
    why=Text(
        en="vLLM-Ascend's Ray executor reserves NPU resources (its Ray device key is NPU), one per worker. "
        "--num-gpus only adds GPU resources to the node, which the engine never asks for: it neither gives nor "
        "limits NPUs, and a cluster whose ray status lists GPUs but no NPU cannot start the engine (a reported "
        "case). The v0.9.0 tutorial used --num-gpus for the NPU count; later tutorials dropped it. Let Ray find "
        "the NPUs, or declare them with --resources='{\"NPU\": N}'.",
        zh="vLLM-Ascend 的 Ray 执行器预留的是 NPU 资源（其 Ray 设备键为 NPU），每个 worker 一个。--num-gpus 只会给节点增加 "
        "GPU 资源，而引擎从不申请 GPU：它既不提供也不限制 NPU；ray status 只列出 GPU 而没有 NPU 的集群无法启动引擎"
        "（有用户报告过）。v0.9.0 的教程用 --num-gpus 表示 NPU 数，之后的教程已删去。让 Ray 自己发现 NPU，"
        "或用 --resources='{\"NPU\": N}' 声明。",
    ),
    sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L133",
             f"{RAY_UTILS}#L634-L637", "https://github.com/vllm-project/vllm-ascend/issues/3114",
             "https://github.com/vllm-project/vllm-ascend/blob/v0.9.0rc2/docs/source/tutorials/multi_node.md?plain=1#L92-L110"),
    examples=(Example(
        bad="ray start --head --num-gpus=8\n", good="ray start --head\n", version="v0.23.0",
    ),),
)


@check(NUM_GPUS, when=("command:ray-start",))
def num_gpus(scope: Scope):
    if not kit.holds(scope, "ray_reserves_npu_resources"):
        return
    for start in starts(scope.plan):
        value = start.value("--num-gpus")
        if "--num-gpus" not in start.options or "--resources" in start.options:
            continue
        count = value.text if value is not None and value.text is not None else "N"
        yield Finding(
            NUM_GPUS,
            Text(en=f"--num-gpus {count} gives this Ray node GPU resources; the engine reserves NPUs, so it neither "
                 "offers nor limits any",
                 zh=f"--num-gpus {count} 给该 Ray 节点增加的是 GPU 资源；引擎预留的是 NPU，因此它既不提供也不限制 NPU"),
            value.span if value is not None else start.span,
            Fix(Text(en=f"drop --num-gpus (Ray finds the NPUs) or declare them: --resources='{{\"NPU\": {count}}}'",
                     zh=f"去掉 --num-gpus（Ray 会自动发现 NPU），或声明：--resources='{{\"NPU\": {count}}}'")),
        )


# -- QL629 ---------------------------------------------------------------------------------------

HOST_IP = RuleMeta(
    id="QL629",
    faq="ray-multi-node",
    name="ray-host-ip-differs",
    groups=("ray", "env"),
    severity="error",
    scope="deployment",
    fix="safe",
    title=Text(en="VLLM_HOST_IP of the engine's node is not the address its ray start uses",
               zh="引擎所在节点的 VLLM_HOST_IP 与其 ray start 使用的地址不一致"),
    why=Text(
        en="The Ray executor pins its first placement-group bundle to the Ray node whose address is the engine's "
        "own IP (vLLM's get_ip(), which reads VLLM_HOST_IP). When VLLM_HOST_IP names another address than the "
        "--node-ip-address that node's ray start registered, no Ray node has that address: the placement group is "
        "never created and vllm serve waits 1800 s, logging that the cluster's IPs must match VLLM_HOST_IP.",
        zh="Ray 执行器会把放置组的第一个 bundle 固定到地址等于引擎自身 IP 的 Ray 节点上（vLLM 的 get_ip()，读取 VLLM_HOST_IP）。"
        "如果 VLLM_HOST_IP 写的地址与该节点 ray start 注册的 --node-ip-address 不同，就没有任何 Ray 节点拥有这个地址："
        "放置组永远无法创建，vllm serve 会等待 1800 秒，并在日志中提示集群的 IP 必须与 VLLM_HOST_IP 一致。",
    ),
    sources=(f"{RAY_UTILS}#L646-L658", f"{RAY_UTILS}#L465-L473",
             "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/utils/network_utils.py#L33-L46"),
    examples=(Example(
        bad="export VLLM_HOST_IP=10.0.0.9\nray start --head --node-ip-address=10.0.0.1\n" + SERVE.format(pp=2),
        good="export VLLM_HOST_IP=10.0.0.1\nray start --head --node-ip-address=10.0.0.1\n" + SERVE.format(pp=2),
        fixed="export VLLM_HOST_IP=10.0.0.1\nray start --head --node-ip-address=10.0.0.1\n" + SERVE.format(pp=2),
        peers=(WORKER.format(port=6379),), version="v0.23.0",
    ),),
)


@check(HOST_IP, when=("command:ray-start",))
def host_ip_differs(scope: Scope):
    for cluster in _clusters(scope):
        for found in cluster.serves:
            node = found.node
            registered = node.start.value("--node-ip-address") if node is not None else None
            setting = found.serve.env.get("VLLM_HOST_IP")
            if registered is None or registered.text is None or setting is None or setting.value is None \
                    or setting.value.text is None:
                continue
            host, address = setting.value.text.strip(), registered.text.strip()
            if host == address:
                continue
            yield Finding(
                HOST_IP,
                Text(en=f"VLLM_HOST_IP={host} for the Ray-backed engine, but this node's ray start registered "
                     f"--node-ip-address {address}: the placement group waits for a node that does not exist",
                     zh=f"基于 Ray 的引擎使用 VLLM_HOST_IP={host}，而本节点 ray start 注册的 --node-ip-address 为 "
                     f"{address}：放置组会一直等待一个不存在的节点"),
                setting.span,
                Fix(Text(en=f"set VLLM_HOST_IP to {address} (or drop it)", zh=f"把 VLLM_HOST_IP 设为 {address}（或去掉）"),
                    kit.replace(setting.value.span, address) if setting.value.raw == setting.value.text else []),
                path=found.plan.path,
            )


# -- QL630 ---------------------------------------------------------------------------------------

NOT_READ = RuleMeta(
    id="QL630",
    faq="ray-multi-node",
    name="ray-cluster-not-read",
    groups=("ray", "parallelism"),
    severity="info",
    scope="deployment",
    title=Text(en="A Ray-backed engine larger than one node, and no Ray worker in the deployment",
               zh="基于 Ray 的引擎超过一个节点，但部署中没有 Ray worker 节点"),
    why=Text(
        en="With --distributed-executor-backend ray, TP x PP x DP may exceed one node only when a Ray cluster of "
        "several nodes is up before vllm serve starts (without one, vLLM starts a local Ray instance with this "
        "node's NPUs and waits for the rest). When no script read joins the cluster as a worker, qlint cannot check "
        "the cluster (worker addresses, NPUs offered, network variables): this says so instead of reporting it clean. "
        "Lint the head and worker scripts together (a folder, or --with-deployment).",
        zh="使用 --distributed-executor-backend ray 时，只有在 vllm serve 启动之前已经建立了多节点的 Ray 集群，TP x PP x DP "
        "才能超过一个节点（否则 vLLM 会用本节点的 NPU 启动一个本地 Ray 实例，并一直等待其余的 NPU）。所读脚本中没有任何 "
        "以 worker 身份加入集群的 ray start 时，qlint 无法检查集群（worker 地址、提供的 NPU、网络变量）：这里明确说明，而不是报告为没有问题。"
        "请把主节点和 worker 节点的脚本一起检查（一个目录，或使用 --with-deployment）。",
    ),
    sources=(f"{RAY_MD}#L94-L147", f"{RAY_UTILS}#L585"),
    optional=("hardware",),
    examples=(Example(
        bad=SERVE.format(pp=2), good=SERVE.format(pp=1), hardware="a2", version="v0.23.0",
    ),),
)


@check(NOT_READ, when=("option:--distributed-executor-backend",))
def cluster_not_read(scope: Scope):
    known = {id(found.serve) for cluster in _clusters(scope) if cluster.workers for found in cluster.serves}
    for plan in scope.deployment:
        hardware = Scope(plan=plan, kb=scope.kb, settings=scope.settings).known("hardware")
        if hardware is None or not isinstance(hardware.value, str):
            continue
        npus = scope.kb.hardware_by_id(hardware.value).npus_per_node
        for serve in plan.serve_commands():
            world = _world(serve) if ray_backend(serve) and id(serve) not in known else None
            if world is None or world[0] * world[1] * world[2] <= npus:
                continue
            needed = world[0] * world[1] * world[2]
            yield Finding(
                NOT_READ,
                Text(en=f"this Ray-backed engine needs {needed} NPUs, more than one node's {npus}, and no worker node's "
                     "ray start was read with it: the cluster checks did not run",
                     zh=f"该基于 Ray 的引擎需要 {needed} 张 NPU，超过单节点的 {npus} 张，而没有读到任何 worker 节点的 ray start："
                     "集群检查没有执行"),
                kit.option_span(serve, "--distributed-executor-backend"),
                Fix(Text(en="lint the scripts that start the Ray head and workers together with this one",
                         zh="把启动 Ray 主节点和 worker 的脚本与本脚本一起检查")),
                path=plan.path,
            )
