"""Terminal manners (colour, NO_COLOR, --quiet, --statistics, --exit-zero) and --fix."""

import os
import pty
import stat
import subprocess
import sys
from pathlib import Path


from qlint.linter.fixer import MAX_ROUNDS, fix_bytes, write_atomic
from qlint.linter.lint import lint_bytes
from qlint.linter.suppressions import UNUSED_SUPPRESSION
from qlint.rules.base import Edit, Finding, Fix
from qlint.rules.graph import Settings
from qlint.rules.plan import Span

from conftest import invoke as run, write_file

FIXED = ["--hardware", "a3", "--vllm-ascend-version", "v0.23.0"]
TP3 = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3\n"
ANSI = "\033["


def on_tty(args, extra_env):
    """Run qlint with stdout on a pseudo-terminal; return what it printed there."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GITHUB_ACTIONS")}
    env.update(extra_env)
    process = subprocess.Popen([sys.executable, "-m", "qlint.linter.cli", *args], stdout=slave,
                               stderr=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the other side is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_no_color_honoured(tmp_path):
    args = [write_file(tmp_path, "run.sh", TP3), *FIXED, "--select", "QL206", "--quiet"]
    assert ANSI in on_tty(args, {})
    assert ANSI not in on_tty(args, {"NO_COLOR": "1"})
    assert "QL206" in on_tty(args, {"NO_COLOR": "1"})
    piped = run(args)  # CliRunner output is not a terminal
    assert "QL206" in piped.output and ANSI not in piped.output
    assert ANSI in run(args + ["--color", "always"]).output
    assert ANSI not in on_tty(args + ["--color", "never"], {})


def test_quiet_prints_findings_only(tmp_path):
    path = write_file(tmp_path, "run.sh", TP3)
    loud = run([path, "--select", "QL206"])
    assert "assuming" in loud.output and "file(s) checked" in loud.output
    quiet = run([path, "--select", "QL206", "-q"])
    assert quiet.exit_code == 1
    assert "QL206" in quiet.output
    assert "assuming" not in quiet.output and "file(s) checked" not in quiet.output


def test_statistics_counts_per_rule(tmp_path):
    path = write_file(tmp_path, "run.sh", TP3 + TP3 + "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --async-scheduling\n")
    result = run([path, *FIXED, "--select", "QL206,QL513", "--statistics"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["2", "QL206", "[tp-divides-heads]", "error"]
    assert lines[1].split() == ["1", "QL513", "[redundant-setting]", "info"]
    assert not any(line.startswith(path) for line in lines)
    assert run([path, "--statistics", "--format", "json"]).exit_code == 2


def test_exit_zero(tmp_path):
    path = write_file(tmp_path, "run.sh", TP3)
    assert run([path, *FIXED, "--exit-zero"]).exit_code == 0
    assert run([str(tmp_path / "missing.sh"), "--exit-zero"]).exit_code == 2


# -- --fix --------------------------------------------------------------------

FIXABLE = ("#!/bin/bash\r\n"
           "# qlint: disable=QL203 -- stale\r\n"
           "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend \\\r\n"
           "  --async-scheduling \\\r\n"
           "  --tensor-parallel-size 3\r\n")


def test_fix_rewrites_in_place_keeping_mode_bom_and_crlf(tmp_path):
    path = tmp_path / "run.sh"
    path.write_bytes(b"\xef\xbb\xbf" + FIXABLE.encode())
    path.chmod(0o750)
    result = run([str(path), *FIXED, "--select", "QL203,QL206,QL513,QL901", "--fix"])
    assert result.exit_code == 1  # QL206 has no automatic fix and remains
    assert "fixed 2 problem(s)" in result.output
    assert "QL206" in result.output and "QL513" not in result.output and "QL901" not in result.output
    assert path.read_bytes() == (b"\xef\xbb\xbf#!/bin/bash\r\n"
                                 b"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend \\\r\n"
                                 b"  --tensor-parallel-size 3\r\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]  # no temporary file left
    again = run([str(path), *FIXED, "--select", "QL203,QL206,QL513,QL901", "--fix"])
    assert "fixed" not in again.output


def test_fix_leaves_suppressed_findings_alone(tmp_path):
    text = "# qlint: disable=QL513 -- kept for old images\n" \
           "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --async-scheduling\n"
    path = write_file(tmp_path, "run.sh", text)
    run([path, *FIXED, "--fix"])
    assert Path(path).read_text() == text


def test_fix_refuses_stdin():
    assert run(["-", "--fix"], stdin=TP3).exit_code == 2


def _lint_with(extra):
    """A lint function that adds findings made by ``extra(result)`` to the real ones."""
    def lint(data):
        result = lint_bytes("run.sh", data, settings=Settings(hardware="a3", version="v0.23.0"))
        if result.error is None:
            result.findings += extra(result)
        return result
    return lint


def _finding(edit, safety="safe"):
    return Finding(UNUSED_SUPPRESSION, "test", edit.span, fix=Fix("test", [edit], safety), path="run.sh")


def test_fix_rolls_back_when_the_result_does_not_parse():
    data = b"echo hello\n"
    breaking = _lint_with(lambda r: [_finding(Edit(Span(1, 6, 1, 6), "'"))])
    outcome = fix_bytes("run.sh", data, breaking)
    assert outcome.rolled_back and outcome.data is None


def test_fix_rounds_are_bounded_and_unsafe_edits_skipped():
    growing = _lint_with(lambda r: [_finding(Edit(Span(1, 11, 1, 11), " x"))])
    outcome = fix_bytes("run.sh", b"echo hello\n", growing)
    assert outcome.applied == MAX_ROUNDS
    assert outcome.data == b"echo hello" + b" x" * MAX_ROUNDS + b"\n"
    unsafe = _lint_with(lambda r: [_finding(Edit(Span(1, 11, 1, 11), " x"), safety="unsafe")])
    assert fix_bytes("run.sh", b"echo hello\n", unsafe).data is None


def test_write_atomic_follows_symlinks(tmp_path):
    target = tmp_path / "real.sh"
    target.write_text("old\n")
    target.chmod(0o755)
    link = tmp_path / "link.sh"
    link.symlink_to(target)
    write_atomic(str(link), b"new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
