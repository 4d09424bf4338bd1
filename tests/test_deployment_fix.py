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
    folder = pd_tree(tmp_path)
    for args in ([str(folder)], ["--diff", str(folder)], ["--diff", "--unsafe-fixes", str(folder)]):
        lines = fix_lines(run(args).output)
        assert lines == ["fix (unsafe, by hand): use --served-model-name qwen3.6 on every engine"], (args, lines)
    zh = fix_lines(run(["--lang", "zh", str(folder)]).output)
    assert zh == ["修复（不安全，需手动修改）：所有引擎都使用 --served-model-name qwen3.6"]
    assert not any("--unsafe-fixes" in line for line in zh)


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
