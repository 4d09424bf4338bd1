"""Properties of whole multi-node and PD trees (qlint.testing.node_trees / tree_mutations): every tree the
generator writes lints clean as one deployment and reads back as the topology it was written from; one
changed field (a node's RPC port, DP address or start rank, a served name, a proxy port, a stated peer size) gives exactly the
one finding that names it, at the file that was changed."""

from hypothesis import given, settings

import qlint.testing as qt

# each example lints a whole tree: a fifth of the profile's examples (12 under the ci profile)
BOUNDED = settings(max_examples=max(5, settings().max_examples // 5))


def _shape(topology):
    from qlint.linter.topology_read import variable

    return sorted((i.role, i.dp, i.tp, i.expert_parallel, i.port, variable(i.address or ""),
                   tuple((s.dp_local, s.dp_start, s.headless, s.tp) for s in i.shares)) for i in topology.instances)


@BOUNDED
@given(qt.node_trees())
def test_every_generated_tree_lints_clean_and_reads_back_as_its_topology(tree):
    found, read = qt.lint_tree(tree.files)
    assert found == [], (tree.config, [(path, f and (f.rule.id, f.message)) for path, f in found])
    assert _shape(read) == _shape(tree.deployment.topology), tree.config
    assert not read.checks() or all(p.kind in ("node-npus",) for p in read.checks())


@BOUNDED
@given(qt.tree_mutations())
def test_one_changed_field_gives_exactly_its_finding(mutation):
    found, _ = qt.lint_tree(mutation.files)
    got = [(path, f.rule.id if f else None) for path, f in found]
    assert got == [(mutation.file, mutation.rule)], (mutation.tree.config, mutation.what,
                                                     [(p, f and (f.rule.id, f.message)) for p, f in found])


@BOUNDED
@given(qt.tree_mutations(kind=["rpc-port", "address", "start-rank"], layout="nodes", hardware="a2"))
def test_dp_group_mutations_over_several_a2_nodes(mutation):
    found, _ = qt.lint_tree(mutation.files)
    assert [(path, f.rule.id) for path, f in found if f] == [(mutation.file, mutation.rule)], mutation.what


def test_filters_are_checked():
    import pytest

    with pytest.raises(ValueError):
        qt.node_trees(hardware="310p")
    with pytest.raises(ValueError):
        qt.tree_mutations(kind="nic-name")
