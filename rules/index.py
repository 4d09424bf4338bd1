"""The rule index (``rules/index.json``): what the rule graph and the rule listings need to know of
every fact and rule without importing the rule modules.

For each fact: its module, scope and required facts; for each rule: its module, name, severity,
groups, title, fix kind, scope, required and optional facts and trigger (``@check(..., when=...)``);
and the evaluation order of the graph built from every module. ``default_graph()`` is built from it
and imports a rule module only when one of its rules is about to run (or a fact it defines is
computed). Data, like ``knowledge/compiled.json``: regenerate after adding or changing a rule,

    python -m qlint.rules.index

and ``tests/test_rule_index.py`` fails while it is stale.
"""

from __future__ import annotations

import json
import os
import sys
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INDEX = os.path.join(os.path.dirname(__file__), "index.json")  # (os.path: pathlib costs ~4 ms at start-up)


def build_index() -> dict[str, Any]:
    """The index of every fact and rule ``rules/registry.py`` registers (imports every rule module)."""
    from qlint.rules import registry  # noqa: F401  (registers every fact and rule)
    from qlint.rules.graph import FACTS, RULES, RuleGraph

    graph = RuleGraph(FACTS, RULES)

    def module(function) -> str:
        return function.__module__.rpartition(".")[2]

    facts = {name: {"module": module(definition.compute), "scope": definition.scope,
                    "requires": list(definition.requires)}
             for name, definition in dict.items(FACTS)}
    rules = {}
    for rule_id, rule in RULES.items():
        meta = rule.meta
        rules[rule_id] = {"module": module(rule.check), "name": meta.name, "severity": meta.severity,
                          "groups": list(meta.groups), "title": {"en": meta.title.en, "zh": meta.title.zh},
                          "fix": meta.fix, "scope": meta.scope, "requires": list(meta.requires),
                          "optional": list(meta.optional), "when": list(rule.when)}
    return {"facts": facts, "rules": rules, "order": graph._order}


def render(index: dict[str, Any]) -> str:
    """The index as JSON text, one fact or rule a line (reviewable diffs, quick to read)."""

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    lines = ['{"facts": {']
    lines += [f" {dump(name)}: {dump(entry)}," for name, entry in index["facts"].items()]
    lines[-1] = lines[-1].rstrip(",")
    lines.append('}, "rules": {')
    lines += [f" {dump(rule_id)}: {dump(entry)}," for rule_id, entry in index["rules"].items()]
    lines[-1] = lines[-1].rstrip(",")
    lines.append(f'}}, "order": {dump(index["order"])}}}')
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=1)
def load_index() -> dict[str, Any]:
    """The committed index (read once; do not modify it)."""
    with open(INDEX, "rb") as handle:
        return json.loads(handle.read())


def rule_groups(rule_id: str) -> tuple[str, ...]:
    """The groups of a rule, as its metadata lists them (imports no rule module)."""
    return tuple(load_index()["rules"][rule_id]["groups"])


def _read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def main(argv: list[str] | None = None) -> int:
    """Write ``rules/index.json`` (``--check``: exit 1 when it is stale instead)."""
    argv = sys.argv[1:] if argv is None else argv
    text = render(build_index())
    if "--check" in argv:
        stale = not os.path.exists(INDEX) or _read(INDEX) != text
        print(f"{INDEX}: {'stale (python -m qlint.rules.index)' if stale else 'up to date'}")
        return 1 if stale else 0
    with open(INDEX, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    print(f"wrote {INDEX}: {len(json.loads(text)['rules'])} rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
