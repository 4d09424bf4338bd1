"""Multi-node and PD generation: the tutorials' recipes row by row, the 397B 1P1D tree, and lint-clean trees."""

import os
import re

import pytest

from qlint.knowledge.base import load
from qlint.linter.deployment import lint_deployment
from qlint.linter.generate import GenerationError, generate
from qlint.linter.generate_nodes import generate_nodes, generate_pd
from qlint.linter.topology import Share, Topology, spread
from qlint.linter.topology_read import variable

KB = load()
VERSIONS = ("v0.22.1rc1", "v0.23.0", "v0.25.1rc1", "main")


def _generated_for(recipe, version):
    """The scripts the generator writes for a recipe row (Deployment objects)."""
    quantized = recipe.quantization == "w8a8"
    if recipe.deployment is not None:
        tree = generate_pd(KB, recipe.model, recipe.hardware, quantized, version, recipe.deployment)
        return [d for name, d in tree.scripts.items() if name.startswith(f"run_{recipe.role[0]}")]
    if recipe.nodes > 1:
        return list(generate_nodes(KB, recipe.model, recipe.hardware, recipe.nodes, recipe.scenario, quantized,
                                   version).scripts.values())
    return [generate(KB, recipe.model, recipe.hardware, recipe.scenario, quantized, version)]


ROWS = [(index, version) for index in range(len(KB.recipes)) for version in VERSIONS]


@pytest.mark.parametrize("index,version", ROWS, ids=[
    f"{KB.recipes[i].model}-{KB.recipes[i].hardware}-{KB.recipes[i].scenario}-{KB.recipes[i].role}-{v}"
    for i, v in ROWS])
def test_every_recipe_row_is_what_the_generator_writes(index, version):
    recipe = KB.recipes[index]
    model = KB.match_model(recipe.model).model
    try:
        scripts = _generated_for(recipe, version)
    except GenerationError as error:  # only a release the model or PD does not run on
        assert "needs vllm-ascend" in str(error) or "known defect" in str(error), str(error)
        return
    assert len(scripts) == recipe.nodes
    for deployment in scripts:
        notes = " ".join(deployment.notes)
        assert (deployment.tp, deployment.dp) == (recipe.tp, recipe.dp)
        if recipe.dp_local is not None:
            assert deployment.dp_local == recipe.dp_local
            assert f"--data-parallel-size-local {recipe.dp_local}" in deployment.script
        assert deployment.enable_expert_parallel == (recipe.enable_expert_parallel and bool(model.moe))
        assert deployment.max_model_len == min(recipe.max_model_len or deployment.max_model_len, model.max_model_len)
        for name in ("max_num_seqs", "max_num_batched_tokens", "max_model_len", "prefix_caching"):
            wanted = getattr(recipe, name)
            if wanted is None:
                assert recipe.note is not None, f"{name}: the row leaves it open and says nothing"
            elif getattr(deployment, name) != wanted:
                assert notes, f"{name}: {getattr(deployment, name)} instead of {wanted} with no reason"
        if recipe.mtp_tokens != deployment.mtp_tokens:
            assert "MTP" in notes
        if recipe.gpu_memory_utilization is not None:
            assert f"--gpu-memory-utilization {recipe.gpu_memory_utilization}" in deployment.script
        if recipe.kv_connector is not None:
            assert f'"kv_connector": "{recipe.kv_connector}"' in deployment.script
        for optimisation in recipe.optimisations:
            assert optimisation in deployment.optimisations or optimisation in notes
        if recipe.recompute_scheduler:
            assert ("recompute_scheduler_enable" in deployment.script) != ("recompute scheduler: left out" in notes)
        assert f"--max-num-batched-tokens {deployment.max_num_batched_tokens}" in deployment.script


def _lint_tree(tree, topology=None):
    results = lint_deployment([(name, text.encode()) for name, text in tree.scripts_in_order], topology=topology)
    return [(r.path, f.rule.id, f.message) for r in results for f in r.findings if f.level != "info"] + [
        (r.path, "input", r.error) for r in results if r.error is not None]


