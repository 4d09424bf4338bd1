"""``.ci/typecheck.py`` hands mypy every module of the package under its installed name."""

import importlib.util
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _typecheck():
    spec = importlib.util.spec_from_file_location("typecheck", ROOT / ".ci" / "typecheck.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_package_module_is_checked_under_the_qlint_root():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = dict(_typecheck().modules(pyproject))
    assert found["linter/cli.py"] == "qlint.linter.cli"
    assert found["rules/__init__.py"] == "qlint.rules"
    assert found["qlint/testing.py"] == "qlint.testing"
    every = {str(path.relative_to(ROOT)) for folder in ("linter", "rules", "knowledge", "docgen", "qlint")
             for path in (ROOT / folder).glob("*.py")}
    assert every <= set(found)
    assert all(name == "qlint" or name.startswith("qlint.") for name in found.values())

