#!/usr/bin/env python3
"""Type-check the project with mypy under the import root ``qlint``.

The folders are installed as ``qlint.linter``, ``qlint.rules``, ... (pyproject.toml
``[tool.setuptools.package-dir]``), a layout plain ``mypy linter/`` cannot see (it would
call the modules ``linter.*``) nor follow through the editable install's import hook.
This script hands mypy every module under its installed name, with the options of
``[tool.mypy]``, and prints mypy's own messages with the real paths. Extra arguments
are mypy options (e.g. ``--warn-return-any``). Exit status: 0 clean, 1 errors,
2 mypy missing or bad usage.

    python .ci/typecheck.py
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules(pyproject: dict) -> list[tuple[str, str]]:
    """(path relative to ROOT, module name) of every Python file of the installed packages."""
    mapping: dict[str, str] = pyproject["tool"]["setuptools"]["package-dir"]
    out = []
    for package in pyproject["tool"]["setuptools"]["packages"]:
        folder = mapping.get(package, package.replace(".", "/"))
        for path in sorted((ROOT / folder).glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            out.append((str(path.relative_to(ROOT)), name))
    return out


def main(argv: list[str]) -> int:
    try:
        from mypy import build
        from mypy.main import process_options
        from mypy.modulefinder import BuildSource
    except ImportError:
        print("typecheck: mypy is not installed; pip install -e '.[test]'", file=sys.stderr)
        return 2
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = modules(pyproject)
    _, options = process_options(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache"),
                                  *argv, *(p for p, _ in found)])
    sources = [BuildSource(str(ROOT / path), name, None) for path, name in found]
    try:
        result = build.build(sources, options)
    except build.CompileError as error:
        print("\n".join(error.messages), file=sys.stderr)
        return 2
    messages = [line.replace(str(ROOT) + "/", "") for line in result.errors]
    for line in messages:
        print(line)
    errors = [line for line in messages if ": error:" in line]
    files = {line.split(":", 1)[0] for line in errors}
    if errors:
        print(f"Found {len(errors)} error{'s' * (len(errors) != 1)} in {len(files)} file{'s' * (len(files) != 1)} "
              f"(checked {len(sources)} source files)")
        return 1
    print(f"Success: no issues found in {len(sources)} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
