"""The rule graph: facts derived from a launch plan and rules that consume them.

Nodes are *facts* (``fact:tp``, ``fact:model``, ...) and *rules*
(``rule:QL201``). Edges say ``derives`` (fact -> fact it feeds) and
``requires`` (fact -> rule that reads it); constraint rules also add a
``conflicts`` / ``divides`` / ``equals`` edge between the facts they relate.
Facts and rules are evaluated in topological order for each ``vllm serve``
command (scope ``serve``) or once per script (scope ``script``).

Callers use the façade (``order``, ``why``, ``affected_by``, ``evaluate``)
and never networkx directly.

Loading: ``default_graph()`` is built from the rule index (``rules/index.json``, written by
``python -m qlint.rules.index``): every fact's and rule's name, scope, requires and module, and the
evaluation order. A rule module is imported when one of its rules is about to run (its required
facts are known and its trigger, ``@check(..., when=...)``, holds) or when a fact it defines is
computed; ``QLINT_RULES=all`` imports every module and runs every rule, triggers aside.
"""

from __future__ import annotations

from functools import lru_cache

import os
import sys
from functools import cached_property

from qlint.knowledge.base import KnowledgeBase
from qlint.record import SlottedRecord, fields, record
from qlint.rules.base import FactTrace, Finding, RuleMeta
from qlint.rules.plan import LaunchPlan, ServeCommand, Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Literal


class Unknown(Exception):
    """Raised inside a fact or rule when a fact it needs is not fixed by the script."""


class Known(metaclass=SlottedRecord):
    """A fact's value and where it came from (``origin``: human text; ``span``: plan item)."""

    value: Any
    origin: str
    span: Span | None = None

    def __init__(self, value: Any, origin: str, span: Span | None = None) -> None:
        self.value = value
        self.origin = origin
        self.span = span


UNKNOWN = object()
_MISSING = object()


@record(frozen=True)
class FactDef:
    name: str
    scope: Literal["serve", "script"]
    requires: tuple[str, ...]
    compute: Callable[["Scope"], Any]
    doc: str

    def __init__(self, name: str, scope: Literal["serve", "script"], requires: tuple[str, ...],
                 compute: Callable[["Scope"], Any], doc: str) -> None:
        self.__dict__.update(name=name, scope=scope, requires=requires, compute=compute, doc=doc)  # frozen


@record(frozen=True)
class RuleDef:
    meta: RuleMeta
    check: Callable[["Scope"], Iterable[Finding]]
    relations: tuple[tuple[str, str, str], ...] = ()  # (kind, fact_a, fact_b)
    when: tuple[str, ...] = ()  # the trigger: conditions without which the rule cannot report (see ``check``)

    def __init__(self, meta: RuleMeta, check: Callable[["Scope"], Iterable[Finding]],
                 relations: tuple[tuple[str, str, str], ...] = (), when: tuple[str, ...] = ()) -> None:
        self.__dict__.update(meta=meta, check=check, relations=relations, when=when)  # frozen


class _Facts(dict):
    """The registered facts. A fact not registered yet is looked up in the rule index and its module
    imported (``_load_fact``, set by the lazily loaded graph): a rule may read a fact another family defines."""

    def __missing__(self, name: str) -> FactDef:
        if _load_fact is not None and _load_fact(name):
            return dict.__getitem__(self, name)
        raise KeyError(name)


_load_fact: Callable[[str], bool] | None = None
FACTS: dict[str, FactDef] = _Facts()
RULES: dict[str, RuleDef] = {}
_RULE_NAMES: dict[str, str] = {}  # rule name -> id, to refuse a name registered twice
_SCRIPT_FACTS: set[str] = set()  # names of the script-scope facts (read through the parent scope)


def fact(name: str, *, requires: Iterable[str] = (), scope: Literal["serve", "script"] = "serve"):
    """Register a fact function ``f(scope) -> Known | value``.

    Returning a plain value wraps it as Known with the function's name as
    origin; raising Unknown (or calling ``scope.get`` on an unknown fact)
    marks the fact unknown for that command.
    """

    def register(function: Callable[["Scope"], Any]) -> Callable[["Scope"], Any]:
        if name in FACTS:
            raise ValueError(f"fact {name} registered twice")
        FACTS[name] = FactDef(name, scope, tuple(requires), function, (function.__doc__ or "").strip())
        if scope == "script":
            _SCRIPT_FACTS.add(name)
        return function

    return register


