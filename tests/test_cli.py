"""The command line: exit codes, formats, the JSON contract, bad input, rules/explain."""

import json
import subprocess
import sys

import pytest


from conftest import FIXTURES, invoke as run, write_file as write

BAD = "#!/bin/bash\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 3\n"
CLEAN = "#!/bin/bash\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend\n"
CONTRACT = {"path", "line", "column", "end_line", "end_column", "rule", "name", "severity",
            "message", "fix", "sources", "faq"}


def test_findings_exit_1_and_text_format(tmp_path):
    path = write(tmp_path, "run.sh", BAD)
    result = run([path, "--vllm-ascend-version", "v0.23.0"])
    assert result.exit_code == 1
    line = next(l for l in result.output.splitlines() if "QL206" in l)
    assert line.startswith(f"{path}:2:61: error QL206 [tp-divides-heads] ")
    after = result.output.split("QL206", 1)[1].splitlines()
    assert any(l.startswith("  advice: use a TP size") for l in after[:5])  # --fix cannot choose a TP
    assert "  fix: add --quantization ascend" in result.output  # QL508: --fix adds it


def test_zh_text_report_names_severities_in_chinese(tmp_path):
    path = write(tmp_path, "run.sh", BAD + "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 3  # qlint: disable=QL206 -- test\n")
    result = run([path, "--vllm-ascend-version", "v0.23.0", "--lang", "zh", "--show-suppressed"])
    lines = [line for line in result.output.splitlines() if line.startswith(path)]
    assert lines and all(line.split(" ", 2)[1] in ("错误", "警告", "提示") for line in lines)
    assert any(line.startswith(f"{path}:2:61: 错误 QL206 [tp-divides-heads] ") for line in lines)
    assert any(line.endswith("（已屏蔽：test）") for line in lines)
    english = run([path, "--vllm-ascend-version", "v0.23.0", "--lang", "en", "--show-suppressed"]).output
    assert f"{path}:2:61: error QL206" in english and "(suppressed: test)" in english


def test_clean_script_exits_0(tmp_path):
    path = write(tmp_path, "run.sh", CLEAN)
    result = run([path, "--vllm-ascend-version", "v0.23.0", "--hardware", "a3"])
    assert result.exit_code == 0, result.output
    assert "no problems" in result.output


def test_json_contract(tmp_path):
    path = write(tmp_path, "run.sh", BAD)
    result = run(["--format", "json", path, "--vllm-ascend-version", "v0.23.0"])
    data = json.loads(result.stdout)
    assert data and all(set(item) == CONTRACT for item in data)
    item = next(i for i in data if i["rule"] == "QL206")
    assert (item["line"], item["column"]) == (2, 61)
    assert item["end_column"] == 62
    assert item["severity"] == "error" and item["sources"]
    assert set(item["fix"]) == {"description", "replacement", "applicable", "safety"}
    assert item["fix"]["applicable"] is False  # QL206 advises a TP size; --fix cannot choose one
    assert item["fix"]["safety"] is None  # advice: neither --fix nor --unsafe-fixes applies it
    applied = [i["fix"] for i in data if i["fix"] is not None and i["fix"]["applicable"]]
    assert applied and all(fix["safety"] in ("safe", "unsafe") for fix in applied)


def test_json_empty_array_when_clean(tmp_path):
    path = write(tmp_path, "run.sh", CLEAN)
    result = run(["--format", "json", path, "--vllm-ascend-version", "v0.23.0"])
    assert json.loads(result.stdout) == []


def test_fail_level_error_ignores_warnings(tmp_path):
    path = write(tmp_path, "run.sh", "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend \\\n\n")
    assert run([path, "--vllm-ascend-version", "v0.23.0"]).exit_code == 1
    assert run([path, "--vllm-ascend-version", "v0.23.0", "--fail-level", "error"]).exit_code == 0


def test_stdin(tmp_path):
    result = run(["-", "--vllm-ascend-version", "v0.23.0"], stdin=BAD)
    assert result.exit_code == 1
    assert "<stdin>:2:" in result.output


@pytest.mark.parametrize("content,needle", [
    (b"\x7fELF\x00\x00", "binary"),
    (b"echo caf\xe9\n", "UTF-8"),
    (b"vllm serve m --x '{\"a\": 1}\n", "unterminated"),
])
def test_bad_input_exit_2_with_location(tmp_path, content, needle):
    path = write(tmp_path, "bad.sh", content)
    result = run([path])
    assert result.exit_code == 2
    assert needle in result.output
    assert f"{path}:" in result.output
    assert "Traceback" not in result.output


def test_missing_file_exit_2(tmp_path):
    result = run([str(tmp_path / "nope.sh")])
    assert result.exit_code == 2 and "cannot read" in result.output


def test_huge_file_exit_2(tmp_path):
    path = write(tmp_path, "big.sh", b"# x\n" * (2 * 1024 * 1024))
    result = run([path])
    assert result.exit_code == 2 and "bytes" in result.output


