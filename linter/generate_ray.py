"""One instance over N nodes on a Ray cluster (``qlint generate --nodes N --executor ray``).

The plan is the Ray tutorial's (vllm-ascend ``docs/source/tutorials/features/ray.md``, v0.11.0 to main;
the Qwen3.5-397B-A17B tutorial points to it for Ray): every node exports its NIC, device and runtime
variables *before* ``ray start`` (the raylet hands its environment to the workers; vLLM copies only
its own variables from the driver); the head runs ``ray start --head``, each worker ``ray start
--address=HEAD:6379``; once every node has joined, one ``vllm serve --distributed-executor-backend ray``
on the head spans the cluster. The tutorial offers TP per node x PP over nodes, or TP over all NPUs;
the Qwen3.5 / Qwen3.6 rows of the supported-models table do not mark Pipeline Parallel, so qlint writes
the tensor-parallel-only layout (TP = every NPU of the cluster, which must divide the attention heads).

Limits (context, batch, MTP, optimisations) come from the model's ``generate`` output for one node of
the same recipe (the recipe row with the same node count where the tutorial has one); a note says that
TP over the cluster replaces the row's TP x DP. The generator only plans a Ray instance for weights that
need more than one node (ray.md: multi-node inference is for models one machine cannot hold).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from qlint.knowledge.base import KnowledgeBase
from qlint.linter.generate import Deployment, GenerationError, _variant, generate
from qlint.linter.generate_nodes import ScriptTree, _fits, _model
from qlint.linter.ray_cluster import DEFAULT_PORT, NOSET, VISIBLE
from qlint.linter.topology import ADDRESS, Instance, Placement, Share, Topology, address_of

RAY_TUTORIAL = ("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/features/ray.md"
                "?plain=1#L109-L176")
NO_PP_MARK = ("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/user_guide/support_matrix/"
              "supported_models.md?plain=1#L144-L150")
WAIT_SECONDS = 5


@dataclass
class RayDeployment(ScriptTree):
    """The scripts of a Ray instance by file name (head first), the README, and its sizes."""

    files: dict[str, str]
    nodes: list[str]
    tp: int
    pp: int
    engine: Deployment
    notes: list[str] = field(default_factory=list)
    topology: Topology | None = None
    """The plan in ``linter/topology.py`` terms: one ``ray`` instance, a share per node (its NPUs), head first."""

    def to_json(self) -> str:
        return json.dumps({"files": self.files, "executor": "ray", "nodes": self.nodes, "tp": self.tp, "pp": self.pp,
                           "engine": asdict(self.engine), "notes": self.notes}, indent=2, ensure_ascii=False)


def _needs_nodes(model, hardware, quantized: bool) -> bool:
    """True when the weights do not fit one node (the tutorial's minimum, or the HBM estimate)."""
    try:
        _fits(None, model, hardware, quantized, hardware.npus_per_node)
    except GenerationError:
        return True
    return False


def generate_ray(kb: KnowledgeBase, model_id: str, hardware_id: str, nodes: int, scenario: str = "high-throughput",
                 quantized: bool = True, version: str | None = None) -> RayDeployment:
    """``node0.sh`` (Ray head + the engine) and ``node1.sh`` .. (workers joining it), and the README.

    Raises GenerationError for what the plan does not cover: one node, 310P, weights that fit one node,
    weights that do not fit the cluster, or a TP over the cluster that does not divide the attention heads.
    """
    model = _model(kb, model_id)
    hardware = kb.hardware_by_id(hardware_id)
    if nodes < 2:
        raise GenerationError("a Ray cluster needs --nodes 2 or more")
    variant = _variant(model, quantized)
    if not _needs_nodes(model, hardware, quantized):
        raise GenerationError(f"{variant.name} fits one {hardware.names[0]} node: Ray over nodes is for weights one "
                              "node cannot hold (generate without --nodes, or --nodes with the mp executor)")
    if not hardware.supports_dp:
        raise GenerationError(f"the tutorials have no multi-node plan on {hardware.names[0]}")
    _fits(kb, model, hardware, quantized, nodes * hardware.npus_per_node)
    tp = nodes * hardware.npus_per_node
    heads, kv_heads = model.num_attention_heads, model.num_key_value_heads
    if heads and heads % tp:
        raise GenerationError(f"TP {tp} over {nodes} nodes does not divide the {heads} attention heads of {model.id}")
    if kv_heads and (kv_heads % tp if tp <= kv_heads else tp % kv_heads):
        raise GenerationError(f"TP {tp} over {nodes} nodes does not divide or multiply the {kv_heads} KV heads of {model.id}")
    if model.moe and model.num_experts and model.num_experts % tp:
        raise GenerationError(f"EP size {tp} does not divide the {model.num_experts} routed experts of {model.id}")
    return render_ray(kb, model.id, hardware.id, nodes, scenario, quantized, version)


def render_ray(kb: KnowledgeBase, model_id: str, hardware_id: str, nodes: int, scenario: str = "high-throughput",
               quantized: bool = True, version: str | None = None) -> RayDeployment:
    """The Ray tree of ``generate_ray`` without its checks (tests lint what it refuses: the linter must
    report those launches too)."""
    model = _model(kb, model_id)
    hardware = kb.hardware_by_id(hardware_id)
    variant = _variant(model, quantized)
    tp = nodes * hardware.npus_per_node
    names = [f"node{i}" for i in range(nodes)]
    quantization = "w8a8" if quantized else "bf16"
    recipe = next((r for r in kb.recipes_for(model.id, hardware.id) if r.nodes == nodes and r.deployment is None
                   and r.quantization == quantization), None)
    # one node's engine of the same recipe: the limits and switches; TP becomes the whole cluster below
    node_tp = hardware.npus_per_node
    instance = Instance("engine", "mixed", 1, node_tp, bool(model.moe), 8000, 0, address_of(names[0]),
                        [Share(names[0], 1, 0, node_tp)])
    engine = generate(kb, model.id, hardware.id, scenario, quantized, version,
                      placement=Placement(instance, instance.shares[0], recipe))
    notes = list(engine.notes)
    if recipe is not None:
        notes.append(f"Ray: TP {tp} over the cluster replaces the recipe's TP {recipe.tp} x DP {recipe.dp} "
                     "(the Ray tutorial's tensor-parallel-only layout)")
    notes.append("PP stays 1: the supported-models table does not mark Pipeline Parallel for this model")
    env = _ray_env(engine, hardware.npus_per_node)
    cited = list(model.ray_plan[-1:])
    head = _head_script(engine, env, nodes, node_tp, tp, cited)
    files = {"node0.sh": head}
    for name in names[1:]:
        files[f"{name}.sh"] = _worker_script(engine, env, name, names[0], cited)
    engine.tp, engine.dp = tp, 1
    engine.notes = notes
    ray = Instance("engine", "mixed", 1, tp, bool(model.moe), 8000, DEFAULT_PORT, address_of(names[0]),
                   [Share(name, 1, 0, node_tp, headless=index > 0) for index, name in enumerate(names)], None, "ray")
    out = RayDeployment(files, names, tp, 1, engine, notes, Topology([ray], hardware.npus_per_node))
    out.files["README.md"] = _readme(out, variant.name, hardware.names[0])
    return out


def _ray_env(engine: Deployment, npus: int) -> list[str]:
    """Every variable the engine's script exports, and the two Ray device variables of the tutorial."""
    lines = [f"export {name}={value}" for name, value in engine.env.items()]
    lines.append(f"export {VISIBLE}={','.join(str(i) for i in range(npus))}")
    lines.append(f"export {NOSET}=1")
    return lines


def _header(engine: Deployment, what: str, model_sources: list[str]) -> list[str]:
    lines = engine.script.splitlines()
    header = [line for line in lines[: lines.index("# Sources:")] if not line.startswith("# Generated by")]
    sources = []
    for line in lines[lines.index("# Sources:") + 1:]:
        if not line.startswith("#   "):
            break
        sources.append(line)
    return (["#!/bin/bash", f"# Generated by qlint generate --executor ray: {engine.variant} on {what}."]
            + header[1:] + ["# Sources:", f"#   {RAY_TUTORIAL}"] + [f"#   {url}" for url in model_sources]
            + [f"#   {NO_PP_MARK}"] + sources)


def _serve_lines(engine: Deployment, node_tp: int, tp: int) -> list[str]:
    lines = engine.script.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("vllm serve "))
    out = []
    for line in lines[start:]:
        if line.strip() == f"--tensor-parallel-size {node_tp} \\":
            out.append("  --distributed-executor-backend ray \\")
            line = f"  --tensor-parallel-size {tp} \\"
        out.append(line)
    if not any("--distributed-executor-backend ray" in line for line in out):
        raise GenerationError("the engine's command has no --tensor-parallel-size line to extend")  # pragma: no cover
    return out


