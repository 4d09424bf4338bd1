"""``qlint --fix`` / ``--unsafe-fixes`` over a deployment: apply the fixes that only reading several
files together finds (QL610 peer sizes; QL611, QL612, QL617 unsafe), each to the file its finding is in.

The per-file fixer (``fixer.fix_bytes``) runs first, file by file. Then rounds, as there: take the
deployment fixes of every writable file (safe ones, unsafe ones with ``--unsafe-fixes``), apply them whole
(``fixes.apply_fixes``: all the edits of a fix or none; one overlapping another waits a round), lint the
whole deployment again, until nothing changes or ``MAX_ROUNDS`` rounds ran. If a round leaves a file bash
cannot parse, no deployment fix is kept. The caller writes the changed files together
(``fixer.write_all``). Not fixed here: stdin, files read only for ``--with-deployment``, DP templates
(a rank's value is not the template's), findings placed in a file other than the one linted.
"""

from __future__ import annotations

from qlint.linter.fixer import _BOM, MAX_ROUNDS, _native
from qlint.linter.fixes import apply_fixes
from qlint.linter.lint import LintResult
from qlint.record import record
from qlint.rules.base import Fix, finding_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    Evaluate = Callable[[dict[str, bytes]], tuple[list[LintResult], set[tuple]]]
    """Lint a deployment's files (path -> bytes): the results, and the keys of the files' own fixes."""


@record
class DeploymentFix:
    """The final results, the new bytes of each changed file, the fixes applied per file, and
    whether the fixes were dropped because a file no longer parsed."""

    results: list[LintResult]
    data: dict[str, bytes]
    applied: dict[str, int]
    rolled_back: bool = False


def deployment_fixes(result: LintResult, own: set[tuple], unsafe: bool) -> list[Fix]:
    """The fixes of ``result``'s file that come from the deployment pass (not its own), with edits."""
    return [
        f.fix for f in result.findings
        if f.path == result.path and f.fix is not None and f.fix.edits and finding_key(f) not in own
        and (unsafe or f.fix.safety != "unsafe")
    ]


def fix_deployment(current: dict[str, bytes], results: list[LintResult], own: set[tuple], evaluate: Evaluate,
                   writable: set[str], unsafe: bool = False) -> DeploymentFix:
    """Apply the deployment fixes to the ``writable`` files of ``current`` (path -> bytes, as ``results``
    were linted from, byte-order mark included) in up to MAX_ROUNDS rounds."""
    start = dict(current)
    first = results
    applied: dict[str, int] = {}
    for _ in range(MAX_ROUNDS):
        changed: dict[str, tuple[bytes, int]] = {}
        for result in results:
            path = result.path
            if path not in writable or result.source is None or result.error is not None:
                continue
            fixes = deployment_fixes(result, own, unsafe)
            if not fixes:
                continue
            data = current[path]
            bom = _BOM if data.startswith(_BOM) else b""
            text = result.source.text
            new_text, done = apply_fixes(text, [_native(fix, b"\r\n" in data) for fix in fixes])
            if done and new_text != text:
                changed[path] = (bom + new_text.encode("utf-8"), len(done))
        if not changed:
            break
        candidate = {**current, **{path: data for path, (data, _) in changed.items()}}
        again, own_again = evaluate(candidate)
        if any(result.error is not None for result in again):
            return DeploymentFix(first, {}, {}, rolled_back=True)
        current, results, own = candidate, again, own_again
        for path, (_, count) in changed.items():
            applied[path] = applied.get(path, 0) + count
    return DeploymentFix(results, {path: data for path, data in current.items() if data != start[path]}, applied)