def check(meta: RuleMeta, relations: Iterable[tuple[str, str, str]] = (), when: Iterable[str] = ()):
    """Register a rule function ``f(scope) -> iterable of Finding`` with its metadata.

    ``when`` is the rule's trigger: conditions that all hold whenever the rule can report, so that
    its module need not be imported (nor the rule run) for a plan where one fails. Each condition is
    one or more alternatives joined by `` | ``: ``fact`` (a fact of ``meta.requires`` is truthy),
    ``fact=value`` (it equals the string), ``option:--name`` (a serve command has the option: the
    serve command of a serve-scope rule, any of the plan's or the deployment's otherwise),
    ``env:NAME`` (the serve command's environment sets it; serve scope only), ``serve:attribute`` (an
    attribute of the serve command, ``option_first``..., is not empty; serve scope only), ``command:kind``
    (a command of that kind: ``ray-start``, ``proxy``, ``launcher``...; ``command:kind>N``: more than N
    of them, in the plan or in one plan of the deployment) or ``plan:field`` (a field or property of the
    plan, ``unread``, ``odd_shebang``..., is not empty: the plan's, or one of the deployment's). ``!`` before
    an alternative negates it: ``!fact`` holds when the fact is falsy or unknown (it may be one of
    ``meta.optional``; not in deployment scope), ``!option:--name`` when the option is not given, and so on. A trigger
    must be sound: the tests run every rule whose trigger fails and require that it reports nothing and
    reads no fact. Its conditions are told in order, each as soon as the facts it names are computed
    (the other required facts after that), so a cheap condition that fails often goes first.
    """

    def register(function: Callable[["Scope"], Iterable[Finding]]):
        if meta.id in RULES:
            raise ValueError(f"rule {meta.id} registered twice")
        holder = RULES.get(_RULE_NAMES.get(meta.name, ""))  # (an index: checking every rule was quadratic)
        if holder is not None and holder.meta.name == meta.name:
            raise ValueError(f"rule name {meta.name} registered twice")
        # (a malformed trigger is refused where a graph is built from the registered rules: the rule index
        # and the tests; RuleGraph.__init__)
        RULES[meta.id] = RuleDef(meta, function, tuple(relations), tuple(when))
        _RULE_NAMES[meta.name] = meta.id
        return function

    return register


Trigger = tuple[tuple[tuple[str, str, "str | None"], ...], ...]
"""A parsed ``when``: per condition, its alternatives as (kind, name, value): kind ``fact``, ``option``,
``env``, ``serve``, ``command`` or ``plan``, after a ``!`` when negated; value only for ``fact=value`` and
``command:kind>N`` (N)."""


def _attributes(cls: type) -> frozenset[str]:
    """The fields and properties of a plan record: what ``plan:`` and ``serve:`` may name."""
    return frozenset([item.name for item in fields(cls)]
                     + [name for base in cls.__mro__ for name, value in vars(base).items() if isinstance(value, property)])


def parse_trigger(rule_id: str, scope: str, requires: tuple[str, ...], conditions: Iterable[str],
                  optional: tuple[str, ...] = ()) -> Trigger:
    """The parsed ``when`` of a rule (its id, scope, required and optional facts); ValueError on a
    condition it cannot be (see ``check``)."""
    parsed = []
    for condition in conditions:
        alternatives = []
        for text in condition.split("|"):
            text = text.strip()
            negated = text.startswith("!")
            kind, _, name = text[negated:].partition(":") if ":" in text else ("fact", "", text[negated:])
            value = None
            if kind == "fact":
                name, equals, wanted = name.partition("=")
                value = wanted if equals else None
                if name not in requires and not (negated and name in optional):
                    raise ValueError(f"{rule_id}: trigger {text!r} reads {name!r}, which is not in its requires"
                                     + (" or optional" if negated else ""))
                if negated and scope == "deployment":
                    raise ValueError(f"{rule_id}: trigger {text!r}: !fact conditions are for serve- and script-scope rules")
            elif kind in ("env", "serve") and scope != "serve":
                raise ValueError(f"{rule_id}: trigger {text!r}: {kind}: conditions are for serve-scope rules")
            elif kind == "serve" and name not in _attributes(ServeCommand):
                raise ValueError(f"{rule_id}: trigger {text!r}: a serve command has no attribute {name!r}")
            elif kind == "plan" and name not in _attributes(LaunchPlan):
                raise ValueError(f"{rule_id}: trigger {text!r}: a launch plan has no field {name!r}")
            elif kind == "command" and ">" in name:
                name, _, count = name.partition(">")
                if not count.isdigit():
                    raise ValueError(f"{rule_id}: trigger {text!r}: command:kind>N takes a number")
                value = count
            elif kind not in ("option", "env", "serve", "command", "plan"):
                raise ValueError(f"{rule_id}: trigger {text!r}: unknown condition kind {kind!r}")
            if not name or (kind == "fact" and value == ""):
                raise ValueError(f"{rule_id}: trigger {text!r} names nothing")
            alternatives.append(("!" + kind if negated else kind, name, value))
        if not alternatives:
            raise ValueError(f"{rule_id}: an empty trigger condition")
        parsed.append(tuple(alternatives))
    return tuple(parsed)


