"""Multi-node and prefill/decode deployments (``qlint generate --nodes N`` / ``--pd xPyD``).

The layout comes from the tutorials' recipe for the model and hardware when one exists
(``recipes.toml`` rows with ``nodes > 1`` or a ``deployment``: the Qwen3.5-397B-A17B tutorial's
2 x A2 instance and its 1P1D over three A3 nodes), else it is derived: TP within a node, one
DP group over the nodes with expert parallel for MoE models (the DP-attention + EP layout of
the same tutorial). Every node gets one script (``linter/generate.py`` writes it from a
``Placement`` in the ``linter/topology.py`` model), the PD proxy runs on the first prefill node,
and a README says which node runs what, in which order.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from qlint.knowledge.base import KnowledgeBase
from qlint.linter.generate import FIT_FRACTION, PD_TUTORIAL, Deployment, GenerationError, _variant, generate
from qlint.linter.topology import Instance, Placement, Topology, address_of, spread

if TYPE_CHECKING:
    from qlint.knowledge.models import Recipe

PROXY_PORT = 8000
RPC_PORT = 13389
LAYERWISE_PROXY = "load_balance_proxy_layerwise_server_example.py"
PLAIN_PROXY = "load_balance_proxy_server_example.py"


class ScriptTree:
    """What every generated multi-file tree offers: ``files`` by name (scripts and README), in writing order."""

    files: dict[str, str]

    @property
    def executables(self) -> list[str]:
        return [name for name in self.files if name.endswith(".sh")]

    @property
    def scripts_in_order(self) -> list[tuple[str, str]]:
        """(file name, text) of every script in the order the README runs them (engines, then the proxy)."""
        return [(name, text) for name, text in self.files.items() if name.endswith(".sh")]


@dataclass
class NodesDeployment(ScriptTree):
    """Scripts by file name (one per node, plus the proxy), the README, and the topology they follow."""

    files: dict[str, str]
    topology: Topology
    scripts: dict[str, Deployment] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"files": self.files, "scripts": {k: asdict(v) for k, v in self.scripts.items()}},
                          indent=2, ensure_ascii=False)

    def side(self, role: str) -> Deployment:
        """The first engine script of a PD side (``prefill`` / ``decode``)."""
        return next(d for name, d in self.scripts.items() if name.startswith(f"run_{role[0]}"))

    @property
    def proxy(self) -> str:
        return self.files["proxy.sh"]


def _model(kb: KnowledgeBase, model_id: str):
    match = kb.match_model(model_id)
    if match is None:
        raise GenerationError(f"{model_id} is not in the knowledge base")
    return match.model


def _fits(kb, model, hardware, quantized: bool, npus: int) -> None:
    """Refuse an instance whose weights do not fit ``npus`` NPUs (experts spread by EP, the rest replicated)."""
    variant = _variant(model, quantized)
    if variant.min_npus is not None and npus < variant.min_npus:
        raise GenerationError(f"{variant.name} needs {variant.min_npus} NPUs by its tutorial, {npus // hardware.npus_per_node} "
                              f"{hardware.names[0]} node(s) have {npus}")
    if variant.weights_gb is not None and variant.weights_gb / npus > hardware.hbm_gb * FIT_FRACTION:
        nodes = npus // hardware.npus_per_node
        raise GenerationError(f"{variant.name} (~{variant.weights_gb:g} GB of weights) does not fit {nodes} "
                              f"{hardware.names[0]} node(s) ({npus} x {hardware.hbm_gb} GB)")


def _experts_divide(model, ep: int) -> None:
    """Expert parallel over TP x DP ranks must split the routed experts evenly (the linter's QL207)."""
    if model.moe and model.num_experts and model.num_experts % ep:
        raise GenerationError(f"EP size {ep} does not divide the {model.num_experts} routed experts of {model.id}")


def _fewest_nodes(kb, model, hardware, quantized: bool, most: int = 4) -> int:
    """The fewest nodes whose NPUs hold the weights (1 when none up to ``most`` do: refused later)."""
    for nodes in range(1, most + 1):
        try:
            _fits(kb, model, hardware, quantized, nodes * hardware.npus_per_node)
        except GenerationError:
            continue
        return nodes
    return 1


def generate_nodes(kb: KnowledgeBase, model_id: str, hardware_id: str, nodes: int, scenario: str = "high-throughput",
                   quantized: bool = True, version: str | None = None) -> NodesDeployment:
    """One instance over ``nodes`` nodes: ``node0.sh`` (the head) .. ``node{N-1}.sh`` (``--headless``)."""
    if nodes < 1:
        raise GenerationError("--nodes must be 1 or more")
    model = _model(kb, model_id)
    hardware = kb.hardware_by_id(hardware_id)
    if nodes > 1 and not hardware.supports_dp:
        raise GenerationError(f"{hardware.names[0]} runs one node per instance (no DP over nodes)")
    quantization = "w8a8" if quantized else "bf16"
    recipe = next((r for r in kb.recipes_for(model.id, hardware.id) if r.nodes == nodes and r.deployment is None
                   and r.quantization == quantization and (r.scenario == scenario or nodes > 1)), None)
    _fits(kb, model, hardware, quantized, nodes * hardware.npus_per_node)
    names = [f"node{i}" for i in range(nodes)]
    if recipe is not None:
        tp, dp, local = recipe.tp, recipe.dp, recipe.dp_local
    else:  # the single-node TP where one node holds the weights (DP-first), else TP over the node
        try:
            tp = generate(kb, model.id, hardware.id, scenario, quantized, version).tp
        except GenerationError:
            tp = hardware.npus_per_node  # the tutorial's 2 x A2 layout: TP8, one DP rank per node
        local = hardware.npus_per_node // tp
        dp = nodes * local
    _experts_divide(model, tp * dp)
    try:
        instance = spread("engine", "mixed", dp, tp, names, hardware.npus_per_node, port=8000, rpc_port=RPC_PORT,
                          address=address_of(names[0]), expert_parallel=bool(model.moe), dp_local=local)
    except ValueError as error:
        raise GenerationError(str(error)) from None
    topology = Topology([instance], hardware.npus_per_node)
    problems = topology.problems()  # the checks QL612 / QL616 / QL617 run on the scripts
    if problems:
        raise GenerationError("; ".join(p.en for p in problems))
    out = NodesDeployment({}, topology)
    for share in instance.shares:
        deployment = generate(kb, model.id, hardware.id, scenario, quantized, version,
                              placement=Placement(instance, share, recipe))
        out.scripts[f"{share.node}.sh"] = deployment
        out.files[f"{share.node}.sh"] = deployment.script
    out.files["README.md"] = _readme(out, model.id, hardware.names[0], proxy=None)
    return out


def parse_pd(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)P(\d+)D", text.strip(), re.IGNORECASE)
    if match is None or "0" in (match.group(1), match.group(2)):
        raise GenerationError(f"--pd takes xPyD with x, y >= 1 (e.g. 1P1D), not {text!r}")
    return int(match.group(1)), int(match.group(2))


def generate_pd(kb: KnowledgeBase, model_id: str, hardware_id: str, quantized: bool = True, version: str | None = None,
                pd: str = "1P1D", prefill_nodes: int | None = None, decode_nodes: int | None = None) -> NodesDeployment:
    """``pd`` prefill and decode instances, each over its nodes, and the proxy on the first prefill node."""
    count_p, count_d = parse_pd(pd)
    model = _model(kb, model_id)
    hardware = kb.hardware_by_id(hardware_id)
    if not hardware.supports_pd:
        raise GenerationError(f"PD disaggregation is not supported on {hardware.names[0]} (no KV transfer there)")
    quantization = "w8a8" if quantized else "bf16"
    rows: dict[str, Recipe] = {r.role: r for r in kb.recipes_for(model.id, hardware.id)
                               if r.deployment is not None and r.quantization == quantization}
    sides: dict[str, tuple[Recipe | None, int, int, int, int | None]] = {}  # role -> (row, nodes, tp, dp, dp_local)
    for role, count, override in (("prefill", count_p, prefill_nodes), ("decode", count_d, decode_nodes)):
        recipe = rows.get(role)
        if recipe is not None and override in (None, recipe.nodes):
            sides[role] = (recipe, recipe.nodes, recipe.tp, recipe.dp, recipe.dp_local)
        else:
            nodes = override or (recipe.nodes if recipe is not None else _fewest_nodes(kb, model, hardware, quantized))
            _fits(kb, model, hardware, quantized, nodes * hardware.npus_per_node)
            try:  # DP-first: the TP one node would use, the other NPUs as DP ranks (found by qlint.testing:
                # a TP over the whole node for a dense model was QL205's, and QL605's against a TP2 prefill)
                tp = generate(kb, model.id, hardware.id, "high-throughput", quantized, version).tp
            except GenerationError:  # weights that need more than one node
                tp = 2 if model.moe else hardware.npus_per_node
            dp = nodes * hardware.npus_per_node // tp
            _experts_divide(model, tp * dp)
            sides[role] = (None, nodes, tp, dp, None)
    instances: dict[str, list[Instance]] = {"prefill": [], "decode": []}
    ports = {"prefill": 8100, "decode": 8200}
    kv_base = {"prefill": 20000 + 1000 * hardware.npus_per_node, "decode": 20000 + 1000 * hardware.npus_per_node + 500}
    for role, count in (("prefill", count_p), ("decode", count_d)):
        recipe, nodes, tp, dp, local = sides[role]
        for index in range(count):
            tag = "" if count == 1 else str(index)
            names = [role + tag + ("" if nodes == 1 else ("_" if tag else "") + str(n)) for n in range(nodes)]
            try:
                instances[role].append(spread(
                    f"{role}{index}", role, dp, tp, names, hardware.npus_per_node, port=ports[role],
                    rpc_port=RPC_PORT, address=address_of(names[0]), expert_parallel=bool(model.moe),
                    dp_local=local, kv_port=kv_base[role]))
            except ValueError as error:
                raise GenerationError(str(error)) from None
    everything = instances["prefill"] + instances["decode"]
    topology = Topology(everything, hardware.npus_per_node, proxy_node=instances["prefill"][0].nodes[0])
    problems = topology.problems()
    if problems:
        raise GenerationError("; ".join(p.en for p in problems))
    out = NodesDeployment({}, topology)
    engine_id = 0
    layerwise = False
    for role in ("prefill", "decode"):
        recipe = sides[role][0]
        peer = instances["decode" if role == "prefill" else "prefill"][0]
        for instance in instances[role]:
            for share in instance.shares:
                deployment = generate(kb, model.id, hardware.id, "high-throughput", quantized, version,
                                      placement=Placement(instance, share, recipe, peer, engine_id))
                engine_id += 1
                layerwise |= deployment.kv_connector == "MooncakeLayerwiseConnector"
                name = script_name(share.node)
                out.scripts[name] = deployment
                out.files[name] = deployment.script
    proxy = _proxy(instances, layerwise, sides, out)
    out.files["proxy.sh"] = proxy
    out.files["README.md"] = _readme(out, model.id, hardware.names[0], proxy=topology.proxy_node)
    return out


def script_name(node: str) -> str:
    """``prefill`` -> ``run_p.sh``, ``decode1`` -> ``run_d1.sh`` (the tutorials' names)."""
    for role in ("prefill", "decode"):
        if node.startswith(role):
            return f"run_{role[0]}{node[len(role):]}.sh"
    return f"{node}.sh"


def _proxy(instances, layerwise: bool, sides, out: NodesDeployment) -> str:
    heads = {role: [i.shares[0].node for i in instances[role]] for role in instances}
    ports = {role: [str(i.port) for i in instances[role]] for role in instances}
    recipe = sides["prefill"][0]
    source = recipe.sources[-1] if recipe is not None else PD_TUTORIAL
    script = LAYERWISE_PROXY if layerwise else PLAIN_PROXY
    first = next(iter(out.scripts.values()))
    lines = [
        "#!/bin/bash",
        f"# Generated by qlint generate: the proxy of this PD deployment (run it on node {heads['prefill'][0]}).",
        f"# qlint: hardware={first.hardware} vllm-ascend={first.version}",
        f"# Sources: {source}",
        f"python {script} \\",
        # the layerwise proxy must listen on an address the decode nodes reach (not 0.0.0.0)
        f"  --host \"{address_of(heads['prefill'][0])}\" \\" if layerwise else "  --host 0.0.0.0 \\",
        f"  --port {PROXY_PORT} \\",
        "  --prefiller-hosts " + " ".join(f'"{address_of(n)}"' for n in heads["prefill"]) + " \\",
        "  --prefiller-ports " + " ".join(ports["prefill"]) + " \\",
        "  --decoder-hosts " + " ".join(f'"{address_of(n)}"' for n in heads["decode"]) + " \\",
        "  --decoder-ports " + " ".join(ports["decode"]),
    ]
    return "\n".join(lines) + "\n"


def _readme(out: NodesDeployment, model: str, hardware: str, proxy: str | None) -> str:
    """Which node runs which script, in which order (English, then Chinese)."""
    nodes = out.topology.nodes
    used = sorted({name for text in out.files.values() for name in re.findall(r"\$\{([A-Z0-9_]+_IP):\?", text)}
                  - {"LOCAL_IP"})
    variables = ", ".join(f"`{name}`" for name in used)
    en = [f"# {model} on {len(nodes)} x {hardware}", "",
          f"On every node set `LOCAL_IP` (this node's address), `NIC_NAME` (its interface) and {variables}.", ""]
    zh = ["", f"## 中文", "", f"在每个节点上设置 `LOCAL_IP`（本节点地址）、`NIC_NAME`（其网卡）以及 {variables}。", ""]
    step = 0
    for instance in out.topology.instances:
        for share in instance.shares:
            step += 1
            script = script_name(share.node)
            what = "head" if not share.headless else "--headless"
            role_zh = {"mixed": "混合", "prefill": "预填充", "decode": "解码"}[instance.role]
            en.append(f"{step}. node `{share.node}`: `bash {script}` ({instance.role}, {what}, DP ranks "
                      f"{share.dp_start}..{share.dp_start + share.dp_local - 1}, TP {share.tp})")
            zh.append(f"{step}. 节点 `{share.node}`：`bash {script}`（{role_zh}，"
                      f"{'主节点' if not share.headless else '--headless'}，DP rank {share.dp_start}.."
                      f"{share.dp_start + share.dp_local - 1}，TP {share.tp}）")
    if proxy is not None:
        step += 1
        en.append(f"{step}. node `{proxy}`, once every engine is up: `bash proxy.sh` (send requests to it on port "
                  f"{PROXY_PORT})")
        zh.append(f"{step}. 所有引擎就绪后，在节点 `{proxy}` 上运行 `bash proxy.sh`（请求发往其 {PROXY_PORT} 端口）")
    en.append("")
    en.append("Lint the folder as one deployment before starting: `qlint .`")
    zh.append("")
    zh.append("启动前把整个目录作为一个部署检查：`qlint .`")
    return "\n".join(en + zh) + "\n"
