"""What one generated engine is (``qlint generate``): the release, the checkpoint, and its sizes.

Sizing follows the tutorials' recommended tables where one exists for the model, hardware, scenario
and weight type (``knowledge/data/recipes.toml``); otherwise it is derived DP-first: the smallest TP
that leaves room in HBM, every remaining NPU of the node given to data parallel groups
(``TUNING_TABLE``). A multi-node or PD engine takes TP and DP from its ``Placement``
(``linter/topology.py``). MTP capture sizes are n x (k+1) (the Qwen3.5-397B-A17B tutorial's PD section,
https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qlint.knowledge.base import KnowledgeBase, parse_version
from qlint.knowledge.versions import InvalidVersion

if TYPE_CHECKING:
    from qlint.knowledge.models import Hardware, Model, ModelVariant, Recipe
    from qlint.linter.topology import Placement

TUNING_TABLE = "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828"
"""The Qwen3.5-27B/Qwen3.6-27B tutorial's recommended-configuration tables (9.1), at the revision qlint follows."""
SCENARIOS = ("high-throughput", "low-latency", "long-context")
FIT_FRACTION = 0.6
"""Weights may take at most this share of one NPU's HBM, leaving room for KV cache and activations."""
MTP_RENAMED = "v0.17.0rc1"
"""From this release vLLM rewrites model-specific MTP aliases (qwen3_5_mtp, ...) to ``mtp`` with a
deprecation warning (``vllm@v0.23.0:vllm/config/speculative.py L550-554``)."""


class GenerationError(Exception):
    """The requested combination is not supported; the message says why."""


@dataclass
class Target:
    """The model, checkpoint, hardware and release a script is written for."""

    model: Model
    variant: ModelVariant
    hardware: Hardware
    version: str
    known: str
    """The release qlint's knowledge checks ``version`` as."""


@dataclass
class Sizing:
    """The engine's sizes and what they followed."""

    recipe: Recipe | None
    role: str | None
    tp: int
    dp: int
    max_num_seqs: int
    max_model_len: int
    batched: int
    mtp: int
    expert_parallel: bool
    sources: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


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


def target(kb: KnowledgeBase, model_id: str, hardware_id: str, scenario: str, quantized: bool,
           version: str | None, placement: Placement | None) -> Target:
    """What the script is for; GenerationError for what the knowledge says does not run."""
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
    variant = _variant(model, quantized)
    if placement is None and variant.min_npus is not None and variant.min_npus > hardware.npus_per_node:
        raise GenerationError(f"{variant.name} needs {variant.min_npus} NPUs by its tutorial, one "
                              f"{hardware.names[0]} node has {hardware.npus_per_node}")
    return Target(model, variant, hardware, version, known)


def size(kb: KnowledgeBase, aim: Target, scenario: str, role: str | None, placement: Placement | None) -> Sizing:
    """The recipe row's sizes (or DP-first ones), the placement's TP/DP, and what known defects leave out."""
    model, variant, hardware, version = aim.model, aim.variant, aim.hardware, aim.version
    model_limit: int = model.max_model_len or 0
    if placement is not None:
        role = None if placement.instance.role == "mixed" else placement.instance.role
        recipe = placement.recipe or _recipe(kb, model, hardware.id, scenario, variant.quantization,
                                             len(placement.instance.shares))
    else:
        recipe = _recipe(kb, model, hardware.id, scenario, variant.quantization)
    notes: list[str] = [recipe.note.en] if recipe is not None and recipe.note is not None else []
    if recipe is not None:
        out = Sizing(recipe, role, recipe.tp, recipe.dp, recipe.max_num_seqs or 4,
                     min(recipe.max_model_len or model_limit, model_limit), recipe.max_num_batched_tokens or 8192,
                     recipe.mtp_tokens, bool(recipe.enable_expert_parallel or model.moe), list(recipe.sources), notes)
    else:
        tp = _power_of_two_tp(model, variant, hardware) if placement is None else placement.instance.tp
        if scenario == "long-context" and hardware.id != "310p" and placement is None:
            tp = max(tp, min(8, hardware.npus_per_node))
        out = Sizing(None, role, tp, 1 if hardware.id == "310p" else max(1, hardware.npus_per_node // tp),
                     {"high-throughput": 32, "low-latency": 4, "long-context": 8}[scenario],
                     model_limit if scenario == "long-context" else min(model_limit, 32768),
                     8192 if scenario != "low-latency" else 4096,
                     1 if hardware.id == "310p" else (3 if model.mtp_method and variant.mtp_head else 0),
                     bool(model.moe), [TUNING_TABLE], notes)
    if placement is not None:
        out.tp, out.dp = placement.instance.tp, placement.instance.dp
        out.expert_parallel = placement.instance.expert_parallel
    if hardware.id == "310p":
        out.max_model_len = min(out.max_model_len, 16384)
        out.max_num_seqs = min(out.max_num_seqs, 16)
        out.expert_parallel = False  # TP only on Atlas inference products
    if not (model.mtp_method and variant.mtp_head):
        out.mtp = 0
    from qlint.rules.known_defects import defects_on, tp_defect

    if role is not None:  # a known defect of P/D serving for this model and release: refuse
        pd_defects = defects_on(kb, version, hardware.id, model.id, ("kv_role", "kv_transfer"))
        if pd_defects:
            entry = pd_defects[0]
            raise GenerationError(f"known defect {entry.id} of vllm-ascend {version}: {entry.symptom.en}")
    spec_subjects = ("speculative", "mtp_tokens") + (("kv_role", "kv_transfer") if role is not None else ())
    if out.mtp:  # a known defect of this release with MTP on this model: generate without it
        blocking = defects_on(kb, version, hardware.id, model.id, spec_subjects)
        if blocking:
            out.mtp = 0
            out.sources += [blocking[0].sources[0]]
            notes.append(f"MTP is left out: known defect {blocking[0].id} of vllm-ascend {version}")
    prefix_caching = recipe.prefix_caching if recipe is not None else None
    if out.mtp and prefix_caching and not (role == "decode" and model.hybrid):
        # a known defect of MTP together with prefix caching at this release: keep the row's prefix caching
        both = [entry for entry in defects_on(kb, version, hardware.id, model.id, spec_subjects + ("prefix_caching",))
                if any(condition.fact == "prefix_caching" for condition in entry.when)]
        if both:
            out.mtp = 0
            out.sources += [both[0].sources[0]]
            notes.append(f"MTP is left out: known defect {both[0].id} of vllm-ascend {version} (MTP with prefix caching)")
    blocked = tp_defect(defects_on(kb, version, hardware.id, model.id, ("tp",)), out.tp)
    if blocked is not None:  # a known defect of this release at this TP size: refuse, as for P/D above
        raise GenerationError(f"known defect {blocked.id} of vllm-ascend {version} at TP {out.tp}: {blocked.symptom.en}")
    if out.max_num_seqs * (out.mtp + 1) > out.batched:
        out.batched = out.max_num_seqs * (out.mtp + 1)
        notes.append(f"--max-num-batched-tokens raised to {out.batched}: it must hold max-num-seqs x (MTP tokens + 1)")
    local = placement.share.dp_local if placement is not None else out.dp
    if out.tp * local > hardware.npus_per_node:
        raise GenerationError(f"TP {out.tp} x DP {local} needs more than one {hardware.names[0]} node")
    out.sources += list(variant.sources[:1]) + list(model.sources[:1])
    return out
