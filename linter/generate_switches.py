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
