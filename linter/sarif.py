"""SARIF 2.1.0 output (code scanning): rule metadata, results, fixes, suppressions.

One run; ``tool.driver.rules`` lists every rule of the catalog so
``ruleIndex`` is stable. Columns are Unicode code points, end exclusive, as
qlint counts them (``run.columnKind``). Suppressed findings are included with
``suppressions: [{"kind": "inSource", "justification": reason}]``, as the
format expects; input errors become ``invocations[0].toolExecutionNotifications``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePath
from urllib.parse import quote

from qlint import __version__
from qlint.linter.catalog import all_rules, rule_url
from qlint.linter.lint import LintResult
from qlint.knowledge.text import at_release
from qlint.rules.base import Finding, RuleMeta
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from qlint.knowledge.base import KnowledgeBase

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


@dataclass
class Notice:
    """An input error to report as a tool execution notification (path, 1-based position)."""

    path: str
    line: int
    column: int
    message: str


def artifact_uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative (``/`` separators), absolute become ``file:``."""
    pure = PurePath(path)
    if pure.is_absolute():
        return "file://" + quote(pure.as_posix())
    return quote(pure.as_posix())


def _region(span: Span) -> dict:
    return {"startLine": span.line, "startColumn": span.column,
            "endLine": span.end_line, "endColumn": span.end_column}


def _location(path: str, span: Span) -> dict:
    return {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(path)}, "region": _region(span)}}


def rule_descriptor(meta: RuleMeta) -> dict:
    """``reportingDescriptor`` of one rule."""
    return {
        "id": meta.id,
        "name": meta.name,
        "shortDescription": {"text": meta.title.en},
        "fullDescription": {"text": meta.why.en},
        "helpUri": rule_url(meta.id),
        "help": {"text": f"{meta.title.en}. {meta.why.en} See {rule_url(meta.id)}"},
        "defaultConfiguration": {"level": LEVELS[meta.severity]},
        "properties": {"fix": meta.fix, "sources": at_release(meta.sources)},
    }


def _result(finding: Finding, index: dict[str, int], reason: str | None, suppressed: bool, lang: str = "en",
            sources: list[str] | None = None) -> dict:
    path = finding.path or ""
    result: dict[str, object] = {
        "ruleId": finding.rule.id,
        "ruleIndex": index[finding.rule.id],
        "level": LEVELS[finding.level],
        "message": {"text": finding.text(lang)},
        "locations": [_location(path, finding.span)],
    }
    properties: dict[str, object] = {}
    if sources is not None:
        properties["sources"] = sources
    if finding.fix is not None and not finding.fix.applicable:
        # advice --fix cannot apply: a property, never a SARIF fix (code scanning offers fixes to apply)
        properties["advice"] = finding.fix.describe(lang)
    if properties:
        result["properties"] = properties
    if finding.fix is not None and finding.fix.edits:
        result["fixes"] = [{
            "description": {"text": finding.fix.describe(lang)
                            + (" (unsafe: changes behaviour)" if finding.fix.safety == "unsafe" else "")},
            "artifactChanges": [{
                "artifactLocation": {"uri": artifact_uri(path)},
                "replacements": [{"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.text}}
                                 for edit in finding.fix.edits],
            }],
        }]
    if suppressed:
        entry = {"kind": "inSource"}
        if reason:
            entry["justification"] = reason
        result["suppressions"] = [entry]
    return result


def render_sarif(results: list[LintResult], notices: Sequence[Notice] = (), lang: str = "en") -> str:
    """The SARIF log of a run as JSON text."""
    rules = list(all_rules())
    index = {meta.id: position for position, meta in enumerate(rules)}
    out = []
    kb: KnowledgeBase | None = None
    for lint_result in results:
        if kb is None and (lint_result.findings or lint_result.suppressed):
            from qlint.knowledge.base import load
            from qlint.linter.reporters import finding_sources

            kb = load()
        if kb is None:  # nothing found in this file
            continue
        out += [_result(finding, index, None, False, lang, finding_sources(finding, kb))
                for finding in lint_result.findings]
        out += [_result(s.finding, index, s.reason, True, lang, finding_sources(s.finding, kb))
                for s in lint_result.suppressed]
    notifications = [
        {"level": "error", "message": {"text": notice.message},
         "locations": [_location(notice.path, Span(notice.line, notice.column, notice.line, notice.column))]}
        for notice in notices
    ]
    invocation: dict[str, object] = {"executionSuccessful": not notices}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "qlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": "https://qlint.readthedocs.io/",
                "rules": [rule_descriptor(meta) for meta in rules],
            }},
            "columnKind": "unicodeCodePoints",
            "invocations": [invocation],
            "results": out,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)
