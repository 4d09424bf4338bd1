"""Ray multi-node generation (``qlint generate --nodes N --executor ray``), its guides, and the Ray
tutorial pages read as deployments."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest

from qlint.knowledge.base import load
from qlint.linter.deployment import lint_deployment
from qlint.linter.generate import GenerationError
from qlint.linter.generate_ray import generate_ray, render_ray
from qlint.rules.graph import Settings

KB = load()
FIXTURES = Path(__file__).parent / "fixtures" / "ray_docs"
FITS_ONE_NODE = "fits one"
"""The one refusal that is advice, not a launch the engine refuses: Ray over nodes for weights one node holds."""


def _findings(files, hardware=None, version=None):
    results = lint_deployment([(name, text.encode() if isinstance(text, str) else text) for name, text in files],
                              Settings(hardware=hardware, version=version))
    assert all(r.error is None for r in results), [r.error for r in results]
    return [(r.path, f) for r in results for f in r.findings]


def _problems(tree):
    return [(path, f.rule.id, f.message) for path, f in _findings(tree.scripts_in_order) if f.level != "info"]


@pytest.mark.parametrize("version", ["v0.18.0", "v0.20.2rc1", "v0.23.0", "v0.25.1rc1", "main"])
def test_every_accepted_ray_tree_lints_clean_and_every_refusal_is_reported(version):
    """Every in-scope model x A2/A3/310P x weights x 2..4 nodes: an accepted tree lints clean as one
    deployment; a refused one, rendered anyway, has an error when linted (unless the refusal is the
    advice that one node holds the weights)."""
    built, refused_as_error, advice = 0, 0, 0
    for model in [m.id for m in KB.models if m.in_scope]:
        for hardware in ("a2", "a3", "310p"):
            for quantized in (True, False):
                for nodes in (2, 3, 4):
                    try:
                        tree = generate_ray(KB, model, hardware, nodes, quantized=quantized, version=version)
                    except GenerationError as error:
                        assert str(error)
                        if FITS_ONE_NODE in str(error):
                            advice += 1
                            continue
                        try:
                            rendered = render_ray(KB, model, hardware, nodes, quantized=quantized, version=version)
                        except GenerationError:
                            continue  # not writable at all (a release before the model, 310P, no such weights)
                        levels = {f.level for _, f in _findings(rendered.scripts_in_order)}
                        assert "error" in levels, (model, hardware, quantized, nodes, str(error))
                        refused_as_error += 1
                        continue
                    built += 1
                    assert not _problems(tree), (model, hardware, quantized, nodes, _problems(tree))
                    names = [name for name, _ in tree.scripts_in_order]
                    assert names == [f"node{i}.sh" for i in range(nodes)]
                    assert all(text.startswith("#!/bin/bash\n") for _, text in tree.scripts_in_order)
                    head = tree.files["node0.sh"]
                    assert "ray start --head" in head and "--distributed-executor-backend ray" in head
                    assert head.index("ray start --head") < head.index("vllm serve")
                    assert f"--tensor-parallel-size {tree.tp} " in head and tree.tp == nodes * KB.hardware_by_id(hardware).npus_per_node
                    for name in names[1:]:
                        assert "vllm serve" not in tree.files[name] and "ray start --address=" in tree.files[name]
    assert built >= 4 and refused_as_error >= 4 and advice >= 4, (built, refused_as_error, advice)


def test_2xa2_397b_ray_tree():
    tree = generate_ray(KB, "Qwen3.5-397B-A17B", "a2", 2, version="v0.23.0")
    head, worker = tree.files["node0.sh"], tree.files["node1.sh"]
    assert "ray start --head --port 6379" in head and '--node-ip-address "${LOCAL_IP:?' in head
    assert "--pipeline-parallel-size" not in head and "--tensor-parallel-size 16 " in head
    assert re.search(r'until \[ "\$\(ray status .*\)" -ge 2 \]', head)
    assert 'ray start --address="${NODE0_IP:?set NODE0_IP to the address of node node0}:6379"' in worker
    for text in (head, worker):  # the same variables before ray start on every node
        before = text[:text.index("ray start")]
        for name in ("HCCL_IF_IP", "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME", "ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
                     "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1", "PYTORCH_NPU_ALLOC_CONF"):
            assert f"export {name}" in before, (name, text)
    # the 2 x A2 recipe row's limits, with TP over the cluster instead of its TP 8 x DP 2
    assert "--max-num-seqs 16 " in head and "--max-model-len 32768 " in head
    assert any("TP 16 over the cluster replaces the recipe's TP 8 x DP 2" in note for note in tree.notes)
    readme = tree.files["README.md"]
    assert readme.index("`bash node0.sh`") < readme.index("`bash node1.sh`") and "## 中文" in readme


def test_generator_and_reader_share_the_ray_topology():
    """The tree's own Topology (one ``ray`` instance, a share per node) is what the deployment pass reads back."""
    tree = generate_ray(KB, "Qwen3.5-397B-A17B", "a2", 4, quantized=False, version="v0.23.0")
    planned, = tree.topology.instances
    assert planned.group == "ray" and planned.tp == 32 and [s.npus for s in planned.shares] == [8] * 4
    assert [s.headless for s in planned.shares] == [False, True, True, True] and not tree.topology.problems()
    read: list = []
    lint_deployment([(name, text.encode()) for name, text in tree.scripts_in_order],
                    Settings(version="v0.23.0"), topology=read)
    instance, = [i for i in read[0].instances if i.group == "ray"]
    assert (instance.tp, instance.dp, len(instance.shares)) == (planned.tp, planned.dp, len(planned.shares))
    assert [s.npus for s in instance.shares] == [s.npus for s in planned.shares]
    assert [s.headless for s in instance.shares] == [s.headless for s in planned.shares]
    assert instance.shares[0].engine is not None and all(s.engine is None for s in instance.shares[1:])
    cluster, = read[0].ray
    assert [n.name for n in cluster.nodes] == [name for name, _ in tree.scripts_in_order]


