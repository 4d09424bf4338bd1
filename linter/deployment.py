"""Lint several scripts as one deployment, and evaluate DP templates under their launcher.

``launch_online_dp.py`` (vllm-ascend ``examples/external_online_dp``) starts one
``run_dp_template.sh`` per local DP rank with ``$1..$7`` = devices, port, DP
size, DP rank, DP address, RPC port, TP size (``launch_online_dp.py`` L54-58 at v0.23.0): rank ``i`` gets devices ``i*tp .. (i+1)*tp-1``, port ``start + i`` and
rank ``rank_start + i``. With the launcher known, a template is linted once per
local rank with those bindings; without it, ``$1..$7`` stay symbolic and the
rules that need them are skipped.
"""

from __future__ import annotations

from qlint.knowledge.base import KnowledgeBase, load
from qlint.linter.lint import LintResult, Policy, apply_policy, lint_bytes
from qlint.linter.catalog import UNUSED_SUPPRESSION_ID
from qlint.record import SlottedRecord, fields, record, replace
from qlint.rules.base import Finding
from qlint.linter.planner import Planner
from qlint.linter.shell import ShellSyntaxError, parse_script
from qlint.linter.source import InputError, SourceText
from qlint.rules.graph import Scope, Settings, default_graph
from qlint.rules.plan import LauncherCommand, LaunchPlan, RayStartCommand, ServeCommand
from qlint.rules.kit.topology import KEY as TOPOLOGY_KEY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.linter.topology import Topology

POSITIONALS = [str(i) for i in range(1, 10)]
MAX_LOCAL_RANKS = 64
"""The most local DP ranks (and TP per rank) a launcher is expanded to: more NPUs than any node has."""


@record(frozen=True)
class Launcher:
    """The arguments of one ``python launch_online_dp.py`` call."""

    dp_size: int
    tp_size: int = 1
    dp_size_local: int | None = None
    dp_rank_start: int = 0
    dp_address: str | None = None
    dp_rpc_port: str = "12345"
    vllm_start_port: int = 9000

    def rank_bindings(self) -> list[dict[str, str]]:
        """Positional bindings for each local rank, as the launcher passes them.

        At most MAX_LOCAL_RANKS ranks are bound (no node holds more NPUs; a launcher asking for
        10^8 is reported by the NPU-demand check, not expanded), and the device list ($1) is left
        unbound (unknown) when TP alone exceeds the largest node.
        """
        local = min(self.dp_size_local or self.dp_size, MAX_LOCAL_RANKS)
        out = []
        for index in range(max(local, 0)):
            binding = {}
            if 0 < self.tp_size <= MAX_LOCAL_RANKS:
                binding["1"] = ",".join(str(d) for d in range(index * self.tp_size, (index + 1) * self.tp_size))
            out.append(binding | {
                "2": str(self.vllm_start_port + index),
                "3": str(self.dp_size),
                "4": str(self.dp_rank_start + index),
                "5": self.dp_address or "",
                "6": self.dp_rpc_port,
                "7": str(self.tp_size),
            })
        return out


def launcher_from_command(command: LauncherCommand) -> Launcher | None:
    """A Launcher from a parsed ``launch_online_dp.py`` command (None when --dp-size is unknown)."""

    def get(name):
        value = command.options.get(name)
        return None if value is None else value.text

    def number(name, default):
        text = get(name)
        if text is None:
            return default
        try:
            return int(text)
        except ValueError:
            return None

    dp_size = number("--dp-size", None)
    if dp_size is None:
        return None
    return Launcher(
        dp_size=dp_size,
        tp_size=number("--tp-size", 1) or 1,
        dp_size_local=number("--dp-size-local", None),
        dp_rank_start=number("--dp-rank-start", 0) or 0,
        dp_address=get("--dp-address"),
        dp_rpc_port=get("--dp-rpc-port") or "12345",
        vllm_start_port=number("--vllm-start-port", 9000) or 9000,
    )


def parse_launcher(text: str, kb: KnowledgeBase | None = None) -> Launcher:
    """Parse a ``--launcher 'python launch_online_dp.py ...'`` string (never executed).

    Raises ValueError when it is not a launch_online_dp.py command with --dp-size.
    """
    kb = kb or load()
    try:
        parsed = parse_script(SourceText.from_bytes("<launcher>", text.encode("utf-8")))
    except (ShellSyntaxError, InputError) as error:
        raise ValueError(f"cannot read the launcher command: {error}") from None
    planner = Planner(kb)
    for simple in parsed.commands:
        command = planner.command(parsed.source, simple)
        if isinstance(command, LauncherCommand):
            launcher = launcher_from_command(command)
            if launcher is not None:
                return launcher
    raise ValueError("the launcher must be 'python launch_online_dp.py --dp-size N ...'")