def _holds(trigger: Trigger, scope: "Scope", kind: str) -> bool:
    """Whether every condition of a trigger has an alternative that holds in ``scope`` (a rule of scope
    ``kind``). Fact conditions read facts the rule requires, which its gate has just computed."""
    return all(_condition_holds(alternatives, scope, kind) for alternatives in trigger)


def _condition_holds(alternatives: tuple[tuple[str, str, "str | None"], ...], scope: "Scope", kind: str) -> bool:
    """Whether one alternative of a trigger's condition holds in ``scope`` (see ``_holds``)."""
    for what, name, value in alternatives:
        negated = what[0] == "!"
        if negated:
            what = what[1:]
        if what == "fact":
            holder = scope.parent if scope.parent is not None and name in _SCRIPT_FACTS else scope
            known = holder.values.get(name, _MISSING)
            if known is _MISSING and negated:
                known = holder._compute(name)  # (an optional fact: the gate computes the required ones)
            if not isinstance(known, Known):
                return True  # not computed yet: it may hold; unknown: a negated one holds
            held = known.value == value if value is not None else bool(known.value)
        elif what == "env":
            held = name in scope.serve.env
        elif what == "serve":
            held = bool(getattr(scope.serve, name))
        elif kind == "serve" and what == "option":
            held = name in scope.serve.options
        else:
            plans = scope.deployment if kind == "deployment" else [scope.plan]
            if what == "option":
                held = any(name in serve.options for plan in plans for serve in plan.serve_commands())
            elif what == "plan":
                held = any(getattr(plan, name) for plan in plans)
            elif value is None:
                held = any(command.kind == name for plan in plans for command in plan.commands)
            else:
                held = any(sum(command.kind == name for command in plan.commands) > int(value) for plan in plans)
        if held is not negated:
            return True
    return False


@record
class Settings:
    """What the user told qlint outside the script (CLI options)."""

    hardware: str | None = None
    version: str | None = None
    lang: str = "en"


class Scope(metaclass=SlottedRecord):
    """Evaluation context: the plan, the knowledge, one serve command (or none).

    ``command`` is the serve command of a serve-scope evaluation, None in script and
    deployment scopes; serve rules and facts read it as ``serve`` (typed, never None).
    """

    plan: LaunchPlan
    kb: KnowledgeBase
    settings: Settings
    command: ServeCommand | None
    parent: "Scope | None"
    deployment: list[LaunchPlan]
    values: dict[str, Any]
    _allowed: tuple[str, ...] | None

    def __init__(self, plan: LaunchPlan, kb: KnowledgeBase, settings: Settings, serve: ServeCommand | None = None,
                 parent: "Scope | None" = None, deployment: list[LaunchPlan] | None = None,
                 values: dict[str, Any] | None = None) -> None:
        self.plan, self.kb, self.settings, self.command, self.parent = plan, kb, settings, serve, parent
        self.deployment = [] if deployment is None else deployment
        self.values = {} if values is None else values
        self._allowed = None

    @property
    def serve(self) -> ServeCommand:
        """The serve command this scope evaluates; RuntimeError in a script or deployment scope."""
        command = self.command
        if command is None:
            raise RuntimeError("a script or deployment scope has no serve command (read scope.plan)")
        return command

    def known(self, name: str) -> Known | None:
        """The Known of a fact, or None when it is unknown for this command."""
        allowed = self._allowed
        if allowed is not None and name not in allowed:
            raise RuntimeError(f"{name!r} is read but not declared in requires {allowed}")
        holder = self
        if self.parent is not None and name in _SCRIPT_FACTS:
            holder = self.parent
        cached = holder.values.get(name, _MISSING)
        if cached is not _MISSING:
            return None if cached is UNKNOWN else cached
        return holder._compute(name)

    def get(self, name: str) -> Any:
        """The value of a fact; raises Unknown when the script does not fix it."""
        # known() inlined: rules call get() a hundred times per command
        allowed = self._allowed
        if allowed is not None and name not in allowed:
            raise RuntimeError(f"{name!r} is read but not declared in requires {allowed}")
        holder = self
        if self.parent is not None and name in _SCRIPT_FACTS:
            holder = self.parent
        result = holder.values.get(name, _MISSING)
        if result is _MISSING:
            result = holder._compute(name)
        if result is None or result is UNKNOWN:
            raise Unknown(name)
        return result.value

    def _compute(self, name: str) -> Known | None:
        values = self.values
        if name in values:
            cached = values[name]
            return None if cached is UNKNOWN else cached
        definition = FACTS[name]
        previous = self._allowed
        self._allowed = definition.requires
        try:
            result = definition.compute(self)
            if not isinstance(result, Known):
                result = Known(result, definition.name)
        except Unknown:
            result = UNKNOWN
        finally:
            self._allowed = previous
        values[name] = result
        return None if result is UNKNOWN else result

    def trace(self, names: Iterable[str]) -> list[FactTrace]:
        out = []
        for name in names:
            holder = self.parent if name in _SCRIPT_FACTS and self.parent else self
            value = holder.values.get(name, UNKNOWN)
            if value is not UNKNOWN:
                out.append(FactTrace(name, value.value, value.origin))
        return out


