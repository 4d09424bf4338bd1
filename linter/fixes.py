"""Apply the text edits of fixes to a script's text.

Only the characters inside each edit's span change. An edit that empties an
option that stood alone on a backslash-continued line removes that whole line,
so no blank continuation is left behind. Overlapping edits are refused: the
later one is skipped (two fixes that conflict are never both applied).
"""

from __future__ import annotations

from qlint.rules.base import Edit, Finding


def _offsets(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _index(starts: list[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, list[Edit]]:
    """Return (new text, edits actually applied). Edits use 1-based character spans."""
    starts = _offsets(text)
    ranges = []
    for edit in edits:
        begin = _index(starts, edit.span.line, edit.span.column)
        end = _index(starts, edit.span.end_line, edit.span.end_column)
        if edit.text == "":
            begin, end = _widen_removal(text, begin, end)
        ranges.append((begin, end, edit))
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
    """Grow a deletion to its whole line when only blanks and a continuation remain."""
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


def fix_edits(findings: list[Finding], unsafe: bool = False) -> list[Edit]:
    """All edits of fixable findings (safe ones, plus unsafe when asked)."""
    edits: list[Edit] = []
    for finding in findings:
        if finding.fix is None or not finding.fix.edits:
            continue
        if finding.fix.safety == "unsafe" and not unsafe:
            continue
        edits.extend(finding.fix.edits)
    return edits