def is_template(plan: LaunchPlan) -> bool:
    """True when a serve command takes values from positional parameters ($1..$9)."""
    if isinstance(plan, PlanView):
        return plan.template
    for serve in plan.serve_commands():
        for option in serve.all_options:
            if option.value is not None and any(s.lstrip("${").rstrip("}") in POSITIONALS for s in option.value.symbols):
                return True
        for setting in serve.env.values():
            if setting.value is not None and any(s.lstrip("${").rstrip("}") in POSITIONALS for s in setting.value.symbols):
                return True
    return False


# -- what the deployment pass keeps of a plan -------------------------------------------------------

class NotKept(Exception):
    """The deployment pass read what a plan's view does not keep (``deployment_view``); the pass is then
    run on the files' whole plans."""


VIEW_OPTIONS = frozenset({
    "--port", "--host", "--served-model-name", "--kv-transfer-config", "--tensor-parallel-size",
    "--pipeline-parallel-size", "--enable-expert-parallel", "--data-parallel-size", "--data-parallel-size-local",
    "--data-parallel-start-rank", "--data-parallel-rank", "--data-parallel-address", "--data-parallel-rpc-port",
    "--headless", "--api-server-count", "--distributed-executor-backend",
})
"""The serve options the deployment pass reads: the rules' triggers, the topology (``topology_read``), the
deployment rules, the facts they read (tp, dp, kv_transfer, kv_role) and the edits of their fixes."""
VIEW_ENV = frozenset({"HCCL_IF_IP", "ASCEND_RT_VISIBLE_DEVICES", "VLLM_HOST_IP"})
"""The environment variables of a serve command the deployment pass reads."""


class Kept:
    """What a view keeps of a command's options or environment: the entries named in ``names``, looked
    up by name. Looking up another name, or going over the entries, raises NotKept."""

    __slots__ = ("held", "names")

    def __init__(self, held: dict, names: frozenset[str]) -> None:
        self.held = held
        self.names = names

    @classmethod
    def of(cls, full: dict, names: frozenset[str]) -> Kept:
        return cls({name: value for name, value in full.items() if name in names}, names)

    def get(self, name: str, default=None):
        if name not in self.names:
            raise NotKept(name)
        return self.held.get(name, default)

    def __getitem__(self, name: str):
        if name not in self.names:
            raise NotKept(name)
        return self.held[name]

    def __contains__(self, name: object) -> bool:
        if name not in self.names:
            raise NotKept(name)
        return name in self.held

    def _every(self, *_):
        raise NotKept("every entry")

    __iter__ = __len__ = keys = values = items = _every

    def __reduce__(self):
        return Kept, (self.held, self.names)


