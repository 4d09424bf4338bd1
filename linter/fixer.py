"""``qlint --fix``: apply the safe fixes of a file's findings and write it back atomically.

Rounds: lint, apply every safe edit (``fixes.apply_edits`` refuses overlaps),
lint again, until nothing changes or ``MAX_ROUNDS`` rounds ran. If a round
leaves text that bash cannot parse, every change is rolled back and the file
stays as it was. The file keeps its mode, its byte-order mark and its line
endings (edits inserting ``\\n`` into a CRLF file insert ``\\r\\n``).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from dataclasses import dataclass
from typing import Callable

from qlint.linter.fixes import apply_edits, fix_edits
from qlint.linter.lint import LintResult
from qlint.rules.base import Edit

MAX_ROUNDS = 3
_BOM = b"\xef\xbb\xbf"


@dataclass
class FixOutcome:
    """The final lint of the (maybe) fixed text, how many edits were applied, and the new bytes.

    ``data`` is None when nothing changed; ``rolled_back`` is True when the fixes
    were dropped because the result no longer parsed.
    """

    result: LintResult
    applied: int = 0
    data: bytes | None = None
    rolled_back: bool = False


def _native(edits: list[Edit], crlf: bool) -> list[Edit]:
    if not crlf:
        return edits
    return [Edit(edit.span, re.sub(r"(?<!\r)\n", "\r\n", edit.text)) for edit in edits]


def fix_bytes(path: str, data: bytes, lint: Callable[[bytes], LintResult], unsafe: bool = False) -> FixOutcome:
    """Apply safe fixes (and unsafe ones with ``unsafe``) to ``data`` (the content of
    ``path``) in up to MAX_ROUNDS rounds.

    ``lint`` lints bytes with the caller's settings and policy. Only findings in
    ``path`` itself are fixed; suppressed findings are never fixed.
    """
    bom = _BOM if data.startswith(_BOM) else b""
    crlf = b"\r\n" in data
    first = lint(data)
    if first.error is not None or first.source is None:
        return FixOutcome(first)
    current, applied = first, 0
    for _ in range(MAX_ROUNDS):
        edits = fix_edits([f for f in current.findings if f.path == path], unsafe=unsafe)
        if not edits:
            break
        text = current.source.text
        new_text, done = apply_edits(text, _native(edits, crlf))
        if new_text == text:
            break
        candidate = lint(bom + new_text.encode("utf-8"))
        if candidate.error is not None:
            return FixOutcome(first, rolled_back=True)
        current, applied = candidate, applied + len(done)
    if applied == 0:
        return FixOutcome(first)
    return FixOutcome(current, applied, bom + current.source.data)


def write_atomic(path: str, data: bytes) -> None:
    """Replace a file's content via a temporary file in the same folder, keeping its mode.

    A symlink is followed: its target is rewritten, the link stays.
    """
    target = os.path.realpath(path)
    mode = stat.S_IMODE(os.stat(target).st_mode)
    folder = os.path.dirname(target) or "."
    handle, temporary = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(target) + ".", suffix=".qlint")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """The change as a unified diff (``--- a/path`` / ``+++ b/path``), empty when equal."""
    import difflib

    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    name = path.lstrip("/")
    return "".join(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"))
