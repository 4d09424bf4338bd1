"""Generate a launch script from the knowledge (``qlint generate``).

Sizing follows the tutorials' recommended tables where one exists for the
model, hardware, scenario and weight type (``knowledge/data/recipes.toml``);
otherwise it is derived DP-first: the smallest TP that leaves room in HBM,
every remaining NPU of the node(s) given to data parallel groups
(``TUNING_TABLE``). MTP capture sizes are n x (k+1) (the Qwen3.5-397B-A17B tutorial's PD section,
https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541). The output lints clean
by construction; ``tests/test_generate.py`` checks that over the whole matrix.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from packaging.version import InvalidVersion

from qlint.knowledge.base import KnowledgeBase, parse_version
from qlint.knowledge.text import citation_url
from typing import TYPE_CHECKING

TUNING_TABLE = "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828"
"""The Qwen3.5-27B/Qwen3.6-27B tutorial's recommended-configuration tables (9.1), at the revision qlint follows."""
PD_TUTORIAL = "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626"
"""The same tutorial's multi-node PD section (5.2)."""

from qlint.linter.generate_switches import optimisations
from qlint.linter.topology import ADDRESS, NIC, Placement

if TYPE_CHECKING:
    from qlint.knowledge.models import Hardware, Model, ModelVariant, Recipe

SCENARIOS = ("high-throughput", "low-latency", "long-context")
FIT_FRACTION = 0.6
"""Weights may take at most this share of one NPU's HBM, leaving room for KV cache and activations."""


class GenerationError(Exception):
    """The requested combination is not supported; the message says why."""