def _shape(topology):
    """Roles, sizes and each node's share of every instance (what generator and reader must agree on)."""
    return sorted((i.role, i.dp, i.tp, i.expert_parallel, i.port, variable(i.address or ""),
                   tuple((s.dp_local, s.dp_start, s.headless, s.tp) for s in i.shares)) for i in topology.instances)


def test_397b_a3_1p1d_is_the_tutorials_three_node_layout():
    tree = generate_pd(KB, "Qwen3.5-397B-A17B-w8a8", "a3", version="v0.23.0")
    assert list(tree.files) == ["run_p.sh", "run_d0.sh", "run_d1.sh", "proxy.sh", "README.md"]
    p, d0, d1 = (tree.files[n] for n in ("run_p.sh", "run_d0.sh", "run_d1.sh"))
    assert "--data-parallel-size 8 " in p and "--data-parallel-size-local 8 " in p and "--headless" not in p
    for decode in (d0, d1):
        assert "--data-parallel-size 16 " in decode and "--data-parallel-size-local 8 " in decode
        assert "--tensor-parallel-size 2 " in decode and "--enable-expert-parallel" in decode
        assert '"prefill": {"tp_size": 2, "dp_size": 8}, "decode": {"tp_size": 2, "dp_size": 16}' in decode
        assert "MooncakeLayerwiseConnector" in decode and "DECODE0_IP" in decode
    assert "--data-parallel-start-rank 0 " in d0 and "--headless" not in d0
    assert "--data-parallel-start-rank 8 " in d1 and "--headless" in d1
    assert "load_balance_proxy_layerwise_server_example.py" in tree.proxy and "--decoder-ports 8200" in tree.proxy
    assert "recompute_scheduler_enable" in d0 and "recompute_scheduler_enable" not in p
    assert "tutorials/models/Qwen3.5-397B-A17B.md" in p and "Qwen3.5-27B-Qwen3.6-27B.md" not in p
    readme = tree.files["README.md"]
    assert readme.index("run_p.sh") < readme.index("run_d0.sh") < readme.index("run_d1.sh") < readme.index("proxy.sh")
    assert "节点" in readme
    assert not _lint_tree(tree)


@pytest.mark.parametrize("version", ["v0.23.0", "v0.25.1rc1", "main"])
@pytest.mark.parametrize("model,hardware,quantized,nodes", [
    ("Qwen3.5-397B-A17B", "a2", True, 2),
    ("Qwen3.5-397B-A17B", "a3", False, 2),
    ("Qwen3.5-397B-A17B", "a2", False, 4),
    ("Qwen3.6-35B-A3B", "a2", True, 2),
])
def test_multi_node_plans_lint_clean_as_one_deployment(model, hardware, quantized, nodes, version):
    tree = generate_nodes(KB, model, hardware, nodes, quantized=quantized, version=version)
    assert [n for n in tree.files if n.endswith(".sh")] == [f"node{i}.sh" for i in range(nodes)]
    assert all("--headless" in tree.files[f"node{i}.sh"] for i in range(1, nodes))
    assert "--headless" not in tree.files["node0.sh"]
    assert not _lint_tree(tree), _lint_tree(tree)


def test_2xa2_plan_is_the_recipe():
    tree = generate_nodes(KB, "Qwen3.5-397B-A17B", "a2", 2, version="v0.23.0")
    node1 = tree.files["node1.sh"]
    assert "--tensor-parallel-size 8 " in node1 and "--data-parallel-size 2 " in node1
    assert "--data-parallel-size-local 1 " in node1 and "--data-parallel-start-rank 1 " in node1
    assert "--max-num-seqs 16 " in node1 and "--max-model-len 32768 " in node1