def test_invalid_json_flag_is_a_finding_with_location(tmp_path):
    path = write(tmp_path, "run.sh", "vllm serve m \\\n  --kv-transfer-config '{\"kv_role\": \"kv_consumer\",,}'\n")
    result = run(["--format", "json", path, "--vllm-ascend-version", "v0.23.0"])
    item = next(i for i in json.loads(result.stdout) if i["rule"] == "QL101")
    assert (item["line"], item["column"]) == (2, 51)  # the second comma


def test_directory_walk(tmp_path):
    write(tmp_path, "a.sh", BAD)
    write(tmp_path, "notes.txt", "not a script")
    result = run(["--format", "json", str(tmp_path), "--vllm-ascend-version", "v0.23.0"])
    paths = {item["path"] for item in json.loads(result.stdout)}
    assert paths == {str(tmp_path / "a.sh")}


def test_assumed_version_is_said_once(tmp_path):
    a = write(tmp_path, "a.sh", BAD)
    b = write(tmp_path, "b.sh", BAD)
    result = run([a, b])
    assert result.output.count("assuming v0.23.0") == 1
    assert f"no vllm-ascend version given or found for {a}, {b}; assuming" in result.stderr  # which files
    assert "(assumed" not in result.stdout  # the note says it; findings do not repeat it
    zh = run([a, b, "--lang", "zh"])
    assert zh.output.count("假定") == 1 and "假定" not in zh.stdout and f"{a}, {b} 没有给出" in zh.stderr
    stated = write(tmp_path, "c.sh", "# qlint: vllm-ascend=v0.18.0\n" + BAD)
    assert str(stated) not in run([a, stated]).stderr.split("assuming")[0]  # a file that names its release
    many = [write(tmp_path, f"m{index}.sh", BAD) for index in range(5)]
    assert f"{many[2]} (+2); assuming" in run(many).stderr


def test_rules_and_explain():
    listing = run(["rules"])
    assert listing.exit_code == 0 and "QL201" in listing.output
    zh = run(["rules", "QL201", "--lang", "zh"]).output.split()
    assert zh[:3] == ["QL201", "ep-mixed-with-moe-tp", "错误"] and "专家并行" in zh[4]
    titles = {item["id"]: item["title"] for item in json.loads(run(["rules", "--format", "json", "--lang", "zh"]).stdout)}
    english = {item["id"]: item["title"] for item in json.loads(run(["rules", "--format", "json", "--lang", "en"]).stdout)}
    assert titles.keys() == english.keys() and all(titles[key] != english[key] for key in titles)
    explained = run(["explain", "QL201"])
    assert explained.exit_code == 0
    for heading in ("What it checks", "Why", "Example", "Use instead", "Sources"):
        assert heading in explained.output
    assert run(["explain", "ep-mixed-with-moe-tp", "--lang", "zh"]).exit_code == 0
    assert run(["explain", "QL999"]).exit_code == 2


def test_bad_usage_exit_2():
    assert run(["--hardware", "h100", "x.sh"]).exit_code == 2
    assert run(["--vllm-ascend-version", "banana", "x.sh"]).exit_code == 2


def test_console_script_runs(tmp_path):
    path = write(tmp_path, "run.sh", BAD)
    completed = subprocess.run([sys.executable, "-m", "qlint.linter.cli", path], capture_output=True, text=True)
    assert completed.returncode == 1
    assert "QL206" in completed.stdout


def test_files_on_one_command_line_are_one_deployment():
    seeds = FIXTURES / "seeds"
    names = ["s003_pd_run_p.sh", "s003_pd_run_d0.sh", "s003_pd_run_d1.sh", "s003_pd_proxy.sh"]
    result = run(["--format", "json", "--hardware", "a3", "--vllm-ascend-version", "v0.22.1rc1",
                  *[str(seeds / n) for n in names]])
    rules = {item["rule"] for item in json.loads(result.stdout)}
    assert "QL613" in rules and not rules & {"QL610", "QL611", "QL612", "QL614"}


def test_launcher_option_evaluates_the_template_per_rank():
    template = str(FIXTURES / "seeds" / "s001_pd_decode_template.sh")
    plain = run(["--format", "json", "--vllm-ascend-version", "v0.23.0", template])
    assert "QL208" not in {i["rule"] for i in json.loads(plain.stdout)}  # $3 unknown: no guess
    bound = run(["--format", "json", "--vllm-ascend-version", "v0.23.0", template,
                 "--launcher", "python launch_online_dp.py --dp-size 8 --tp-size 2 --dp-address 10.0.0.2"])
    found = [i for i in json.loads(bound.stdout) if i["rule"] == "QL208"]
    assert len(found) == 1 and "--data-parallel-size 8" in found[0]["message"]