def _head_script(engine: Deployment, env: list[str], nodes: int, node_tp: int, tp: int, cited: list[str]) -> str:
    head = _header(engine, f"the Ray head node node0 of {nodes}", cited)
    body = env + [
        "",
        "# start the Ray head with the variables above (Ray workers keep the environment ray start had)",
        f'ray start --head --port {DEFAULT_PORT} --node-ip-address "{ADDRESS}"',
        "",
        f"# wait until all {nodes} nodes have joined (ray status lists one node_... line per active node)",
        f'until [ "$(ray status 2>/dev/null | grep -c " node_")" -ge {nodes} ]; do sleep {WAIT_SECONDS}; done',
        "",
        f"# one engine for the whole cluster: TP {tp} = {nodes} nodes x {node_tp} NPUs, placed by Ray",
    ]
    return "\n".join(head + body + _serve_lines(engine, node_tp, tp)) + "\n"


def _worker_script(engine: Deployment, env: list[str], name: str, head: str, cited: list[str]) -> str:
    lines = _header(engine, f"Ray worker node {name}", cited) + env + [
        "",
        f"# join the Ray cluster of {head} (start {head}.sh first); --block keeps this node in the foreground",
        f'ray start --address="{address_of(head)}:{DEFAULT_PORT}" --node-ip-address="{ADDRESS}" --block',
    ]
    return "\n".join(lines) + "\n"


