"""The tuning tables' optimisation column as switches of a release (``qlint generate``).

A recipe row names optimisations (``recipes.toml`` ``optimisations``); each is written where the release
reads its switch, and left out with the reason where the release turns it on by itself
(``redundant.toml``), no longer reads it (FlashComm1, ``behaviours.toml`` ``flashcomm1_key_read``) or
does not have it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qlint.knowledge.base import KnowledgeBase

if TYPE_CHECKING:
    from qlint.knowledge.models import Recipe
    from qlint.linter.generate_sizing import Sizing
    from qlint.linter.topology import Placement

PD_TUTORIAL = "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626"
"""The Qwen3.5-27B/Qwen3.6-27B tutorial's multi-node PD section (5.2)."""

OPTIMISATION_KEYS = {"flashcomm1": "enable_flashcomm1", "shared_expert_overlap": "multistream_overlap_shared_expert",
                     "cpu_binding": "enable_cpu_binding"}
"""The tuning tables' optimisation column as ``--additional-config`` keys (the 35B-A3B tutorial, 9.3)."""


def optimisations(kb: KnowledgeBase, recipe: Recipe | None, known: str, additional: dict, args: list[str],
                   notes: list[str]) -> list[str]:
    """Apply the recipe's optimisation column where the release has the switch; say why not elsewhere."""
    from qlint.knowledge.releases import facts_for

    applied: list[str] = []
    facts = facts_for(known)
    for name in recipe.optimisations if recipe is not None else ():
        if name == "async_scheduling":
            if kb.holds("vllm_async_scheduling_default_on", known):
                notes.append("async scheduling: the release turns it on by itself")
            else:
                args.append("--async-scheduling")
            applied.append(name)
            continue
        key = OPTIMISATION_KEYS[name]
        redundant = next((r for r in kb.redundant if r.kind == "additional-config" and r.setting == key), None)
        if redundant is not None and kb.holds(redundant.behaviour, known):
            notes.append(f"{name}: {redundant.note.en}")
            applied.append(name)
        elif name == "flashcomm1" and not kb.holds("flashcomm1_key_read", known):
            notes.append(f"flashcomm1: vllm-ascend {known} no longer reads {key} (FlashComm1 was removed)")
        elif facts is not None and key in facts.additional_config:
            additional[key] = True
            applied.append(name)
        else:
            notes.append(f"{name}: vllm-ascend {known} has no additional-config key {key}")
    return applied


def kv_transfer(kb: KnowledgeBase, sizing: Sizing, npus_per_node: int, known: str, connector: str,
                placement: Placement | None) -> dict:
    """The ``--kv-transfer-config`` of a PD engine: its role, kv_port, and both sides' TP/DP."""
    role = sizing.role
    kv_port = placement.instance.kv_port if placement is not None and placement.instance.kv_port else (
        20000 + 1000 * npus_per_node + (0 if role == "prefill" else 100))
    own = {"tp_size": sizing.tp, "dp_size": sizing.dp}
    peer = placement.peer if placement is not None else None
    other = {"tp_size": peer.tp, "dp_size": peer.dp} if peer is not None else own
    transfer: dict[str, object] = {"kv_connector": connector,
                                   "kv_role": "kv_producer" if role == "prefill" else "kv_consumer",
                                   "kv_port": str(kv_port)}
    if placement is not None and peer is not None and not kb.holds("kv_engine_id_made_unique", known):
        transfer["engine_id"] = str(placement.engine_id)
    transfer["kv_connector_extra_config"] = {"prefill": own if role == "prefill" else other,
                                             "decode": own if role == "decode" else other}
    return transfer


def recompute_scheduler(kb: KnowledgeBase, recipe: Recipe | None, role: str | None, known: str, additional: dict,
                        notes: list[str]) -> None:
    """``recompute_scheduler_enable`` where the recipe puts it and the release runs it.

    The row's ``recompute_scheduler`` (the Qwen3.5-397B-A17B tutorial: both sides), else decode engines
    only (the Qwen3.5-27B/Qwen3.6-27B tutorial). Left out, with the reason, where the release has no such
    key, on a prefill engine of a release that ignores it there (``recompute_scheduler_ignored_on_prefill``)
    and on an engine without PD roles (nothing to send back to; ``recompute_scheduler_rejects_mixed``:
    the release refuses to start).
    """
    from qlint.knowledge.releases import facts_for

    wanted = recipe.recompute_scheduler if recipe is not None and recipe.recompute_scheduler is not None \
        else role == "decode"
    if not wanted:
        return
    facts = facts_for(known)
    if role is None:
        refused = " (it refuses to start with it)" if kb.holds("recompute_scheduler_rejects_mixed", known) else ""
        notes.append(f"recompute scheduler: left out, an engine without PD roles has no prefill to send requests "
                     f"back to in vllm-ascend {known}{refused}")
    elif facts is not None and "recompute_scheduler_enable" not in facts.additional_config:
        notes.append(f"recompute scheduler: vllm-ascend {known} has no additional-config key recompute_scheduler_enable")
    elif role == "prefill" and kb.holds("recompute_scheduler_ignored_on_prefill", known):
        notes.append(f"recompute scheduler: left out on this prefill engine, vllm-ascend {known} ignores it there "
                     "with a warning (decode engines only)")
    else:
        additional["recompute_scheduler_enable"] = True