def test_bad_launcher_is_usage_error(tmp_path):
    path = write(tmp_path, "run.sh", CLEAN)
    assert run([path, "--launcher", "python other.py"]).exit_code == 2


def test_diff_prints_fixes_and_writes_nothing(tmp_path):
    text = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --max-model-len 266000 --dtype float16\n"
    path = write(tmp_path, "run.sh", text)
    safe = run([path, "--diff", "--hardware", "a2", "--vllm-ascend-version", "v0.23.0", "-q"])
    assert "-vllm serve" in safe.output and "--dtype bfloat16" in safe.output
    assert "--max-model-len 262144" not in safe.output  # QL301's fix is unsafe
    unsafe = run([path, "--diff", "--unsafe-fixes", "--hardware", "a2", "--vllm-ascend-version", "v0.23.0", "-q"])
    assert "--max-model-len 262144" in unsafe.output
    assert (tmp_path / "run.sh").read_text() == text
    said = run([path, "--diff", "--hardware", "a2", "--vllm-ascend-version", "v0.23.0"])
    assert f"note: {path}: the problems left are reported at the lines of the fixed text" in said.stderr
    assert "the problems left" not in safe.stderr  # -q


def test_unsafe_fixes_need_fix_or_diff(tmp_path):
    path = write(tmp_path, "run.sh", CLEAN)
    assert run([path, "--unsafe-fixes"]).exit_code == 2
    assert run([path, "--fix", "--diff"]).exit_code == 2


def test_generate_writes_a_script_that_lints_clean(tmp_path):
    out = tmp_path / "run.sh"
    result = run(["generate", "--model", "Qwen3.6-27B", "--hardware", "a3", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "--data-parallel-size 8" in out.read_text()
    assert run([str(out)]).exit_code == 0
    as_json = json.loads(run(["generate", "--model", "Qwen3.6-27B", "--hardware", "a3", "--format", "json"]).stdout)
    assert (as_json["tp"], as_json["dp"]) == (2, 8) and as_json["sources"]


def test_generate_refuses_with_reason():
    result = run(["generate", "--model", "Qwen3.5-397B-A17B", "--hardware", "a2", "--bf16"])
    assert result.exit_code == 2 and "needs 32 NPUs by its tutorial" in result.output


def test_explain_log_with_script(tmp_path):
    log = write(tmp_path, "server.log", "INFO starting\n(EngineCore_DP0 pid=7) ValueError: KV transfer 'decode' "
                "config has a conflicting tensor parallel size. Expected 4, but got 8\n")
    script = str(FIXTURES / "cases" / "case-17.sh")
    result = run(["explain", "--log", log, "--script", script, "--lang", "en"])
    assert result.exit_code == 1
    assert "QL601" in result.output and '"tp_size": 4' in result.output
    zh = run(["explain", "--log", log, "--lang", "zh"])
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh.output)
    clean = write(tmp_path, "ok.log", "INFO Application startup complete.\n")
    assert run(["explain", "--log", clean]).exit_code == 0


def test_explain_needs_rule_or_log():
    assert run(["explain"]).exit_code == 2


def test_generate_pd_writes_three_scripts_that_lint_clean_together(tmp_path):
    folder = tmp_path / "pd"
    result = run(["generate", "--model", "Qwen3.6-27B", "--hardware", "a3", "--pd", "1P1D", "-o", str(folder)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["README.md", "proxy.sh", "run_d.sh", "run_p.sh"]
    assert all((folder / n).stat().st_mode & 0o777 == 0o755 for n in names if n.endswith(".sh"))
    assert run([str(folder)]).exit_code == 0
    refused = run(["generate", "--model", "Qwen3.6-27B", "--hardware", "310p", "--pd", "1P1D"])
    assert refused.exit_code == 2 and "not supported" in refused.output


def test_a_file_reached_twice_is_read_once(tmp_path):
    """Named twice, named and under a directory argument, or by a second name (a symlink): one file, one report
    (as ruff reads it), where it is first reached."""
    folder = tmp_path / "deploy"
    folder.mkdir()
    path = write(folder, "run.sh", BAD)
    (tmp_path / "alias.sh").symlink_to(path)
    once = run([path, "--vllm-ascend-version", "v0.23.0"])
    assert once.exit_code == 1 and "1 file(s) checked" in once.output
    for arguments in ([path, path], [str(folder), path], [path, str(folder)], [path, str(tmp_path / "alias.sh")],
                      [str(folder), str(folder)]):
        result = run(arguments + ["--vllm-ascend-version", "v0.23.0"])
        assert result.exit_code == 1, (arguments, result.output)
        assert "1 file(s) checked" in result.output, (arguments, result.output)
        assert result.output.count("QL206") == once.output.count("QL206") == 1, (arguments, result.output)
    two = write(folder, "other.sh", BAD)
    result = run([path, two, path, "--vllm-ascend-version", "v0.23.0"])
    assert "2 file(s) checked" in result.output and result.output.count("QL206") == 2, result.output
