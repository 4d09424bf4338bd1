"""What ``qlint check`` reads: the scripts under the path arguments, grouped into
deployments, and their bytes (``-`` is stdin)."""

from __future__ import annotations

import sys
from pathlib import Path

SHELL_SUFFIXES = (".sh", ".bash")


def deployments(paths: tuple[str, ...]) -> list[list[str]]:
    """Group the inputs into deployments: the files named on the command line form one;
    inside a directory argument, the scripts of each folder form one."""
    named: list[str] = []
    folders: dict[str, list[str]] = {}
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and (child.suffix in SHELL_SUFFIXES or has_shell_shebang(child)):
                    folders.setdefault(str(child.parent), []).append(str(child))
        else:
            named.append(raw)
    groups = [named] if named else []
    return groups + [folders[key] for key in sorted(folders)]


def has_shell_shebang(path: Path) -> bool:
    """True when the file starts with a ``#!`` line naming a shell."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return False
    return head.startswith(b"#!") and (b"sh" in head.split(b"\n", 1)[0])


def read(path: str) -> bytes:
    """The bytes of ``path`` (``-``: stdin). Raises OSError."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()
