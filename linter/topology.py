"""The shape of a deployment, shared by the generator and the deployment rules.

A deployment has instances (``mixed``, ``prefill``, ``decode``); an instance is one vLLM
engine whose DP ranks may span nodes; each node holds a share of it: local DP ranks,
TP per rank, the NPUs they take, the first global rank, ``--headless`` on every node but
the head, and the address, API port and RPC port every node of the instance agrees on.
Internal DP over nodes (``--data-parallel-size-local`` / ``--data-parallel-start-rank`` /
``--headless``, vLLM ``arg_utils.py``), external DP (``launch_online_dp.py`` starting one
``run_dp_template.sh`` per local rank) and the PD proxy are all written in these terms.
``problems()`` lists what would hang or collide, in English and Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qlint.knowledge.text import Text

if TYPE_CHECKING:
    from qlint.knowledge.models import Recipe


@dataclass(frozen=True)
class Share:
    """One node's part of one instance."""

    node: str
    dp_local: int
    dp_start: int
    tp: int
    headless: bool = False

    @property
    def npus(self) -> int:
        return self.tp * self.dp_local


@dataclass
class Instance:
    """One engine (one DP group), possibly over several nodes."""

    name: str
    role: str  # mixed | prefill | decode
    dp: int
    tp: int
    expert_parallel: bool
    port: int
    rpc_port: int
    address: str
    """The head node's address as the scripts write it (a variable reference for generated scripts)."""
    shares: list[Share] = field(default_factory=list)
    kv_port: int | None = None

    @property
    def nodes(self) -> list[str]:
        return [share.node for share in self.shares]

    def problems(self) -> list[Text]:
        out: list[Text] = []
        total = sum(share.dp_local for share in self.shares)
        if total != self.dp:
            out.append(Text(en=f"{self.name}: the local DP sizes add up to {total}, not {self.dp}",
                            zh=f"{self.name}：各节点本地 DP 规模之和为 {total}，而不是 {self.dp}"))
        expected = 0
        for index, share in enumerate(sorted(self.shares, key=lambda s: s.dp_start)):
            if share.dp_start != expected:
                out.append(Text(en=f"{self.name}: {share.node} starts at rank {share.dp_start}, expected {expected}",
                                zh=f"{self.name}：{share.node} 的起始 rank 为 {share.dp_start}，应为 {expected}"))
            if share.headless != (index > 0):
                want = "--headless" if index else "no --headless"
                out.append(Text(en=f"{self.name}: {share.node} needs {want}",
                                zh=f"{self.name}：{share.node} 需要{'加' if index else '去掉'} --headless"))
            expected = share.dp_start + share.dp_local
        return out


@dataclass
class Topology:
    """Every instance of a deployment, and the nodes they run on."""

    instances: list[Instance]
    npus_per_node: int
    proxy_node: str | None = None

    @property
    def nodes(self) -> list[str]:
        return list(dict.fromkeys(node for instance in self.instances for node in instance.nodes))

    def on(self, node: str) -> list[tuple[Instance, Share]]:
        return [(i, s) for i in self.instances for s in i.shares if s.node == node]

    def problems(self) -> list[Text]:
        out = [problem for instance in self.instances for problem in instance.problems()]
        for node in self.nodes:
            held = self.on(node)
            used = sum(share.npus for _, share in held)
            if used > self.npus_per_node:
                out.append(Text(en=f"{node}: the engines take {used} NPUs, the node has {self.npus_per_node}",
                                zh=f"{node}：引擎共需 {used} 个 NPU，而该节点只有 {self.npus_per_node} 个"))
            ports: dict[int, str] = {}
            for instance, _ in held:
                for port in (instance.port, instance.rpc_port):
                    if ports.get(port, instance.name) != instance.name:
                        out.append(Text(en=f"{node}: port {port} is used by {ports[port]} and {instance.name}",
                                        zh=f"{node}：端口 {port} 同时被 {ports[port]} 和 {instance.name} 使用"))
                    ports[port] = instance.name
            out += kv_port_clashes(node, [(i.name, i.kv_port, s.dp_local * s.tp) for i, s in held])
        return out


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


@dataclass(frozen=True)
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