class Withheld:
    """A list a view does not keep (a command's words, its options in order): any use raises NotKept."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def _refuse(self, *_):
        raise NotKept(self.what)

    __iter__ = __len__ = __bool__ = __getitem__ = __contains__ = __reversed__ = _refuse

    def __reduce__(self):
        return Withheld, (self.what,)


class PlanView(LaunchPlan, metaclass=SlottedRecord):
    """A plan as the deployment pass keeps it once its file is analysed (``deployment_view``): every
    command, each serve command with only the options and environment variables the pass reads
    (``VIEW_OPTIONS``, ``VIEW_ENV``: ``Kept``; its words and its options in order withheld), and whether
    it is a DP template."""

    template: bool = False


def deployment_view(plan: LaunchPlan) -> LaunchPlan:
    """What the deployment pass reads of ``plan``: a PlanView (about a third of the plan), or the plan
    itself when it starts Ray or names an executor backend (the Ray cluster reader reads every command).
    A rule that reads what the view does not keep raises NotKept, and the pass is run again on whole
    plans (``qlint.linter.cli_check.deploy``), so what is reported never depends on the view."""
    serves = plan.serve_commands()
    if any(isinstance(command, RayStartCommand) for command in plan.commands) \
            or any("--distributed-executor-backend" in serve.options for serve in serves):
        return plan
    commands = [_serve_view(command) if isinstance(command, ServeCommand) else command for command in plan.commands]
    kept = {item.name: getattr(plan, item.name) for item in fields(LaunchPlan)}
    kept["commands"] = commands
    return PlanView(**kept, template=is_template(plan))


def _serve_view(serve: ServeCommand) -> ServeCommand:
    return replace(serve, options=Kept.of(serve.options, VIEW_OPTIONS), env=Kept.of(serve.env, VIEW_ENV),
                   all_options=Withheld("the options in order"), argv=Withheld("the words of the command"))


def _host_ip(plan: LaunchPlan) -> str | None:
    for serve in plan.serve_commands():
        setting = serve.env.get("HCCL_IF_IP")
        if setting is not None and setting.value is not None and setting.value.text:
            return setting.value.text
    return None


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def pair_templates(templates: list[LaunchPlan], launchers: list[tuple[str, Launcher]]) -> dict[int, Launcher]:
    """The launcher each DP template runs under (by ``id`` of the template's plan; a template left out stays
    symbolic).

    One launcher runs every template. Else, in turn: the one launcher in the template's folder
    (``launch_online_dp.py`` runs ``./run_dp_template.sh`` from where it is started, L48-L51 at v0.23.0);
    the one launcher whose ``--dp-address`` is the template's HCCL_IF_IP (the head node of its group: every
    node of an external DP group names the head's address, so several may match; the one starting rank 0
    runs there); and the one launcher left when one template is left (the group's other node).
    """
    if len(launchers) == 1:
        return {id(plan): launchers[0][1] for plan in templates}
    chosen: dict[int, Launcher] = {}
    taken: set[int] = set()

    def take(plan: LaunchPlan, candidates: list[tuple[str, Launcher]]) -> bool:
        free = [(path, found) for path, found in candidates if id(found) not in taken]
        if len(free) > 1:
            free = [(path, found) for path, found in free if found.dp_rank_start == 0]
        if len(free) != 1:
            return False
        chosen[id(plan)] = free[0][1]
        taken.add(id(free[0][1]))
        return True

    left = []
    for plan in templates:
        here = [pair for pair in launchers if _folder(pair[0]) == _folder(plan.path)]
        if 0 < len(here) < len(launchers) and take(plan, here):
            continue
        left.append(plan)
    waiting = []
    for plan in left:
        address = _host_ip(plan)
        if address is None or not take(plan, [pair for pair in launchers if pair[1].dp_address == address]):
            waiting.append(plan)
    free = [pair for pair in launchers if id(pair[1]) not in taken]
    if len(waiting) == 1 and len(free) == 1:
        chosen[id(waiting[0])] = free[0][1]
    return chosen


def _npus(kb: KnowledgeBase, settings: Settings, plans: list[LaunchPlan]) -> int:
    """NPUs per node of the deployment's hardware (0 when no script and no setting names it)."""
    hardware = settings.hardware
    for plan in plans:
        for directive in plan.directives:
            hardware = hardware or directive.settings.get("hardware")
    try:
        return kb.hardware_by_id(hardware).npus_per_node if hardware else 0
    except (KeyError, ValueError):
        return 0


def lint_deployment(
    inputs: list[tuple[str, bytes]],
    settings: Settings | None = None,
    kb: KnowledgeBase | None = None,
    launcher: Launcher | None = None,
    policies: dict[str, Policy] | None = None,
    first: list[LintResult] | None = None,
    topology: list[Topology] | None = None,
) -> list[LintResult]:
    """Lint scripts that run together; returns one LintResult per input, in order.

    Templates are evaluated per local rank when a launcher is given or found
    in the deployment (one launcher, else the one ``pair_templates`` finds: in the
    template's folder, naming its HCCL_IF_IP, or the last one left); a rank's findings are merged (an unused-suppression
    finding survives only if every rank reports it). The deployment's Topology
    (``linter/topology.py``: instances, shares per node, engines, proxies, launchers)
    is then read from every engine, once, and the deployment rules run over it; their
    findings go through each file's ``policies`` entry like the file's own findings.
    ``first`` may carry results the caller already has for the same inputs (saves the
    first pass); a ``topology`` list receives the Topology that was read.
    """
    kb = kb or load()
    settings = settings or Settings()
    policies = policies or {}

    def lint(path, data, bindings=None, extra=None):
        return lint_bytes(path, data, settings=settings, kb=kb, bindings=bindings,
                          policy=policies.get(path), extra=extra)

    results = list(first) if first is not None else [lint(path, data) for path, data in inputs]
    launchers = [("", launcher)] if launcher is not None else [
        (result.plan.path, found)
        for result in results if result.plan is not None
        for command in result.plan.commands if isinstance(command, LauncherCommand)
        for found in [launcher_from_command(command)] if found is not None
    ]
    templates = [result.plan for result in results if result.plan is not None and is_template(result.plan)]
    paired = pair_templates(templates, launchers) if launchers else {}
    engine_plans: list[LaunchPlan] = []
    rank_results: dict[str, list[LintResult]] = {}
    for (path, data), result in zip(inputs, results):
        if result.plan is None:
            continue
        chosen = paired.get(id(result.plan))
        if chosen is None:
            engine_plans.append(result.plan)
            continue
        ranked = rank_results[path] = [lint(path, data, bindings) for bindings in chosen.rank_bindings()]
        engine_plans += [r.plan for r in ranked if r.plan is not None]
        _merge_ranks(result, ranked)

    def build_topology(scope) -> None:
        from qlint.linter.topology_read import read_topology  # (only when a deployment rule will run)

        read = scope.values[TOPOLOGY_KEY] = read_topology(scope, _npus(kb, settings, engine_plans))
        if topology is not None:
            topology.append(read)

    extra: dict[str, list[Finding]] = {}
    enabled = _enabled_anywhere(inputs, policies)
    for finding in default_graph().evaluate_deployment(engine_plans, kb, settings, enabled, prepare=build_topology):
        extra.setdefault(finding.path or "", []).append(finding)
    if topology is not None and not topology and engine_plans:  # no deployment rule ran: read it all the same
        build_topology(Scope(plan=engine_plans[0], kb=kb, settings=settings, deployment=list(engine_plans)))
    for index, (path, _) in enumerate(inputs):
        if path not in extra or results[index].error is not None:
            continue
        # the deployment findings join the file's own under its policy: no second analysis
        if path in rank_results:
            again = apply_policy(rank_results[path][0], policies.get(path), extra[path])
            _merge_ranks(results[index], [again], replace=False)
        else:
            apply_policy(results[index], policies.get(path), extra[path])
    return results


def read_deployment(inputs: list[tuple[str, bytes]], settings: Settings | None = None,
                    kb: KnowledgeBase | None = None) -> Topology:
    """The Topology of scripts that run together, as the deployment pass reads it (empty when none
    holds an engine)."""
    from qlint.linter.topology import Topology

    found: list[Topology] = []
    lint_deployment(inputs, settings, kb, topology=found)
    return found[0] if found else Topology([], 0)


def _enabled_anywhere(inputs: list[tuple[str, bytes]], policies: dict[str, Policy]) -> frozenset[str] | None:
    """The deployment rules worth running: those enabled for at least one input (None: all)."""
    chosen: set[str] = set()
    for path, _ in inputs:
        policy = policies.get(path)
        if policy is None or policy.enabled is None:
            return None
        chosen |= policy.enabled
    return frozenset(chosen)


def _merge_ranks(result: LintResult, ranked: list[LintResult], replace: bool = True) -> None:
    """Union the findings of several evaluations of one file (dedupe by rule, span, message)."""
    merged = [] if replace else list(result.findings)
    seen = {(f.rule.id, f.span, f.message) for f in merged}
    unused_everywhere = None
    for ranked_result in ranked:
        unused = {(f.span, f.message) for f in ranked_result.findings if f.rule.id == UNUSED_SUPPRESSION_ID}
        unused_everywhere = unused if unused_everywhere is None else unused_everywhere & unused
    for ranked_result in ranked:
        for finding in ranked_result.findings:
            key = (finding.rule.id, finding.span, finding.message)
            if key in seen:
                continue
            if finding.rule.id == UNUSED_SUPPRESSION_ID and (finding.span, finding.message) not in (unused_everywhere or set()):
                continue
            seen.add(key)
            merged.append(finding)
    if not replace:
        merged = [f for f in merged if f.rule.id != UNUSED_SUPPRESSION_ID
                  or any((f.span, f.message) == (g.span, g.message) for r in ranked for g in r.findings)]
    merged.sort(key=lambda f: (f.span.line, f.span.column, f.rule.id))
    result.findings = merged
