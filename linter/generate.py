"""Generate a launch script from the knowledge (``qlint generate``).

``generate_sizing`` decides what the engine is (release, checkpoint, the recipe row or DP-first sizes,
a multi-node ``Placement``); ``generate_switches`` the switches a recipe, a role and a release decide
(the optimisation column, the kv-transfer config, the recompute scheduler); this module writes the
script. The output lints clean by construction; ``tests/test_generate.py`` checks that over the whole
matrix, ``tests/test_generate_nodes.py`` every recipe row.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from qlint.knowledge.base import KnowledgeBase
from qlint.knowledge.text import citation_url
from qlint.linter.generate_sizing import (
    FIT_FRACTION, SCENARIOS, TUNING_TABLE, GenerationError, _capture_sizes, _mtp_method, _variant, size, target)
from qlint.linter.generate_switches import PD_TUTORIAL, kv_transfer, optimisations, recompute_scheduler
from qlint.linter.topology import ADDRESS, NIC, Placement

__all__ = ["FIT_FRACTION", "PD_TUTORIAL", "SCENARIOS", "TUNING_TABLE", "Deployment", "GenerationError", "generate"]


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
    aim = target(kb, model_id, hardware_id, scenario, quantized, version, placement)
    model, variant, hardware, version, known = aim.model, aim.variant, aim.hardware, aim.version, aim.known
    sizing = size(kb, aim, scenario, role, placement)
    recipe, role, tp, dp = sizing.recipe, sizing.role, sizing.tp, sizing.dp
    sources, notes = sizing.sources, sizing.notes
    share = placement.share if placement is not None else None
    served = model.id.split("-")[0].lower()  # qwen3.5 / qwen3.6, as the tutorials name them

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
    if sizing.expert_parallel and model.moe:
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
        f"--max-model-len {sizing.max_model_len}",
        f"--max-num-seqs {sizing.max_num_seqs}",
        f"--max-num-batched-tokens {sizing.batched}",
        "--trust-remote-code",
        f"--gpu-memory-utilization {memory}",
    ]
    if sizing.mtp:
        args.append("--speculative-config " + _quote(
            {"method": _mtp_method(model, version), "num_speculative_tokens": sizing.mtp, "enforce_eager": True}))
    compilation: dict = {"cudagraph_mode": "FULL_DECODE_ONLY"}
    if hardware.id == "310p" and tp > 1:
        compilation["cudagraph_capture_sizes"] = _capture_sizes(sizing.max_num_seqs, sizing.mtp)
    if role == "prefill":
        args.append("--enforce-eager")  # prefill runs whole prompts: no decode graph to capture
    else:
        args.append("--compilation-config " + _quote(compilation))
    connector = (recipe.kv_connector if recipe is not None else None) or "MooncakeConnectorV1"
    if role is not None:
        args.append("--kv-transfer-config " + _quote(kv_transfer(kb, sizing, hardware.npus_per_node, known, connector,
                                                                  placement)))
        sources.append(PD_TUTORIAL if recipe is None or recipe.deployment is None else recipe.sources[0])
    additional: dict = {}
    recompute_scheduler(kb, recipe, role, known, additional, notes)
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
        enable_expert_parallel=bool(sizing.expert_parallel and model.moe),
        max_model_len=sizing.max_model_len,
        max_num_seqs=sizing.max_num_seqs,
        max_num_batched_tokens=sizing.batched,
        mtp_tokens=sizing.mtp,
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
