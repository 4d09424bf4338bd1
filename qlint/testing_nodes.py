"""Hypothesis strategies for whole multi-node and PD deployment trees (part of :mod:`qlint.testing`).

* :func:`node_trees` -- a :class:`NodeTree`: the scripts ``qlint generate --nodes N`` or ``--pd xPyD``
  (with ``--prefill-nodes`` / ``--decode-nodes``) writes for a model, hardware, weight type and release
  the generator accepts, with the :class:`~qlint.linter.topology.Topology` it followed. Every tree lints
  clean as one deployment.
* :func:`tree_mutations` -- such a tree with one field of one script changed (a :class:`TreeMutation`):
  a non-head node's RPC port, DP address or start rank, a decode script's served name, a proxy port, the
  peer's TP or DP an engine's kv_connector_extra_config states.
  Each names the one finding it must give: rule and file (:data:`TREE_MUTATIONS`).

::

    @given(qt.tree_mutations(kind="rpc-port"))
    def test_my_checker_sees_a_dp_group_split(mutation):
        assert my_checker(mutation.files) == [(mutation.rule, mutation.file)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from hypothesis import reject
from hypothesis import strategies as st

if TYPE_CHECKING:
    from qlint.linter.generate_nodes import NodesDeployment
    from qlint.linter.generate_ray import RayDeployment
    from qlint.rules.base import Finding
    from qlint.linter.topology import Instance

LAYOUTS = (("nodes", 2, None, None), ("nodes", 3, None, None), ("nodes", 4, None, None),
           ("1P1D", 0, None, None), ("2P1D", 0, None, None), ("1P2D", 0, None, None),
           ("1P1D", 0, None, 2), ("1P1D", 0, 2, 2))
"""(``nodes`` or an xPyD, node count for ``nodes``, --prefill-nodes, --decode-nodes) the strategies draw from."""

RAY_LAYOUTS = (("ray", 2, None, None), ("ray", 3, None, None), ("ray", 4, None, None))
"""``qlint generate --nodes N --executor ray`` trees: drawn only when ``layout="ray"`` is asked for (the generator
plans a Ray cluster only for weights one node cannot hold, so most combinations are refused)."""


@dataclass(frozen=True, order=True)
class TreeConfig:
    """What ``qlint generate --nodes`` / ``--pd`` is asked for."""

    model: str
    hardware: str
    quantized: bool
    version: str
    layout: str
    """``nodes`` (one instance over ``nodes`` nodes), ``ray`` (one engine on a Ray cluster of ``nodes`` nodes) or an
    xPyD such as ``1P1D``."""
    nodes: int = 0
    prefill_nodes: int | None = None
    decode_nodes: int | None = None


@dataclass(frozen=True)
class NodeTree:
    """A generated tree: script name -> text (engines, then the proxy), its config and topology."""

    config: TreeConfig
    files: Mapping[str, str] = field(repr=False)
    deployment: NodesDeployment | RayDeployment = field(repr=False)


@dataclass(frozen=True)
class TreeMutation:
    """A tree with one field of one script changed, and the one finding it must give."""

    tree: NodeTree
    kind: str
    files: Mapping[str, str] = field(repr=False)
    rule: str = ""
    file: str = ""
    what: str = ""


def _kb():
    from qlint.knowledge.base import load

    return load()


@lru_cache(maxsize=2048)
def render_tree(config: TreeConfig) -> NodeTree:
    """The tree qlint's generator writes for ``config`` (GenerationError when it refuses)."""
    from qlint.linter.generate_nodes import generate_nodes, generate_pd

    kb = _kb()
    made: NodesDeployment | RayDeployment
    if config.layout == "ray":
        from qlint.linter.generate_ray import generate_ray

        made = generate_ray(kb, config.model, config.hardware, config.nodes, quantized=config.quantized,
                            version=config.version)
    elif config.layout == "nodes":
        made = generate_nodes(kb, config.model, config.hardware, config.nodes, quantized=config.quantized,
                              version=config.version)
    else:
        made = generate_pd(kb, config.model, config.hardware, config.quantized, config.version, config.layout,
                           config.prefill_nodes, config.decode_nodes)
    return NodeTree(config, dict(made.scripts_in_order), made)


def _values(wanted, every: Iterable) -> list:
    every = list(every)
    if wanted is None:
        return every
    chosen = [wanted] if isinstance(wanted, (str, bool, int)) else list(wanted)
    unknown = [value for value in chosen if value not in every]
    if unknown:
        raise ValueError(f"{', '.join(map(str, unknown))}: not among {', '.join(map(str, every))}")
    return chosen


