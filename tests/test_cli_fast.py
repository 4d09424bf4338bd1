"""The click-free fast path of ``qlint`` (``linter/cli.py``: ``parse``) answers exactly as the click group
does: same stdout, stderr and exit code on a matrix of invocations, and it does not import click."""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from qlint.linter import cli

FAULTY = ("#!/bin/bash\n# qlint: hardware=a2 vllm-ascend=v0.23.0\n"
          "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 16 --max-num-seqs 0 \\\n"
          "  --enable-expert-paralel --compilation-config '{\"cudagraph_capture_sizes\": [4, 8]}'\n")
CLEAN = "#!/bin/bash\necho hello\n"
BROKEN = "#!/bin/bash\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port \"8000\n"
PLAIN = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 3 \x1b[31mred\x1b[0m 运行\n"

# Each invocation: argv and whether the fast path takes it (None: click does, which is checked too).
MATRIX = [
    (["faulty.sh"], True),
    (["check", "faulty.sh"], True),
    (["faulty.sh", "clean.sh", "plain.sh"], True),
    (["-q", "faulty.sh"], True),
    (["--quiet", "plain.sh"], True),
    (["faulty.sh", "-q", "--exit-zero"], True),
    (["--format", "json", "faulty.sh"], True),
    (["--format=sarif", "faulty.sh"], True),
    (["--format", "github", "plain.sh"], True),
    (["--format", "text", "clean.sh"], True),
    (["--hardware", "A3", "plain.sh"], True),
    (["--hardware=310p", "--vllm-ascend-version", "v0.11.0", "plain.sh"], True),
    (["--vllm-ascend-version=v0.9.1rc1", "faulty.sh"], True),
    (["--vllm-ascend-version", "v0.26.0", "plain.sh"], True),
    (["--vllm-ascend-version", "bogus", "plain.sh"], True),  # bad usage: click reports it
    (["broken.sh"], True),
    (["missing.sh", "faulty.sh"], True),
    (["folder"], True),
    (["empty"], True),
    (["-"], True),
    (["check", "check"], True),
    (["--format", "yaml", "faulty.sh"], False),
    (["--hardware", "a5", "faulty.sh"], False),
    (["--format", "json", "--format", "text", "faulty.sh"], False),
    (["--format"], False),
    (["-q"], False),
    ([], False),
    (["--help"], False),
    (["check", "--help"], False),
    (["--version"], False),
    (["rules", "QL1"], False),
    (["--diff", "faulty.sh"], False),
    (["--select", "QL2", "faulty.sh"], False),
    (["--statistics", "faulty.sh"], False),
    (["--", "faulty.sh"], False),
    (["-x.sh"], False),
    (["--bogus", "faulty.sh"], False),
]

_RUNNER = """
import atexit, io, json, os, sys
mode, cases = sys.argv[1], json.loads(sys.argv[2])
if mode == "click":
    import qlint.linter.cli as fast
    fast.parse = lambda argv: None
from qlint.linter.cli import entry
out = []
for argv in cases:
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stdin = io.TextIOWrapper(io.BytesIO(open("faulty.sh", "rb").read()), encoding="utf-8")
    sys.stdout, sys.stderr, sys.argv = stdout, stderr, ["qlint", *argv]
    try:
        entry()
        code = None
    except SystemExit as exit:
        code = exit.code
    for stream in (stdout, stderr):
        stream.flush()
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    out.append({"argv": argv, "code": code, "stdout": stdout.buffer.getvalue().decode(),
                "stderr": stderr.buffer.getvalue().decode(), "click": "click" in sys.modules})
print(json.dumps(out))
"""


def _run(tmp_path, mode: str, cases: list[list[str]]) -> list[dict]:
    env = {key: value for key, value in os.environ.items() if not key.endswith("_COMPLETE")}
    env.update(NO_COLOR="1", LANG="C.UTF-8", QLINT_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("GITHUB_ACTIONS", None)
    env.pop("LC_ALL", None)
    done = subprocess.run([sys.executable, "-c", _RUNNER, mode, json.dumps(cases)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_fast_path_answers_as_click_does(tmp_path):
    (tmp_path / "faulty.sh").write_text(FAULTY)
    (tmp_path / "clean.sh").write_text(CLEAN)
    (tmp_path / "broken.sh").write_text(BROKEN)
    (tmp_path / "plain.sh").write_text(PLAIN)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "a.sh").write_text(FAULTY)
    (tmp_path / "folder" / "b.sh").write_text(PLAIN)
    (tmp_path / "empty").mkdir()
    for argv, fast in MATRIX:
        assert (cli.parse(argv) is not None) == fast, argv
    # the fast invocations first, in one process: none of them may load click (bad usage aside)
    order = [argv for argv, fast in MATRIX if fast and "bogus" not in argv] + \
            [argv for argv, fast in MATRIX if not fast or "bogus" in argv]
    fast_runs = _run(tmp_path, "fast", order)
    click_runs = _run(tmp_path, "click", order)
    for fast_run, click_run in zip(fast_runs, click_runs):
        argv = fast_run["argv"]
        for key in ("code", "stdout", "stderr"):
            assert fast_run[key] == click_run[key], (argv, key, "".join(difflib.unified_diff(
                str(click_run[key]).splitlines(True), str(fast_run[key]).splitlines(True), "click", "fast")))
        if cli.parse(argv) is not None and "bogus" not in argv:
            assert not fast_run["click"], argv
    codes = {tuple(run["argv"]): run["code"] for run in fast_runs}
    assert codes[("faulty.sh",)] == 1 and codes[("--format", "text", "clean.sh")] == 0
    assert codes[("faulty.sh", "-q", "--exit-zero")] == 0
    assert codes[("--vllm-ascend-version", "bogus", "plain.sh")] == 2
    assert codes[("missing.sh", "faulty.sh")] == 2
    by_argv = {tuple(run["argv"]): run for run in fast_runs}
    assert "Invalid value for --vllm-ascend-version" in by_argv[("--vllm-ascend-version", "bogus", "plain.sh")]["stderr"]
    assert "red" in by_argv[("--quiet", "plain.sh")]["stdout"]  # the excerpt, its escape codes stripped as click does
    assert "\x1b[" not in by_argv[("--quiet", "plain.sh")]["stdout"]


def test_fast_path_knows_the_groups_commands():
    from qlint.linter.cli import main

    assert cli.COMMANDS == frozenset(main.commands)


@pytest.mark.parametrize("argv", [["faulty.sh"], ["-q", "--format", "json", "a.sh", "-"]])
def test_console_script_does_not_import_click(tmp_path, argv):
    (tmp_path / "faulty.sh").write_text(FAULTY)
    (tmp_path / "a.sh").write_text(CLEAN)
    code = textwrap.dedent(f"""
        import atexit, sys
        atexit.register(lambda: print("CLICK", "click" in sys.modules, file=sys.stderr))
        sys.argv = ["qlint", *{argv!r}]
        from qlint.linter.cli import entry
        entry()
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, input=FAULTY, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "CLICK False" in done.stderr, done.stderr


@pytest.mark.parametrize("argv", [["--lang", "zh", "explain", "QL201"], ["--format", "json", "rules", "QL201"],
                                  ["--format", "json", "check", "faulty.sh"]])
def test_a_subcommand_after_leading_options_is_the_command(argv, tmp_path, monkeypatch):
    # not a lint of files named "explain" / "rules" (a new user's `qlint --lang zh explain QL201`)
    from click.testing import CliRunner

    from qlint.linter.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "faulty.sh").write_text(FAULTY)
    assert cli.parse(argv) is None
    out = CliRunner().invoke(main, argv)
    if "explain" in argv:
        assert out.exit_code == 0 and out.output.startswith("QL201") and "检查内容" in out.output
    elif "rules" in argv:
        assert out.exit_code == 0 and [item["id"] for item in json.loads(out.output)] == ["QL201"]
    else:
        assert out.exit_code == 1 and {item["path"] for item in json.loads(out.output)} == {"faulty.sh"}