Gate = tuple[tuple[tuple[str, ...], "tuple[tuple[str, str, str | None], ...] | None"], ...]
"""What to tell, in order, before a rule runs: (required facts to compute, trigger condition or None)
pairs. The rule index holds each rule's (``_gate``), as lists; empty: the required facts only."""


class _Step:
    """What ``_run_step`` needs of one rule, computed once: its id, scope kind, required facts, the facts
    it may read, its check (None until its module is imported), its trigger (None: not evaluated), the
    module that defines it and its gate (see ``Gate``)."""

    __slots__ = ("id", "kind", "requires", "allowed", "check", "trigger", "module", "gate")

    def __init__(self, rule_id: str, kind: str, requires: tuple[str, ...], allowed: tuple[str, ...],
                 check: Callable[[Scope], Iterable[Finding]] | None, trigger: Trigger | None, module: str,
                 gate: Gate) -> None:
        self.id, self.kind, self.requires, self.allowed = rule_id, kind, requires, allowed
        self.check, self.trigger, self.module, self.gate = check, trigger, module, gate


def _gate(requires: tuple[str, ...], trigger: Trigger) -> Gate:
    """A rule's gate (see ``Gate``): each condition of its trigger right after the required facts it
    names, then the other required facts; () without a trigger. A rule runs when every required fact
    is known and its trigger holds, in whatever order they are told: telling a condition first spares
    computing facts (and importing the modules that define them) for a rule whose trigger fails."""
    if not trigger:
        return ()
    gate: list = []
    computed: set[str] = set()
    for condition in trigger:
        names = {name for what, name, _ in condition if what == "fact" or what == "!fact"}
        gate.append((tuple(name for name in requires if name in names and name not in computed), condition))
        computed |= names
    gate.append((tuple(name for name in requires if name not in computed), None))
    return tuple(gate)


# what the graph knows of a rule without importing it: scope, requires, optional, when, module, gate
_Spec = tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...], str, Gate]