def test_bf16_397b_needs_two_a3_or_four_a2_nodes():
    with pytest.raises(GenerationError, match="needs 32 NPUs by its tutorial, 1 Atlas 800 A3 node"):
        generate_nodes(KB, "Qwen3.5-397B-A17B", "a3", 1, quantized=False)
    with pytest.raises(GenerationError, match="needs 32 NPUs by its tutorial, 2 Atlas 800 A2 node"):
        generate_nodes(KB, "Qwen3.5-397B-A17B", "a2", 2, quantized=False)


def test_pd_node_counts_can_be_overridden_and_xpyd_parsed():
    tree = generate_pd(KB, "Qwen3.6-35B-A3B", "a3", pd="2P1D", decode_nodes=2, version="v0.23.0")
    assert [n for n in tree.files if n.endswith(".sh")] == ["run_p0.sh", "run_p1.sh", "run_d0.sh", "run_d1.sh",
                                                            "proxy.sh"]
    assert re.search(r"--prefiller-ports 8100 8100 ", tree.proxy)
    assert not _lint_tree(tree), _lint_tree(tree)
    with pytest.raises(GenerationError, match="xPyD"):
        generate_pd(KB, "Qwen3.6-35B-A3B", "a3", pd="1P0D")


def test_topology_reports_what_would_hang_or_collide():
    instance = spread("decode", "decode", 16, 2, ["d0", "d1"], 16, port=8200, rpc_port=13389, address="x",
                      expert_parallel=True, kv_port=36000)
    assert [s.dp_start for s in instance.shares] == [0, 8] and [s.headless for s in instance.shares] == [False, True]
    assert not Topology([instance], 16).problems()
    instance.shares[1] = Share("d1", 8, 7, 2, headless=False)
    messages = [p.en for p in Topology([instance], 16).problems()]
    # the linter's own messages (QL612): generator and rules ask the same Instance.checks()
    assert any("--data-parallel-start-rank 7 on d1" in m and "claimed twice" in m for m in messages)
    assert any("d1 is not the head of the DP group (start rank 7) and must run --headless" in m for m in messages)
    other = spread("prefill", "prefill", 8, 2, ["d0"], 16, port=8200, rpc_port=13390, address="x",
                   expert_parallel=True, kv_port=36004)
    messages = [p.en for p in Topology([instance, other], 16).problems()]
    assert any("take 32 NPUs" in m for m in messages) and any("port 8200" in m for m in messages)
    assert any("kv_port 36004" in m for m in messages)
    with pytest.raises(ValueError):
        spread("x", "mixed", 3, 2, ["a", "b"], 16, port=1, rpc_port=2, address="x", expert_parallel=False)


def test_cli_writes_the_tree_executable(tmp_path):
    from click.testing import CliRunner

    from qlint.linter.cli import main

    folder = tmp_path / "pd"
    result = CliRunner().invoke(main, ["generate", "--model", "Qwen3.5-397B-A17B", "--hardware", "a3", "--pd", "1P1D",
                                       "-o", str(folder)])
    assert result.exit_code == 0, result.output
    for name in ("run_p.sh", "run_d0.sh", "run_d1.sh", "proxy.sh"):
        assert os.stat(folder / name).st_mode & 0o777 == 0o755
    assert CliRunner().invoke(main, [str(folder)]).exit_code == 0
    refused = CliRunner().invoke(main, ["generate", "--model", "Qwen3.5-397B-A17B", "--hardware", "a2", "--bf16",
                                        "--nodes", "2"])
    assert refused.exit_code == 2 and "needs 32 NPUs" in refused.output


def test_guides_carry_the_generated_plans():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "docs" / "_generated"
    a3 = (root / "en" / "guides" / "qwen3.5-397b-a17b-a3.md").read_text()
    assert "## Multi-node deployment" in a3 and "--nodes 2 --bf16" in a3
    assert "`run_d1.sh`" in a3 and "--data-parallel-start-rank 8" in a3 and "load_balance_proxy_layerwise" in a3
    a2 = (root / "zh_CN" / "guides" / "qwen3.5-397b-a17b-a2.md").read_text()
    assert "## 多节点部署" in a2 and "--nodes 2 -o deploy/" in a2 and "--nodes 4 --bf16" in a2
    for path in root.rglob("guides/*.md"):
        text = path.read_text()
        assert "does not generate PD" not in text and "暂不生成 PD" not in text, path


