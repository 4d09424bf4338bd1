"""Deployment fixes (QL610-QL617) and ``qlint --fix``: what the report says about them."""

from __future__ import annotations

import json

from conftest import invoke as run, write_file as write

from qlint.rules.pd_deployment import _engine

HEAD = "# qlint: hardware=a2\n"


def pd_tree(tmp_path, decode_name="qwen"):
    """A prefill and a decode node whose decode engine serves another model name (QL611, unsafe fix)."""
    folder = tmp_path / "pd"
    write(folder, "run_p.sh", HEAD + _engine("kv_producer", 8100, extra="--quantization ascend "))
    write(folder, "run_d.sh", HEAD + _engine("kv_consumer", 8200, name=decode_name, extra="--quantization ascend "))
    return folder


def fix_lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.startswith("  fix") or line.startswith("  修复")]


def test_a_deployment_fix_the_flags_do_not_apply_is_labelled_by_hand(tmp_path):
    folder = peer_size_tree(tmp_path)
    # run_d.sh is read for --with-deployment but not given: --fix never rewrites it
    named = str(folder / "run_p.sh")
    for args in ([named], ["--diff", named], ["--diff", "--unsafe-fixes", named]):
        lines = fix_lines(run(["--with-deployment"] + args).output)
        assert "fix (by hand): set kv_connector_extra_config.prefill.tp_size to 2" in lines, (args, lines)
    lines = fix_lines(run(["--with-deployment", named]).output)
    assert "fix: set kv_connector_extra_config.decode.tp_size to 2" in lines  # the named file's: --fix applies it
    zh = fix_lines(run(["--lang", "zh", "--with-deployment", named]).output)
    assert "修复（需手动修改）：将 kv_connector_extra_config.prefill.tp_size 设为 2" in zh, zh


def test_a_deployment_fix_the_flags_apply_names_the_flag(tmp_path):
    folder = pd_tree(tmp_path)
    lines = fix_lines(run([str(folder)]).output)
    assert lines == ["fix (unsafe, --unsafe-fixes): use --served-model-name qwen3.6 on every engine"]
    zh = fix_lines(run(["--lang", "zh", str(folder)]).output)
    assert zh == ["修复（不安全，需 --unsafe-fixes）：所有引擎都使用 --served-model-name qwen3.6"]


def test_a_files_own_unsafe_fix_still_names_the_flag(tmp_path):
    path = write(tmp_path, "run.sh", "# qlint: hardware=a3\nvllm serve Qwen/Qwen3.6-27B --speculative-config "
                 "'{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n")
    lines = fix_lines(run([path]).output)
    assert any(line.startswith("fix (unsafe, --unsafe-fixes)") for line in lines), lines
    assert not any("by hand" in line for line in lines)


def test_the_json_report_keeps_the_deployment_fix_edits(tmp_path):
    folder = pd_tree(tmp_path)
    findings = json.loads(run(["--format", "json", str(folder)]).output)
    served = [f for f in findings if f["rule"] == "QL611"]
    assert len(served) == 1 and served[0]["fix"]["applicable"] and served[0]["fix"]["safety"] == "unsafe"


# --fix / --unsafe-fixes over a deployment ---------------------------------------------------------

def peer_size_tree(tmp_path):
    """Each side states the other's TP as 4 while both run TP 2: QL610 (safe) in both files."""
    folder = tmp_path / "sizes"
    prefill = HEAD + _engine("kv_producer", 8100, decode_tp=4, extra="--quantization ascend ")
    decode = HEAD + _engine("kv_consumer", 8200, extra="--quantization ascend ").replace(
        '"prefill": {"tp_size": 2', '"prefill": {"tp_size": 4')
    write(folder, "run_p.sh", prefill)
    write(folder, "run_d.sh", decode)
    return folder


def contents(folder):
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def rules(output: str) -> list[str]:
    return [line.split()[2] for line in output.splitlines() if line.startswith("/") and " QL" in line]