def test_refusals_say_why():
    for args, quantized, reason in (
        (("Qwen3.5-397B-A17B", "a2", 1), True, "needs --nodes 2"),
        (("Qwen3.5-397B-A17B", "a3", 2), True, "fits one Atlas 800 A3 node"),
        (("Qwen3.5-397B-A17B", "a3", 4), False, "does not divide the 32 attention heads"),
        (("Qwen3.6-27B", "310p", 2), True, "fits one"),
    ):
        with pytest.raises(GenerationError, match=reason):
            generate_ray(KB, *args, quantized=quantized, version="v0.23.0")
    with pytest.raises(GenerationError, match="needs 32 NPUs"):
        generate_ray(KB, "Qwen3.5-397B-A17B", "a2", 2, quantized=False, version="v0.23.0")


def test_refused_bf16_on_two_a2_nodes_is_an_error_when_linted():
    tree = render_ray(KB, "Qwen3.5-397B-A17B", "a2", 2, quantized=False, version="v0.23.0")
    assert {f.rule.id for _, f in _findings(tree.scripts_in_order) if f.level == "error"} >= {"QL618"}


@pytest.mark.parametrize("edit,rule,script", [
    (lambda t: t.replace(":6379\" --node-ip-address", ":6380\" --node-ip-address"), "QL620", "node1.sh"),
    (lambda t: t.replace('export TP_SOCKET_IFNAME="${NIC_NAME:?set NIC_NAME to the network interface of LOCAL_IP}"\n', ""),
     "QL624", "node1.sh"),
    (lambda t: t + "vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp --distributed-executor-backend ray "
     "--tensor-parallel-size 16\n", "QL622", "node1.sh"),
    (lambda t: t.replace("--tensor-parallel-size 16 ", "--tensor-parallel-size 8 --pipeline-parallel-size 4 "),
     "QL623", "node0.sh"),
])
def test_breaking_the_generated_tree_is_reported(edit, rule, script):
    tree = generate_ray(KB, "Qwen3.5-397B-A17B", "a2", 2, version="v0.23.0")
    files = dict(tree.scripts_in_order)
    files[script] = edit(files[script])
    assert files[script] != tree.files[script]
    assert rule in {f.rule.id for _, f in _findings(files.items())}


def test_env_set_after_ray_start_is_reported():
    tree = generate_ray(KB, "Qwen3.5-397B-A17B", "a2", 2, version="v0.23.0")
    head = tree.files["node0.sh"].replace("export HCCL_OP_EXPANSION_MODE=AIV\n", "")
    head = head.replace("# wait until", "export HCCL_OP_EXPANSION_MODE=AIV\n# wait until")
    assert "QL625" in {f.rule.id for _, f in _findings([("node0.sh", head), ("node1.sh", tree.files["node1.sh"])])}


