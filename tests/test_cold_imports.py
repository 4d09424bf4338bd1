"""``qlint FILE`` does not import what it does not use (issue #16, cold start).

Each case runs the console script's code in a fresh interpreter on a tree laid out as the wheel
installs it (``python -S``: no editable-install finder, whose own imports would hide qlint's) and
lists the modules loaded by the time it exits. Speed itself is measured by
``benchmarks/cold_start.py``, not here: these tests check which modules a run loads.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "qwen36_27b_a2.sh"

NEVER = ("typing", "packaging", "tomllib", "urllib", "pathlib", "click", "pydantic", "networkx", "shlex",
         "signal", "importlib", "ipaddress", "fnmatch", "graphlib", "dataclasses", "inspect")
"""Not loaded by a run over plain files (nor any of their submodules)."""
NOT_FOR_SHELL = ("bisect", "math", "yaml", "markdown_it")
"""Not loaded for a shell script either (PyYAML itself imports math, for YAML)."""
NOT_FOR_THE_EXAMPLE = ("qlint.linter.ray_cluster", "qlint.linter.notes", "qlint.linter.suppressions",
                       "qlint.linter.wrappers", "qlint.linter.shell_nested", "errno", "qlint.linter.fixes",
                       "qlint.rules.kit.resizing", "qlint.rules.kit.spelling", "json")
"""Not loaded for a deployment that starts no Ray cluster, nor for a run with nothing to note, no ``# qlint:``
comment, no wrapper command (``sudo``, ``docker``, ``bash -c``...), no script piped into a shell or sourced, no
error, no fix applied, no JSON text report or invalid JSON (``qlint.jsonfast`` reads and writes JSON with json's
C functions without importing json), no TP/DP
resized and no unknown flag or model to match (the bundled example)."""
PACKAGES = ("tree_sitter", "tree_sitter_bash")
"""Packages whose ``__init__`` is not run (that of tree_sitter imports typing): qlint loads their
compiled ``_binding`` modules alone."""

_RUN = r"""
import sys
layout, rest = sys.argv[1], sys.argv[2:]
split = rest.index("--")
sys.path[:0] = [layout]
sys.path += rest[:split]  # the dependencies, after the standard library (as site would add them)
import atexit

def _loaded():
    sys.stderr.write("\nMODULES " + " ".join(sorted(sys.modules)) + "\n")

atexit.register(_loaded)
import re  # the console script's own import
sys.argv = ["qlint", *rest[split + 1:]]
from qlint.linter.cli import entry
entry()
"""


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> Path:
    """The installed package tree (``[tool.setuptools.package-dir]``), made of links into this checkout."""
    tree = tmp_path_factory.mktemp("installed")
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    top = tree / "qlint"
    top.mkdir()
    for entry in (ROOT / mapping["qlint"]).iterdir():
        (top / entry.name).symlink_to(entry)
    for package, folder in sorted(mapping.items(), key=lambda item: item[0].count(".")):
        target = tree.joinpath(*package.split("."))
        if package != "qlint" and not target.exists():
            target.symlink_to(ROOT / folder, target_is_directory=True)
        assert (target / "__init__.py").resolve() == (ROOT / folder / "__init__.py").resolve(), package
    return tree


def loaded(layout: Path, *args: str, cwd: Path | None = None) -> set[str]:
    deps = [path for path in sys.path if path.endswith("site-packages")]
    done = subprocess.run([sys.executable, "-S", "-c", _RUN, str(layout), *deps, "--", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return set(line.split()[1:])


def present(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == name or m.startswith(name + ".") for name in names))


def test_layout_is_this_checkout(layout):
    modules = loaded(layout, "--version")  # click reports it: the checks below must see this tree's qlint
    assert "qlint.linter.cli" in modules and "click" in modules


def test_linting_a_shell_script_loads_only_what_it_uses(layout):
    modules = loaded(layout, str(SCRIPT))  # inside this repository: its pyproject.toml names qlint, not [tool.qlint]
    assert {"qlint.linter.lint", "tree_sitter._binding", "tree_sitter_bash._binding", "_json"} <= modules
    assert present(modules, NEVER) == []
    assert present(modules, NOT_FOR_SHELL) == []
    assert present(modules, NOT_FOR_THE_EXAMPLE) == []
    assert [name for name in PACKAGES if name in modules] == []


def test_a_script_with_fixes_and_clients_loads_only_what_it_uses(layout, tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nexport HCCL_OP_EXPANSION_MODE=AIV\n"
                      "vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 3 --port 8000 --max-model-len 999999 &\n"
                      "until curl -s http://localhost:8000/health; do sleep 5; done\n"
                      "curl http://127.0.0.1:8000/v1/completions -d '{\"model\": \"qwen\", \"prompt\": \"hi\"}'\n")
    modules = loaded(layout, "--format", "json", str(script), cwd=tmp_path)
    assert present(modules, NEVER + NOT_FOR_SHELL) == []
    assert [name for name in PACKAGES if name in modules] == []


def test_a_kubernetes_manifest_loads_only_what_it_uses(layout, tmp_path):
    manifest = tmp_path / "serve.yaml"
    manifest.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: qwen\nspec:\n  template:\n"
                        "    spec:\n      containers:\n        - name: vllm\n"
                        "          image: quay.io/ascend/vllm-ascend:v0.23.0\n"
                        "          command: [vllm, serve, Qwen/Qwen3.6-27B, --tensor-parallel-size, '16']\n")
    modules = loaded(layout, str(manifest), cwd=tmp_path)
    assert "yaml" in modules
    assert present(modules, NEVER) == []


def test_a_configuration_loads_what_it_needs(layout, tmp_path):
    (tmp_path / ".qlint.toml").write_text('hardware = "a3"\n')
    (tmp_path / "run.sh").write_text("#!/bin/bash\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 16\n")
    modules = loaded(layout, "--format", "json", str(tmp_path / "run.sh"), cwd=tmp_path)
    assert {"tomllib", "pydantic"} <= modules  # read and validated
    assert "click" not in modules