@dataclass
class Deployment:
    """A generated single-node deployment: sizing, the script and what it followed."""

    model: str
    variant: str
    hardware: str
    scenario: str
    version: str
    tp: int
    dp: int
    enable_expert_parallel: bool
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    mtp_tokens: int
    served_model_name: str
    env: dict[str, str]
    script: str
    sources: list[str] = field(default_factory=list)
    prefix_caching: bool | None = None
    """True/False: the script turns prefix caching on/off (or leaves the release default, which is that)."""
    gpu_memory_utilization: float = 0.9
    optimisations: list[str] = field(default_factory=list)
    kv_connector: str | None = None
    dp_local: int | None = None
    notes: list[str] = field(default_factory=list)
    """Where a recipe value is not taken as written: why (English)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False)


def _variant(model: Model, quantized: bool) -> ModelVariant:
    wanted = "w8a8" if quantized else "bf16"
    variants = [v for v in model.variants if v.quantization == wanted]
    if not variants:
        raise GenerationError(f"the knowledge has no {wanted.upper()} checkpoint of {model.id}")
    # prefer a checkpoint with an MTP head, then the one named like the model
    return sorted(variants, key=lambda v: (not v.mtp_head, len(v.name)))[0]


def _recipe(kb: KnowledgeBase, model: Model, hardware: str, scenario: str, quantization: str,
            nodes: int = 1) -> Recipe | None:
    """The tuning-table row for one instance of ``nodes`` nodes (PD rows are ``placement``'s)."""
    for recipe in kb.recipes_for(model.id, hardware):
        if (recipe.scenario == scenario and recipe.quantization == quantization and recipe.nodes == nodes
                and recipe.deployment is None):
            return recipe
    return None


def _power_of_two_tp(model: Model, variant: ModelVariant, hardware: Hardware) -> int:
    tp = 1
    if variant.weights_gb is None:
        raise GenerationError(f"the knowledge has no weight size for {variant.name}")
    while variant.weights_gb / tp > hardware.hbm_gb * FIT_FRACTION or (model.moe is False and tp < 2 and hardware.id != "310p"):
        tp *= 2
        if tp > hardware.npus_per_node:
            raise GenerationError(
                f"{variant.name} (~{variant.weights_gb:g} GB of weights) does not fit one {hardware.names[0]} node "
                f"({hardware.npus_per_node} x {hardware.hbm_gb} GB)"
            )
    heads = model.num_attention_heads
    while heads and heads % tp:
        tp *= 2
    return max(tp, 2) if hardware.id == "310p" else tp


def _capture_sizes(max_num_seqs: int, mtp_tokens: int, limit: int = 2) -> list[int]:
    step = mtp_tokens + 1
    largest = max(step, min(max_num_seqs, 8) * step)
    sizes = sorted({step, largest})
    return sizes[:limit]


MTP_RENAMED = "v0.17.0rc1"
"""From this release vLLM rewrites model-specific MTP aliases (qwen3_5_mtp, ...) to ``mtp`` with a
deprecation warning (``vllm@v0.23.0:vllm/config/speculative.py L550-554``)."""


def _mtp_method(model: Model, version: str) -> str:
    """``mtp`` where the release's speculative ``method`` list has it (vLLM 0.9.0 on, per the extracted
    data), else the model's own alias."""
    if model.mtp_method is None or parse_version(version) >= parse_version(MTP_RENAMED):
        return "mtp"
    from qlint.knowledge.releases import facts_for

    facts = facts_for(version)
    sub = facts.sub_configs.get("--speculative-config") if facts is not None else None
    method = sub.keys.get("method") if sub is not None else None
    if method is not None and "mtp" in method.choices:
        return "mtp"
    return model.mtp_method


def _quote(data: dict) -> str:
    return "'" + json.dumps(data, separators=(", ", ": ")) + "'"


def generate(
    kb: KnowledgeBase,
    model_id: str,
    hardware_id: str,
    scenario: str = "high-throughput",
    quantized: bool = True,
    version: str | None = None,
    port: int = 8000,
    role: str | None = None,
    placement: Placement | None = None,
) -> Deployment:
    """Build one node's script: a single-node deployment, or (``placement``) one node of a
    multi-node instance or PD side (``role`` "prefill"/"decode"; see ``generate_nodes``).

    Raises GenerationError for combinations the knowledge says are not
    supported (model on 310P before its first release there, weights that do
    not fit the node, an unknown model).
    """
    if scenario not in SCENARIOS:
        raise GenerationError(f"scenario must be one of {', '.join(SCENARIOS)}")
    match = kb.match_model(model_id)
    if match is None:
        raise GenerationError(f"{model_id} is not in the knowledge base")
    model = match.model
    hardware = kb.hardware_by_id(hardware_id)
    version = version or kb.latest_stable.tag
    try:
        known = kb.resolve_release(version)[0]
    except InvalidVersion:
        raise GenerationError(f"{version!r} is not a release tag like v0.23.0") from None
    if not kb.holds("vllm_serve_options_known", known):
        oldest = next(r.tag for r in kb.tagged_releases if kb.holds("vllm_serve_options_known", r.tag))
        raise GenerationError(f"qlint writes scripts for vllm-ascend {oldest} and later; the vllm serve options of "
                              f"{version} (vLLM {kb.release(known).vllm.lstrip('v')}) are not in its knowledge")
    first = model.first_vllm_ascend_310p if hardware.id == "310p" else model.first_vllm_ascend
    if hardware.id == "310p" and first is None:
        raise GenerationError(f"{model.id} is not supported on {hardware.names[0]} in any release qlint knows")
    if first is not None and parse_version(version) < parse_version(first):
        raise GenerationError(f"{model.id} needs vllm-ascend {first} or later on {hardware.names[0]}, not {version}")
    if model.max_model_len is None:
        raise GenerationError(f"the knowledge has no maximum context length for {model.id}")
    model_limit: int = model.max_model_len
    variant = _variant(model, quantized)
    if placement is None and variant.min_npus is not None and variant.min_npus > hardware.npus_per_node:
        raise GenerationError(f"{variant.name} needs {variant.min_npus} NPUs by its tutorial, one "
                              f"{hardware.names[0]} node has {hardware.npus_per_node}")
    if placement is not None:
        role = None if placement.instance.role == "mixed" else placement.instance.role
        recipe = placement.recipe or _recipe(kb, model, hardware.id, scenario, variant.quantization,
                                             len(placement.instance.shares))
    else:
        recipe = _recipe(kb, model, hardware.id, scenario, variant.quantization)
    sources: list[str] = []
    notes: list[str] = [recipe.note.en] if recipe is not None and recipe.note is not None else []
    if recipe is not None:
        tp, dp = recipe.tp, recipe.dp
        max_num_seqs = recipe.max_num_seqs or 4
        max_model_len = min(recipe.max_model_len or model_limit, model_limit)
        batched = recipe.max_num_batched_tokens or 8192
        mtp = recipe.mtp_tokens
        expert_parallel = recipe.enable_expert_parallel or model.moe
        sources += recipe.sources
    else:
        tp = _power_of_two_tp(model, variant, hardware) if placement is None else placement.instance.tp
        if scenario == "long-context" and hardware.id != "310p" and placement is None:
            tp = max(tp, min(8, hardware.npus_per_node))
        dp = 1 if hardware.id == "310p" else max(1, hardware.npus_per_node // tp)
        max_num_seqs = {"high-throughput": 32, "low-latency": 4, "long-context": 8}[scenario]
        max_model_len = model_limit if scenario == "long-context" else min(model_limit, 32768)
        batched = 8192 if scenario != "low-latency" else 4096
        mtp = 1 if hardware.id == "310p" else (3 if model.mtp_method and variant.mtp_head else 0)
        expert_parallel = model.moe
        sources.append(TUNING_TABLE)
    if placement is not None:
        tp, dp = placement.instance.tp, placement.instance.dp
        expert_parallel = placement.instance.expert_parallel
    if hardware.id == "310p":
        max_model_len = min(max_model_len, 16384)
        max_num_seqs = min(max_num_seqs, 16)
    if not (model.mtp_method and variant.mtp_head):
        mtp = 0
    from qlint.rules.known_defects import defects_on

    if role is not None:  # a known defect of P/D serving for this model and release: refuse
        pd_defects = defects_on(kb, version, hardware.id, model.id, ("kv_role", "kv_transfer"))
        if pd_defects:
            entry = pd_defects[0]
            raise GenerationError(f"known defect {entry.id} of vllm-ascend {version}: {entry.symptom.en}")
    spec_subjects = ("speculative", "mtp_tokens") + (("kv_role", "kv_transfer") if role is not None else ())
    if mtp:  # a known defect of this release with MTP on this model: generate without it
        blocking = defects_on(kb, version, hardware.id, model.id, spec_subjects)
        if blocking:
            mtp = 0
            sources += [blocking[0].sources[0]]
            notes.append(f"MTP is left out: known defect {blocking[0].id} of vllm-ascend {version}")
    if max_num_seqs * (mtp + 1) > batched:
        notes.append(f"--max-num-batched-tokens raised to {max_num_seqs * (mtp + 1)}: it must hold max-num-seqs x "
                     f"(MTP tokens + 1)")
        batched = max_num_seqs * (mtp + 1)
    share = placement.share if placement is not None else None
    local = share.dp_local if share is not None else dp
    if tp * local > hardware.npus_per_node:
        raise GenerationError(f"TP {tp} x DP {local} needs more than one {hardware.names[0]} node")
    served = model.id.split("-")[0].lower()  # qwen3.5 / qwen3.6, as the tutorials name them
    sources += list(variant.sources[:1]) + list(model.sources[:1])

    env = {
        "PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True",
        "OMP_NUM_THREADS": "1",
        "TASK_QUEUE_ENABLE": "1",
    }
    if hardware.id != "310p":
        env["HCCL_OP_EXPANSION_MODE"] = "AIV"
    if role is not None or placement is not None:
        # NIC binding for the traffic between nodes (set LOCAL_IP / NIC_NAME before running, see the README)
        env.update({"HCCL_IF_IP": f'"{ADDRESS}"', "GLOO_SOCKET_IFNAME": f'"{NIC}"',
                    "TP_SOCKET_IFNAME": f'"{NIC}"', "HCCL_SOCKET_IFNAME": f'"{NIC}"'})
    if placement is not None:
        port = placement.instance.port
    args: list[str] = [
        f"--host 0.0.0.0",
        f"--port {port}",
        f"--served-model-name {served}",
        f"--tensor-parallel-size {tp}",
    ]
    multi_node = placement is not None and len(placement.instance.shares) > 1
    if share is not None and placement is not None and (multi_node or dp > 1):
        instance = placement.instance
        if share.headless:
            args.append("--headless")
        args.append(f"--data-parallel-size {dp}")
        args.append(f"--data-parallel-size-local {share.dp_local}")
        if multi_node:
            args.append(f"--data-parallel-start-rank {share.dp_start}")
        args.append(f'--data-parallel-address "{instance.address}"')
        args.append(f"--data-parallel-rpc-port {instance.rpc_port}")
    elif dp > 1:
        args.append(f"--data-parallel-size {dp}")
    if hardware.id == "310p":
        expert_parallel = False  # TP only on Atlas inference products
    if expert_parallel and model.moe:
        args.append("--enable-expert-parallel")
    if variant.quantization == "w8a8":
        args.append("--quantization ascend")
    if hardware.id == "310p":
        args += ["--dtype float16"]
        if model.hybrid:
            args.append("--mamba-ssm-cache-dtype float16")
    prefix_caching = recipe.prefix_caching if recipe is not None else None
    if prefix_caching and role == "decode" and model.hybrid:  # not on a decode node (vllm-ascend #7944)
        prefix_caching = False
        notes.append("prefix caching is off on the decode node: hybrid models do not support it there "
                     "(https://github.com/vllm-project/vllm-ascend/issues/7944)")
    default_off = model.hybrid and kb.holds("vllm_hybrid_prefix_caching_default_off", known)
    if prefix_caching is True:
        args.append("--enable-prefix-caching")
    elif prefix_caching is False and not default_off:
        args.append("--no-enable-prefix-caching")
    memory = recipe.gpu_memory_utilization if recipe is not None and recipe.gpu_memory_utilization else 0.9
    args += [
        f"--max-model-len {max_model_len}",
        f"--max-num-seqs {max_num_seqs}",
        f"--max-num-batched-tokens {batched}",
        "--trust-remote-code",
        f"--gpu-memory-utilization {memory}",
    ]
    if mtp:
        args.append(
            "--speculative-config "
            + _quote({"method": _mtp_method(model, version), "num_speculative_tokens": mtp, "enforce_eager": True})
        )
    compilation: dict = {"cudagraph_mode": "FULL_DECODE_ONLY"}
    if hardware.id == "310p" and tp > 1:
        compilation["cudagraph_capture_sizes"] = _capture_sizes(max_num_seqs, mtp)
    if role == "prefill":
        args.append("--enforce-eager")  # prefill runs whole prompts: no decode graph to capture
    else:
        args.append("--compilation-config " + _quote(compilation))
    connector = (recipe.kv_connector if recipe is not None else None) or "MooncakeConnectorV1"
    if role is not None:
        kv_port = placement.instance.kv_port if placement is not None and placement.instance.kv_port else (
            20000 + 1000 * hardware.npus_per_node + (0 if role == "prefill" else 100))
        own = {"tp_size": tp, "dp_size": dp}
        peer = placement.peer if placement is not None else None
        other = {"tp_size": peer.tp, "dp_size": peer.dp} if peer is not None else own
        transfer: dict[str, object] = {"kv_connector": connector, "kv_role": "kv_producer" if role == "prefill" else "kv_consumer",
                    "kv_port": str(kv_port)}
        if placement is not None and peer is not None and not kb.holds("kv_engine_id_made_unique", known):
            transfer["engine_id"] = str(placement.engine_id)
        transfer["kv_connector_extra_config"] = {"prefill": own if role == "prefill" else other,
                                                 "decode": own if role == "decode" else other}
        args.append("--kv-transfer-config " + _quote(transfer))
        sources.append(PD_TUTORIAL if recipe is None or recipe.deployment is None else recipe.sources[0])
    additional: dict = {}
    if role == "decode":
        additional["recompute_scheduler_enable"] = True
    applied = optimisations(kb, recipe, known, additional, args, notes)
    if hardware.id == "310p" and not kb.holds("npugraph_ex_auto_off_on_310p", known):
        additional["ascend_compilation_config"] = {"enable_npugraph_ex": False}
    if additional:
        args.append("--additional-config " + _quote(additional))

    image = f"quay.io/ascend/vllm-ascend:{version}{hardware.image_suffix}"
    where = f" node {share.node}" if share is not None else ""
    header = [
        "#!/bin/bash",
        f"# Generated by qlint generate: {variant.name} on {hardware.names[0]} ({scenario}){where}.",
        f"# Image: {image}",
        f"# qlint: hardware={hardware.id} vllm-ascend={version}",
        "# Sources:",
        *(f"#   {url}" for url in dict.fromkeys(citation_url(s) for s in sources)),
    ]
    lines = header + [f"export {name}={value}" for name, value in env.items()]
    model_ref = next((a for a in variant.aliases if a.startswith("Eco-Tech/") or a.startswith("Qwen/")), variant.name)
    command = [f"vllm serve {model_ref} \\"] + [f"  {arg} \\" for arg in args[:-1]] + [f"  {args[-1]}"]
    script = "\n".join(lines + [""] + command) + "\n"
    return Deployment(
        model=model.id,
        variant=variant.name,
        hardware=hardware.id,
        scenario=scenario,
        version=version,
        tp=tp,
        dp=dp,
        enable_expert_parallel=bool(expert_parallel and model.moe),
        max_model_len=max_model_len,
        max_num_seqs=max_num_seqs,
        max_num_batched_tokens=batched,
        mtp_tokens=mtp,
        served_model_name=served,
        env=env,
        script=script,
        sources=list(dict.fromkeys(sources)),
        prefix_caching=True if prefix_caching else (False if prefix_caching is False else None),
        gpu_memory_utilization=memory,
        optimisations=applied,
        kv_connector=connector if role is not None else None,
        dp_local=share.dp_local if share is not None else None,
        notes=notes,
    )
