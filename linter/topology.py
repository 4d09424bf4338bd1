"""The shape of a deployment, shared by the generator and the deployment rules.

A deployment has instances (``mixed``, ``prefill``, ``decode``); an instance is one vLLM
engine whose DP ranks may span nodes; each node holds a share of it: local DP ranks,
TP per rank, the NPUs they take, the first global rank, ``--headless`` on every node but
the head, and the address, API port and RPC port every node of the instance agrees on.
Internal DP over nodes (``--data-parallel-size-local`` / ``--data-parallel-start-rank`` /
``--headless``, vLLM ``arg_utils.py``), external DP (``launch_online_dp.py`` starting one
``run_dp_template.sh`` per local rank) and the PD proxy are all written in these terms.

The generator builds a Topology and writes its scripts from it; the deployment pass reads one back from
the scripts (``linter/topology_read.py``: each share then carries the ``Engine`` command it was read from).
Both are judged by the same checks: ``Instance.checks()`` (one DP size, ranks that tile the group,
``--headless`` off the head, the head's address and RPC port: QL612, QL617; for the engines of a DP group
and for the ``launch_online_dp.py`` calls of an external one, ``Topology.launch_groups``) and ``Topology.collisions(node)``
(ports, NPUs and kv_port ranges of one node's engines: QL616) return ``Problem``s whose text is the finding's
message; ``problems()`` lists their texts (the generator refuses a layout that has any).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.knowledge.models import Recipe
    from qlint.linter.ray_cluster import RayCluster
    from qlint.rules.graph import Scope
    from qlint.rules.plan import LauncherCommand, ProxyCommand, ServeCommand


@record(eq=False)
class Engine:
    """What one engine command of a read script writes itself (None: not written or not readable).

    The generator's shares have no Engine: their values are the instance's. A read share carries
    one, so a rule can point at the option to change (``serve``) and see where the nodes of one
    instance disagree (``address``, ``rpc_port``, ``dp``).
    """

    path: str
    serve: ServeCommand
    scope: Scope
    index: int
    """1-based position among the engines of its script (the node)."""
    role: str | None = None
    """kv_role (kv_producer, kv_consumer, kv_both) or None."""
    port: int | None = None
    rpc_port: str | None = None
    address: str | None = None
    """The text of --data-parallel-address, or ``$NAME`` when it is one variable."""
    dp: int | None = None
    api_server_count: bool = False
    devices: frozenset[int] | None = None
    kv_port: int | None = None
    kv_ranks: int = 1
    rpc_number: int | None = None
    dp_local: int | None = None
    order: int = 0
    """Position among every engine of the deployment (scripts in the order given)."""

    @property
    def script(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@record(eq=False)
class Launch:
    """What one ``launch_online_dp.py`` call of a read script writes (None: not written or not readable).

    Its options (vllm-ascend ``examples/external_online_dp/launch_online_dp.py`` L8-L17 at v0.23.0) are the
    external DP group's: ``--dp-size`` ranks in all, ``--dp-size-local`` of them (all when it is not set)
    from ``--dp-rank-start`` on this node, every node naming the head's ``--dp-address`` and
    ``--dp-rpc-port`` (default 12345). The launcher passes them to each rank's template as ``$3..$6``.
    """

    path: str
    command: LauncherCommand
    dp: int | None = None
    dp_local: int | None = None
    address: str | None = None
    rpc_port: str | None = None
    order: int = 0
    """Position among the deployment's launcher calls."""

    @property
    def script(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@record(frozen=True)
class Share:
    """One node's part of one instance."""

    node: str
    dp_local: int
    dp_start: int
    tp: int
    headless: bool = False
    engine: Engine | None = field(default=None, compare=False, repr=False)
    """The engine command that runs this share, for a deployment read from scripts."""
    launch: Launch | None = field(default=None, compare=False, repr=False)
    """The ``launch_online_dp.py`` call that starts this share's ranks (a ``launch`` instance's share)."""

    @property
    def npus(self) -> int:
        return self.tp * self.dp_local

    @property
    def written(self) -> Engine | Launch | None:
        """The command this share was read from: its engine, else its launcher call."""
        return self.engine if self.engine is not None else self.launch


@record(frozen=True)
class Problem:
    """What would hang or collide, where it is (``share``, ``flag``) and the value that fixes it."""

    kind: str
    """dp-size, start-rank, ranks-sum, headless, endpoint, node-npus, port, devices, kv-port."""
    text: Text
    share: Share | None = None
    flag: str | None = None
    want: str | None = None


@record
class Instance:
    """One engine (one DP group), possibly over several nodes."""

    name: str
    role: str  # mixed | prefill | decode
    dp: int
    tp: int
    expert_parallel: bool
    port: int
    rpc_port: int | str | None
    address: str | None
    """The head node's address as the scripts write it (a variable reference for generated scripts)."""
    shares: list[Share] = field(default_factory=list)
    kv_port: int | None = None
    group: str = "dp"
    """``dp``: one DP group (checked as one); ``external``: ranks an external launcher starts one process each
    (``--data-parallel-rank``); ``single``: a read engine that names no DP group over nodes; ``ray``: one
    engine on a Ray cluster (``linter/ray_cluster.py``): Ray places its TP x PP x DP workers over the
    cluster's nodes, so each node's share is the NPUs that node offers (``dp_local`` 1, ``tp`` = its NPUs)
    and only the head's share runs the engine command; ``launch``: the ``launch_online_dp.py`` calls of one
    external DP group over nodes, a share per call (the ranks it starts, ``Share.launch``), the head the call
    that starts rank 0. ``dp`` and ``launch`` instances are checked as a group."""

    @property
    def flags(self) -> dict[str, str]:
        """The options that write the group's size, local size, start rank, address and RPC port."""
        return LAUNCH_FLAGS if self.group == "launch" else DP_FLAGS

    @property
    def nodes(self) -> list[str]:
        return [share.node for share in self.shares]

    @property
    def head(self) -> Share | None:
        """The one share that is not --headless (of a ``launch`` group: that starts rank 0), or None when
        there is not exactly one."""
        if self.group == "launch":  # rank 0 runs on the node --dp-address names
            heads = [share for share in self.shares if share.dp_start == 0]
        else:
            heads = [share for share in self.shares if not share.headless]
        return heads[0] if len(heads) == 1 else None

    def checks(self) -> list[Problem]:
        """The DP group over nodes: one size, ranks that add up without gaps or overlap, --headless off the
        head, and every node pointing at the head's address and RPC port."""
        if self.group not in ("dp", "launch"):
            return []
        flag = self.flags
        written = [share.written.dp for share in self.shares if share.written is not None]
        if None in written:
            return []
        # a launcher without --dp-size-local starts all --dp-size ranks: its share is whole either way
        ranked = self.group == "launch" or all(
            share.engine is None or share.engine.dp_local is not None for share in self.shares)
        sizes = set(written) or {self.dp}
        if len(sizes) > 1:
            last = self.shares[-1]
            listed = ", ".join(str(s) for s in sorted(sizes))  # type: ignore[type-var]
            return [Problem("dp-size", Text(
                en=f"nodes of the DP group at {self.address}:{self.rpc_port} disagree on {flag['size']} ({listed})",
                zh=f"位于 {self.address}:{self.rpc_port} 的 DP 组中，各节点的 {flag['size']} 不一致（{listed}）"),
                last, flag["size"])]
        out = self._ranks() if ranked else []
        if len(self.shares) < 2:
            return out
        if self.group == "launch":  # no --headless: each launcher starts its own ranks' processes
            return out + self._endpoints()
        for share in self.shares:
            engine = share.engine
            # a read node with a start rank, no --headless and no --api-server-count runs hybrid load balancing
            hybrid = engine is not None and not engine.api_server_count
            if share.dp_start != 0 and not share.headless and not hybrid:
                where = _where(share)
                out.append(Problem("headless", Text(
                    en=f"{where} is not the head of the DP group (start rank {share.dp_start}) and must run --headless",
                    zh=f"{where} 不是 DP 组的主节点（起始 rank 为 {share.dp_start}），必须加 --headless"),
                    share, None, "--headless"))
            elif share.dp_start == 0 and share.headless and engine is None:
                out.append(Problem("headless", Text(en=f"{share.node} is the head of {self.name} and must not run --headless",
                                                    zh=f"{share.node} 是 {self.name} 的主节点，不能加 --headless"), share))
        return out + self._endpoints()

    def _ranks(self) -> list[Problem]:
        out: list[Problem] = []
        flag = self.flags
        ranks = sorted(self.shares, key=lambda share: (share.dp_start, share.headless, share.dp_local))  # the head first
        covered = sum(share.dp_local for share in ranks)
        if len(ranks) < 2 and covered <= self.dp:
            return out
        expected = 0
        for share in ranks:
            start = share.dp_start
            if start != expected:
                where = _where(share)
                state, state_zh = ("missing", "无人承担") if start > expected else ("claimed twice", "被重复占用")
                low, high = min(start, expected), max(start, expected) - 1
                out.append(Problem("start-rank", Text(
                    en=f"{flag['start']} {start} on {where}: the ranks before it end at {expected - 1}, "
                    f"so ranks {low}..{high} are {state}",
                    zh=f"{where} 的 {flag['start']} 为 {start}：此前的 rank 止于 {expected - 1}，"
                    f"因此 rank {low}..{high} {state_zh}"), share, flag["start"], str(expected)))
            expected = start + share.dp_local
        if covered != self.dp and len(ranks) > 1:
            out.append(Problem("ranks-sum", Text(
                en=f"the local DP sizes of the group add up to {covered}, but {flag['size']} is {self.dp}",
                zh=f"该组各节点本地 DP 规模之和为 {covered}，但 {flag['size']} 为 {self.dp}"),
                ranks[-1], flag["local"]))
        return out

    def _endpoints(self) -> list[Problem]:
        """Nodes of a group found by its ranks that name another address or RPC port than the head."""
        head = self.head
        if head is None or head.written is None or sum(s.dp_local for s in self.shares) != self.dp:
            return []
        out: list[Problem] = []
        for flag, attribute in ((self.flags["address"], "address"), (self.flags["rpc"], "rpc_port")):
            want = getattr(head.written, attribute)
            for share in self.shares:
                got = getattr(share.written, attribute) if share.written is not None else None
                if share is head or want is None or got is None or got == want:
                    continue
                out.append(Problem("endpoint", Text(
                    en=f"{flag} {got} on {_where(share)}, but the head of its DP group ({_where(head)}) uses {want}",
                    zh=f"{_where(share)} 的 {flag} 为 {got}，而其 DP 组的主节点（{_where(head)}）使用 {want}"),
                    share, flag, want))
        return out

    def problems(self) -> list[Text]:
        return [problem.text for problem in self.checks()]


DP_FLAGS = {"size": "--data-parallel-size", "local": "--data-parallel-size-local",
            "start": "--data-parallel-start-rank", "address": "--data-parallel-address",
            "rpc": "--data-parallel-rpc-port"}
LAUNCH_FLAGS = {"size": "--dp-size", "local": "--dp-size-local", "start": "--dp-rank-start",
                "address": "--dp-address", "rpc": "--dp-rpc-port"}


def _where(share: Share) -> str:
    return share.written.script if share.written is not None else share.node


@record
class Proxy:
    """A PD proxy: the (host, port) it sends to on each side, as written (None: not readable)."""

    path: str
    command: ProxyCommand
    layerwise: bool
    targets: dict[str, list[tuple[str | None, int | None]]] = field(default_factory=dict)


@record
class Topology:
    """Every instance of a deployment, and the nodes they run on."""

    instances: list[Instance]
    npus_per_node: int
    proxy_node: str | None = None
    proxies: list[Proxy] = field(default_factory=list)
    launchers: list[Share] = field(default_factory=list)
    """External-DP launchers (``launch_online_dp.py``): the ranks each starts on its node."""
    launch_groups: list[Instance] = field(default_factory=list)
    """External DP groups over nodes (``launch`` instances): the launcher calls of one group, a share each."""
    ray: list[RayCluster] = field(default_factory=list)
    """The Ray clusters of a read deployment (head, workers, the Ray-backed engines on them)."""

    @property
    def nodes(self) -> list[str]:
        return list(dict.fromkeys(node for instance in self.instances for node in instance.nodes))

    def on(self, node: str) -> list[tuple[Instance, Share]]:
        return [(i, s) for i in self.instances for s in i.shares if s.node == node]

    def engines(self, role: str | None = None) -> list[Engine]:
        """The engine commands read from the scripts (of a PD ``role``: prefill or decode), in script order."""
        found = [s.engine for i in self.instances for s in i.shares
                 if s.engine is not None and (role is None or i.role == role)]
        return sorted(found, key=lambda e: e.order)

    def ports(self, role: str) -> set[int] | None:
        """The --port of every engine of a PD side (launcher ranks included); None when one is not readable."""
        found = {engine.port for engine in self.engines(role)}
        return None if None in found else {port for port in found if port is not None}

    def collisions(self, node: str) -> list[Problem]:
        """Engines of one node: the NPUs they take, ports bound twice, NPUs and kv_port ranges that meet."""
        held = sorted(self.on(node), key=lambda held: held[1].engine.index if held[1].engine is not None else 0)
        out: list[Problem] = []
        used = sum(share.npus for _, share in held)
        if used > self.npus_per_node and all(share.engine is None for _, share in held):
            out.append(Problem("node-npus", Text(
                en=f"{node}: the engines take {used} NPUs, the node has {self.npus_per_node}",
                zh=f"{node}：引擎共需 {used} 个 NPU，而该节点只有 {self.npus_per_node} 个")))
        if len(held) < 2:
            return out
        ports: dict[int, str] = {}
        devices: list[tuple[frozenset[int], int]] = []
        ranges: list[tuple[str, int | None, int]] = []
        for instance, share in held:
            engine = share.engine
            label = f"engine {engine.index}" if engine is not None else instance.name
            if engine is not None:
                bound = (("--port", engine.port), ("--data-parallel-rpc-port", engine.rpc_number))
            else:
                bound = (("--port", instance.port),
                         ("--data-parallel-rpc-port", instance.rpc_port if isinstance(instance.rpc_port, int) else None))
            for flag, number in bound:
                if number is None:
                    continue
                if number in ports:
                    out.append(Problem("port", Text(
                        en=f"{flag} {number}: {label} of this node binds the port {ports[number]} already uses",
                        zh=f"{flag} {number}：本节点第 {engine.index if engine else label} 个引擎绑定的端口已被{ports[number]}占用"),
                        share, flag))
                ports.setdefault(number, label if flag == "--port" else f"{label} (RPC)")
            own = engine.devices if engine is not None else None
            if own is not None and engine is not None:
                for other, other_index in devices:
                    if own & other:
                        shared = ",".join(str(d) for d in sorted(own & other))
                        out.append(Problem("devices", Text(
                            en=f"engines {other_index} and {engine.index} both use NPUs {shared}",
                            zh=f"第 {other_index} 和第 {engine.index} 个引擎都使用 NPU {shared}"),
                            share, "ASCEND_RT_VISIBLE_DEVICES"))
                devices.append((own, engine.index))
            kv_port = engine.kv_port if engine is not None else instance.kv_port
            if kv_port is None:
                continue
            ranges.append((label, kv_port, engine.kv_ranks if engine is not None else share.npus))
            for clash in kv_port_clashes("this node" if engine is not None else node, ranges):
                if f"of {label} " in clash.en:
                    out.append(Problem("kv-port", clash, share, "--kv-transfer-config"))
        return out

    def groups(self) -> list[Instance]:
        """The instances checked as DP groups: the engines' and the external launchers' (``launch_groups``)."""
        return self.instances + self.launch_groups

    def checks(self) -> list[Problem]:
        return [p for instance in self.groups() for p in instance.checks()] + [
            p for node in self.nodes for p in self.collisions(node)]

    def problems(self) -> list[Text]:
        return [problem.text for problem in self.checks()]


def kv_port_clashes(node: str, engines: list[tuple[str, int | None, int]]) -> list[Text]:
    """Mooncake ranks take kv_port + 0 .. kv_port + ranks - 1 on a node: two ranges must not meet."""
    out: list[Text] = []
    ranges = sorted((port, port + ranks, name) for name, port, ranks in engines if port is not None)
    for (low, high, name), (other_low, _, other) in zip(ranges, ranges[1:]):
        if other_low < high:
            out.append(Text(en=f"{node}: kv_port {other_low} of {other} falls in {low}..{high - 1}, taken by {name}",
                            zh=f"{node}：{other} 的 kv_port {other_low} 落在 {name} 占用的 {low}..{high - 1} 内"))
    return out


def spread(name: str, role: str, dp: int, tp: int, nodes: list[str], npus_per_node: int, *, port: int,
           rpc_port: int, address: str, expert_parallel: bool, dp_local: int | None = None,
           kv_port: int | None = None) -> Instance:
    """One instance with ``dp`` ranks of TP ``tp`` spread evenly over ``nodes`` (head first).

    Raises ValueError when the ranks do not divide over the nodes or do not fit them.
    """
    local = dp_local or dp // len(nodes)
    if local * len(nodes) != dp:
        raise ValueError(f"DP {dp} does not divide over {len(nodes)} nodes")
    if local * tp > npus_per_node:
        raise ValueError(f"{local} DP ranks of TP {tp} need {local * tp} NPUs on a {npus_per_node}-NPU node")
    shares = [Share(node, local, index * local, tp, headless=index > 0) for index, node in enumerate(nodes)]
    return Instance(name, role, dp, tp, expert_parallel, port, rpc_port, address, shares, kv_port)


@record(frozen=True)
class Placement:
    """Where one script's engine sits in a multi-node or PD deployment (see ``linter/topology.py``)."""

    instance: Instance
    share: Share
    recipe: Recipe | None = None
    peer: Instance | None = None
    """The other side of a PD pair (its TP/DP go into kv_connector_extra_config)."""
    engine_id: int = 0


ADDRESS = "${LOCAL_IP:?set LOCAL_IP to the address of this node}"
NIC = "${NIC_NAME:?set NIC_NAME to the network interface of LOCAL_IP}"


def address_of(node: str) -> str:
    """The placeholder a script writes for another node's address (set on every node, see the README)."""
    name = node.upper() + "_IP"
    return "${" + name + ":?set " + name + " to the address of node " + node + "}"
