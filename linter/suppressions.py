"""Inline suppressions: ``# qlint: disable=QL206,name -- reason`` and ``disable-file``.

* On a line of its own, ``disable=`` covers the next simple command or
  assignment after the comment, all of its lines (a backslash-continued
  ``vllm serve`` is one command).
* At the end of a line, ``disable=`` covers that line.
* ``disable-file=`` covers the whole file, wherever it stands.

Codes are rule ids (any case) or rule names, separated by commas; everything
after ``--`` is the reason, kept for SARIF's ``suppressions[].justification``.
A suppression that suppresses nothing is reported by the meta rule QL901
``unused-suppression``, produced here after the rules have run.
"""

from __future__ import annotations

import re

from qlint.knowledge.text import Text
from qlint.linter.catalog import UNUSED_SUPPRESSION_ID
from qlint.linter.shell import Comment, ParsedScript
from qlint.linter.source import SourceText
from qlint.record import field, record
from qlint.rules.base import Edit, Example, Finding, Fix, RuleMeta
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Literal

    from qlint.linter.catalog import RuleEntry

UNUSED_SUPPRESSION = RuleMeta(
    id=UNUSED_SUPPRESSION_ID,
    name="unused-suppression",
    groups=("script",),
    severity="warning",
    scope="script",
    fix="safe",
    title=Text(en="A '# qlint: disable' comment suppresses nothing",
               zh="“# qlint: disable” 注释没有抑制任何问题"),
    why=Text(
        en="A suppression that no longer matches a finding hides the next real problem at that place "
        "and tells readers a rule fires where it does not. It is usually left over after the script "
        "was fixed, or it names a rule that does not exist (a typo).",
        zh="不再匹配任何问题的抑制注释会掩盖该位置今后出现的真实问题，也会让读者误以为规则在此处触发。"
        "它通常是脚本修正后遗留下来的，或者写错了规则编号或名称。",
    ),
    sources=("https://github.com/astral-sh/ruff/blob/cff8b559212741dd31b189afc98ba98d3cef9a43/crates/ruff_linter/src/rules/ruff/rules/unused_noqa.rs#L14-L19",),
    examples=(
        Example(
            bad="# qlint: disable=QL206 -- TP 3 is what we test\n"
            "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend\n",
            hardware="a3",
            version="v0.23.0",
        ),
    ),
)
"""QL901: the linter's own rule for suppressions that suppress nothing."""

# compiled on first use (re's cache): only for a comment holding "qlint:", which the pattern needs
_COMMENT = r"^#\s*qlint:\s*(?P<kind>disable-file|disable)(?![\w-])(?P<rest>.*)$"
_CODE = r"[^\s,]+"  # compiled on first use (re's cache): only with a suppression comment


def _suppression(text: str) -> re.Match[str] | None:
    return re.match(_COMMENT, text) if "qlint:" in text else None


def is_suppression_comment(text: str) -> bool:
    """True for ``# qlint: disable...`` comments (so the planner does not read them as directives)."""
    return _suppression(text) is not None


@record
class Code:
    """One rule code of a suppression as written, where it is, and the rule it names."""

    text: str
    span: Span
    meta: RuleEntry | None  # the rule as the catalogue lists it (linter.catalog)
    used: bool = False


@record
class Suppression:
    """A parsed ``# qlint: disable`` comment.

    ``lines`` is the inclusive range of lines it covers; None for ``disable-file``
    and for an own-line comment with no command after it (it then covers nothing).
    """

    kind: Literal["file", "line", "next"]
    codes: list[Code]
    reason: str | None
    comment: Comment
    lines: tuple[int, int] | None
    trailing: bool
    well_formed: bool = True

    def covers(self, finding: Finding) -> bool:
        """Whether this comment's scope includes the finding's first line."""
        if self.kind == "file":
            return True
        return self.lines is not None and self.lines[0] <= finding.span.line <= self.lines[1]


@record
class Suppressed:
    """A finding that a suppression silenced, and the reason given (None if none)."""

    finding: Finding
    reason: str | None
    comment_span: Span


@record
class Outcome:
    """Findings kept, findings suppressed, and the suppressions read."""

    kept: list[Finding] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)


def parse_suppressions(parsed: ParsedScript) -> list[Suppression]:
    """Read every ``# qlint: disable`` comment of a parsed script, in file order."""
    from qlint.linter.catalog import find_entry

    source = parsed.source
    starts = sorted(
        [(c.span.line, c.span.column, c.span.end_line) for c in parsed.commands]
        + [(a.span.line, a.span.column, a.span.end_line) for a in parsed.assignments]
    )
    found: list[Suppression] = []
    for comment in parsed.comments:
        match = _suppression(comment.text)
        if match is None:
            continue
        rest = match.group("rest")
        offset = match.start("rest")
        well_formed = rest.lstrip().startswith("=")
        reason = None
        codes_text = rest
        if well_formed:
            equals = rest.index("=")
            codes_text = rest[equals + 1 :]
            offset += equals + 1
        if "--" in codes_text:
            codes_text, _, reason_text = codes_text.partition("--")
            reason = reason_text.strip() or None
        codes = []
        if well_formed:
            for token in re.finditer(_CODE, codes_text):
                column = comment.span.column + offset + token.start()
                span = Span(comment.span.line, column, comment.span.line, column + len(token.group()))
                codes.append(Code(token.group(), span, find_entry(token.group())))
        line = comment.span.line
        trailing = source.line_text(line)[: comment.span.column - 1].strip() != ""
        kind: Literal["file", "line", "next"]
        lines: tuple[int, int] | None
        if match.group("kind") == "disable-file":
            kind, lines = "file", None
        elif trailing:
            kind, lines = "line", (line, line)
        else:
            after = [s for s in starts if s[0] > line]
            kind, lines = "next", ((after[0][0], after[0][2]) if after else None)
        found.append(Suppression(kind, codes, reason, comment, lines, trailing, well_formed and bool(codes)))
    return found


