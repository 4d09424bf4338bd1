"""``qlint --fix``: apply the safe fixes of a file's findings and write it back atomically.

Rounds: lint, apply the safe fixes whole (``fixes.apply_fixes``: all the edits of a
fix or none; a fix overlapping another waits for the next round), lint again, until
nothing changes or ``MAX_ROUNDS`` rounds ran. If a round
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

from qlint.linter.fixes import apply_fixes, fixes_to_apply
from qlint.linter.lint import LintResult
from qlint.rules.base import Edit, Fix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

MAX_ROUNDS = 10
"""Fix rounds per file: a fix that overlaps another waits for the next round, and one fix can make
another finding appear (a switch turned off becomes a redundant default), so a few rounds are needed
to reach the point where a second --fix changes nothing; ten is a bound against loops, not a budget."""
_BOM = b"\xef\xbb\xbf"


@dataclass
class FixOutcome:
    """The final lint of the (maybe) fixed text, how many fixes were applied, and the new bytes.

    ``data`` is None when nothing changed; ``rolled_back`` is True when the fixes
    were dropped because the result no longer parsed.
    """

    result: LintResult
    applied: int = 0
    data: bytes | None = None
    rolled_back: bool = False


def _native(fix: Fix, crlf: bool) -> Fix:
    """The fix with the file's own line endings in the text it inserts."""
    if not crlf:
        return fix
    edits = [Edit(edit.span, re.sub(r"(?<!\r)\n", "\r\n", edit.text)) for edit in fix.edits]
    return Fix(fix.description, edits, fix.safety, fix.description_zh)


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
        fixes = fixes_to_apply([f for f in current.findings if f.path == path], unsafe=unsafe)
        if not fixes:
            break
        if current.source is None:
            break
        text = current.source.text
        new_text, done = apply_fixes(text, [_native(fix, crlf) for fix in fixes])
        if new_text == text:
            break
        candidate = lint(bom + new_text.encode("utf-8"))
        if candidate.error is not None:
            return FixOutcome(first, rolled_back=True)
        current, applied = candidate, applied + len(done)
    if applied == 0 or current.source is None:
        return FixOutcome(first)
    return FixOutcome(current, applied, bom + current.source.data)


class WriteRefused(OSError):
    """``--fix`` will not replace this file; ``strerror`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.strerror = reason


def write_atomic(path: str, data: bytes, original: bytes | None = None) -> None:
    """Replace a file's content via a temporary file in the same folder.

    The file keeps its mode, owner and group. A symlink is followed: its target is
    rewritten, the link stays. Nothing is written (``WriteRefused``) when the file no
    longer holds ``original`` (an editor saved it while qlint ran), when it has other
    hard links (a rename would split them), when it is read-only, or when its owner or
    group cannot be kept. The temporary file is ``.<name>.<random>.qlint``, which
    directory walks never lint, and it is removed on any failure.
    """
    temporary, target = _prepare(path, data, original)
    try:
        os.replace(temporary, target)
    except BaseException:
        _remove(temporary)
        raise


def write_all(changes: list[tuple[str, bytes, bytes]]) -> None:
    """Replace several files together: ``(path, new data, content qlint read)`` each.

    Every temporary file is written and checked first (as ``write_atomic`` does), then they are
    renamed one after the other. When any step fails, no file keeps a change: the temporary files
    are removed, a file already renamed gets the content it had back, and the error is raised.
    """
    prepared: list[tuple[str, str, bytes]] = []
    failing = ""
    try:
        for path, data, original in changes:
            failing = path
            temporary, target = _prepare(path, data, original)
            prepared.append((temporary, target, original))
    except BaseException as error:
        for temporary, _, _ in prepared:
            _remove(temporary)
        if isinstance(error, OSError):
            error.failed_path = failing  # type: ignore[attr-defined]  # which file stopped the write
        raise
    done: list[tuple[str, bytes]] = []
    try:
        for (temporary, target, original), (path, _, _) in zip(prepared, changes):
            failing = path
            os.replace(temporary, target)
            done.append((target, original))
    except BaseException as error:
        if isinstance(error, OSError):
            error.failed_path = failing  # type: ignore[attr-defined]
        for temporary, _, _ in prepared:
            _remove(temporary)
        for target, original in reversed(done):
            try:
                write_atomic(target, original)
            except OSError:  # pragma: no cover - the folder refused a second write; the error below says it
                pass
        raise


def _remove(temporary: str) -> None:
    if os.path.exists(temporary):
        os.unlink(temporary)


def _prepare(path: str, data: bytes, original: bytes | None) -> tuple[str, str]:
    """Check that ``path`` may be replaced and write ``data`` to a temporary file beside it:
    (temporary, target). ``WriteRefused`` (nothing left behind) when it may not."""
    target = os.path.realpath(path)
    info = os.stat(target)
    mode = stat.S_IMODE(info.st_mode)
    if not mode & stat.S_IWUSR:
        raise WriteRefused("the file is read-only; not written (make it writable to let --fix change it)")
    if info.st_nlink > 1:
        raise WriteRefused(f"the file has {info.st_nlink} hard links; replacing it would split them, so it was "
                           "not written (apply the fixes with --diff and patch)")
    folder = os.path.dirname(target) or "."
    handle, temporary = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(target) + ".", suffix=".qlint")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        written = os.stat(temporary)
        if (written.st_uid, written.st_gid) != (info.st_uid, info.st_gid):
            try:
                os.chown(temporary, info.st_uid, info.st_gid)
            except OSError:
                raise WriteRefused("the file's owner or group could not be kept; not written") from None
        if original is not None:
            now = os.stat(target)
            changed = (now.st_ino, now.st_size, now.st_mtime_ns) != (info.st_ino, info.st_size, info.st_mtime_ns)
            if changed or _content(target) != original:
                raise WriteRefused("the file changed since qlint read it; not written (run qlint --fix again)")
    except BaseException:
        _remove(temporary)
        raise
    return temporary, target


def _content(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """The change as a unified diff (``--- a/path`` / ``+++ b/path``), empty when equal."""
    import difflib

    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    name = path.lstrip("/")
    return "".join(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"))
