"""Every rule qlint can report, and where each rule's documentation page lives.

The rule graph holds the knowledge rules; the linter adds its own meta rules
(QL901 unused-suppression). Listings, ``explain``, configuration checks and
SARIF all read this catalog so they cannot disagree.
"""

from __future__ import annotations

from functools import lru_cache

from qlint.rules.base import RuleMeta

RULE_DOC_URL = "https://qlint.readthedocs.io/en/latest/rules/{id}.html"
"""The one place that decides a rule page's address (``{id}`` is ``QLnnn``)."""


def rule_url(rule_id: str) -> str:
    """The documentation page of a rule, e.g. ``.../rules/QL201.html``."""
    return RULE_DOC_URL.format(id=rule_id)


@lru_cache(maxsize=1)
def all_rules() -> tuple[RuleMeta, ...]:
    """Metadata of every rule (graph rules and linter meta rules), sorted by id."""
    from qlint.linter.suppressions import UNUSED_SUPPRESSION
    from qlint.rules.graph import default_graph

    metas = [rule.meta for rule in default_graph().order()] + [UNUSED_SUPPRESSION]
    return tuple(sorted(metas, key=lambda meta: meta.id))


def find_rule(token: str) -> RuleMeta | None:
    """The rule named by an id (any case: ``ql201``) or a name (``tp-divides-heads``), or None."""
    wanted = token.strip()
    for meta in all_rules():
        if meta.id == wanted.upper() or meta.name == wanted.lower():
            return meta
    return None


def rules_in_group(group: str) -> list[RuleMeta]:
    """Rules whose metadata lists ``group`` (see ``qlint.rules.groups.GROUPS``), sorted by id."""
    return [meta for meta in all_rules() if group in meta.groups]


def match_selector(selector: str) -> list[RuleMeta]:
    """Rules a ``select``/``ignore`` entry names: an id, a name, a group (``memory``)
    or an id prefix (``QL2``).

    Returns an empty list when the selector names nothing.
    """
    from qlint.rules.groups import GROUPS

    meta = find_rule(selector)
    if meta is not None:
        return [meta]
    if selector.strip().lower() in GROUPS:
        return rules_in_group(selector.strip().lower())
    prefix = selector.strip().upper()
    if prefix.startswith("QL") and (prefix[2:] == "" or prefix[2:].isdigit()):
        return [m for m in all_rules() if m.id.startswith(prefix)]
    return []
