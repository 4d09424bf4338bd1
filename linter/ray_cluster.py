"""Ray clusters read from scripts: which scripts start the head, which join it, where the engine runs.

The tutorials' Ray layout (vllm-ascend ``docs/source/tutorials/features/ray.md``, v0.11.0 to main):
every node exports its NIC and device variables, then runs ``ray start``: the head node
``ray start --head`` (Ray's default GCS port is 6379), each worker node
``ray start --address=HEAD_IP:6379 --node-ip-address=LOCAL_IP``; after the cluster is up, one
``vllm serve ... --distributed-executor-backend ray`` on the head node uses the NPUs of every node
(TP x PP over the cluster). vLLM reserves one ``{"NPU": 1}`` bundle per worker in a placement group
(``vllm/v1/executor/ray_utils.py`` ``initialize_ray_cluster``; vllm-ascend's ``ray_device_key`` is
``NPU``), so what a node offers is its NPUs, not ``--num-gpus``.

The deployment pass keeps them on its ``linter/topology.py`` Topology (``Topology.ray``) and turns each
Ray-backed engine on a cluster into an instance of group ``ray`` (``ray_instance``: one share per node, the
NPUs it offers); the generator (``linter/generate_ray.py``) writes the same instance. ``clusters(plans)``
groups the ``ray start`` commands of a deployment's plans into clusters (one per
head, workers joined by the port they name) and places each Ray-backed ``vllm serve`` on the node
of its script. A plan with both a head and a worker start (a guide describing both nodes) places its
serve commands on the head, where the tutorial runs them. Nothing here reads text: it works on plans.
"""

from __future__ import annotations

import json

from qlint.record import field, record
from qlint.rules.plan import EnvSetting, LaunchPlan, RayStartCommand, ServeCommand, Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.linter.topology import Engine, Instance

DEFAULT_PORT = 6379
"""Ray's default GCS port: ``ray start --head`` without ``--port`` listens on it (the tutorials' workers
name ``{head_node_ip}:6379``)."""

NIC_VARIABLES = ("HCCL_IF_IP", "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME", "HCCL_SOCKET_IFNAME")
"""The communication variables the tutorials export on every node before ``ray start``."""

NOSET = "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES"
VISIBLE = "ASCEND_RT_VISIBLE_DEVICES"


def symbol(value: Value | None) -> str | None:
    """A value's text, or ``$NAME`` when it is one variable (``"${HEAD_IP:?set it}"``), else None."""
    if value is None:
        return None
    if value.text is not None:
        return value.text
    if len(value.symbols) == 1:
        return "$" + value.symbols[0].lstrip("${").split(":", 1)[0].rstrip("}")
    return None


def split_address(value: Value | None) -> tuple[str | None, int | None, bool]:
    """(host, port, port written) of ``--address HOST:PORT``; the host may be ``$NAME``, the port None
    when it is not a literal number (``{port_num}``, ``$PORT``).

    A symbolic host followed by a literal port (``"$HEAD_IP:6379"``) keeps the port: the raw
    word ends in it.
    """
    if value is None:
        return None, None, False
    text = value.text if value.text is not None else value.raw.strip("'\"")
    written_host, colon, port = text.rpartition(":")
    if not colon:
        return (symbol(value) if value.text is None else text), None, False
    number = int(port) if port.isdigit() else None
    host: str | None = written_host
    if value.text is None:
        host = symbol(Value(None, value.span, symbols=value.symbols[:1])) if len(value.symbols) == 1 else None
    return host or None, number, True


def _int(value: Value | None) -> int | None:
    return None if value is None else value.as_int()


@record
class RayNode:
    """One ``ray start``: the head or a worker, in the script that runs it."""

    plan: LaunchPlan
    start: RayStartCommand

    @property
    def head(self) -> bool:
        return self.start.head

    @property
    def name(self) -> str:
        return self.plan.path.rsplit("/", 1)[-1]

    @property
    def env(self) -> dict[str, EnvSetting]:
        return self.start.env

    @property
    def port(self) -> int | None:
        """The head's GCS port (``--port``, default 6379); None for a worker or an unknown value."""
        if not self.head:
            return None
        value = self.start.value("--port")
        return DEFAULT_PORT if value is None else _int(value)

    @property
    def node_ip(self) -> str | None:
        return symbol(self.start.value("--node-ip-address"))

    def target(self) -> tuple[str | None, int | None, bool]:
        """A worker's (head host, head port, port written) from ``--address``."""
        return split_address(self.start.value("--address"))

    def offered_npus(self) -> int | None:
        """The NPUs this node gives Ray when the script says: ``--resources '{"NPU": n}'``, else the
        length of ASCEND_RT_VISIBLE_DEVICES at ``ray start``; None when the node's hardware decides."""
        resources = self.start.value("--resources")
        if resources is not None and resources.text is not None:
            try:
                data = json.loads(resources.text)
            except ValueError:
                data = None
            count = data.get("NPU") if isinstance(data, dict) else None
            import math  # only for ray start --resources

            if isinstance(count, (int, float)) and math.isfinite(count) and count >= 0:
                return int(count)
        setting = self.env.get(VISIBLE)
        if setting is not None and setting.value is not None and setting.value.text is not None:
            parts = [part for part in setting.value.text.split(",") if part.strip()]
            return len(parts) if parts else None
        return None


