"""Lint one script: bytes -> SourceText -> ParsedScript -> LaunchPlan -> findings.

This is the library entry point the CLI, the tests and qdoc use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qlint.knowledge.base import KnowledgeBase, load
from qlint.linter.planner import build_plan
from qlint.linter.shell import ShellSyntaxError, parse_script
from qlint.linter.source import InputError, SourceText
from qlint.rules.base import SEVERITY_RANK, Finding
from qlint.rules.graph import Settings, default_graph
from qlint.rules.plan import LaunchPlan


@dataclass
class LintResult:
    """Findings of one file, or the input error that stopped it (exit code 2)."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    error: InputError | None = None
    source: SourceText | None = None
    plan: LaunchPlan | None = None
    assumed_version: str | None = None


def lint_bytes(
    path: str,
    data: bytes,
    settings: Settings | None = None,
    kb: KnowledgeBase | None = None,
    bindings: dict[str, str] | None = None,
) -> LintResult:
    """Lint script bytes. Never raises for bad input: the result carries ``error``.

    ``bindings`` gives values to positional parameters (``{"1": "0,1"}``).
    Findings are sorted by line, column and rule id.
    """
    kb = kb or load()
    settings = settings or Settings()
    try:
        source = SourceText.from_bytes(path, data)
        parsed = parse_script(source, bindings)
    except InputError as error:
        return LintResult(path=path, error=error)
    except ShellSyntaxError as error:
        return LintResult(
            path=path,
            error=InputError(error.message, error.span.line, error.span.column),
        )
    except RecursionError:
        return LintResult(path=path, error=InputError("script nests too deeply to read"))
    plan = build_plan(kb, parsed)
    findings = default_graph().evaluate(plan, kb, settings)
    for finding in findings:
        if finding.path is None:
            finding.path = path
    findings.sort(key=lambda f: (f.path != path, f.span.line, f.span.column, f.rule.id))
    result = LintResult(path=path, findings=findings, source=source, plan=plan)
    if not settings.version:
        result.assumed_version = _assumed_version(plan, kb)
    return result


def lint_text(path: str, text: str, **kwargs) -> LintResult:
    """Lint a script given as text (UTF-8)."""
    return lint_bytes(path, text.encode("utf-8"), **kwargs)


def _assumed_version(plan: LaunchPlan, kb: KnowledgeBase) -> str | None:
    if plan.image_tags or any("vllm-ascend" in d.settings for d in plan.directives):
        return None
    return kb.latest_stable.tag


def at_or_above(findings: list[Finding], level: str) -> list[Finding]:
    """Findings whose severity is ``level`` or more severe."""
    threshold = SEVERITY_RANK[level]
    return [f for f in findings if SEVERITY_RANK[f.level] >= threshold]
