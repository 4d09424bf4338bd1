"""Lint one script: bytes -> SourceText -> ParsedScript -> LaunchPlan -> findings.

This is the library entry point the CLI, the tests and qdoc use.
"""

from __future__ import annotations

import gc

from qlint.knowledge.base import KnowledgeBase, load, release_tag
from qlint.knowledge.images import parse_image
from qlint.knowledge.versions import InvalidVersion
from qlint.linter.planner import build_plan
from qlint.linter.shell import ShellSyntaxError, parse_script
from qlint.linter.source import InputError, SourceText, kind_of
from qlint.knowledge.text import Text
from qlint.record import field, record, replace
from qlint.rules.base import SEVERITY_RANK, Finding, Fix
from qlint.rules.facts import stated_release
from qlint.rules.graph import Settings, default_graph
from qlint.rules.plan import LaunchPlan, Span

TYPE_CHECKING = False
if TYPE_CHECKING:  # suppressions are imported for a file with a '# qlint:' comment only
    from qlint.linter.suppressions import Suppressed, Suppression

_GC_PAUSE_BYTES = 256 * 1024
"""Scripts above this size are linted with the cyclic garbage collector paused."""


@record
class LintResult:
    """Findings of one file, or the input error that stopped it (exit code 2)."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    error: InputError | None = None
    source: SourceText | None = None
    plan: LaunchPlan | None = None
    assumed_version: str | None = None
    release_note: Text | None = None  # the stated release is not one qlint knows (checked as the nearest)
    suppressed: list[Suppressed] = field(default_factory=list)
    raw: list[Finding] = field(default_factory=list)  # the rules' findings before the policy
    suppressions: list[Suppression] = field(default_factory=list)  # this file's '# qlint: disable' comments
    opaque: list[Span] = field(default_factory=list)  # regions read through a mapping that is not 1:1: no edits
    found: str = ""  # what a file without an engine command holds instead (for the note)
    hardware_unknown: bool = False  # it has an engine command but no hardware from anywhere

    def __init__(self, path: str, findings: list[Finding] | None = None, error: InputError | None = None,
                 source: SourceText | None = None, plan: LaunchPlan | None = None, assumed_version: str | None = None,
                 release_note: Text | None = None, suppressed: list[Suppressed] | None = None,
                 raw: list[Finding] | None = None, suppressions: list[Suppression] | None = None,
                 opaque: list[Span] | None = None, found: str = "", hardware_unknown: bool = False) -> None:
        # (written out: the generic record __init__ costs a file ~30 K instructions with these keywords)
        self.path = path
        self.findings = [] if findings is None else findings
        self.error = error
        self.source = source
        self.plan = plan
        self.assumed_version = assumed_version
        self.release_note = release_note
        self.suppressed = [] if suppressed is None else suppressed
        self.raw = [] if raw is None else raw
        self.suppressions = [] if suppressions is None else suppressions
        self.opaque = [] if opaque is None else opaque
        self.found = found
        self.hardware_unknown = hardware_unknown


@record
class Policy:
    """What the configuration decides about the rules and their findings.

    ``enabled``: ids of the rules to run and report (None: all; the others do not run). ``severity``: per-rule
    severity overrides by id. ``inline_suppressions``: honour ``# qlint: disable``.
    ``hardware``/``version``: defaults used only when the script states none
    (no ``# qlint:`` directive, no vllm-ascend image); ``Settings`` still wins.
    """

    enabled: frozenset[str] | None = None
    severity: dict[str, str] = field(default_factory=dict)
    inline_suppressions: bool = True
    hardware: str | None = None
    version: str | None = None

    def is_enabled(self, rule_id: str) -> bool:
        return self.enabled is None or rule_id in self.enabled


def lint_bytes(
    path: str,
    data: bytes,
    settings: Settings | None = None,
    kb: KnowledgeBase | None = None,
    bindings: dict[str, str] | None = None,
    policy: Policy | None = None,
    extra: list[Finding] | None = None,
    kind: str | None = None,
) -> LintResult:
    """Lint script bytes. Never raises for bad input: the result carries ``error``.

    ``kind`` says what the bytes are: ``shell``, ``markdown`` or ``yaml`` (None: from
    the file name: ``.md`` guides and ``.yaml`` manifests, compose files and e2e
    configs are read for the launches they hold, anything else as a shell script).

    ``bindings`` gives values to positional parameters (``{"1": "0,1"}``).
    ``policy`` selects rules, overrides severities and applies suppressions.
    ``extra`` are findings about this file from outside it (deployment rules);
    they go through the same policy. Findings are sorted by line, column and rule id.
    """
    if len(data) > _GC_PAUSE_BYTES and gc.isenabled():
        # a big script makes hundreds of thousands of long-lived objects, and the cyclic
        # collector would rescan them again and again (twice the time); refcounting frees them
        gc.disable()
        try:
            return lint_bytes(path, data, settings, kb, bindings, policy, extra, kind)
        finally:
            gc.enable()
    kb = kb or load()
    settings = settings or Settings()
    policy = policy or Policy()
    try:
        source = SourceText.from_bytes(path, data)
        document = None
        if (kind or kind_of(source.path, source.data)) in ("markdown", "yaml"):
            from qlint.linter.documents import read_document  # Markdown and YAML only

            document = read_document(source, kind)
        if document is None:
            parsed = parse_script(source, bindings)
        elif document.text is not None:
            parsed = parse_script(source, bindings, text=document.text)
        else:
            from qlint.linter.documents import parse_launches

            parsed = parse_launches(source, document.launches, bindings)
        if document is not None:
            parsed.comments = sorted(parsed.comments + document.comments, key=lambda c: (c.span.line, c.span.column))
            parsed.unread = document.unread + parsed.unread
    except InputError as error:
        return LintResult(path=path, error=error)
    except ShellSyntaxError as error:
        return LintResult(
            path=path,
            error=InputError(error.message, error.span.line, error.span.column, error.zh),
        )
    except RecursionError:
        return LintResult(path=path, error=InputError("script nests too deeply to read", zh="脚本嵌套过深，无法读取"))
    try:
        plan = build_plan(kb, parsed)
        plan.kind = document.kind if document is not None else "shell"
        bad = _bad_directive(plan, source, kb)
        if bad is not None:
            return LintResult(path=path, error=bad)
        settings = _with_defaults(settings, plan, policy)
        raw = default_graph().evaluate(plan, kb, settings, policy.enabled)
    except RecursionError:  # e.g. a JSON value nested thousands deep
        return LintResult(path=path, error=InputError("script nests too deeply to read", zh="脚本嵌套过深，无法读取"))
    suppressions: list[Suppression] = []
    if policy.inline_suppressions and any("qlint:" in comment.text for comment in parsed.comments):
        from qlint.linter.suppressions import parse_suppressions  # (a suppression comment holds "qlint:")

        suppressions = parse_suppressions(parsed)
    result = LintResult(path=path, source=source, plan=plan, raw=raw, suppressions=suppressions,
                        opaque=parsed.opaque, found=_found(plan, document, source.data))
    if not settings.version:
        result.assumed_version = _assumed_version(plan, kb)
    result.hardware_unknown = bool(plan.serve_commands()) and not _hardware_stated(settings, plan)
    result.release_note = _release_note(plan, settings, kb)
    return apply_policy(result, policy, extra)


def _hardware_stated(settings: Settings, plan: LaunchPlan) -> bool:
    if settings.hardware:
        return True
    if any("hardware" in directive.settings for directive in plan.directives):
        return True
    return any(parse_image(value.text or "") for value in plan.image_tags)


def apply_policy(result: LintResult, policy: Policy | None = None, extra: list[Finding] | None = None) -> LintResult:
    """Select, suppress, re-level and sort the findings of an analysed file; updates and returns ``result``.

    ``extra`` are findings about this file from outside it (deployment rules): they join
    the file's own findings (``result.raw``) under the same policy. Calling it again with
    other ``extra`` findings does not analyse the file again.
    """
    policy = policy or Policy()
    path = result.path
    findings = result.raw + list(extra or [])
    for finding in findings:
        if finding.path is None:
            finding.path = path
    findings = _without_repeats(findings)
    if result.opaque:
        _drop_blind_edits(findings, result.opaque, path)
    findings = [f for f in findings if policy.is_enabled(f.rule.id)]
    suppressions = result.suppressions
    for suppression in suppressions:  # a second application starts afresh
        for code in suppression.codes:
            code.used = False
    suppressed: list[Suppressed] = []
    if suppressions:
        findings, suppressed = _suppress(findings, result, policy)
    for finding in findings + [s.finding for s in suppressed]:
        if finding.rule.id in policy.severity:
            finding.severity = policy.severity[finding.rule.id]  # type: ignore[assignment]
    findings.sort(key=lambda f: (f.path != path, f.span.line, f.span.column, f.rule.id))
    result.findings = findings
    result.suppressed = suppressed
    return result


def _suppress(findings: list[Finding], result: LintResult, policy: Policy) -> tuple[list[Finding], list[Suppressed]]:
    """The findings ``result.suppressions`` keep and those they suppress, with QL901 for each code
    that suppressed nothing."""
    from qlint.linter.suppressions import UNUSED_SUPPRESSION, apply_suppressions, unused_findings

    path, suppressions = result.path, result.suppressions
    outcome = apply_suppressions(findings, suppressions, path)
    if result.source is not None and policy.is_enabled(UNUSED_SUPPRESSION.id):
        unused = apply_suppressions(unused_findings(suppressions, result.source, path, policy.is_enabled),
                                    suppressions, path)
        outcome.kept += unused.kept
        outcome.suppressed += unused.suppressed
    return outcome.kept, outcome.suppressed


RAY_HEAD = "ray start --head (a Ray head node)"
RAY_WORKER = "ray start --address (a Ray worker node: the engine runs on the head)"


def _found(plan: LaunchPlan, document, data: bytes) -> str:
    """What the file runs when it runs no engine (``""`` when it has a serve command)."""
    if plan.serve_commands():
        return ""
    programs: list[str] = []
    for command in plan.commands:
        words = [value.text.rsplit("/", 1)[-1] for value in command.argv[:2] if value.text]
        name = words[0] if words else ""
        if name.startswith("python") and len(words) > 1:
            name = words[1]  # python load_balance_proxy_server_example.py, launch_online_dp.py
        elif name == "vllm" and len(words) > 1:
            name = f"vllm {words[1]}"  # vllm bench, vllm chat...
        if command.kind == "docker":
            name = "a container with no engine command in it"
        elif command.kind == "ray-start":
            name = RAY_HEAD if getattr(command, "head", False) else RAY_WORKER
        if name and name not in programs:
            programs.append(name)
    if programs:
        shown = ", ".join(programs[:6]) + (", ..." if len(programs) > 6 else "")
        return f"{document.found + '; ' if document is not None and document.found else ''}runs {shown}"
    if document is not None and document.found:
        return document.found
    return "it runs no command" if data.strip() else "the file is empty"


def _without_repeats(findings: list[Finding]) -> list[Finding]:
    """One finding per rule, place and message: a loop body or a Markdown guide can run the
    same command twice, and the second reading says nothing new."""
    seen: set[tuple] = set()
    out = []
    for finding in findings:
        key = (finding.rule.id, finding.path, finding.span, finding.message)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def _overlaps(a: Span, b: Span) -> bool:
    return (a.line, a.column) < (b.end_line, b.end_column) and (b.line, b.column) < (a.end_line, a.end_column) \
        or a == b


def _drop_blind_edits(findings: list[Finding], opaque: list[Span], path: str) -> None:
    """Text read through a mapping that is not 1:1 (a sourced file reported at its ``source``
    line, an escaped command string) cannot be edited in place: keep the advice, drop the edits."""
    for finding in findings:
        fix = finding.fix
        if fix is None or not fix.edits or finding.path != path:
            continue
        if any(_overlaps(edit.span, region) for edit in fix.edits for region in opaque):
            finding.fix = Fix(fix.description, [], fix.safety, fix.description_zh)


def lint_text(path: str, text: str, **kwargs) -> LintResult:
    """Lint a script given as text (UTF-8)."""
    return lint_bytes(path, text.encode("utf-8"), **kwargs)


def _with_defaults(settings: Settings, plan: LaunchPlan, policy: Policy) -> Settings:
    """Fill hardware/version from the configuration when neither options nor script state them."""
    imaged = any(parse_image(value.text or "") for value in plan.image_tags)
    stated = {key for directive in plan.directives for key in directive.settings}
    if policy.hardware and not settings.hardware and not imaged and "hardware" not in stated:
        settings = replace(settings, hardware=policy.hardware)
    if policy.version and not settings.version and not imaged and "vllm-ascend" not in stated:
        settings = replace(settings, version=policy.version)
    return settings


DIRECTIVE_KEYS = ("hardware", "vllm-ascend", "model")
"""Keys a ``# qlint:`` directive may set (``disable=`` / ``disable-file=`` are suppressions)."""


def _bad_directive(plan: LaunchPlan, source: SourceText, kb: KnowledgeBase) -> InputError | None:
    """A ``# qlint:`` directive with a key qlint does not know, or a ``hardware=`` /
    ``vllm-ascend=`` / ``model=`` value it cannot use."""
    hardware_ids = kb.hardware_ids
    for directive in plan.directives:
        line = directive.span.line
        text = source.line_text(line)
        for key in directive.settings:
            if key in DIRECTIVE_KEYS:
                continue
            column = text.find(key, directive.span.column - 1) + 1 if key else directive.span.column
            from difflib import get_close_matches  # imported when a key is wrong

            close = get_close_matches(key, DIRECTIVE_KEYS + ("disable", "disable-file"), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            hint_zh = f"；是否想写 '{close[0]}'？" if close else ""
            known = f"{', '.join(DIRECTIVE_KEYS)}, disable, disable-file"
            return InputError(f"unknown key '{key}' in a '# qlint:' directive (known: {known}){hint}",
                              line, max(column, 1),
                              zh=f"'# qlint:' 指令中的键 '{key}' 无法识别（可用的键：{known}）{hint_zh}")
        hardware = directive.settings.get("hardware")
        if hardware is not None and hardware.lower() not in hardware_ids:
            column = text.find("hardware=", directive.span.column - 1) + len("hardware=") + 1
            return InputError(f"'# qlint: hardware={hardware}' is not one of {', '.join(hardware_ids)}", line, column,
                              zh=f"'# qlint: hardware={hardware}' 不是 {', '.join(hardware_ids)} 之一")
        model = directive.settings.get("model")
        if model is not None and kb.model_by_name(model) is None:
            column = text.find("model=", directive.span.column - 1) + len("model=") + 1
            close_ids = ', '.join(_close_models(kb, model))
            return InputError(f"'# qlint: model={model}' names no model qlint knows; use a model id such as "
                              f"{close_ids}", line, column,
                              zh=f"'# qlint: model={model}' 不是 qlint 认识的模型；请写模型 ID，例如 {close_ids}")
        version = directive.settings.get("vllm-ascend")
        if version is not None:
            try:
                release_tag(version)
            except InvalidVersion:
                column = text.find("vllm-ascend=", directive.span.column - 1) + len("vllm-ascend=") + 1
                return InputError(f"'# qlint: vllm-ascend={version}' is not a release tag like v0.23.0 or main",
                                  line, column,
                                  zh=f"'# qlint: vllm-ascend={version}' 不是版本标签（应形如 v0.23.0 或 main）")
    return None


def _close_models(kb: KnowledgeBase, name: str) -> list[str]:
    """Up to three model ids spelled like ``name`` (else the first in-scope ones)."""
    import difflib

    ids = [model.id for model in kb.models]
    close = difflib.get_close_matches(name, ids, n=3, cutoff=0.5)
    return close or [model.id for model in kb.models if model.in_scope][:3]


def _release_note(plan: LaunchPlan, settings: Settings, kb: KnowledgeBase) -> Text | None:
    """What the linter says when the stated release is not one it knows (None when it is)."""
    stated = stated_release(plan, settings)
    if stated is None:
        return None
    try:
        return kb.resolve_release(stated[0])[1]
    except InvalidVersion:
        return None


def _assumed_version(plan: LaunchPlan, kb: KnowledgeBase) -> str | None:
    if plan.image_tags or any("vllm-ascend" in d.settings for d in plan.directives):
        return None
    return kb.latest_stable.tag


def at_or_above(findings: list[Finding], level: str) -> list[Finding]:
    """Findings whose severity is ``level`` or more severe."""
    threshold = SEVERITY_RANK[level]
    return [f for f in findings if SEVERITY_RANK[f.level] >= threshold]