def node_trees(*, model=None, hardware=None, version=None, quantized=None, layout=None) -> st.SearchStrategy[NodeTree]:
    """Multi-node and PD trees the generator accepts, over models x hardware (A2, A3) x weights x releases
    x layouts (:data:`LAYOUTS`; ``layout="nodes"`` or ``"1P1D"``... narrows). A combination the generator
    refuses (weights that do not fit, a release before the model, a known PD defect) is not drawn."""
    from qlint.linter.generate import GenerationError

    kb = _kb()
    models = _values(model, [m.id for m in kb.models if m.in_scope])
    hardwares = _values(hardware, ["a2", "a3"])
    versions = _values(version, [r.tag for r in kb.releases if kb.holds("vllm_serve_options_known", r.tag)])
    weights = _values(quantized, [True, False])
    every = LAYOUTS + RAY_LAYOUTS
    layouts = [item for item in (LAYOUTS if layout is None else every)
               if layout is None or item[0] in _values(layout, {i[0] for i in every})]

    @st.composite
    def draw_tree(draw) -> NodeTree:
        shape, nodes, prefill, decode = draw(st.sampled_from(layouts))
        config = TreeConfig(draw(st.sampled_from(models)), draw(st.sampled_from(hardwares)),
                            draw(st.sampled_from(weights)), draw(st.sampled_from(versions)), shape, nodes, prefill,
                            decode)
        try:
            return render_tree(config)
        except GenerationError:
            reject()

    return draw_tree()


# -- single-field mutations ----------------------------------------------------------

def _spanning(tree: NodeTree) -> list[tuple[Instance, int]]:
    """(instance, index of a non-head share) for every instance over more than one node."""
    topology = tree.deployment.topology
    if topology is None:
        return []
    return [(instance, index) for instance in topology.instances if instance.group != "ray"
            for index in range(1, len(instance.shares))]


def _script(share_node: str) -> str:
    from qlint.linter.generate_nodes import script_name

    return script_name(share_node)


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise ValueError(f"expected one {old!r} in a generated script")
    return text.replace(old, new)


def _rpc_port(draw, tree: NodeTree) -> tuple[str, str, str]:
    instance, index = draw(st.sampled_from(_spanning(tree)))
    name = _script(instance.shares[index].node)
    port = f"--data-parallel-rpc-port {instance.rpc_port}"
    other = f"--data-parallel-rpc-port {int(str(instance.rpc_port)) + draw(st.integers(1, 50))}"
    return name, _replace_once(tree.files[name], port, other), f"{name}: {other}"


def _address(draw, tree: NodeTree) -> tuple[str, str, str]:
    instance, index = draw(st.sampled_from(_spanning(tree)))
    name = _script(instance.shares[index].node)
    found = re.search(r"--data-parallel-address \"\$\{([A-Z0-9_]+)_IP:", tree.files[name])
    if found is None:
        raise ValueError("a generated node script names its DP address as one variable")
    other = draw(st.sampled_from(["OTHER", "HEAD", found.group(1) + "X"]))
    text = tree.files[name].replace(f"${{{found.group(1)}_IP:?set {found.group(1)}_IP",
                                    f"${{{other}_IP:?set {other}_IP")
    return name, text, f"{name}: --data-parallel-address ${other}_IP"


def _start_rank(draw, tree: NodeTree) -> tuple[str, str, str]:
    # the last node of a group: moving a middle one would also misplace every node after it
    instance = draw(st.sampled_from([i for i, _ in _spanning(tree)]))
    share = instance.shares[-1]
    name = _script(share.node)
    shift = draw(st.sampled_from([s for s in (-1, 1, 2) if share.dp_start + s >= 0]))
    other = f"--data-parallel-start-rank {share.dp_start + shift}"
    return name, _replace_once(tree.files[name], f"--data-parallel-start-rank {share.dp_start} ", other + " "), \
        f"{name}: {other}"


def _served_name(draw, tree: NodeTree) -> tuple[str, str, str]:
    name = draw(st.sampled_from([n for n in tree.files if n.startswith("run_d")]))
    served = re.search(r"--served-model-name (\S+)", tree.files[name])
    if served is None:
        raise ValueError("a generated engine names its served model")
    other = served.group(1) + draw(st.sampled_from(["-decode", "x", "-2"]))
    return name, _replace_once(tree.files[name], served.group(0), f"--served-model-name {other}"), \
        f"{name}: --served-model-name {other}"


