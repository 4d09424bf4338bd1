"""Apply the text edits of fixes to a script's text.

Only the characters inside each edit's span change. An edit that empties an
option that stood alone on a backslash-continued line removes that whole line,
so no blank continuation is left behind.

``apply_fixes`` applies fixes whole (ruff's way): all the edits of a fix, or none
of them; a fix that overlaps a fix already taken waits for the next round, when
the fixer lints the new text again. ``apply_edits`` is the low-level step for a
set of edits that belong together (an overlapping edit is skipped).
"""

from __future__ import annotations

from qlint.rules.base import Edit, Finding, Fix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence


def _offsets(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _index(starts: list[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1


def _range(text: str, starts: list[int], edit: Edit) -> tuple[int, int, Edit]:
    """The character range an edit replaces (a removal grown to its whole line when it empties one)."""
    begin = _index(starts, edit.span.line, edit.span.column)
    end = _index(starts, edit.span.end_line, edit.span.end_column)
    if edit.text == "":
        begin, end = _widen_removal(text, begin, end)
    return begin, end, edit


def _conflict(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two ranges conflict when they overlap or start at the same place (two insertions there)."""
    return a[0] == b[0] or (a[0] < b[1] and b[0] < a[1])


def apply_fixes(text: str, fixes: Sequence[Fix]) -> tuple[str, list[Fix]]:
    """Apply whole fixes; return (new text, the fixes applied, in the order given).

    Fixes are taken in the order of their first edit in the text (ties: the order
    given). A fix whose edits overlap one another, or overlap an edit of a fix
    already taken, is left out whole: none of its edits is applied (the fixer tries
    it again on the next round, against the text the others left). Fixes without
    edits are advice and are never applied.
    """
    starts = _offsets(text)
    planned = []
    for index, fix in enumerate(fixes):
        if fix.edits:
            ranges = sorted(_range(text, starts, edit) for edit in fix.edits)
            planned.append((ranges[0][0], index, fix, ranges))
    planned.sort(key=lambda item: (item[0], item[1]))
    taken: list[tuple[int, int, Edit]] = []
    chosen: list[tuple[int, Fix]] = []
    for _, index, fix, ranges in planned:
        own = any(_conflict(ranges[i][:2], ranges[j][:2]) for i in range(len(ranges)) for j in range(i))
        if own or any(_conflict(mine[:2], other[:2]) for mine in ranges for other in taken):
            continue
        taken.extend(ranges)
        chosen.append((index, fix))
    out = text
    for begin, end, edit in sorted(taken, key=lambda item: (item[0], item[1]), reverse=True):
        out = out[:begin] + edit.text + out[end:]
    return out, [fix for _, fix in sorted(chosen, key=lambda item: item[0])]


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, list[Edit]]:
    """Return (new text, edits actually applied). Edits use 1-based character spans.

    For edits that belong together (one fix, or the fixes of a rule example): an edit
    that overlaps an earlier one is skipped. ``apply_fixes`` is the whole-fix step.
    """
    starts = _offsets(text)
    ranges = [_range(text, starts, edit) for edit in edits]
    ranges.sort(key=lambda item: (item[0], item[1]))
    applied: list[tuple[int, int, Edit]] = []
    last_end = -1
    for begin, end, edit in ranges:
        if begin < last_end:
            continue  # overlaps an earlier edit
        applied.append((begin, end, edit))
        last_end = end
    out = text
    for begin, end, edit in reversed(applied):
        out = out[:begin] + edit.text + out[end:]
    return out, [edit for _, _, edit in applied]


def _widen_removal(text: str, begin: int, end: int) -> tuple[int, int]:
    """Grow a deletion to its whole line when only blanks and a continuation remain (a deletion of carriage
    returns only, a line ending made LF, stays exact)."""
    if begin < end and text[begin:end].strip("\r") == "":
        return begin, end
    line_start = text.rfind("\n", 0, begin) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    before = text[line_start:begin]
    after = text[end:line_end]
    if before.strip() == "" and after.strip() in ("", "\\"):
        return line_start, min(len(text), line_end + 1)
    # inline option: also remove one separating space before it
    if begin > 0 and text[begin - 1] == " ":
        return begin - 1, end
    return begin, end


def fixes_to_apply(findings: list[Finding], unsafe: bool = False) -> list[Fix]:
    """The fixes of fixable findings that carry edits (safe ones, plus unsafe when asked)."""
    return [
        finding.fix for finding in findings
        if finding.fix is not None and finding.fix.edits and (unsafe or finding.fix.safety != "unsafe")
    ]


def fix_edits(findings: list[Finding], unsafe: bool = False) -> list[Edit]:
    """All edits of fixable findings (safe ones, plus unsafe when asked)."""
    return [edit for fix in fixes_to_apply(findings, unsafe) for edit in fix.edits]
