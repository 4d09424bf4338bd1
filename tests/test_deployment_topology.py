"""Seed 001's external-DP layout (a launcher per node, a template per side, the proxy): the cross-node
mistakes issue 14 lists are each reported, and the unmodified layout gets none of them."""

from qlint.linter.deployment import lint_deployment
from qlint.rules.graph import Settings

from test_deployment import SEED_001, by_rule, files

A3 = Settings(hardware="a3", version="v0.23.0")
CROSS_NODE = ("QL611", "QL612", "QL614", "QL615", "QL616", "QL617")


def test_seed_001_layout_has_no_cross_node_finding():
    results = lint_deployment(files(*SEED_001), A3)
    assert not [(r.path, f.rule.id) for r in results for f in r.findings if f.rule.id in CROSS_NODE]


def test_served_name_mismatch_between_the_templates():
    swap = {"s001_pd_decode_template.sh": [("--served-model-name qwen3.5", "--served-model-name qwen35")]}
    found = by_rule(lint_deployment(files(*SEED_001, replace=swap), A3), "QL611")
    assert found and all(path.endswith("template.sh") for path, _ in found)


def test_proxy_port_that_no_launcher_rank_listens_on():
    swap = {"s001_pd_proxy.sh": [("7100 7101 7102 7103 7104 7105 7106 7107 \\\n  --decoder-hosts",
                                  "7100 7101 7102 7103 7104 7105 7106 7199 \\\n  --decoder-hosts")]}
    found = by_rule(lint_deployment(files(*SEED_001, replace=swap), A3), "QL614")
    assert [(path, "7199" in f.message) for path, f in found] == [("s001_pd_proxy.sh", True)]


def test_launcher_asking_for_more_npus_than_the_node_has():
    swap = {"s001_pd_launchers.sh": [("--dp-size 8 --tp-size 2 --dp-size-local 8 --dp-rank-start 0 --dp-address 141.xx.xx.2",
                                      "--dp-size 8 --tp-size 4 --dp-size-local 8 --dp-rank-start 0 --dp-address 141.xx.xx.2")]}
    found = by_rule(lint_deployment(files(*SEED_001, replace=swap), A3), "QL615")
    assert len(found) == 1 and "32 NPUs" in found[0][1].message and found[0][1].span.line == 4


def test_generated_dp_group_over_nodes_is_checked_not_skipped():
    from qlint.knowledge.base import load
    from qlint.linter.generate_nodes import generate_pd

    tree = generate_pd(load(), "Qwen3.5-397B-A17B", "a3", version="v0.23.0")
    scripts = dict(tree.scripts_in_order)
    scripts["run_d1.sh"] = scripts["run_d1.sh"].replace("--data-parallel-rpc-port 13389", "--data-parallel-rpc-port 13390")
    scripts["run_d1.sh"] = scripts["run_d1.sh"].replace('"${DECODE0_IP:?', '"${DECODE1_IP:?')
    results = lint_deployment([(name, text.encode()) for name, text in scripts.items()])
    messages = sorted(f.message for _, f in by_rule(results, "QL617"))
    assert len(messages) == 2 and "13390" in messages[0] + messages[1] and "$DECODE1_IP" in messages[0] + messages[1]
    assert {path for path, _ in by_rule(results, "QL617")} == {"run_d1.sh"}


def test_the_deployment_pass_reads_one_topology_that_the_rules_share(monkeypatch):
    """lint_deployment builds the Topology once (engines, launchers, proxies of seed 001) and every
    cross-node rule reads that one: no rule re-reads the layout."""
    import qlint.linter.topology_read as reader

    calls = []
    real = reader.read_topology

    def counting(scope, npus_per_node=0):
        calls.append(len(scope.deployment))
        return real(scope, npus_per_node)

    monkeypatch.setattr(reader, "read_topology", counting)  # (the deployment pass imports it when it reads one)
    found: list = []
    results = lint_deployment(files(*SEED_001), A3, topology=found)
    assert all(r.error is None for r in results)
    # one deployment read; QL616 reads each script's own node (one plan each), nothing else reads a layout
    assert len([n for n in calls if n > 1]) == 1 and len(found) == 1
    topology = found[0]
    assert topology.npus_per_node == 16
    assert [(s.node, s.dp_local, s.dp_start, s.tp) for s in topology.launchers] == [
        ("s001_pd_launchers.sh", 8, 0, 2), ("s001_pd_launchers.sh", 8, 0, 2)]
    assert {port for _, port in topology.proxies[0].targets["prefill"]} == set(range(7100, 7108))
    external = [i for i in topology.instances if i.group == "external"]
    assert sorted((i.role, i.dp, len(i.shares)) for i in external) == [("decode", 8, 8), ("prefill", 8, 8)]
    assert topology.ports("decode") == set(range(7100, 7108))


def test_a_deployment_no_rule_of_which_can_run_reads_no_topology(monkeypatch):
    """The deployment rules' triggers all fail for one engine that names no DP group over nodes, no proxy, no
    launcher, no Ray and no KV transfer: the pass reads no topology (read_deployment still gets one); a node
    of a DP group over nodes is read."""
    import qlint.linter.topology_read as reader
    from qlint.linter.deployment import read_deployment

    calls = []
    real = reader.read_topology
    monkeypatch.setattr(reader, "read_topology", lambda scope, npus=0: calls.append(len(scope.deployment))
                        or real(scope, npus))
    single = [("run.sh", b"vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --data-parallel-size 2\n")]
    results = lint_deployment(single, A3)
    assert results[0].error is None and calls == []
    topology = read_deployment(single, A3)
    assert calls == [1] and [(i.group, len(i.shares)) for i in topology.instances] == [("single", 1)]
    spread = [("run.sh", b"vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --data-parallel-size 4 "
                         b"--data-parallel-size-local 2 --data-parallel-address 10.0.0.1\n")]
    calls.clear()
    assert lint_deployment(spread, A3)[0].error is None and calls == [1]