class RuleGraph:
    """Façade over the DAG of facts and rules.

    Evaluation order comes from the standard library's ``graphlib`` so that
    linting does not pay for importing networkx; the networkx graph behind
    ``affected_by`` and ``relations`` is built on first use.

    Built from registered definitions (``RuleGraph(facts, rules)``: every rule runs when its required
    facts are known) or from the rule index (``RuleGraph.from_index``: a rule runs, and its module is
    imported, when its required facts are known and its trigger holds). ``audit``: a rule whose trigger
    fails runs all the same and must report nothing and compute no fact (AssertionError otherwise; tests).
    """

    def __init__(self, facts: dict[str, FactDef], rules: dict[str, RuleDef], *, audit: bool = False):
        for definition in facts.values():
            for needed in definition.requires:
                if needed not in facts:
                    raise ValueError(f"fact {definition.name} requires unknown fact {needed}")
        for rule in rules.values():
            for needed in rule.meta.requires:
                if needed not in facts:
                    raise ValueError(f"rule {rule.meta.id} requires unknown fact {needed}")
            for used in rule.meta.optional:
                if used not in facts:
                    raise ValueError(f"rule {rule.meta.id} uses unknown fact {used}")
        fact_specs: dict[str, tuple[str, tuple[str, ...]]] = {
            name: (definition.scope, definition.requires) for name, definition in facts.items()}
        rule_specs: dict[str, _Spec] = {  # (parse_trigger: ValueError on a malformed trigger)
            rule_id: (rule.meta.scope, rule.meta.requires, rule.meta.optional, rule.when,
                      rule.check.__module__.rpartition(".")[2],
                      _gate(rule.meta.requires, parse_trigger(rule_id, rule.meta.scope, rule.meta.requires, rule.when,
                                                          rule.meta.optional)))
            for rule_id, rule in rules.items()}
        self._setup(fact_specs, rule_specs, None, rules, lazy=False, audit=audit)

    @classmethod
    def from_index(cls, index: dict[str, Any], *, audit: bool = False) -> "RuleGraph":
        """The graph the rule index describes (``qlint.rules.index``); rule modules are imported as
        their rules are about to run and their facts to be computed."""
        global _load_fact
        facts, rules = index["facts"], index["rules"]  # [module, scope, requires] / [module, scope, requires, optional, when, gate]
        modules = {name: entry[0] for name, entry in facts.items()}
        fact_specs = {name: (entry[1], tuple(entry[2])) for name, entry in facts.items()}
        rule_specs = {rule_id: (entry[1], tuple(entry[2]), tuple(entry[3]), tuple(entry[4]), entry[0], entry[5])
                      for rule_id, entry in rules.items()}

        def load_fact(name: str) -> bool:
            module = modules.get(name)
            if module is None:
                return False
            _import(module)
            return dict.__contains__(FACTS, name)

        _SCRIPT_FACTS.update(name for name, (scope, _) in fact_specs.items() if scope == "script")
        _load_fact = load_fact
        graph = cls.__new__(cls)
        graph._setup(fact_specs, rule_specs, index["order"], RULES, lazy=True, audit=audit)
        return graph

    def _setup(self, facts: dict[str, tuple[str, tuple[str, ...]]], rules: dict[str, _Spec], order: list[str] | None,
               definitions: dict[str, RuleDef], *, lazy: bool, audit: bool) -> None:
        self._fact_specs = facts
        self._specs = rules
        if order is None:  # the rule index gives the order of the default graph
            from graphlib import CycleError, TopologicalSorter

            try:
                order = list(TopologicalSorter(self._predecessors).static_order())
            except CycleError as error:
                raise ValueError(f"rule graph has a cycle: {error.args[1]}") from None
        self._order = order
        self._rules = definitions
        self._lazy = lazy
        self._audit = audit
        self._rule_ids = tuple(n[5:] for n in order if n.startswith("rule:"))
        self._inputs: dict[str, list[str]] = {}
        self._fact_inputs: dict[str, frozenset[str]] = {}
        self._by_selection: dict[frozenset[str], tuple[_Step, ...]] = {}
        self._wanting_cache: dict[str, list[tuple[str, tuple[str, ...]]]] = {}

    @cached_property
    def _edges(self) -> list[tuple[str, str, str]]:
        """(source, target, label) of every edge: ``derives``, ``requires``, ``uses``."""
        edges: list[tuple[str, str, str]] = []
        for name, (_, requires) in self._fact_specs.items():
            for needed in requires:
                edges.append((f"fact:{needed}", f"fact:{name}", "derives"))
        for rule_id, (_, requires, optional, _, _, _) in self._specs.items():
            node = f"rule:{rule_id}"
            for needed in requires:
                edges.append((f"fact:{needed}", node, "requires"))
            for used in optional:
                edges.append((f"fact:{used}", node, "uses"))
        return edges

    @cached_property
    def _nodes(self) -> list[str]:
        return [f"fact:{name}" for name in self._fact_specs] + [f"rule:{rule_id}" for rule_id in self._specs]

    @cached_property
    def _predecessors(self) -> dict[str, list[str]]:
        predecessors: dict[str, list[str]] = {node: [] for node in self._nodes}
        for source, target, _ in self._edges:
            predecessors[target].append(source)
        return predecessors

    def node_order(self) -> list[str]:
        """Every node (``fact:NAME``, ``rule:ID``) in evaluation order."""
        return list(self._order)

    @cached_property
    def _graph(self):
        import networkx as nx

        graph = nx.DiGraph()
        for node in self._nodes:
            graph.add_node(node, kind=node.split(":", 1)[0])
        for source, target, label in self._edges:
            graph.add_edge(source, target, label=label)
        return graph

    @cached_property
    def _relations(self):
        import networkx as nx

        relations = nx.MultiGraph()
        for rule in self._definitions():
            for kind, left, right in rule.relations:
                relations.add_edge(left, right, kind=kind, rule=rule.meta.id)
        return relations

    def _definitions(self) -> list[RuleDef]:
        """Every rule's definition, in evaluation order (imports the rule modules not imported yet)."""
        if self._lazy and any(rule_id not in self._rules for rule_id in self._rule_ids):
            from qlint.rules import registry  # noqa: F401  (registers every fact and rule)

            stale = [rule_id for rule_id in self._rule_ids if rule_id not in self._rules]
            if stale:
                raise RuntimeError(f"the rule index is stale (python -m qlint.rules.index): {stale} not registered")
        return [self._rules[rule_id] for rule_id in self._rule_ids]

    def order(self) -> list[RuleDef]:
        """Rules in topological order (every fact a rule reads comes first); imports every rule module."""
        return self._definitions()

    def rule_ids(self) -> tuple[str, ...]:
        """Ids of the graph's rules, in evaluation order (imports nothing)."""
        return self._rule_ids

    def rule_requires(self, rule_id: str) -> tuple[str, ...]:
        """The facts a rule requires (imports nothing)."""
        return self._specs[rule_id][1]

    def fact_requires(self) -> dict[str, tuple[str, ...]]:
        """Every fact and the facts it is derived from directly (imports nothing)."""
        return {name: requires for name, (_, requires) in self._fact_specs.items()}

    @cached_property
    def _steps(self) -> tuple[_Step, ...]:
        """Per rule, in evaluation order, what ``_run_step`` needs."""
        evaluated = self._lazy or self._audit
        steps = []
        for rule_id in self._rule_ids:
            scope, requires, optional, when, module, gate = self._specs[rule_id]
            definition = self._rules.get(rule_id)
            trigger = tuple([condition for _, condition in gate if condition is not None]) if evaluated and gate else None
            if trigger is None or self._audit:  # audit: every required fact first, the trigger after (_run_step)
                gate = ((requires, None),)
            steps.append(_Step(rule_id, scope, requires, requires + optional,
                               definition.check if definition is not None else None, trigger, module, gate))
        return tuple(steps)

    def fact_order(self) -> list[str]:
        return [n[5:] for n in self._order if n.startswith("fact:")]

    def inputs(self, rule_id: str) -> list[str]:
        """Every fact a rule depends on, transitively, in evaluation order."""
        cached = self._inputs.get(rule_id)
        if cached is None:
            _, requires, optional = self._specs[rule_id][:3]
            seen = self._ancestors(requires + optional)
            cached = self._inputs[rule_id] = [n[5:] for n in self._order if n[5:] in seen and n[:5] == "fact:"]
        return cached

    def fact_inputs(self, fact_name: str) -> frozenset[str]:
        """Every fact a fact is derived from, transitively (not including itself)."""
        cached = self._fact_inputs.get(fact_name)
        if cached is None:
            cached = self._fact_inputs[fact_name] = frozenset(self._ancestors(self._fact_specs[fact_name][1]))
        return cached

    def _ancestors(self, parents: Iterable[str]) -> set[str]:
        """The facts ``parents`` and every fact they derive from, transitively, read from the specs (the
        predecessors of every node, ``_predecessors``, cost the first finding of a run ~1.4 M instructions)."""
        seen: set[str] = set()
        stack = list(parents)
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                stack.extend(self._fact_specs[name][1])
        return seen

    def skipped_for_want_of(self, fact_name: str, scope: "Scope") -> list[str]:
        """Ids of the serve-scope rules skipped in ``scope`` because ``fact_name`` is unknown there:
        a fact they require is unknown and is (or derives from) ``fact_name``."""
        skipped = []
        for rule_id, relevant in self._wanting(fact_name):
            for needed in relevant:
                holder = scope.parent if needed in _SCRIPT_FACTS and scope.parent is not None else scope
                if holder._compute(needed) is None:
                    skipped.append(rule_id)
                    break
        return skipped

    def _wanting(self, fact_name: str) -> list[tuple[str, tuple[str, ...]]]:
        """The serve-scope rules that depend on ``fact_name``, in evaluation order, each with the facts it
        requires that are (or derive from) ``fact_name``: what ``skipped_for_want_of`` looks at (kept per fact)."""
        cached = self._wanting_cache.get(fact_name)
        if cached is None:
            cached = self._wanting_cache[fact_name] = [
                (rule_id, tuple(needed for needed in requires
                                if needed == fact_name or fact_name in self.fact_inputs(needed)))
                for rule_id in self._rule_ids
                for kind, requires in [self._specs[rule_id][:2]]
                if kind == "serve" and fact_name in self.inputs(rule_id)]
        return cached

    def why(self, finding: Finding) -> list[FactTrace]:
        """The chain of facts behind a finding (as recorded when it was produced)."""
        return list(finding.trace)

    def affected_by(self, fact_name: str) -> list[str]:
        """Facts and rules downstream of a fact: what changes when it changes."""
        import networkx as nx

        return sorted(nx.descendants(self._graph, f"fact:{fact_name}"))

    def relations(self, fact_name: str) -> list[tuple[str, str, str]]:
        """Constraint edges touching a fact: (kind, other fact, rule id)."""
        if fact_name not in self._relations:
            return []
        return [
            (data["kind"], other, data["rule"])
            for _, other, data in self._relations.edges(fact_name, data=True)
        ]

    def _enabled_steps(self, enabled: frozenset[str] | None) -> tuple[_Step, ...]:
        """The steps of the rules in ``enabled`` (None: every rule), in evaluation order."""
        if enabled is None:
            return self._steps
        cached = self._by_selection.get(enabled)
        if cached is None:
            cached = self._by_selection[enabled] = tuple(s for s in self._steps if s.id in enabled)
        return cached

    def evaluate(self, plan: LaunchPlan, kb: KnowledgeBase, settings: Settings,
                 enabled: frozenset[str] | None = None) -> list[Finding]:
        """Run the rules over a plan and return the findings (unsorted).

        ``enabled``: ids of the rules to run (None: every rule); the others do not run at all.
        """
        findings: list[Finding] = []
        script = Scope(plan=plan, kb=kb, settings=settings)
        serve_scopes = [
            Scope(plan=plan, kb=kb, settings=settings, serve=command, parent=script)
            for command in plan.serve_commands()
        ]
        script_scopes = [script]
        run = self._run_step
        for step in self._enabled_steps(enabled):
            kind = step.kind
            if kind == "deployment":
                continue
            for scope in script_scopes if kind == "script" else serve_scopes:
                produced = run(step, scope)
                if produced:
                    findings.extend(produced)
        return findings

    def evaluate_deployment(self, plans: list[LaunchPlan], kb: KnowledgeBase, settings: Settings,
                            enabled: frozenset[str] | None = None,
                            prepare: Callable[[Scope], object] | None = None) -> list[Finding]:
        """Run the deployment-scope rules over scripts that run together (P, D, proxy...).

        Their findings carry the ``path`` of the script they blame. ``enabled``: ids of
        the rules to run (None: every rule). ``prepare`` is called once with the deployment
        scope before any rule runs (the deployment pass builds the topology there), and only when
        one will: not when every rule's trigger fails (deployment rules require no fact), as for
        most single scripts; in audit mode always.
        """
        if not plans:
            return []
        findings: list[Finding] = []
        scope = Scope(plan=plans[0], kb=kb, settings=settings, deployment=list(plans))
        steps = [step for step in self._enabled_steps(enabled) if step.kind == "deployment"]
        if prepare is not None and any(self._audit or step.requires or step.trigger is None
                                       or _holds(step.trigger, scope, "deployment") for step in steps):
            prepare(scope)
        for step in steps:
            findings.extend(self._run_step(step, scope))
        return findings

    def _run_step(self, step: _Step, scope: Scope) -> list[Finding]:
        values = scope.values
        parent = scope.parent
        shared = values if parent is None else parent.values  # where the script-scope facts are
        for facts, condition in step.gate:
            for needed in facts:  # a required fact that is unknown skips the rule
                value = (shared if needed in _SCRIPT_FACTS else values).get(needed, _MISSING)
                if value is UNKNOWN:
                    return []
                if value is _MISSING and (scope if parent is None or needed not in _SCRIPT_FACTS
                                          else parent)._compute(needed) is None:
                    return []
            if condition is None:
                continue
            if len(condition) == 1:  # most conditions: one alternative, told here (no call per condition)
                what, name, wanted = condition[0]
                if what == "fact":  # required: computed by now (this gate entry or one before), and known
                    held = (shared if name in _SCRIPT_FACTS else values)[name].value
                    if not (held if wanted is None else held == wanted):
                        return []  # the trigger fails
                    continue
                if what == "option" and step.kind == "serve":
                    if name not in scope.command.options:  # type: ignore[union-attr]  # (a serve scope)
                        return []
                    continue
            if not _condition_holds(condition, scope, step.kind):
                return []  # the trigger fails
        if self._audit and step.trigger is not None and not _holds(step.trigger, scope, step.kind):
            self._audit_silent(step, scope)
            return []
        check = step.check  # (_call inlined: most rules that run report nothing)
        if check is None:
            check = step.check = self._resolve(step)
        scope._allowed = step.allowed
        try:
            produced = list(check(scope))
        except Unknown:
            return []
        finally:
            scope._allowed = None
        if produced:
            trace_names = self.inputs(step.id)
            release = _release(scope)
            for finding in produced:
                if not finding.trace:
                    finding.trace = scope.trace(trace_names)
                if finding.release is None:
                    finding.release = release
        return produced

    def _call(self, step: _Step, scope: Scope) -> list[Finding]:
        check = step.check
        if check is None:
            check = step.check = self._resolve(step)
        scope._allowed = step.allowed
        try:
            return list(check(scope))
        except Unknown:
            return []
        finally:
            scope._allowed = None

    def _resolve(self, step: _Step) -> Callable[[Scope], Iterable[Finding]]:
        """The check of a rule whose module is not imported yet: import it."""
        rule = self._rules.get(step.id)
        if rule is None:
            _import(step.module)
            rule = self._rules.get(step.id)
            if rule is None:
                raise RuntimeError(f"the rule index is stale (python -m qlint.rules.index): "
                                   f"qlint.rules.{step.module} registers no rule {step.id}")
        return rule.check

    def _audit_silent(self, step: _Step, scope: Scope) -> None:
        """Run a rule whose trigger fails: it must report nothing and compute no fact."""
        holders = [scope] if scope.parent is None else [scope, scope.parent]
        before = [set(holder.values) for holder in holders]
        produced = self._call(step, scope)
        computed = [sorted(set(holder.values) - seen) for holder, seen in zip(holders, before)]
        if produced or any(computed):
            raise AssertionError(f"{step.id}: its trigger {self._specs[step.id][3]} fails on {scope.plan.path} but it "
                                 f"reported {[f.message for f in produced]} and computed {computed}")