def apply_suppressions(findings: list[Finding], suppressions: list[Suppression], path: str) -> Outcome:
    """Split findings into kept and suppressed; mark the codes that matched as used.

    Only findings located in ``path`` (this file) can be suppressed by its comments.
    """
    outcome = Outcome()
    for finding in findings:
        hit = None
        if finding.path in (None, path):
            for suppression in suppressions:
                if not suppression.covers(finding):
                    continue
                for code in suppression.codes:
                    if code.meta is not None and code.meta.id == finding.rule.id:
                        code.used = True
                        hit = hit or suppression
        if hit is None:
            outcome.kept.append(finding)
        else:
            outcome.suppressed.append(Suppressed(finding, hit.reason, hit.comment.span))
    return outcome


def unused_findings(
    suppressions: list[Suppression], source: SourceText, path: str, enabled: Callable[[str], bool]
) -> list[Finding]:
    """QL901 findings: one per comment with codes that suppressed nothing.

    Codes of rules that are not enabled (``select``/``ignore``) are not judged;
    neither are codes naming QL901 itself. Unknown codes are reported without a
    fix (probably a typo); known unused codes come with a safe fix removing them.
    """
    out: list[Finding] = []
    for suppression in suppressions:
        if not suppression.well_formed:
            out.append(Finding(
                UNUSED_SUPPRESSION,
                Text(
                    en="this suppression names no rule; write '# qlint: disable=QLnnn[,rule-name] -- reason'",
                    zh="该抑制注释没有写任何规则；请写成 '# qlint: disable=QLnnn[,rule-name] -- reason'",
                ),
                suppression.comment.span, path=path))
            continue
        unused = [
            code for code in suppression.codes
            if not code.used and (code.meta is None or (code.meta.id != UNUSED_SUPPRESSION.id and enabled(code.meta.id)))
        ]
        if not unused:
            continue
        described = ", ".join(
            f"{code.meta.id} [{code.meta.name}]" if code.meta else f"{code.text} (not a rule; see `qlint rules`)"
            for code in unused
        )
        described_zh = "、".join(
            f"{code.meta.id} [{code.meta.name}]" if code.meta else f"{code.text}（不是规则；见 `qlint rules`）"
            for code in unused
        )
        where = {"file": "in this file", "line": "on this line"}.get(suppression.kind)
        where_zh = {"file": "（作用于整个文件）", "line": "（作用于本行）"}.get(suppression.kind)
        if where is None:
            where = (f"on the command at line {suppression.lines[0]}" if suppression.lines
                     else "(no command follows this comment)")
            where_zh = (f"（作用于第 {suppression.lines[0]} 行的命令）" if suppression.lines
                        else "（该注释之后没有命令）")
        span = Span(unused[0].span.line, unused[0].span.column, unused[-1].span.end_line, unused[-1].span.end_column)
        removable = [code for code in unused if code.meta is not None]
        fix = None
        if removable:
            fix = Fix(Text(en=f"remove {', '.join(c.text for c in removable)} from the suppression",
                           zh=f"从抑制注释中删除 {', '.join(c.text for c in removable)}"),
                      [_removal_edit(suppression, removable, source)])
        out.append(Finding(UNUSED_SUPPRESSION, Text(
            en=f"unused suppression {where}: {described}",
            zh=f"未生效的抑制注释{where_zh}：{described_zh}",
        ), span, fix=fix, path=path))
    return out


def _removal_edit(suppression: Suppression, removable: list[Code], source: SourceText) -> Edit:
    """Rewrite the comment without ``removable``; delete it when no code is left."""
    comment = suppression.comment
    kept = [code.text for code in suppression.codes if code not in removable]
    if kept:
        kind = "disable-file" if suppression.kind == "file" else "disable"
        text = f"# qlint: {kind}={','.join(kept)}" + (f" -- {suppression.reason}" if suppression.reason else "")
        return Edit(comment.span, text)
    if suppression.trailing:  # also drop the blanks between the code and the comment
        before = source.line_text(comment.span.line)[: comment.span.column - 1]
        start = len(before.rstrip()) + 1
        return Edit(Span(comment.span.line, start, comment.span.end_line, comment.span.end_column), "")
    return Edit(comment.span, "")
