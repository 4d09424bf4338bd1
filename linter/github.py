"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding.

``::error file=run.sh,line=2,col=61,endLine=2,endColumn=62,title=QL206 tp-divides-heads::message``.
Values are escaped as the Actions toolkit does (``%``, CR, LF; plus ``:`` and
``,`` inside properties), so a message cannot break the command.
"""

from __future__ import annotations

from qlint.linter.lint import LintResult
from qlint.rules.base import Finding

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, lang: str = "en") -> str:
    """The workflow command of one finding."""
    span = finding.span
    properties = {
        "file": finding.path or "",
        "line": span.line,
        "col": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
        "title": f"{finding.rule.id} {finding.rule.name}",
    }
    rendered = ",".join(f"{key}={_property(str(value))}" for key, value in properties.items())
    return f"::{COMMANDS[finding.level]} {rendered}::{_data(finding.text(lang))}"


def render_github(results: list[LintResult], lang: str = "en") -> str:
    """All findings (not the suppressed ones) as workflow commands, one per line."""
    return "\n".join(annotation(finding, lang) for result in results for finding in result.findings)