@record
class RayServe:
    """A ``vllm serve --distributed-executor-backend ray`` and the node whose script runs it."""

    plan: LaunchPlan
    serve: ServeCommand
    node: RayNode | None


@record
class RayCluster:
    """A head and the workers that name its port; ``serves`` are the Ray-backed engines on its nodes."""

    head: RayNode | None
    workers: list[RayNode] = field(default_factory=list)
    serves: list[RayServe] = field(default_factory=list)

    @property
    def nodes(self) -> list[RayNode]:
        return ([self.head] if self.head is not None else []) + self.workers


def ray_backend(serve: ServeCommand) -> bool:
    """True when the engine runs its workers on Ray (``--distributed-executor-backend ray``)."""
    option = serve.options.get("--distributed-executor-backend")
    return option is not None and option.value is not None and (option.value.text or "").strip() == "ray"


def starts(plan: LaunchPlan) -> list[RayStartCommand]:
    return [command for command in plan.commands if isinstance(command, RayStartCommand)]


def _before(first, second) -> bool:
    return (first.span.line, first.span.column) < (second.span.line, second.span.column)


def clusters(plans: list[LaunchPlan]) -> list[RayCluster]:
    """The Ray clusters of a deployment, heads first (in plan order); empty when no script starts Ray.

    A worker joins the nearest head started before it in its own script (a guide that shows several
    plans, each head followed by its workers), else the only head, else the head whose port it names;
    a worker that matches no head, or a deployment without a head, gives a cluster with ``head`` None.
    A Ray-backed serve runs on the nearest head started before it in its script, else on that script's
    first head or worker, else (a serve-only script) on the only cluster.
    """
    nodes = [RayNode(plan, start) for plan in plans for start in starts(plan)]
    if not nodes:
        return []
    heads = [node for node in nodes if node.head]
    found = [RayCluster(head) for head in heads]
    by_head = {id(c.head): c for c in found}
    orphans = RayCluster(None)
    for node in nodes:
        if node.head:
            continue
        earlier = [h for h in heads if h.plan is node.plan and _before(h.start, node.start)]
        if earlier:
            by_head[id(earlier[-1])].workers.append(node)
            continue
        if len(found) == 1:
            found[0].workers.append(node)
            continue
        _, port, _ = node.target()
        matching = [c for c in found if c.head is not None and port is not None and c.head.port == port]
        (matching[0] if len(matching) == 1 else orphans).workers.append(node)
    if orphans.workers:
        found.append(orphans)
    for plan in plans:
        own = [node for c in found for node in c.nodes if node.plan is plan]
        for serve in plan.serve_commands():
            if not ray_backend(serve):
                continue
            earlier = [n for n in own if n.head and _before(n.start, serve)]
            place: RayNode | None = earlier[-1] if earlier else next((n for n in own if n.head), own[0] if own else None)
            target = next((c for c in found if place is not None and place in c.nodes), None)
            if target is None and place is None and len(found) == 1:
                target = found[0]
            if target is not None:
                target.serves.append(RayServe(plan, serve, place))
    return found


def ray_instance(name: str, cluster: RayCluster, tp: int, dp: int, expert_parallel: bool, port: int,
                 npus_per_node: int, engine: Engine | None = None, pp: int = 1) -> Instance:
    """A ``linter/topology.py`` instance of group ``ray``: one share per node of the cluster (head first) holding
    the NPUs it offers (``npus_per_node`` where the script does not say), the engine on the head's share.
    ``tp`` is the engine's TP x PP (its workers per DP rank)."""
    from qlint.linter.topology import Instance, Share

    shares = []
    for index, node in enumerate(cluster.nodes):
        offered = node.offered_npus()
        shares.append(Share(node.plan.path, 1, 0, offered if offered is not None else npus_per_node, headless=index > 0,
                            engine=engine if node is cluster.head else None))
    head = cluster.head
    # the cluster's address as its workers name it (the head names itself as its own local address)
    named = [worker.target()[0] for worker in cluster.workers]
    address = next((host for host in named if host is not None), head.node_ip if head is not None else None)
    return Instance(name, "mixed", dp, tp * pp, expert_parallel, port, head.port if head is not None else None,
                    address, shares, None, "ray")