def _import(module: str) -> None:
    """Import rule module ``module`` with the cyclic garbage collector paused: what it builds (rule
    metadata, examples) lives as long as the process, so a collection would find nothing to free.
    From its bytecode cache when that is current (``_cached_code``), else through the import system."""
    import gc

    name = f"qlint.rules.{module}"
    if name in sys.modules:
        return
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        code = _cached_code(_RULES_DIR, module)
        if code is None:
            __import__(name)  # importlib.import_module without importing importlib
        else:
            _exec_module(name, module, code)
    finally:
        if paused:
            gc.enable()


_RULES_DIR = os.path.dirname(__file__)


def _cached_code(directory: str, module: str) -> Any:
    """The code of ``directory/module.py`` from its bytecode cache, or None when the cache is missing, is
    not the plain timestamp kind or does not match the source's modification time and size: the checks
    importlib's source loader makes before it uses a cache (it is what reads a rule module otherwise).
    Read directly, a module skips the finders and loaders (~0.2 M instructions of ~1 M a rule module)."""
    import _frozen_importlib_external as external  # the import system's own (loaded at start)

    tag = sys.implementation.cache_tag
    if tag is None or sys.pycache_prefix is not None:
        return None
    source = os.path.join(directory, module + ".py")
    try:
        stat = os.stat(source)
        with open(os.path.join(directory, "__pycache__", f"{module}.{tag}.pyc"), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if (len(data) < 16 or data[:4] != external.MAGIC_NUMBER or data[4:8] != b"\0\0\0\0"  # flags 0: timestamp-based
            or int.from_bytes(data[8:12], "little") != int(stat.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != stat.st_size & 0xFFFFFFFF):
        return None
    import marshal

    try:
        return marshal.loads(memoryview(data)[16:])
    except (ValueError, EOFError, TypeError):
        return None


def _exec_module(name: str, module: str, code: Any) -> None:
    """Run rule module ``name``'s code as the import system would: a module with the spec, loader, file and
    cache attributes a source import gives, in ``sys.modules`` while it runs (and removed if it fails),
    then an attribute of ``qlint.rules``."""
    import _frozen_importlib as bootstrap
    import _frozen_importlib_external as external

    source = os.path.join(_RULES_DIR, module + ".py")
    loader = external.SourceFileLoader(name, source)
    spec = bootstrap.ModuleSpec(name, loader, origin=source)
    spec.has_location = True
    spec.cached = os.path.join(_RULES_DIR, "__pycache__", f"{module}.{sys.implementation.cache_tag}.pyc")
    made = type(sys)(name)
    made.__file__, made.__cached__, made.__loader__, made.__spec__ = source, spec.cached, loader, spec  # type: ignore[attr-defined]
    made.__package__ = "qlint.rules"
    sys.modules[name] = made
    try:
        exec(code, made.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    import qlint.rules as package

    setattr(package, module, sys.modules[name])


def _release(scope: Scope) -> str | None:
    """The vllm-ascend release a finding is checked at (for citations at that release), or None."""
    value = getattr(scope.known("version"), "value", None)
    return value if isinstance(value, str) else None


@lru_cache(maxsize=1)
def default_graph() -> RuleGraph:
    """The graph of every fact and rule qlint has: from the rule index, each rule module imported when
    a rule of it is about to run or a fact of it to be computed. ``QLINT_RULES=all``: every rule module
    imported first and every rule run when its required facts are known (triggers not evaluated)."""
    if os.environ.get("QLINT_RULES") == "all":
        from qlint.rules import registry  # noqa: F401  (registers facts and rules)

        return RuleGraph(FACTS, RULES)
    from qlint.rules.index import load_index

    return RuleGraph.from_index(load_index())


def serve_scopes(scope: Scope) -> list[tuple[LaunchPlan, Scope]]:
    """Per-serve-command scopes of every script in a deployment scope (facts are shared)."""
    cached = scope.values.get("__serve_scopes__")
    if cached is not None:
        return cached
    out = []
    for plan in scope.deployment:
        script = Scope(plan=plan, kb=scope.kb, settings=scope.settings)
        for command in plan.serve_commands():
            out.append((plan, Scope(plan=plan, kb=scope.kb, settings=scope.settings, serve=command, parent=script)))
    scope.values["__serve_scopes__"] = out
    return out
