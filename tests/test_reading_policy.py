"""One reading policy, one exit-code policy and a --fix that never loses data (issue 13)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from qlint.linter import fixer
from qlint.linter.cli_inputs import deployments, is_shell_shebang, read
from qlint.linter.fixer import WriteRefused, write_atomic

from conftest import invoke as run

FAULTY = "#!/bin/bash\n# qlint: hardware=a2 vllm-ascend=v0.23.0\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 16\n"
FIXABLE = ("#!/bin/bash\n# qlint: hardware=a2 vllm-ascend=v0.23.0\n"
           "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --compilation-config '{\"cudagraph_capture_sizes\": [4, 8, 16, 32]}' \\\n"
           "  --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n")


@pytest.mark.parametrize("line,shell", [
    (b"#!/bin/bash", True), (b"#!/usr/bin/env bash", True), (b"#! /bin/sh -eu", True),
    (b"#!/usr/bin/env -S bash -e", True), (b"#!/usr/bin/env LANG=C sh", True), (b"#!/bin/dash", True),
    (b"#!/usr/bin/python3", False), (b"#!/opt/shells/fish", False), (b"#!/usr/bin/env python", False),
    (b"# a comment about sh", False), (b"#!", False), (b"#!/usr/bin/env", False),
    (b"#!/home/marsh/bin/perl", False),  # "sh" in the path is not a shell
])
def test_shebang_is_a_real_match(line, shell):
    assert is_shell_shebang(line) is shell


def test_walk_skips_hidden_vendored_and_temporary_files(tmp_path):
    (tmp_path / "run.sh").write_text(FAULTY)
    for folder in (".git/hooks", ".venv/bin", "node_modules/x", "build", "pkg.egg-info"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "pre-commit.sample").write_text("#!/bin/sh\nexit 0 (\n")
        (tmp_path / folder / "x.sh").write_text("#!/bin/sh\nif\n")
    (tmp_path / ".run.sh.abc123.qlint").write_text(FAULTY)  # a temporary file left by a killed --fix
    (tmp_path / "tool").write_text("#!/usr/bin/env python3\nprint(1)\n")
    (tmp_path / "launch").write_text("#!/usr/bin/env bash\necho hi\n")
    groups = deployments((str(tmp_path),))
    assert groups == [[str(tmp_path / "launch"), str(tmp_path / "run.sh")]]
    result = run([str(tmp_path), "--format", "json"])
    assert result.exit_code == 1
    assert {item["path"] for item in json.loads(result.stdout)} == {str(tmp_path / "run.sh")}


def test_unreadable_folder_is_an_input_error(tmp_path, monkeypatch):
    from qlint.linter import cli_inputs

    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "run.sh").write_text(FAULTY)

    def walk_denied(root, onerror):  # what os.walk does with a folder it may not list (root reads all)
        onerror(PermissionError(13, "Permission denied", str(root)))
        return iter(())

    monkeypatch.setattr(cli_inputs.os, "walk", walk_denied)
    result = run([str(locked)])
    assert result.exit_code == 2 and "no problems" not in result.output
    assert f"{locked}:1:1: error: cannot read file: is a directory that could not be listed" in result.output


def test_empty_folder_says_nothing_was_checked(tmp_path):
    result = run([str(tmp_path)])
    assert result.exit_code == 0 and "nothing was checked" in result.output and "no problems" not in result.output
    assert f"no shell script found in {tmp_path}: nothing was checked" in result.output  # it names what it read
    other = tmp_path / "other"
    other.mkdir()
    both = run([str(tmp_path), str(other), "--lang", "zh"])
    assert f"{tmp_path}, {other} 中没有找到 shell 脚本：未检查任何内容" in both.output


@pytest.mark.parametrize("text, en, zh", [
    ("", "the file is empty", "文件为空"),
    ("\n\n", "the file is empty", "文件为空"),
    ("#!/bin/bash\n# only comments\nMODEL=/models/x\n", "it runs no command", "其中没有任何命令"),
])
def test_a_file_without_commands_says_what_it_holds(tmp_path, text, en, zh):
    path = tmp_path / "run.sh"
    path.write_text(text)
    result = run([str(path)])
    assert result.exit_code == 0 and f"note: {path}: no engine command (vllm serve) was read here; {en}\n" in result.output
    assert f"{path}：这里没有读到推理引擎命令（vllm serve）；{zh}\n" in run([str(path), "--lang", "zh"]).output


@pytest.mark.parametrize("kind", ["fifo", "device", "loop", "directory-file"])
def test_special_files_are_refused_with_exit_2(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "pipe.sh"
        os.mkfifo(path)
        needle = "FIFO"
    elif kind == "device":
        path, needle = "/dev/zero", "device"
    elif kind == "loop":
        path = tmp_path / "a.sh"
        os.symlink(tmp_path / "b.sh", path)
        os.symlink(path, tmp_path / "b.sh")
        needle = "symlink loop"
    else:
        path = tmp_path / "x.sh"
        path.write_text(FAULTY)
        path = str(path) + "/"
        needle = "error"
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("r", run([str(path)])), daemon=True)
    worker.start()
    worker.join(20)
    assert "r" in outcome, "qlint blocked on a special file"
    result = outcome["r"]
    assert result.exit_code == 2, result.output
    assert needle in result.output and "no problems" not in result.output and "Traceback" not in result.output


def test_stdin_read_is_bounded():
    done = subprocess.run([sys.executable, "-c", "from qlint.linter.cli import entry; entry()", "-"],
                          stdin=open("/dev/zero", "rb"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "larger than" in done.stderr


def test_read_returns_at_most_one_byte_over_the_limit(tmp_path):
    from qlint.linter.source import MAX_BYTES

    big = tmp_path / "big.sh"
    big.write_bytes(b"#" * (MAX_BYTES * 2))
    assert len(read(str(big))) == MAX_BYTES + 1


def test_a_file_that_grew_after_its_size_was_taken_is_read_whole_up_to_the_limit(tmp_path):
    from qlint.linter.cli_inputs import read_bounded
    from qlint.linter.source import MAX_BYTES

    grown = tmp_path / "grown.sh"
    grown.write_bytes(b"echo hi\n" * 1000)
    with grown.open("rb") as handle:
        assert read_bounded(handle, size=10) == grown.read_bytes()  # told 10 bytes: reads on to the end
    with grown.open("rb") as handle:
        assert read_bounded(handle) == grown.read_bytes()
    grown.write_bytes(b"#" * (MAX_BYTES + 50))
    with grown.open("rb") as handle:
        assert len(read_bounded(handle, size=10)) == MAX_BYTES + 1
    empty = tmp_path / "empty.sh"
    empty.write_bytes(b"")
    assert read(str(empty)) == b""


def test_json_reports_input_errors_in_its_own_shape(tmp_path):
    good = tmp_path / "ok.sh"
    good.write_text(FAULTY)
    result = run([str(good), str(tmp_path / "missing.sh"), "--format", "json"])
    assert result.exit_code == 2
    items = json.loads(result.stdout)
    errors = [item for item in items if item["name"] == "input-error"]
    assert [e["path"] for e in errors] == [str(tmp_path / "missing.sh")] and errors[0]["rule"] is None
    assert any(item["rule"] == "QL203" for item in items)


@pytest.mark.parametrize("text", [
    "[project\nname = 'x'\n[tool.qlint]\nselect = ['QL2']\n",
    "[project]\nname = 'x'\n[ tool . \"qlint\" ]\nselect = ['QL2'\n",
    "[project\ntool.qlint.select = ['QL2']\n",
    "tool = { qlint = { select = ['QL2'] }\n",
    "[tool]\nqlint.select = ['QL2']\n[project\n",
    "[tool] # tools\n'qlint' = {select = ['QL2']}\n[project\n",
    "[project\nname = 'x'\n[tool.\"\\u0071lint\"]\n",
])
def test_broken_pyproject_that_may_configure_qlint_is_a_configuration_error(tmp_path, text):
    (tmp_path / "pyproject.toml").write_text(text)
    script = tmp_path / "run.sh"
    script.write_text(FAULTY)
    result = run([str(script)])
    assert result.exit_code == 2 and "pyproject.toml:" in result.output and "invalid TOML" in result.output


@pytest.mark.parametrize("text", [
    "[project\nname = 'x'\n",
    "[project]\nname = 'qlint-plugin'\n[tool.setuptools.package-dir]\n\"qlint\" = \"src\"\n[broken\n",
])
def test_broken_pyproject_that_cannot_configure_qlint_is_passed_over(tmp_path, text):
    (tmp_path / "pyproject.toml").write_text(text)
    script = tmp_path / "run.sh"
    script.write_text(FAULTY)
    result = run([str(script)])
    assert result.exit_code == 1 and "QL203" in result.output and "pyproject.toml" not in result.output


@pytest.mark.parametrize("text", [
    "[tool.qlint]\nselect = ['QL2']\n",
    "[ 'tool' . \"qlint\" ] # ours\nselect = ['QL2']\n",
    "tool.qlint.select = ['QL2']\n",
    "tool = { qlint = { select = ['QL2'] } }\n",
    "[tool]\nqlint = { select = ['QL2'] }\n",
    "[tool]\n\"qlint\".select = ['QL2']\n",
    "[tool.\"\\u0071lint\"]\nselect = ['QL2']\n",
    "[project]\nname = 'x'\n[tool.other]\nx = 1\n[tool.qlint.severity]\nQL203 = 'info'\n",
])
def test_every_spelling_of_the_qlint_table_is_read(tmp_path, text):
    from qlint.linter.config import _may_have_qlint_table, find_config_file

    (tmp_path / "pyproject.toml").write_text(text)
    assert _may_have_qlint_table(text) and find_config_file(tmp_path) == tmp_path / "pyproject.toml"


def test_a_pyproject_without_the_qlint_table_is_not_parsed():
    from qlint.linter.config import _may_have_qlint_table

    text = ("[project]\nname = 'qlint-ascend'\ndependencies = [\n  ['qlint'],\n]\n"
            "[tool.setuptools.package-dir]\n\"qlint\" = \"qlint\"\n\"qlint.rules\" = \"rules\"\n")
    assert not _may_have_qlint_table(text)


def _console(args, **kwargs):
    return subprocess.run([sys.executable, "-c", "from qlint.linter.cli import entry; entry()", *args],
                          capture_output=True, text=True, timeout=60, **kwargs)


def test_full_disk_is_exit_2_with_a_message(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(FAULTY)
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", "from qlint.linter.cli import entry; entry()", str(script)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2 and "cannot write the output" in done.stderr and "Traceback" not in done.stderr


def test_output_the_encoding_cannot_carry_is_escaped(tmp_path):
    script = tmp_path / "运行.sh"
    script.write_text(FAULTY)
    done = _console([str(script)], env={**os.environ, "PYTHONIOENCODING": "latin-1"})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "\\u8fd0" in done.stdout


def test_sigint_exits_130(tmp_path):
    code = ("import signal, os\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, even when started in the background\n"
            "from qlint.linter import cli_check\n"
            "real = cli_check.analyse\n"
            "def interrupted(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    return real(*a, **k)\n"
            "cli_check.analyse = interrupted\n"
            "from qlint.linter.cli import entry\n"
            "entry()\n")
    script = tmp_path / "run.sh"
    script.write_text(FAULTY)
    done = subprocess.run([sys.executable, "-c", code, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and "interrupted" in done.stderr and "Traceback" not in done.stderr


# --fix never loses data


def _fixable(tmp_path):
    path = tmp_path / "run.sh"
    path.write_text(FIXABLE)
    return path


def test_fix_refuses_a_file_changed_since_it_was_read(tmp_path, monkeypatch):
    path = _fixable(tmp_path)
    real = fixer.fix_bytes

    def editor_saves_meanwhile(*args, **kwargs):
        outcome = real(*args, **kwargs)
        path.write_text(FIXABLE + "# saved by an editor\n")
        return outcome

    monkeypatch.setattr(fixer, "fix_bytes", editor_saves_meanwhile)
    result = run(["--fix", str(path)])
    assert "changed since qlint read it" in result.output and result.exit_code == 2
    assert path.read_text().endswith("# saved by an editor\n")
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]


def test_fix_keeps_mode_and_applies(tmp_path):
    path = _fixable(tmp_path)
    path.chmod(0o754)
    result = run(["--fix", str(path)])
    assert "fixed" in result.output, result.output
    assert path.read_text() != FIXABLE and oct(path.stat().st_mode & 0o777) == oct(0o754)


def test_fix_refuses_hard_links_and_read_only_files(tmp_path):
    path = _fixable(tmp_path)
    os.link(path, tmp_path / "other-name.sh")
    with pytest.raises(WriteRefused, match="hard links"):
        write_atomic(str(path), b"new\n", original=path.read_bytes())
    os.unlink(tmp_path / "other-name.sh")
    path.chmod(0o444)
    with pytest.raises(WriteRefused, match="read-only"):
        write_atomic(str(path), b"new\n", original=path.read_bytes())
    assert path.read_text() == FIXABLE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


def test_fix_keeps_owner_and_group(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another owner")
    path = _fixable(tmp_path)
    os.chown(path, 1234, 5678)
    write_atomic(str(path), b"new\n", original=path.read_bytes())
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (1234, 5678) and path.read_bytes() == b"new\n"


def test_fix_converges_on_both_prefix_caching_spellings_with_a_decode_connector(tmp_path):
    """Turning prefix caching off makes the switch a redundant default; one --fix run must reach the
    point where a second changes nothing (it once needed two runs)."""
    path = tmp_path / "run_d.sh"
    path.write_text(
        "#!/bin/bash\n# qlint: hardware=a3 vllm-ascend=v0.23.0\n"
        "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 \\\n"
        "  --enable-prefix-caching --enable_prefix_caching \\\n"
        "  --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", "
        "\"kv_port\": \"36000\", \"kv_connector_extra_config\": {\"prefill\": {\"dp_size\": 1, \"tp_size\": 2}, "
        "\"decode\": {\"dp_size\": 1, \"tp_size\": 2}}}'\n")
    first = run(["--fix", str(path)])
    assert "fixed" in first.output, first.output
    once = path.read_text()
    assert "enable_prefix_caching" not in once and "--enable-prefix-caching" not in once
    second = run(["--fix", str(path)])
    assert path.read_text() == once and "fixed" not in second.output, second.output


def test_real_path_is_os_path_realpath(tmp_path, monkeypatch):
    from qlint.linter.cli_inputs import real_path

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "run.sh").write_text("echo\n")
    (tmp_path / "link").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "a" / "b" / "alias.sh").symlink_to(tmp_path / "a" / "b" / "run.sh")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "a" / "up").symlink_to("..")
    monkeypatch.chdir(tmp_path / "a")
    paths = ["b/run.sh", "b/alias.sh", "../link/run.sh", "../link/../b/run.sh", "run.sh", "b/missing.sh",
             "../loop1/x.sh", "../loop1", "b/./run.sh", "b/..", "b/", "up/b/run.sh", "up/up/a/b/run.sh",
             str(tmp_path / "link" / "alias.sh"), str(tmp_path / "link" / ".." / "a" / "b" / "run.sh")]
    for _ in range(2):  # the second time from the folders kept
        assert [real_path(path) for path in paths] == [os.path.realpath(path) for path in paths]
        monkeypatch.chdir(tmp_path / "a" / "b")  # relative folders are read from the current folder