def test_unsafe_fixes_apply_a_served_name_fix_in_the_other_node_and_change_only_that_token(tmp_path):
    folder = pd_tree(tmp_path)
    before = contents(folder)
    out = run(["--fix", "--unsafe-fixes", str(folder)])
    assert out.exit_code == 0, out.output
    after = contents(folder)
    assert after["run_p.sh"] == before["run_p.sh"]
    assert after["run_d.sh"] == before["run_d.sh"].replace(b"--served-model-name qwen ", b"--served-model-name qwen3.6 ")
    assert after["run_d.sh"] != before["run_d.sh"]
    assert "QL611" not in rules(out.output)
    again = run([str(folder)])
    assert again.exit_code == 0 and rules(again.output) == [], again.output  # the tree is clean
    assert not [p for p in folder.iterdir() if p.name.endswith(".qlint")]


def test_fix_without_unsafe_fixes_leaves_an_unsafe_deployment_fix_and_names_the_flag(tmp_path):
    folder = pd_tree(tmp_path)
    before = contents(folder)
    out = run(["--fix", str(folder)])
    assert out.exit_code == 1 and contents(folder) == before
    assert fix_lines(out.output) == ["fix (unsafe, --unsafe-fixes): use --served-model-name qwen3.6 on every engine"]


def test_fix_applies_safe_deployment_fixes_in_both_files(tmp_path):
    folder = peer_size_tree(tmp_path)
    before = contents(folder)
    assert rules(run([str(folder)]).output).count("QL610") == 2
    out = run(["--fix", str(folder)])
    assert out.exit_code == 0, out.output
    after = contents(folder)
    assert after["run_p.sh"] == before["run_p.sh"].replace(b'"decode": {"tp_size": 4', b'"decode": {"tp_size": 2')
    assert after["run_d.sh"] == before["run_d.sh"].replace(b'"prefill": {"tp_size": 4', b'"prefill": {"tp_size": 2')
    assert "fixed 1 deployment problem(s)" in out.output
    assert rules(run([str(folder)]).output) == []


def test_diff_shows_the_deployment_fix_and_writes_nothing(tmp_path):
    folder = pd_tree(tmp_path)
    before = contents(folder)
    out = run(["--diff", "--unsafe-fixes", str(folder)])
    assert out.exit_code == 1 and contents(folder) == before
    assert "-vllm serve" in out.output and "+vllm serve" in out.output and "--served-model-name qwen3.6 " in out.output
    assert "QL611" not in rules(out.output)  # what would be left


def test_a_refused_second_file_leaves_both_files_unchanged(tmp_path):
    folder = peer_size_tree(tmp_path)
    before = contents(folder)
    (folder / "run_p.sh").chmod(0o444)
    out = run(["--fix", str(folder)])
    assert out.exit_code == 2
    assert "cannot write the deployment's fixes" in out.output and "read-only" in out.output
    assert contents(folder) == before
    assert not [p for p in folder.iterdir() if p.name.endswith(".qlint")]
    assert "Traceback" not in out.output


def test_a_failed_rename_of_the_second_file_puts_the_first_back(tmp_path, monkeypatch):
    import os

    folder = peer_size_tree(tmp_path)
    before = contents(folder)
    real = os.replace
    calls = []

    def replace(source, target):
        calls.append(target)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(source, target)

    monkeypatch.setattr(os, "replace", replace)
    out = run(["--fix", str(folder)])
    assert out.exit_code == 2 and "No space left on device" in out.output
    assert contents(folder) == before
    assert not [p for p in folder.iterdir() if p.name.endswith(".qlint")]


def test_with_deployment_rewrites_only_the_named_file(tmp_path):
    folder = peer_size_tree(tmp_path)
    before = contents(folder)
    out = run(["--fix", "--with-deployment", str(folder / "run_p.sh")])
    after = contents(folder)
    assert after["run_d.sh"] == before["run_d.sh"]  # read, not given
    assert after["run_p.sh"] == before["run_p.sh"].replace(b'"decode": {"tp_size": 4', b'"decode": {"tp_size": 2')
    assert fix_lines(out.output) == ["fix (by hand): set kv_connector_extra_config.prefill.tp_size to 2"]
