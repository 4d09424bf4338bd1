"""Robustness: qlint never crashes on what it reads and never runs it.

* fuzzing (hypothesis, bounded by the ``ci`` profile): arbitrary bytes and text through the
  library and through the CLI give exit 0/1/2 with a located message, never a traceback;
  ``benchmarks/fuzz.py`` runs the same checks over 100k+ inputs outside the suite;
* hard inputs, each exit 2 with ``path:line:col`` or a finding with a location: empty, 10 MB,
  UTF-16, NUL in the middle, CRLF, BOM, unbalanced quotes of every kind, unterminated
  heredocs and substitutions, deeply nested ``$(...)``, invalid JSON in every JSON flag
  (the basic cases -- ELF binary, Latin-1, one unterminated quote, 8 MiB, a bad
  kv-transfer-config -- are in test_cli.py and test_shell.py);
* no execution: scripts that would create a file or call out, whatever their shape, are
  linted (and fixed) through the CLI with every process-spawning function patched to fail
  and with fake ``bash``/``touch``/... first on PATH; no file appears.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, strategies as st

from qlint.linter.lint import lint_bytes, lint_text

from conftest import invoke as run

import qlint.testing as qt

shell_text = qt.shell_texts()

LOCATED = re.compile(r":(\d+):(\d+): ")


def _check_cli(result, path: str):
    """Exit 0/1/2, no traceback; exit 2 names path:line:col; findings are located."""
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert re.search(re.escape(path) + r":\d+:\d+: error: ", result.output), result.output
    if result.exit_code == 1 and result.output.startswith("["):  # --format json
        items = json.loads(result.stdout)
        assert items and all(i["path"] == path and i["line"] >= 1 and i["column"] >= 1 for i in items)
    elif result.exit_code == 1:
        assert re.search(re.escape(path) + r":\d+:\d+: (error|warning|info) QL\d{3} ", result.output), result.output


def _check_library(data: bytes):
    result = lint_bytes("f.sh", data)
    if result.error is not None:
        assert result.error.line >= 1 and result.error.column >= 1 and result.error.message
    else:
        for finding in result.findings:
            assert finding.span.line >= 1 and finding.span.column >= 1
    return result


# -- fuzzing ---------------------------------------------------------------------------------

@given(st.binary(max_size=600))
@example(b"\xef\xbb\xbf")                       # a BOM and nothing else
@example(b"\\")                                 # a lone continuation at the end of the file
@example(b"vllm serve m \\\r\n")                # CRLF continuation into EOF
@example(b"$(" * 300)                           # unterminated, deeply nested substitutions
def test_library_never_raises_on_bytes(data):
    _check_library(data)


@given(st.one_of(shell_text, st.text(max_size=300)))
@example("cat <<EOF\nno end")
# found by benchmarks/fuzz.py (TypeError in QL204, IndexError in the planner):
@example("export ASCEND_RT_VISIBLE_DEVICES=0,1\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 "
         "--data-parallel-size-local\n")
@example("python launch_online_dp.py --dp-size 8 --tp-size 2 --dp-size-local\n")
@example("# qlint: hardware=A3 vllm-ascend=main\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8\n")
@example("vllm serve m --compilation-config '{\"cudagraph_capture_sizes\": [1,'\n")
def test_library_never_raises_on_text(text):
    _check_library(text.encode("utf-8", "surrogatepass"))


@given(st.one_of(st.binary(max_size=300), shell_text.map(str.encode)))
def test_cli_never_tracebacks(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "f.sh"
    path.write_bytes(data)
    _check_cli(run([str(path), "--vllm-ascend-version", "v0.23.0"]), str(path))
    _check_cli(run(["-", "--format", "json"], stdin=data), "<stdin>")


# -- hard inputs ---------------------------------------------------------------------------------

BAD_JSON = "'{\"a\": 1,,}'"
JSON_FLAGS = ["--speculative-config", "--compilation-config", "--additional-config", "--kv-transfer-config",
              "--speculative_config", "--hf-overrides"]


@pytest.mark.parametrize("name,content,exit_code,needle", [
    ("empty", b"", 0, "no problems"),
    ("only-bom", b"\xef\xbb\xbf", 0, "no problems"),
    ("utf16", "vllm serve m\n".encode("utf-16"), 2, "UTF-16 text; qlint reads UTF-8"),
    ("nul-middle", b"echo a\necho b\x00c\n", 2, ":2:7: error: binary"),
    ("latin1-line3", b"echo a\necho b\n# caf\xe9\n", 2, ":3:6: error: not valid UTF-8"),
    ("overlong-utf8", b"echo \xc0\xaf\n", 2, "not valid UTF-8"),
    ("double-quote", b'vllm serve m --host "0.0.0.0\n', 2, "unterminated quote \""),
    ("backtick", b"vllm serve m --host `hostname\n", 2, "error:"),
    ("substitution", b"vllm serve $(ls --port 1\n", 2, "error:"),
    ("parameter", b"vllm serve ${MODEL --port 1\n", 2, "error:"),
    ("heredoc", b"cat <<EOF\nvllm serve m\n", 1, ":1:7: warning QL110 [unterminated-heredoc]"),
    ("arithmetic", b"x=$((1 +\n", 2, "error:"),
    # found by benchmarks/fuzz.py: these raised InvalidVersion / KeyError / RecursionError
    ("directive-version", b"# qlint: vllm-ascend=v0.18.0`rc1\nvllm serve m\n", 2, ":1:22: error: '# qlint: vllm-ascend="),
    ("directive-hardware", b"# qlint: hardware=h100 vllm-ascend=v0.23.0\nvllm serve m\n", 2, ":1:19: error: "),
    ("long-json-int", b"vllm serve m --compilation-config '{\"max_cudagraph_capture_size\": " + b"9" * 4400 + b"}'\n",
     1, ":1:35: error QL101 [invalid-json-in-config-flag] invalid JSON in --compilation-config: a number too long"),
    ("long-json-int-kv", b"vllm serve m --kv-transfer-config '{\"kv_port\": " + b"1" * 5000 + b"}'\n",
     1, "invalid JSON in --kv-transfer-config: a number too long"),
    ("deep-json", b"vllm serve m --compilation-config '" + b"[" * 5000 + b"]" * 5000 + b"'\n", 1,
     ":1:35: error QL101 [invalid-json-in-config-flag] invalid JSON in --compilation-config: nested too deeply"),
])
def test_hard_inputs(tmp_path, name, content, exit_code, needle):
    path = tmp_path / f"{name}.sh"
    path.write_bytes(content)
    result = run([str(path)])
    _check_cli(result, str(path))
    assert result.exit_code == exit_code, result.output
    assert needle in result.output


def test_ten_megabytes_refused_from_file_and_stdin(tmp_path):
    data = b"vllm serve m --port 8000\n" * (10 * 1024 * 1024 // 25 + 1)
    path = tmp_path / "ten.sh"
    path.write_bytes(data)
    for args, stdin, shown in (([str(path)], None, str(path)), (["-"], data, "<stdin>")):
        result = run(args, stdin)
        assert result.exit_code == 2 and f"{shown}:1:1: error: input is larger than 5242880 bytes" in result.output


def test_scripts_near_the_size_limit_are_linted_with_locations():
    """Just under the 5 MiB limit: a 4.9 MB comment line, a 2 MB line of wide characters,
    a 0.8 MB JSON value; linted in well under a second each, findings located."""
    serve = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3\n"
    for head in ("# " + "x" * 4_900_000 + "\n", "# 中文 " + "é" * 2_000_000 + "\n"):
        findings = lint_text("big.sh", head + serve).findings
        assert [(f.rule.id, f.span.line, f.span.column) for f in findings] == [("QL206", 2, 83)]
    sizes = ", ".join(str(4 * i) for i in range(1, 100_000))
    text = serve.replace("--tensor", f"--compilation-config '{{\"cudagraph_capture_sizes\": [{sizes}]}}' --tensor")
    found = {f.rule.id: f.span for f in lint_text("json.sh", text).findings}
    assert found["QL206"].column == len(text) - 1


def test_many_commands_scale_linearly():
    serve = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3\n"
    findings = lint_text("many.sh", serve * 2000).findings
    assert [f.span.line for f in findings if f.rule.id == "QL206"] == list(range(1, 2001))


def test_crlf_findings_point_at_the_right_place(tmp_path):
    path = tmp_path / "crlf.sh"
    path.write_bytes(b"#!/bin/bash\r\n# \xe4\xb8\xad\xe6\x96\x87\r\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 \\\r\n"
                     b"  --quantization ascend --tensor-parallel-size 3\r\n")
    result = run([str(path), "--select", "QL206", "--vllm-ascend-version", "v0.23.0"])
    assert result.exit_code == 1
    assert f"{path}:4:48: error QL206" in result.output


def test_crlf_script_is_reported_once_and_fixed_to_lf_but_guides_are_not(tmp_path):
    """bash does not read ``\\`` + CR as a continuation (QL111); ``--fix`` makes every ending LF and
    nothing else changes; a guide's or manifest's commands are not read by bash, so no QL111 there."""
    lf = (b"#!/bin/bash\nexport HCCL_BUFFSIZE=512\n\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 \\\n"
          b"  --quantization ascend --port 8000\n")
    script = tmp_path / "run.sh"
    script.write_bytes(lf.replace(b"\n", b"\r\n"))
    result = run([str(script), "--select", "QL111", "--vllm-ascend-version", "v0.23.0"])
    assert result.exit_code == 1
    assert result.output.count("QL111") == 1 and f"{script}:4:38: error QL111" in result.output
    fixed = run([str(script), "--select", "QL111", "--fix", "--vllm-ascend-version", "v0.23.0"])
    assert fixed.exit_code == 0 and script.read_bytes() == lf
    guide = tmp_path / "guide.md"
    guide.write_bytes(b"```bash\r\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 \\\r\n  --port 8000\r\n```\r\n")
    assert "QL111" not in run([str(guide), "--select", "QL111"]).output


def test_nested_substitutions_stay_symbolic_at_any_depth():
    for depth in (1, 10, 100, 1000):
        text = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size " + "$(echo " * depth + "3" + ")" * depth + "\n"
        result = lint_text("n.sh", text)
        if result.error is not None:  # too deep to read: a located input error, not a crash
            assert result.error.line >= 1
            continue
        assert "QL206" not in {f.rule.id for f in result.findings}  # never evaluated to 3


@pytest.mark.parametrize("flag", JSON_FLAGS)
def test_invalid_json_in_every_json_flag_is_located(tmp_path, flag):
    path = tmp_path / "run.sh"
    path.write_text(f"vllm serve m \\\n  {flag} {BAD_JSON}\n")
    result = run(["--format", "json", str(path)])
    items = [i for i in json.loads(result.stdout) if i["rule"] == "QL101"]
    assert len(items) == 1 and items[0]["line"] == 2
    assert items[0]["column"] == len(f"  {flag} '{{\"a\": 1,") + 1  # the second comma


# -- never executed ------------------------------------------------------------------------------

def _hostile_scripts(marker: Path) -> dict[str, str]:
    m = str(marker)
    sourced = marker / "sourced.sh"
    sourced.write_text(f"touch {m}/sourced\n")
    return {
        "plain.sh": f"touch {m}/plain\n",
        "substitution.sh": f"echo $(touch {m}/subst)\nX=$(touch {m}/assign)\n",
        "backticks.sh": f"echo `touch {m}/backtick`\n",
        "eval.sh": f"eval \"touch {m}/eval\"\n",
        "source.sh": f"source {sourced}\n. {sourced}\n",
        "procsub.sh": f"source <(echo touch {m}/procsub)\ncat <(touch {m}/procsub2) >(touch {m}/procsub3)\n",
        "heredoc.sh": f"bash <<EOF\ntouch {m}/heredoc\nEOF\nsh -c 'touch {m}/shc'\n",
        "trap.sh": f"trap 'touch {m}/trap' EXIT\ntrap 'touch {m}/err' ERR\n",
        "prompt.sh": f"export PROMPT_COMMAND='touch {m}/prompt'\nexport BASH_ENV={sourced}\n",
        "serve.sh": (f"#!/bin/bash\nexport MODEL=$(touch {m}/model; echo Eco-Tech/Qwen3.6-27B-w8a8)\n"
                     f"vllm serve $MODEL --tensor-parallel-size $(touch {m}/tp; echo 3) \\\n"
                     f"  --host \"$(touch {m}/host)\" --port ${{PORT:=$(touch {m}/port)}} \\\n"
                     f"  --max-model-len $(( $(touch {m}/arith) + 1 )) \\\n"
                     f"  --speculative-config \"$(touch {m}/json)\" --max-num-seqs 257\n"),
        "python.sh": f"python -c \"open('{m}/python', 'w')\"\npython3 launch_online_dp.py --dp-size $(touch {m}/dp)\n",
        "functions.sh": f"f() {{ touch {m}/function; }}\nf\nalias x='touch {m}/alias'\nx\n",
        "redirects.sh": f"echo hi > {m}/redirect\necho hi >> {m}/append\nexec 3> {m}/exec\n",
        "docker.sh": f"docker run --rm quay.io/ascend/vllm-ascend:v0.23.0-a3 touch {m}/docker\n",
    }


def _forbid_spawning(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"qlint tried to run a process: {args[:2]!r}")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    for name in ("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "execv", "execve",
                 "execvp", "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnvp",
                 "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse)
    import pty

    monkeypatch.setattr(pty, "spawn", refuse)


def test_lint_never_runs_script_content(tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    marker.mkdir()
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    for name, text in _hostile_scripts(marker).items():
        (scripts / name).write_text(text)
    before = sorted(marker.iterdir())
    monkeypatch.chdir(marker)
    _forbid_spawning(monkeypatch)
    for args in ([str(scripts)], ["--format", "sarif", str(scripts)], ["--fix", str(scripts)],
                 ["--diff", str(scripts)],
                 ["--launcher", f"python launch_online_dp.py --dp-size $(touch {marker}/launcher)", str(scripts)]):
        result = run(args)
        assert result.exit_code in (0, 1, 2), result.output  # 2: the launcher's --dp-size is not a number
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    for name, text in _hostile_scripts(marker).items():
        result = run(["-"], stdin=text)
        assert result.exit_code in (0, 1)
    assert sorted(marker.iterdir()) == before


def test_installed_command_never_runs_script_content(tmp_path):
    """The real console script, with fake bash/sh/touch/... first on PATH and BASH_ENV set:
    any of them running would leave a file behind."""
    marker = tmp_path / "marker"
    marker.mkdir()
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for tool in ("bash", "sh", "touch", "vllm", "python", "python3", "curl", "docker", "cat", "echo", "eval"):
        fake = fake_bin / tool
        fake.write_text(f"#!/bin/sh\n: > {marker}/ran-{tool}\n")
        fake.chmod(0o755)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    for name, text in _hostile_scripts(marker).items():
        (scripts / name).write_text(text)
    before = sorted(marker.iterdir())
    env = {**os.environ, "PATH": f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}",
           "BASH_ENV": str(marker / "sourced.sh"), "ENV": str(marker / "sourced.sh")}
    completed = subprocess.run([sys.executable, "-m", "qlint.linter.cli", str(scripts)], cwd=marker, env=env,
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode in (0, 1), completed.stderr
    assert "Traceback" not in completed.stderr
    assert sorted(marker.iterdir()) == before
