"""Every rule qlint can report, and where each rule's documentation page lives.

The rule graph holds the knowledge rules; the linter adds its own meta rules
(QL901 unused-suppression). Listings, ``explain``, configuration checks and
SARIF all read this catalog so they cannot disagree.
"""

from __future__ import annotations

from functools import lru_cache

from qlint.knowledge.text import Text
from qlint.record import record
from qlint.rules.base import RuleMeta

RULE_DOC_URL = "https://qlint.readthedocs.io/en/latest/rules/{id}.html"
"""The one place that decides a rule page's address (``{id}`` is ``QLnnn``)."""
UNUSED_SUPPRESSION_ID = "QL901"
"""The id of the linter's meta rule unused-suppression (``suppressions.UNUSED_SUPPRESSION``, imported only for
a file with a suppression comment)."""


def rule_url(rule_id: str) -> str:
    """The documentation page of a rule, e.g. ``.../rules/QL201.html``."""
    return RULE_DOC_URL.format(id=rule_id)


@record(frozen=True)  # (not slotted: a slotted record class is built twice at import, and few runs list rules)
class RuleEntry:
    """A rule as the rule index (``rules/index.json``) lists it: enough to select, list and name rules
    without importing a rule module (``all_rules`` has the whole metadata)."""

    id: str
    name: str
    severity: str
    groups: tuple[str, ...]
    title: Text
    fix: str


@lru_cache(maxsize=1)
def rule_entries() -> tuple[RuleEntry, ...]:
    """Every rule (graph rules and linter meta rules) as the rule index lists it, sorted by id."""
    from qlint.linter.suppressions import UNUSED_SUPPRESSION
    from qlint.rules.index import load_catalog

    meta = UNUSED_SUPPRESSION
    entries = [RuleEntry(rule_id, name, severity, tuple(groups), Text(en=title, zh=title_zh), fix)
               for rule_id, (name, severity, groups, title, title_zh, fix) in load_catalog().items()]
    entries.append(RuleEntry(meta.id, meta.name, meta.severity, meta.groups, meta.title, meta.fix))
    return tuple(sorted(entries, key=lambda entry: entry.id))


@lru_cache(maxsize=1)
def rule_ids() -> frozenset[str]:
    """The id of every rule (graph rules and linter meta rules), from the rule index."""
    from qlint.rules.index import load_index

    return frozenset([*load_index()["rules"], UNUSED_SUPPRESSION_ID])


@lru_cache(maxsize=1)
def all_rules() -> tuple[RuleMeta, ...]:
    """Metadata of every rule (graph rules and linter meta rules), sorted by id (imports every rule module)."""
    from qlint.linter.suppressions import UNUSED_SUPPRESSION
    from qlint.rules.graph import default_graph

    metas = [rule.meta for rule in default_graph().order()] + [UNUSED_SUPPRESSION]
    return tuple(sorted(metas, key=lambda meta: meta.id))


@lru_cache(maxsize=1)
def _metas_by_id() -> dict[str, RuleMeta]:
    return {meta.id: meta for meta in all_rules()}


def find_entry(token: str) -> RuleEntry | None:
    """The rule named by an id (any case: ``ql201``) or a name (``tp-divides-heads``), or None."""
    wanted = token.strip()
    for entry in rule_entries():
        if entry.id == wanted.upper() or entry.name == wanted.lower():
            return entry
    return None


def find_rule(token: str) -> RuleMeta | None:
    """The metadata of the rule ``find_entry`` finds, or None."""
    entry = find_entry(token)
    return None if entry is None else _metas_by_id()[entry.id]


def rules_in_group(group: str) -> list[RuleMeta]:
    """Rules whose metadata lists ``group`` (see ``qlint.rules.groups.GROUPS``), sorted by id."""
    return [meta for meta in all_rules() if group in meta.groups]


def match_entries(selector: str) -> list[RuleEntry]:
    """Rules a ``select``/``ignore`` entry names: an id, a name, a group (``memory``)
    or an id prefix (``QL2``), sorted by id.

    Returns an empty list when the selector names nothing.
    """
    from qlint.rules.groups import GROUPS

    entry = find_entry(selector)
    if entry is not None:
        return [entry]
    if selector.strip().lower() in GROUPS:
        group = selector.strip().lower()
        return [e for e in rule_entries() if group in e.groups]
    prefix = selector.strip().upper()
    if prefix.startswith("QL") and (prefix[2:] == "" or prefix[2:].isdigit()):
        return [e for e in rule_entries() if e.id.startswith(prefix)]
    return []


def match_selector(selector: str) -> list[RuleMeta]:
    """The metadata of the rules ``match_entries`` names."""
    entries = match_entries(selector)
    by_id = _metas_by_id() if entries else {}
    return [by_id[entry.id] for entry in entries]
