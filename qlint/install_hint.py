"""How to install one of qlint's extras, said for the way qlint itself was installed.

A wheel from PyPI gets ``pip install 'qlint-ascend[docs]'``; a source checkout (an editable
install, or ``python -m`` from the repository) gets ``pip install -e '<checkout>[docs]'``,
because the PyPI line would install a second, different qlint next to the one being run.
Reads no more than one small file; imports nothing heavy (it runs on error paths of a cold start).
"""

from __future__ import annotations

import os
from pathlib import Path

DISTRIBUTION = "qlint-ascend"


def source_checkout(package_file: str = __file__) -> Path | None:
    """The repository qlint runs from, or None when it runs from an installed wheel.

    The ``qlint`` package sits in the repository root next to ``pyproject.toml`` (whose project
    is ``qlint-ascend``); an installed wheel has it in ``site-packages`` with no such file."""
    root = Path(package_file).resolve().parent.parent
    project = root / "pyproject.toml"
    try:
        head = project.read_text(encoding="utf-8")[:4096]
    except (OSError, UnicodeDecodeError):
        return None
    return root if f'name = "{DISTRIBUTION}"' in head else None


def extra_install(extra: str, checkout: Path | None = None, cwd: Path | None = None) -> str:
    """The command that installs ``extra`` (``docs``, ``test``) for this qlint.

    ``checkout``/``cwd`` default to :func:`source_checkout` and the current folder."""
    root = checkout if checkout is not None else source_checkout()
    if root is None:
        return f"pip install '{DISTRIBUTION}[{extra}]'"
    here = cwd if cwd is not None else Path(os.getcwd())
    try:
        same = here.resolve() == root.resolve()
    except OSError:
        same = False
    where = "." if same else str(root)
    return f"pip install -e '{where}[{extra}]'"
