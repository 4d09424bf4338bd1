"""An external DP group over nodes: a ``launch_online_dp.py`` call per node (vllm-ascend
``examples/external_online_dp``), all naming the head's ``--dp-address`` and ``--dp-rpc-port``, each with
its own ``--dp-rank-start`` / ``--dp-size-local``. The deployment pass reads the calls as one ``launch``
instance of the Topology (QL612/QL617 judge it with ``Instance.checks()``), and runs each node's template
under that node's launcher: the non-head node's template too, whose HCCL_IF_IP names no launcher's address."""

from pathlib import Path

from qlint.linter.deployment import lint_deployment, read_deployment
from qlint.rules.graph import Settings

from conftest import FIXTURES

TREE = FIXTURES / "deployments" / "external_dp_two_node"


def files(layout: dict[str, str] | None = None) -> list[tuple[str, bytes]]:
    scripts = {path.name: path.read_text(encoding="utf-8") for path in sorted(TREE.glob("*.sh"))}
    if layout is None:
        return [(name, text.encode()) for name, text in scripts.items()]
    return [(new, scripts[old].encode()) for new, old in layout.items()]


def ranks(topology) -> dict[str, list[int]]:
    """The --data-parallel-rank values each template was run with (one engine per rank)."""
    out: dict[str, list[int]] = {}
    for engine in topology.engines():
        value = engine.serve.opt("--data-parallel-rank").value
        out.setdefault(engine.script, []).append(int(value.text) if value.text is not None else -1)
    return out


def test_each_node_template_runs_under_its_own_launcher():
    topology = read_deployment(files())
    assert ranks(topology) == {"template_0.sh": list(range(8)), "template_1.sh": list(range(8, 16))}
    external = [i for i in topology.instances if i.group == "external"]
    assert [(i.dp, i.address, i.rpc_port, len(i.shares)) for i in external] == [(16, "10.40.0.1", "12600", 16)]
    [group] = topology.launch_groups
    assert (group.group, group.dp, group.address, group.rpc_port) == ("launch", 16, "10.40.0.1", "12600")
    assert [(s.node, s.dp_start, s.dp_local, s.tp) for s in group.shares] == [("launch_0.sh", 0, 8, 2),
                                                                              ("launch_1.sh", 8, 8, 2)]
    assert group.head is group.shares[0] and not group.checks()


def test_templates_pair_with_the_launcher_in_their_folder():
    """launch_online_dp.py runs ./run_dp_template.sh from where it starts: a node folder holding one
    launcher and its template pairs them, whatever HCCL_IF_IP says (here the names are swapped)."""
    layout = {"node0/launch.sh": "launch_0.sh", "node0/run_dp_template.sh": "template_1.sh",
              "node1/launch.sh": "launch_1.sh", "node1/run_dp_template.sh": "template_0.sh"}
    topology = read_deployment(files(layout))
    by_path: dict[str, list[int]] = {}
    for engine in topology.engines():
        by_path.setdefault(engine.path, []).append(int(engine.serve.opt("--data-parallel-rank").value.text))
    assert by_path == {"node0/run_dp_template.sh": list(range(8)), "node1/run_dp_template.sh": list(range(8, 16))}


def test_an_ambiguous_head_leaves_the_templates_unread_and_the_launchers_reported():
    """Two calls that both start rank 0 at the head's address: no template is guessed a launcher (its
    values stay unknown), and the overlap is reported at the second call."""
    scripts = dict((name, data.decode()) for name, data in files())
    scripts["launch_1.sh"] = scripts["launch_1.sh"].replace("--dp-rank-start 8", "--dp-rank-start 0")
    inputs = [(name, text.encode()) for name, text in scripts.items()]
    topology = read_deployment(inputs)
    assert ranks(topology) == {"template_0.sh": [-1], "template_1.sh": [-1]}
    results = lint_deployment(inputs, Settings())
    found = [(r.path, f.rule.id, f.span.line) for r in results for f in r.findings if f.level != "info"]
    assert found == [("launch_1.sh", "QL612", 4)]


def test_a_launcher_call_without_a_dp_size_local_is_whole():
    """--dp-size-local left out starts all of --dp-size on the node (L24-L25 at v0.23.0): a group of its
    own, compared with no other call even at the same address."""
    scripts = dict((name, data.decode()) for name, data in files())
    for name in ("launch_0.sh", "launch_1.sh"):
        scripts[name] = scripts[name].replace("--dp-size 16 --tp-size 2 --dp-size-local 8", "--dp-size 8 --tp-size 2")
    topology = read_deployment([(name, text.encode()) for name, text in scripts.items()])
    assert topology.launch_groups == []
    assert [(s.dp_local, s.dp_start) for s in topology.launchers] == [(8, 0), (8, 8)]


def test_generator_and_linter_share_the_launch_group_checks():
    """A launch instance built by hand (as a generator would) is judged by the same checks."""
    from qlint.linter.topology import Instance, Share

    shares = [Share("node0", 8, 0, 2), Share("node1", 8, 4, 2)]
    problems = Instance("g", "mixed", 16, 2, False, 7500, 12600, "10.40.0.1", shares, None, "launch").problems()
    assert [p.en for p in problems] == ["--dp-rank-start 4 on node1: the ranks before it end at 7, so ranks 4..7 "
                                        "are claimed twice"]
    shares[1] = Share("node1", 4, 8, 2)
    problems = Instance("g", "mixed", 16, 2, False, 7500, 12600, "10.40.0.1", shares, None, "launch").problems()
    assert [p.en for p in problems] == ["the local DP sizes of the group add up to 12, but --dp-size is 16"]


def test_launcher_files_named_one_by_one_join_by_the_heads_address():
    """Two launcher scripts named on the command line are one deployment when they name one --dp-address
    (as engines naming one --data-parallel-address are); a launcher of another address stays apart."""
    from qlint.linter.grouping import linked_groups
    from qlint.linter.lint import lint_bytes

    scripts = dict((name, data) for name, data in files())
    other = scripts["launch_1.sh"].replace(b"--dp-address 10.40.0.1", b"--dp-address 10.50.0.1")
    plans = [lint_bytes(name, data).plan for name, data in
             (("launch_0.sh", scripts["launch_0.sh"]), ("launch_1.sh", scripts["launch_1.sh"]), ("other.sh", other))]
    assert linked_groups(plans) == [[0, 1], [2]]