def _readme(out: RayDeployment, variant: str, hardware: str) -> str:
    head, workers = out.nodes[0], out.nodes[1:]
    head_ip = address_of(head).split(":", 1)[0].lstrip("${")
    en = [f"# {variant} on {len(out.nodes)} x {hardware} (Ray)", "",
          f"On every node set `LOCAL_IP` (this node's address) and `NIC_NAME` (its interface); on the worker nodes "
          f"also `{head_ip}` (the address of {head}).", "",
          f"1. node `{head}`: `bash {head}.sh` (starts the Ray head, waits for the {len(workers)} worker node(s), "
          f"then starts vllm serve with TP {out.tp} over the cluster)"]
    zh = ["", "## 中文", "",
          f"在每个节点上设置 `LOCAL_IP`（本节点地址）和 `NIC_NAME`（其网卡）；worker 节点还要设置 `{head_ip}`"
          f"（{head} 的地址）。", "",
          f"1. 节点 `{head}`：`bash {head}.sh`（启动 Ray 主节点，等待 {len(workers)} 个 worker 节点加入，"
          f"然后以覆盖整个集群的 TP {out.tp} 启动 vllm serve）"]
    for step, name in enumerate(workers, 2):
        en.append(f"{step}. node `{name}`, after {head} has started Ray: `bash {name}.sh` (joins the cluster and stays "
                  "in the foreground)")
        zh.append(f"{step}. 节点 `{name}`，在 {head} 启动 Ray 之后：`bash {name}.sh`（加入集群并保持前台运行）")
    en += ["", "Lint the folder as one deployment before starting: `qlint .`"]
    zh += ["", "启动前把整个目录作为一个部署检查：`qlint .`"]
    return "\n".join(en + zh) + "\n"
