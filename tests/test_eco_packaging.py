"""The real ecosystem: pre-commit runs the hooks, the wheel installs in a fresh venv and works.

Both work on a copy of the working tree (uncommitted changes included), so the
repository itself is never touched. Deselect with ``-m 'not ecosystem'``.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import qlint

pytestmark = pytest.mark.ecosystem

ROOT = Path(__file__).resolve().parents[1]
BAD = "#!/bin/bash\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3\n"
GOOD = "#!/bin/bash\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 2\n"
FIXABLE = "#!/bin/bash\n# qlint: disable=QL203 -- stale\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n"
# the consumer repository pins the target and the rules it cares about, as a team would
CONSUMER_CONFIG = 'hardware = "a3"\nvllm-ascend = "v0.23.0"\nselect = ["QL2", "QL901"]\n'
_IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                  ".hypothesis", ".pytest_cache")


def _git(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", "-c", "user.name=qlint-test", "-c", "user.email=qlint@test.invalid",
                           "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
                          cwd=cwd, env=env, check=True, capture_output=True, text=True)


def _copy_tree(target: Path) -> Path:
    """Copy the working tree's own files (tracked and untracked, not ignored) to ``target``."""
    try:
        listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        shutil.copytree(ROOT, target, ignore=_IGNORED)
        return target
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # deleted-but-tracked files are skipped
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory):
    return _copy_tree(tmp_path_factory.mktemp("qlint-src"))


def test_hooks_file_declares_both_hooks():
    import yaml  # pre-commit depends on PyYAML

    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"qlint", "qlint-fix"}
    # --with-deployment: a change to one side of a deployment checks the whole deployment
    assert hooks["qlint"]["entry"] == "qlint --with-deployment"
    assert hooks["qlint-fix"]["entry"] == "qlint --fix --with-deployment"
    assert all(hook["language"] == "python" and hook["types"] == ["shell"] for hook in hooks.values())


def test_pre_commit_try_repo(source_copy, tmp_path):
    from qlint.linter.config import ConfigCache

    hook_repo = tmp_path / "hook-repo"
    shutil.copytree(source_copy, hook_repo)
    _git("init", "-q", cwd=hook_repo)
    _git("add", "-A", cwd=hook_repo)
    _git("commit", "-q", "-m", "snapshot", cwd=hook_repo)

    work = tmp_path / "work"
    work.mkdir()
    (work / ".qlint.toml").write_text(CONSUMER_CONFIG)
    for name, text in {"bad.sh": BAD, "good.sh": GOOD, "fixable.sh": FIXABLE}.items():
        (work / name).write_text(text)
    (work / "README.txt").write_text("not a shell script: " + BAD)  # filtered out by types: [shell]
    _git("init", "-q", cwd=work)
    _git("add", "-A", cwd=work)
    _git("commit", "-q", "-m", "scripts", cwd=work)
    assert ConfigCache().for_path(str(work / "good.sh")) is not None

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.pop("GITHUB_ACTIONS", None)

    def try_repo(*files):  # no hook id: both hooks of the repository run, qlint then qlint-fix
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo),
                               "--files", *files, "--color", "never"],
                              cwd=work, env=env, capture_output=True, text=True, timeout=600)

    good = try_repo("good.sh", "README.txt")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.count("Passed") == 2

    bad = try_repo("bad.sh", "good.sh", "fixable.sh", "README.txt")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    lint_part, _, fix_part = bad.stdout.partition("- hook id: qlint-fix")
    assert "Failed" in lint_part and "bad.sh:2:83: error QL206" in lint_part
    assert "fixable.sh:2:18: warning QL901" in lint_part
    assert "good.sh:" not in lint_part and "README.txt" not in bad.stdout
    assert "files were modified by this hook" in fix_part
    assert (work / "fixable.sh").read_text() == FIXABLE.replace("# qlint: disable=QL203 -- stale\n", "")
    assert (work / "bad.sh").read_text() == BAD  # QL206 has no automatic fix
    print(bad.stdout)  # shown with -s: the pre-commit run output


def test_wheel_installs_in_a_fresh_venv_and_lints(source_copy, tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist),
                            str(source_copy)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    [wheel] = dist.glob("qlint_ascend-*.whl")
    assert wheel.name.startswith(f"qlint_ascend-{qlint.__version__}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    data_files = {p.name for p in (ROOT / "knowledge" / "data").glob("*.toml")}
    assert data_files and {f"qlint/knowledge/data/{name}" for name in data_files} <= names

    venv = tmp_path / "venv"
    # no pip inside the venv (saves ensurepip's seconds): this pip installs into it via --python
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(wheel)],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr

    script = tmp_path / "run.sh"
    script.write_text(BAD)
    outside = tmp_path / "elsewhere"  # run away from the source tree: only the wheel can answer
    outside.mkdir()
    qlint_bin = venv / "bin" / "qlint"
    linted = subprocess.run([str(qlint_bin), "--format", "json", "--hardware", "a3", "--vllm-ascend-version",
                             "v0.23.0", str(script)], cwd=outside, capture_output=True, text=True, timeout=120)
    assert linted.returncode == 1, linted.stderr
    assert "QL206" in {item["rule"] for item in json.loads(linted.stdout)}
    version = subprocess.run([str(qlint_bin), "--version"], capture_output=True, text=True, timeout=60)
    assert qlint.__version__ in version.stdout
    location = subprocess.run([str(python), "-c", "import qlint; print(qlint.__file__)"], cwd=outside,
                              capture_output=True, text=True, timeout=60).stdout
    assert str(venv) in location
