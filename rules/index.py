"""The rule index: what the rule graph and the rule listings need to know of every fact and rule
without importing the rule modules, in two files written by ``python -m qlint.rules.index``:

* ``rules/index.json``, the graph: per fact ``[module, scope, requires]``, per rule ``[module, scope,
  requires, optional, when, gate]`` (``when``: its trigger, ``@check(..., when=...)``; ``gate``: the
  trigger parsed, each condition after the required facts it names, ``rules.graph.Gate``), and the
  evaluation order of the graph built from every module. ``default_graph()`` is built from it and imports a
  rule module only when one of its rules is about to run (or a fact it defines is computed);
* ``rules/catalog.json``, the listing: per rule ``[name, severity, groups, title (en), title (zh),
  fix]``, read by ``qlint rules``, ``--select`` / ``--ignore``, configuration checks and
  suppressions (``qlint.linter.catalog``), and only by them.

Data, like ``knowledge/compiled.json``: regenerate after adding or changing a rule; ``--check``
says whether they are stale (``tests/test_rule_index.py`` fails while they are). Compact arrays,
one entry a line: the graph file is read on every run (JSON of objects with named fields was three
times slower to read).
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)
import os
import sys
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HERE = os.path.dirname(__file__)  # (os.path: pathlib costs ~4 ms at start-up)
INDEX = os.path.join(_HERE, "index.json")
CATALOG = os.path.join(_HERE, "catalog.json")


def build_index() -> tuple[dict[str, Any], dict[str, list]]:
    """The graph index and the catalogue of every fact and rule ``rules/registry.py`` registers
    (imports every rule module)."""
    from qlint.knowledge.text import check_sources
    from qlint.rules import registry  # noqa: F401  (registers every fact and rule)
    from qlint.rules.graph import FACTS, RULES, RuleGraph

    graph = RuleGraph(FACTS, RULES)
    for rule_id, rule in RULES.items():  # (RuleMeta leaves pinning to here and the tests: it is slow)
        try:
            check_sources(rule.meta.sources)
        except ValueError as error:
            raise ValueError(f"{rule_id}: {error}") from None

    def module(function) -> str:
        return function.__module__.rpartition(".")[2]

    facts = {name: [module(definition.compute), definition.scope, list(definition.requires)]
             for name, definition in dict.items(FACTS)}
    rules = {rule_id: [module(rule.check), rule.meta.scope, list(rule.meta.requires), list(rule.meta.optional),
                       list(rule.when), graph._specs[rule_id][5]] for rule_id, rule in RULES.items()}
    catalog = {rule_id: [meta.name, meta.severity, list(meta.groups), meta.title.en, meta.title.zh, meta.fix]
               for rule_id, meta in ((rule_id, rule.meta) for rule_id, rule in RULES.items())}
    return {"facts": facts, "rules": rules, "order": graph.node_order()}, catalog


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _table(entries: dict[str, Any]) -> list[str]:
    lines = [f"{_dump(key)}:{_dump(entry)}," for key, entry in entries.items()]
    if lines:
        lines[-1] = lines[-1].rstrip(",")
    return lines


def render(index: dict[str, Any]) -> str:
    """The graph index as JSON text, one fact or rule a line."""
    lines = ['{"facts":{', *_table(index["facts"]), '},"rules":{', *_table(index["rules"]),
             f'}},"order":{_dump(index["order"])}}}']
    return "\n".join(lines) + "\n"


def render_catalog(catalog: dict[str, list]) -> str:
    """The catalogue as JSON text, one rule a line."""
    return "\n".join(["{", *_table(catalog), "}"]) + "\n"


@lru_cache(maxsize=1)
def load_index() -> dict[str, Any]:
    """The committed graph index (read once; do not modify it)."""
    with open(INDEX, "rb") as handle:
        return json.loads(handle.read())


@lru_cache(maxsize=1)
def load_catalog() -> dict[str, list]:
    """The committed catalogue: rule id -> [name, severity, groups, title en, title zh, fix]."""
    with open(CATALOG, "rb") as handle:
        return json.loads(handle.read())


def rule_groups(rule_id: str) -> tuple[str, ...]:
    """The groups of a rule, as its metadata lists them (imports no rule module)."""
    return tuple(load_catalog()[rule_id][2])


def _read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def rendered() -> dict[str, str]:
    """What the two files should hold: path -> text."""
    index, catalog = build_index()
    return {INDEX: render(index), CATALOG: render_catalog(catalog)}


def main(argv: list[str] | None = None) -> int:
    """Write ``rules/index.json`` and ``rules/catalog.json`` (``--check``: exit 1 when one is stale instead)."""
    argv = sys.argv[1:] if argv is None else argv
    wanted = rendered()
    if "--check" in argv:
        stale = [path for path, text in wanted.items() if not os.path.exists(path) or _read(path) != text]
        for path in wanted:
            print(f"{path}: {'stale (python -m qlint.rules.index)' if path in stale else 'up to date'}")
        return 1 if stale else 0
    for path, text in wanted.items():
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