def _proxy_port(draw, tree: NodeTree) -> tuple[str, str, str]:
    side = draw(st.sampled_from(["prefiller", "decoder"]))
    line = re.search(rf"--{side}-ports ([0-9 ]+)", tree.files["proxy.sh"])
    if line is None:
        raise ValueError("a generated proxy lists its ports")
    ports = line.group(1).split()
    where = draw(st.integers(0, len(ports) - 1))
    ports[where] = str(int(ports[where]) + draw(st.integers(1, 90)))
    new = f"--{side}-ports {' '.join(ports)}"
    return "proxy.sh", tree.files["proxy.sh"].replace(line.group(0), new), f"proxy.sh: {new}"


def _peer_size(draw, tree: NodeTree) -> tuple[str, str, str]:
    name = draw(st.sampled_from([n for n in tree.files if n.startswith("run_")]))
    peer = "decode" if name.startswith("run_p") else "prefill"
    block = re.search(rf'"{peer}": {{"tp_size": (\d+), "dp_size": (\d+)}}', tree.files[name])
    if block is None:
        raise ValueError("a generated PD engine describes its peer in kv_connector_extra_config")
    own = int(re.search(r"--tensor-parallel-size (\d+)", tree.files[name]).group(1))  # type: ignore[union-attr]
    real_tp = int(block.group(1))
    # a wrong TP that keeps prefill TP a multiple of decode TP (else QL605 fires too)
    tps = [v for v in (1, 2, 4, 8, 16) if v != real_tp and (own % v == 0 if peer == "decode" else v % own == 0)]
    key = draw(st.sampled_from(["tp_size", "dp_size"] if tps else ["dp_size"]))
    value = int(block.group(1 if key == "tp_size" else 2))
    wrong = draw(st.sampled_from(tps if key == "tp_size" else [v for v in (1, 2, 4, 8, 16, 32) if v != value]))
    tp, dp = (wrong, block.group(2)) if key == "tp_size" else (block.group(1), wrong)
    text = tree.files[name].replace(block.group(0), f'"{peer}": {{"tp_size": {tp}, "dp_size": {dp}}}')
    return name, text, f"{name}: kv_connector_extra_config.{peer}.{key} {wrong}"


@dataclass(frozen=True)
class TreeMutationKind:
    """One way to break a tree: which trees it applies to, the edit, and the rule that must report it."""

    kind: str
    rule: str
    applies: Callable[[NodeTree], bool]
    apply: Callable[..., tuple[str, str, str]]


TREE_MUTATIONS: Mapping[str, TreeMutationKind] = {m.kind: m for m in [
    TreeMutationKind("rpc-port", "QL617", lambda t: bool(_spanning(t)), _rpc_port),
    TreeMutationKind("address", "QL617", lambda t: bool(_spanning(t)), _address),
    TreeMutationKind("start-rank", "QL612", lambda t: bool(_spanning(t)), _start_rank),
    TreeMutationKind("served-name", "QL611", lambda t: t.config.layout != "nodes", _served_name),
    TreeMutationKind("proxy-port", "QL614", lambda t: "proxy.sh" in t.files, _proxy_port),
    TreeMutationKind("peer-size", "QL610", lambda t: t.config.layout != "nodes", _peer_size),
]}
"""Single-field mutations of a generated tree: kind -> the rule whose one finding it must give."""


def tree_mutations(kind: str | Iterable[str] | None = None, **filters) -> st.SearchStrategy[TreeMutation]:
    """Generated trees (:func:`node_trees`, same filters) with one field changed (:data:`TREE_MUTATIONS`;
    ``kind`` narrows). A tree the mutation does not apply to (no DP group over nodes, no proxy) is not drawn."""
    kinds = sorted(TREE_MUTATIONS) if kind is None else sorted(_values(kind, TREE_MUTATIONS))
    trees = node_trees(**filters)

    @st.composite
    def draw_mutation(draw) -> TreeMutation:
        chosen = TREE_MUTATIONS[draw(st.sampled_from(kinds))]
        tree = draw(trees)
        if not chosen.applies(tree):
            reject()
        name, text, what = chosen.apply(draw, tree)
        files = dict(tree.files)
        files[name] = text
        return TreeMutation(tree, chosen.kind, files, chosen.rule, name, what)

    return draw_mutation()


def lint_tree(files: Mapping[str, str]):
    """Lint a tree as one deployment: ``(file, finding)`` of every warning and error, and the Topology read."""
    from qlint.linter.deployment import lint_deployment

    read: list = []
    results = lint_deployment([(name, text.encode()) for name, text in files.items()], topology=read)
    found: list[tuple[str, Finding | None]] = [(result.path, f) for result in results for f in result.findings
                                               if f.level != "info"]
    found += [(result.path, None) for result in results if result.error is not None]
    return found, read[0] if read else None