def test_cli_writes_the_ray_tree_executable(tmp_path):
    from click.testing import CliRunner

    from qlint.linter.cli import main

    folder = tmp_path / "ray"
    result = CliRunner().invoke(main, ["generate", "--model", "Qwen3.5-397B-A17B", "--hardware", "a2", "--nodes", "2",
                                       "--executor", "ray", "--vllm-ascend-version", "v0.23.0", "-o", str(folder)])
    assert result.exit_code == 0, result.output
    assert sorted(os.listdir(folder)) == ["README.md", "node0.sh", "node1.sh"]
    for name in ("node0.sh", "node1.sh"):
        assert os.stat(folder / name).st_mode & 0o777 == 0o755
    assert CliRunner().invoke(main, [str(folder)]).exit_code == 0
    for args, message in ((["--nodes", "1"], "needs --nodes 2"), (["--pd", "1P1D"], "needs --nodes 2"),
                          (["--nodes", "2", "--bf16"], "needs 32 NPUs")):
        refused = CliRunner().invoke(main, ["generate", "--model", "Qwen3.5-397B-A17B", "--hardware", "a2",
                                            "--executor", "ray", *args])
        assert refused.exit_code == 2 and message in refused.output, refused.output


def test_guides_carry_the_ray_plans():
    root = Path(__file__).resolve().parents[1] / "docs" / "_generated"
    a2 = (root / "en" / "guides" / "qwen3.5-397b-a17b-a2.md").read_text()
    assert "### Ray: W8A8 weights on 2 nodes, TP 16 over the cluster" in a2
    assert "--nodes 2 --executor ray -o ray/" in a2 and "--nodes 4 --bf16 --executor ray" in a2
    a3 = (root / "zh_CN" / "guides" / "qwen3.5-397b-a17b-a3.md").read_text()
    assert "### Ray：BF16 权重，2 个节点，TP 32 覆盖整个集群" in a3
    # no Ray plan where the model's tutorial has none
    assert "--executor ray" not in (root / "en" / "guides" / "qwen3.6-27b-a3.md").read_text()


def test_a_ray_plan_that_does_not_lint_clean_stops_the_guide_build():
    from qlint.docgen.guide_nodes import NodesPlanError, lint_tree

    tree = generate_ray(KB, "Qwen3.5-397B-A17B", "a2", 2, version="v0.23.0")
    tree.files["node1.sh"] = tree.files["node1.sh"].replace(":6379\"", ":6390\"")
    with pytest.raises(NodesPlanError, match="QL620"):
        lint_tree(tree, "test")


VERDICTS = tomllib.loads((FIXTURES / "verdicts.toml").read_text(encoding="utf-8"))["fixture"]


def test_every_fixture_folder_has_a_verdict():
    assert sorted(entry["dir"] for entry in VERDICTS) == sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


@pytest.mark.parametrize("entry", VERDICTS, ids=[entry["dir"] for entry in VERDICTS])
def test_tutorial_pages_and_reports_as_deployments(entry):
    """The Ray rules' findings and every error on the upstream pages' blocks, as reviewed."""
    folder = FIXTURES / entry["dir"]
    files = [(path.name, path.read_bytes()) for path in sorted(folder.glob("*.sh"))]
    assert all(text.startswith(b"# source: https://github.com/vllm-project/vllm-ascend/") for _, text in files)
    found = {(path, f.rule.id) for path, f in _findings(files, entry["hardware"], entry["ref"])
             if f.rule.id.startswith("QL62") or f.level == "error"}
    assert all(item["verdict"] == "real" and item["reason"] for item in entry["expect"])
    assert found == {(item["file"], item["rule"]) for item in entry["expect"]}


from hypothesis import given, settings

import qlint.testing as qt


def _shape(topology):
    from qlint.linter.topology_read import variable

    return sorted((i.group, i.role, i.dp, i.tp, i.expert_parallel, i.port, variable(i.address or ""),
                   tuple((s.dp_local, s.dp_start, s.headless, s.tp) for s in i.shares))
                  for i in topology.instances if i.group == "ray")


@settings(max_examples=max(5, settings().max_examples // 6))
@given(qt.node_trees(layout="ray", model="Qwen3.5-397B-A17B"))
def test_drawn_ray_trees_lint_clean_and_read_back_as_their_topology(tree):
    found, read = qt.lint_tree(tree.files)
    assert found == [], (tree.config, [(path, f and (f.rule.id, f.message)) for path, f in found])
    assert _shape(read) == _shape(tree.deployment.topology) != [], tree.config
    assert read.checks() == []
