"""What is read together and what is said about what was not read.

- deployments are real: unrelated files named in one call are not cross-checked; files
  that reference each other are; a directory argument is one deployment with its
  subfolders; ``[tool.qlint] deployments`` globs override both; ``--with-deployment``
  (the pre-commit hooks) reads the rest of a changed file's deployment;
- directory arguments pick Markdown and YAML launch files up by content;
- notes: a file with no engine command, no hardware known (one note), an unknown
  ``# qlint:`` directive key (exit 2 with its place), constructs qlint cannot follow (QL109).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from qlint.linter.cli import main
from qlint.linter.lint import lint_text

CROSS_FILE = {"QL610", "QL611", "QL612", "QL613", "QL614"}


def run(args):
    return CliRunner().invoke(main, args)


def _json(result) -> list[dict]:
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def pd_pair(tmp_path_factory) -> dict[str, str]:
    """A generated 1P1D deployment whose prefill script misdescribes the decode side (QL610)."""
    folder = tmp_path_factory.mktemp("pd")
    assert run(["generate", "--model", "Qwen3.6-27B", "--hardware", "a3", "--pd", "1P1D", "-o", str(folder)]).exit_code == 0
    texts = {name: (folder / name).read_text() for name in ("run_p.sh", "run_d.sh", "proxy.sh")}
    broken = texts["run_p.sh"].replace('"decode": {"tp_size": 2', '"decode": {"tp_size": 4', 1)
    assert broken != texts["run_p.sh"]
    texts["run_p.sh"] = broken
    return texts


def _layout(root: Path, files: dict[str, str]) -> dict[str, str]:
    paths = {}
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        paths[relative] = str(target)
    return paths


def test_a_pd_pair_split_over_two_folders_under_one_directory_is_one_deployment(tmp_path, pd_pair):
    _layout(tmp_path, {"prefill/run_p.sh": pd_pair["run_p.sh"], "decode/run_d.sh": pd_pair["run_d.sh"],
                       "proxy.sh": pd_pair["proxy.sh"]})
    rules = {item["rule"] for item in _json(run(["--format", "json", str(tmp_path)]))}
    assert "QL610" in rules


@pytest.fixture(scope="module")
def sibling_trees(tmp_path_factory) -> Path:
    """Two generated 397B 1P1D trees side by side (``deploy/a``, ``deploy/b``): the same placeholders
    (``${DECODE0_IP:?...}``) and ports in both."""
    root = tmp_path_factory.mktemp("siblings") / "deploy"
    for name in ("a", "b"):
        assert run(["generate", "--model", "Qwen3.5-397B-A17B-w8a8", "--hardware", "a3", "--pd", "1P1D",
                    "-o", str(root / name)]).exit_code == 0
    return root


def _copy_tree(source: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(source, target)
    return target


def _texts(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_complete_deployments_in_sibling_folders_are_not_merged(tmp_path, sibling_trees):
    clean = run(["--format", "json", str(sibling_trees)])
    assert clean.exit_code == 0 and _json(clean) == []
    root = _copy_tree(sibling_trees, tmp_path / "deploy")
    script = root / "b" / "run_d1.sh"
    text = script.read_text()
    port = re.search(r"--data-parallel-rpc-port (\d+)", text)
    assert port is not None
    script.write_text(text.replace(port.group(0), f"--data-parallel-rpc-port {int(port.group(1)) + 1}", 1))
    found = _json(run(["--format", "json", str(root)]))
    assert [(Path(item["path"]).relative_to(root).as_posix(), item["rule"]) for item in found] \
        == [("b/run_d1.sh", "QL617")]
    # the same verdict as the broken tree read alone
    alone = _json(run(["--format", "json", str(root / "b")]))
    assert [(item["line"], item["rule"], item["message"]) for item in alone] == \
        [(item["line"], item["rule"], item["message"]) for item in found]
    before = _texts(root)
    fixed = run(["--fix", "--unsafe-fixes", str(root)])
    assert fixed.exit_code == 0, fixed.output
    after = _texts(root)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"b/run_d1.sh"}
    assert after["b/run_d1.sh"] == text  # only the port, back to the head's


def test_a_proxy_beside_some_of_its_engines_keeps_the_directory_one_deployment(tmp_path, pd_pair):
    # prefill/ holds the proxy, but the decoder it sends to lives in decode/: prefill/ is not complete alone
    _layout(tmp_path, {"prefill/run_p.sh": pd_pair["run_p.sh"], "prefill/proxy.sh": pd_pair["proxy.sh"],
                       "decode/run_d.sh": pd_pair["run_d.sh"]})
    rules = {item["rule"] for item in _json(run(["--format", "json", str(tmp_path)]))}
    assert "QL610" in rules


def test_named_files_that_reference_each_other_are_cross_checked(tmp_path, pd_pair):
    paths = _layout(tmp_path, pd_pair)
    found = _json(run(["--format", "json", paths["run_p.sh"], paths["run_d.sh"], paths["proxy.sh"]]))
    assert "QL610" in {item["rule"] for item in found}
    # without the proxy, the two engines still reference each other (KV producer and consumer of one model)
    found = _json(run(["--format", "json", paths["run_p.sh"], paths["run_d.sh"]]))
    assert "QL610" in {item["rule"] for item in found}


def test_unrelated_scripts_in_one_call_get_no_cross_file_finding(tmp_path, pd_pair):
    other = pd_pair["run_d.sh"].replace("qwen3.6", "other-model").replace("8200", "9200")
    paths = _layout(tmp_path, {"a/run_p.sh": pd_pair["run_p.sh"], "b/run_d.sh": other,
                               "c/single.sh": "# qlint: hardware=a2\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 "
                               "--data-parallel-address 10.9.9.9 --data-parallel-size 4 --data-parallel-size-local 2\n"})
    together = _json(run(["--format", "json", *paths.values()]))
    alone = [item for path in paths.values() for item in _json(run(["--format", "json", path]))]
    key = lambda item: (item["path"], item["line"], item["column"], item["rule"], item["message"])
    assert sorted(map(key, together)) == sorted(map(key, alone))
    assert not CROSS_FILE & {item["rule"] for item in together}


def test_deployment_globs_in_the_configuration_override_the_folders(tmp_path, pd_pair):
    paths = _layout(tmp_path, {"site1/run_p.sh": pd_pair["run_p.sh"], "site2/run_d.sh": pd_pair["run_d.sh"]})
    apart = _json(run(["--format", "json", str(tmp_path / "site1"), str(tmp_path / "site2")]))
    assert "QL610" not in {item["rule"] for item in apart}  # two directory arguments: two deployments
    (tmp_path / ".qlint.toml").write_text('deployments = ["site*/*.sh"]\n')
    together = _json(run(["--format", "json", str(tmp_path / "site1"), str(tmp_path / "site2")]))
    assert "QL610" in {item["rule"] for item in together}
    (tmp_path / ".qlint.toml").write_text('deployments = ["/abs/*"]\n')
    bad = run([paths["site1/run_p.sh"]])
    assert bad.exit_code == 2 and ".qlint.toml:1:" in bad.output


def test_with_deployment_reads_the_rest_of_a_changed_files_deployment(tmp_path, pd_pair):
    (tmp_path / ".git").mkdir()  # pre-commit runs in a repository; the deployment is a folder of it
    paths = _layout(tmp_path / "deploy", {"prefill/run_p.sh": pd_pair["run_p.sh"], "decode/run_d.sh": pd_pair["run_d.sh"],
                               "proxy.sh": pd_pair["proxy.sh"], "unrelated/tool.sh": "echo hello\n"})
    alone = _json(run(["--format", "json", paths["decode/run_d.sh"]]))
    assert "QL610" not in {item["rule"] for item in alone}  # the broken side is not read
    hooked = run(["--format", "json", "--with-deployment", paths["decode/run_d.sh"]])
    assert hooked.exit_code == 1
    found = _json(hooked)
    assert "QL610" in {item["rule"] for item in found}
    assert not any(item["path"].endswith("tool.sh") for item in found)


def test_with_deployment_outside_any_project_reads_the_files_folder_only(tmp_path, pd_pair):
    # no repository or project above: the parent (say /tmp, or a home folder) holds unrelated trees
    paths = _layout(tmp_path / "deploy", {"prefill/run_p.sh": pd_pair["run_p.sh"],
                                          "decode/run_d.sh": pd_pair["run_d.sh"],
                                          "elsewhere/broken.sh": "echo 'unterminated\n"})
    result = run(["--format", "json", "--with-deployment", paths["decode/run_d.sh"]])
    assert result.exit_code == 0, result.output  # the sibling folders were not read (no QL610, no input error)
    (tmp_path / ".git").mkdir()
    inside = run(["--format", "json", "--with-deployment", paths["decode/run_d.sh"]])
    assert inside.exit_code == 2  # inside a repository the parent's tree is read, the broken file with it


def test_hooks_read_the_deployment_of_a_changed_file():
    hooks = (Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
    entries = re.findall(r"entry: (.*)", hooks)
    assert entries and all("--with-deployment" in entry for entry in entries)


def test_directory_arguments_pick_launch_files_up_by_content(tmp_path):
    from qlint.linter.cli_inputs import deployments

    (tmp_path / "guide.md").write_text("# G\n\n```bash\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 3\n```\n")
    (tmp_path / "README.md").write_text("# Readme\n\n```bash\npip install qlint\n```\n")
    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: e\n"
                                       "      image: quay.io/ascend/vllm-ascend:v0.23.0\n"
                                       "      command: [vllm, serve, Qwen/Qwen3.6-27B]\n")
    (tmp_path / "values.yaml").write_text("replicas: 2\nimage: quay.io/ascend/vllm-ascend:v0.23.0\n")
    (tmp_path / "compose.yml").write_text("services:\n  e:\n    command: vllm serve Qwen/Qwen3.6-27B\n")
    (tmp_path / "notes.txt").write_text("vllm serve Qwen/Qwen3.6-27B\n")
    [group] = deployments((str(tmp_path),))
    assert sorted(Path(p).name for p in group) == ["compose.yml", "guide.md", "pod.yaml"]
    found = _json(run(["--format", "json", str(tmp_path)]))
    assert {(Path(item["path"]).name, item["rule"]) for item in found} >= {("guide.md", "QL206")}


def test_a_file_without_an_engine_command_gets_a_note_naming_what_it_runs(tmp_path):
    client = tmp_path / "bench.sh"
    client.write_text("curl http://localhost:8000/v1/models\nlm_eval --model local-completions\n")
    values = tmp_path / "values.yaml"
    values.write_text("replicas: 2\n")
    result = run([str(client), str(values)])
    assert f"note: {client}: no engine command (vllm serve) was read here; runs curl, lm_eval" in result.output
    assert f"note: {values}: no engine command" in result.output
    chinese = run(["--lang", "zh", str(client)])
    assert "没有读到推理引擎命令" in chinese.output
    quiet = run(["-q", str(client)])
    assert "note:" not in quiet.output


def test_one_note_when_no_hardware_is_known(tmp_path):
    first, second = tmp_path / "a.sh", tmp_path / "b.sh"
    text = "vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 16 --port {}\n"
    first.write_text(text.format(8000))
    second.write_text(text.format(8001))
    result = run([str(first), str(second)])
    notes = [line for line in result.output.splitlines() if "no hardware given or found" in line]
    assert len(notes) == 1
    assert str(first) in notes[0] and str(second) in notes[0]
    assert "parallelism" in notes[0] and "--hardware a2|a3|310p" in notes[0]
    assert "QL203" not in result.output  # the skipped rule: TP 16 is not checked against a node
    given = run(["--hardware", "a2", str(first)])
    assert "no hardware given" not in given.output and "QL203" in given.output
    tagged = tmp_path / "c.sh"
    tagged.write_text("# image: quay.io/ascend/vllm-ascend:v0.23.0-a3\n" + text.format(8000))
    assert "no hardware given" not in run([str(tagged)]).output
    assert "没有给出也没有找到硬件" in run(["--lang", "zh", str(first)]).output


def test_an_unknown_directive_key_is_an_input_error_with_its_place(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\n# qlint: hardwre=a2\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 16\n")
    result = run([str(script)])
    assert result.exit_code == 2
    assert f"{script}:2:10: error: unknown key 'hardwre'" in result.output
    assert "did you mean 'hardware'" in result.output
    fine = tmp_path / "ok.sh"
    fine.write_text("# qlint: hardware=a2 vllm-ascend=v0.23.0 -- the lab's A2 nodes\nvllm serve Qwen/Qwen3.6-27B\n")
    assert run([str(fine)]).exit_code in (0, 1)


@pytest.mark.parametrize("text, line, needle", [
    ('CMD="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 16"\neval "$CMD"\n', 2, "eval"),
    ('RUNNER=$(which vllm)\n"$RUNNER" serve Qwen/Qwen3.6-27B\n', 2, "only known at run time"),
    ("source ./missing-env.sh\nvllm serve Qwen/Qwen3.6-27B\n", 1, "missing-env.sh"),
    ("bash -c 'vllm serve \"unterminated'\n", 1, "does not parse"),
])
def test_constructs_qlint_cannot_follow_get_an_info_at_their_line(text, line, needle):
    found = [f for f in lint_text("run.sh", text).findings if f.rule.id == "QL109"]
    assert [f.span.line for f in found] == [line], [(f.span, f.message) for f in found]
    assert needle in found[0].message and found[0].message_zh


def test_a_sourced_file_is_read_never_run_and_cycles_stop(tmp_path):
    (tmp_path / "env.sh").write_text("export ASCEND_RT_VISIBLE_DEVICES=0,1\nsource ./run.sh\n")
    run_sh = tmp_path / "run.sh"
    run_sh.write_text("# qlint: hardware=a2\nsource ./env.sh\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 4\n")
    result = lint_text(str(run_sh), run_sh.read_text())
    rules = {f.rule.id: f for f in result.findings}
    assert "QL204" in rules and rules["QL204"].span.line == 2  # the devices come from env.sh, sourced at line 2
    assert any(f.rule.id == "QL109" and "source cycle" in f.message for f in result.findings)


def test_with_deployment_follows_the_configured_globs(tmp_path, pd_pair):
    paths = _layout(tmp_path, {"east/run_p.sh": pd_pair["run_p.sh"], "west/run_d.sh": pd_pair["run_d.sh"]})
    (tmp_path / ".qlint.toml").write_text('deployments = ["east/*.sh", "west/*.sh"]\n')
    assert "QL610" not in {i["rule"] for i in _json(run(["--format", "json", "--with-deployment", paths["west/run_d.sh"]]))}
    (tmp_path / ".qlint.toml").write_text('deployments = ["*/run_*.sh"]\n')
    found = _json(run(["--format", "json", "--with-deployment", paths["west/run_d.sh"]]))
    assert "QL610" in {item["rule"] for item in found}
