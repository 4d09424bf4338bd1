"""The rule graph: facts derived from a launch plan and rules that consume them.

Nodes are *facts* (``fact:tp``, ``fact:model``, ...) and *rules*
(``rule:QL201``). Edges say ``derives`` (fact -> fact it feeds) and
``requires`` (fact -> rule that reads it); constraint rules also add a
``conflicts`` / ``divides`` / ``equals`` edge between the facts they relate.
Facts and rules are evaluated in topological order for each ``vllm serve``
command (scope ``serve``) or once per script (scope ``script``).

Callers use the façade (``order``, ``why``, ``affected_by``, ``evaluate``)
and never networkx directly.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Iterable, Literal

from functools import cached_property
from graphlib import CycleError, TopologicalSorter

from qlint.knowledge.base import KnowledgeBase
from qlint.record import record
from qlint.rules.base import FactTrace, Finding, RuleMeta
from qlint.rules.plan import LaunchPlan, ServeCommand, Span


class Unknown(Exception):
    """Raised inside a fact or rule when a fact it needs is not fixed by the script."""


@record(slots=True)
class Known:
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
        object.__setattr__(self, "name", name)  # frozen
        object.__setattr__(self, "scope", scope)
        object.__setattr__(self, "requires", requires)
        object.__setattr__(self, "compute", compute)
        object.__setattr__(self, "doc", doc)


@record(frozen=True)
class RuleDef:
    meta: RuleMeta
    check: Callable[["Scope"], Iterable[Finding]]
    relations: tuple[tuple[str, str, str], ...] = ()  # (kind, fact_a, fact_b)

    def __init__(self, meta: RuleMeta, check: Callable[["Scope"], Iterable[Finding]],
                 relations: tuple[tuple[str, str, str], ...] = ()) -> None:
        object.__setattr__(self, "meta", meta)  # frozen
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "relations", relations)


FACTS: dict[str, FactDef] = {}
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


def check(meta: RuleMeta, relations: Iterable[tuple[str, str, str]] = ()):
    """Register a rule function ``f(scope) -> iterable of Finding`` with its metadata."""

    def register(function: Callable[["Scope"], Iterable[Finding]]):
        if meta.id in RULES:
            raise ValueError(f"rule {meta.id} registered twice")
        holder = RULES.get(_RULE_NAMES.get(meta.name, ""))  # (an index: checking every rule was quadratic)
        if holder is not None and holder.meta.name == meta.name:
            raise ValueError(f"rule name {meta.name} registered twice")
        RULES[meta.id] = RuleDef(meta, function, tuple(relations))
        _RULE_NAMES[meta.name] = meta.id
        return function

    return register


@record
class Settings:
    """What the user told qlint outside the script (CLI options)."""

    hardware: str | None = None
    version: str | None = None
    lang: str = "en"


@record(slots=True)
class Scope:
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
            holder = self.parent if FACTS[name].scope == "script" and self.parent else self
            value = holder.values.get(name, UNKNOWN)
            if value is not UNKNOWN:
                out.append(FactTrace(name, value.value, value.origin))
        return out


class RuleGraph:
    """Façade over the DAG of facts and rules.

    Evaluation order comes from the standard library's ``graphlib`` so that
    linting does not pay for importing networkx; the networkx graph behind
    ``affected_by`` and ``relations`` is built on first use.
    """

    def __init__(self, facts: dict[str, FactDef], rules: dict[str, RuleDef]):
        edges: list[tuple[str, str, str]] = []  # (source, target, label)
        for definition in facts.values():
            for needed in definition.requires:
                if needed not in facts:
                    raise ValueError(f"fact {definition.name} requires unknown fact {needed}")
                edges.append((f"fact:{needed}", f"fact:{definition.name}", "derives"))
        for rule in rules.values():
            node = f"rule:{rule.meta.id}"
            for needed in rule.meta.requires:
                if needed not in facts:
                    raise ValueError(f"rule {rule.meta.id} requires unknown fact {needed}")
                edges.append((f"fact:{needed}", node, "requires"))
            for used in rule.meta.optional:
                if used not in facts:
                    raise ValueError(f"rule {rule.meta.id} uses unknown fact {used}")
                edges.append((f"fact:{used}", node, "uses"))
        nodes = [f"fact:{name}" for name in facts] + [f"rule:{rule_id}" for rule_id in rules]
        predecessors: dict[str, list[str]] = {node: [] for node in nodes}
        for source, target, _ in edges:
            predecessors[target].append(source)
        try:
            self._order = list(TopologicalSorter(predecessors).static_order())
        except CycleError as error:
            raise ValueError(f"rule graph has a cycle: {error.args[1]}") from None
        self._edges = edges
        self._nodes = nodes
        self._predecessors = predecessors
        self._facts = facts
        self._rules = rules
        self._inputs: dict[str, list[str]] = {}
        self._fact_inputs: dict[str, frozenset[str]] = {}
        self._by_selection: dict[frozenset[str], tuple[tuple, ...]] = {}

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
        for rule in self._rules.values():
            for kind, left, right in rule.relations:
                relations.add_edge(left, right, kind=kind, rule=rule.meta.id)
        return relations

    def order(self) -> list[RuleDef]:
        """Rules in topological order (every fact a rule reads comes first)."""
        return list(self._rule_order)

    @cached_property
    def _rule_order(self) -> tuple[RuleDef, ...]:
        return tuple(self._rules[n[5:]] for n in self._order if n.startswith("rule:"))

    @cached_property
    def _steps(self) -> tuple[tuple, ...]:
        """Per rule, what ``_run`` needs, computed once: (rule, scope kind, requires, allowed, check)."""
        return tuple(self._step(rule) for rule in self._rule_order)

    def _step(self, rule: RuleDef) -> tuple:
        meta = rule.meta
        requires = tuple((name, self._facts[name].scope == "script") for name in meta.requires)
        return (rule, meta.scope, requires, meta.requires + meta.optional, rule.check)

    def fact_order(self) -> list[str]:
        return [n[5:] for n in self._order if n.startswith("fact:")]

    def inputs(self, rule_id: str) -> list[str]:
        """Every fact a rule depends on, transitively, in evaluation order."""
        cached = self._inputs.get(rule_id)
        if cached is None:
            seen = self._ancestors(f"rule:{rule_id}")
            cached = self._inputs[rule_id] = [n[5:] for n in self._order if n in seen]
        return cached

    def fact_inputs(self, fact_name: str) -> frozenset[str]:
        """Every fact a fact is derived from, transitively (not including itself)."""
        cached = self._fact_inputs.get(fact_name)
        if cached is None:
            cached = self._fact_inputs[fact_name] = frozenset(n[5:] for n in self._ancestors(f"fact:{fact_name}"))
        return cached

    def _ancestors(self, node: str) -> set[str]:
        """Every node ``node`` depends on, transitively (not including itself)."""
        seen: set[str] = set()
        stack = [node]
        while stack:
            for parent in self._predecessors[stack.pop()]:
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return seen

    def skipped_for_want_of(self, fact_name: str, scope: "Scope") -> list[str]:
        """Ids of the serve-scope rules skipped in ``scope`` because ``fact_name`` is unknown there:
        a fact they require is unknown and is (or derives from) ``fact_name``."""
        skipped = []
        for rule in self._rule_order:
            meta = rule.meta
            if meta.scope != "serve" or fact_name not in self.inputs(meta.id):
                continue
            for needed in meta.requires:
                if needed != fact_name and fact_name not in self.fact_inputs(needed):
                    continue
                holder = scope.parent if FACTS[needed].scope == "script" and scope.parent is not None else scope
                if holder._compute(needed) is None:
                    skipped.append(meta.id)
                    break
        return skipped

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

    def _enabled_steps(self, enabled: frozenset[str] | None) -> tuple[tuple, ...]:
        """The steps of the rules in ``enabled`` (None: every rule), in evaluation order."""
        if enabled is None:
            return self._steps
        cached = self._by_selection.get(enabled)
        if cached is None:
            cached = self._by_selection[enabled] = tuple(s for s in self._steps if s[0].meta.id in enabled)
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
            kind = step[1]
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
        scope before any rule runs (the deployment pass builds the topology there).
        """
        if not plans:
            return []
        findings: list[Finding] = []
        scope = Scope(plan=plans[0], kb=kb, settings=settings, deployment=list(plans))
        if prepare is not None:
            prepare(scope)
        for rule in self.order():
            if rule.meta.scope == "deployment" and (enabled is None or rule.meta.id in enabled):
                findings.extend(self._run(rule, scope))
        return findings

    def _run(self, rule: RuleDef, scope: Scope) -> list[Finding]:
        return self._run_step(self._step(rule), scope)

    def _run_step(self, step: tuple, scope: Scope) -> list[Finding]:
        rule, _, requires, allowed, check = step
        parent = scope.parent
        for needed, script_fact in requires:  # a required fact that is unknown skips the rule
            holder = parent if script_fact and parent is not None else scope
            value = holder.values.get(needed, _MISSING)
            if value is UNKNOWN:
                return []
            if value is _MISSING:
                scope._allowed = allowed
                try:
                    if holder._compute(needed) is None:
                        return []
                finally:
                    scope._allowed = None
        scope._allowed = allowed
        try:
            produced = list(check(scope))
        except Unknown:
            return []
        finally:
            scope._allowed = None
        if produced:
            trace_names = self.inputs(rule.meta.id)
            release = _release(scope)
            for finding in produced:
                if not finding.trace:
                    finding.trace = scope.trace(trace_names)
                if finding.release is None:
                    finding.release = release
        return produced


def _release(scope: Scope) -> str | None:
    """The vllm-ascend release a finding is checked at (for citations at that release), or None."""
    value = getattr(scope.known("version"), "value", None)
    return value if isinstance(value, str) else None


@lru_cache(maxsize=1)
def default_graph() -> RuleGraph:
    """The graph of every registered fact and rule (imports all rule modules)."""
    from qlint.rules import registry  # noqa: F401  (registers facts and rules)

    return RuleGraph(FACTS, RULES)


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