def test_a_plan_that_does_not_lint_clean_stops_the_guide_build():
    from qlint.docgen.guide_nodes import NodesPlanError, lint_tree

    tree = generate_nodes(KB, "Qwen3.5-397B-A17B", "a2", 2, version="v0.23.0")
    tree.files["node1.sh"] = tree.files["node1.sh"].replace("--data-parallel-start-rank 1", "--data-parallel-start-rank 0")
    with pytest.raises(NodesPlanError, match="QL612"):
        lint_tree(tree, "test")


MATRIX_MODELS = [m.id for m in KB.models if m.in_scope]


@pytest.mark.parametrize("version", ["v0.23.0", "v0.25.1rc1", "main"])
@pytest.mark.parametrize("hardware", ["a2", "a3"])
def test_every_generated_tree_lints_clean_or_is_refused_with_reason(hardware, version):
    built = 0
    for model in MATRIX_MODELS:
        for quantized in (True, False):
            for make in (lambda: generate_pd(KB, model, hardware, quantized, version),
                         lambda: generate_nodes(KB, model, hardware, 2, quantized=quantized, version=version)):
                try:
                    tree = make()
                except GenerationError as error:
                    assert str(error)
                    continue
                built += 1
                read: list = []
                problems = _lint_tree(tree, read)
                assert not problems, (model, hardware, quantized, version, problems)
                # the linter reads back the layout the generator wrote: one model, no drift
                assert _shape(read[0]) == _shape(tree.topology), (model, hardware, quantized, version)
                for proxy in read[0].proxies:
                    for role in ("prefill", "decode"):
                        heads = [(variable(i.address), i.port) for i in tree.topology.instances if i.role == role]
                        assert proxy.targets[role] == heads
                assert all(text.startswith("#!/bin/bash\n") for _, text in tree.scripts_in_order)
    assert built >= 4


@pytest.mark.parametrize("version,on_prefill", [("v0.22.1rc1", True), ("v0.23.0rc1", False), ("v0.23.0", False),
                                                ("main", False)])
def test_recompute_scheduler_follows_the_recipe_and_the_release(version, on_prefill):
    """The 397B tutorial turns it on for both sides; a prefill node ignores it from v0.23.0rc1
    (recompute_scheduler_ignored_on_prefill), so the prefill script carries it only before."""
    assert KB.holds("recompute_scheduler_ignored_on_prefill", KB.resolve_release(version)[0]) is not on_prefill
    tree = generate_pd(KB, "Qwen3.5-397B-A17B-w8a8", "a3", version=version)
    assert ("recompute_scheduler_enable" in tree.files["run_p.sh"]) is on_prefill
    assert all("recompute_scheduler_enable" in tree.files[name] for name in ("run_d0.sh", "run_d1.sh"))
    if not on_prefill:
        assert any("ignores it there" in note for note in tree.scripts["run_p.sh"].notes)
    assert not _lint_tree(tree), _lint_tree(tree)  # QL603 agrees at each release


@pytest.mark.parametrize("version", ["v0.22.1rc1", "main"])
def test_recompute_scheduler_only_on_decode_without_a_row(version):
    """No row (Qwen3.6-27B PD): decode engines only, as the 27B tutorial says; never on a mixed engine."""
    tree = generate_pd(KB, "Qwen3.6-27B", "a3", version=version)
    assert "recompute_scheduler_enable" not in tree.files["run_p.sh"]
    assert "recompute_scheduler_enable" in tree.files["run_d.sh"]
    single = generate(KB, "Qwen3.6-27B", "a3", version=version)
    assert "recompute_scheduler_enable" not in single.script
