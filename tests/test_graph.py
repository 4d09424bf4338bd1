"""The rule graph façade: order, dependencies, cycles, traces."""

import pytest

from qlint.knowledge.models import Text
from qlint.rules.base import RuleMeta
from qlint.rules.graph import FACTS, FactDef, RuleDef, RuleGraph, default_graph

from conftest import lint


def test_every_rule_comes_after_the_facts_it_reads():
    graph = default_graph()
    position = {name: i for i, name in enumerate(graph.fact_order())}
    for rule in graph.order():
        for fact in rule.meta.requires + rule.meta.optional:
            assert fact in position
    assert len(graph.order()) >= 40


def test_inputs_are_transitive():
    inputs = default_graph().inputs("QL207")  # ep_size <- tp, dp, expert_parallel
    assert {"ep_size", "tp", "dp", "expert_parallel"} <= set(inputs)
    assert inputs.index("tp") < inputs.index("ep_size")


def test_inputs_are_the_ancestors_in_the_graph_of_every_edge():
    """inputs / fact_inputs walk the specs; they are the ancestors networkx finds in the graph of
    every derives / requires / uses edge, in evaluation order."""
    import networkx as nx

    graph = default_graph()
    edges = graph._graph
    order = graph.node_order()
    for rule_id in graph.rule_ids():
        ancestors = nx.ancestors(edges, f"rule:{rule_id}")
        assert graph.inputs(rule_id) == [node[5:] for node in order if node in ancestors]
    for name in graph.fact_order():
        assert graph.fact_inputs(name) == {node[5:] for node in nx.ancestors(edges, f"fact:{name}")}


def test_affected_by_and_relations():
    graph = default_graph()
    assert "rule:QL206" in graph.affected_by("tp")
    assert ("conflicts", "moe_tp", "QL201") in graph.relations("expert_parallel")


def test_cycles_are_rejected():
    facts = {
        "a": FactDef("a", "serve", ("b",), lambda s: 1, ""),
        "b": FactDef("b", "serve", ("a",), lambda s: 1, ""),
    }
    with pytest.raises(ValueError, match="cycle"):
        RuleGraph(facts, {})


def test_unknown_fact_in_requires_is_rejected():
    meta = RuleMeta(id="QL999", name="x", severity="info", requires=("nope",), groups=("flags",), title=Text(en="x", zh="x"),
                    why=Text(en="x", zh="x"), sources=("https://github.com/vllm-project/vllm-ascend/issues/12907",))
    with pytest.raises(ValueError, match="unknown fact"):
        RuleGraph(dict(FACTS), {"QL999": RuleDef(meta, lambda s: [])})


def test_findings_carry_the_chain_of_facts():
    findings = lint("vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 3 --enable-expert-parallel\n")
    finding = next(f for f in findings if f.rule.id == "QL207")
    trace = {t.name: t.value for t in default_graph().why(finding)}
    assert trace["tp"] == 3 and trace["ep_size"] == 3 and trace["expert_parallel"] is True


def test_symbolic_values_skip_rules_instead_of_guessing():
    findings = lint("vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size $TP --enable-expert-parallel\n")
    assert not [f for f in findings if f.rule.id in ("QL206", "QL207")]
