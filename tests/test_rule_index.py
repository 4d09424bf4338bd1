"""The rule index and lazy loading (``qlint.rules.index``, ``RuleGraph.from_index``).

* the committed ``rules/index.json`` is what the rule modules register (regenerate:
  ``python -m qlint.rules.index``);
* linting with the graph built from the index (rule modules imported as their rules are about to
  run, rules whose trigger fails skipped) finds exactly what the graph of every registered rule
  finds: over every fixture, every rule example and generated and mutated launch scripts. The lazy
  graph runs in audit mode there: a rule whose trigger fails runs all the same and must report
  nothing and compute no fact, so a trigger that would hide a finding fails the test where it would;
* the lazy graph as a run builds it (not in audit mode: each trigger condition told as soon as the
  facts it names are computed, the other required facts only then) finds the same, facts aside;
* a fresh ``qlint FILE`` imports only the rule modules it needs and prints what ``QLINT_RULES=all``
  (every module, every rule) prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

import qlint.testing as qt
from qlint.knowledge.base import load
from qlint.linter import deployment as deployment_module
from qlint.linter import lint as lint_module
from qlint.linter.deployment import lint_deployment
from qlint.rules import registry  # noqa: F401  (every fact and rule, for the eager graph)
from qlint.rules.base import Example, RuleMeta
from qlint.rules.graph import FACTS, RULES, RuleGraph, Settings, _gate, parse_trigger
from qlint.rules.index import load_index, rendered

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures").rglob("*.sh"))
EAGER = RuleGraph(FACTS, RULES)
LAZY = RuleGraph.from_index(load_index(), audit=True)
RUN = RuleGraph.from_index(load_index())  # as default_graph() builds it


def test_the_committed_index_is_up_to_date():
    for path, text in rendered().items():
        assert Path(path).read_text(encoding="utf-8") == text, f"{path} is stale: python -m qlint.rules.index"


def test_the_index_order_is_the_graph_s():
    assert LAZY.rule_ids() == EAGER.rule_ids() and LAZY.fact_order() == EAGER.fact_order()


def _outcome(graph: RuleGraph, inputs: list[tuple[str, bytes]], settings: Settings, monkeypatch) -> list[tuple]:
    """Every finding of linting ``inputs`` as one deployment with ``graph`` (canonical, comparable)."""
    monkeypatch.setattr(lint_module, "default_graph", lambda: graph)
    monkeypatch.setattr(deployment_module, "default_graph", lambda: graph)
    results = lint_deployment(inputs, settings=settings, kb=load())
    out = []
    for result in results:
        if result.error is not None:
            out.append((result.path, "error", result.error.message))
        for finding in result.findings + [s.finding for s in result.suppressed]:
            fix = finding.fix
            out.append((finding.path, finding.rule.id, finding.span, finding.level, finding.message,
                        finding.message_zh, None if fix is None else (fix.description, fix.safety,
                                                                        [(e.span, e.text) for e in fix.edits]),
                        [(t.name, repr(t.value), t.origin) for t in finding.trace]))
    return out


def _same(inputs: list[tuple[str, bytes]], settings: Settings, monkeypatch) -> None:
    eager = _outcome(EAGER, inputs, settings, monkeypatch)
    assert _outcome(LAZY, inputs, settings, monkeypatch) == eager
    # a run computes fewer facts (none for a rule whose trigger fails): the findings' traces may be shorter
    assert [found[:-1] for found in _outcome(RUN, inputs, settings, monkeypatch)] == [found[:-1] for found in eager]


@pytest.mark.parametrize("hardware", [None, "310p"])
def test_lazy_loading_finds_what_every_rule_finds_on_every_fixture(hardware, monkeypatch):
    settings = Settings(hardware=hardware)
    for path in FIXTURES:
        _same([(str(path), path.read_bytes())], settings, monkeypatch)


def test_on_the_pd_fixtures_together(monkeypatch):
    for folder in sorted({path.parent for path in FIXTURES}):
        scripts = sorted(folder.glob("*.sh"))
        if 1 < len(scripts) <= 12:
            _same([(str(path), path.read_bytes()) for path in scripts], Settings(), monkeypatch)


def test_on_every_rule_example(monkeypatch):
    for rule in EAGER.order():
        for example in rule.meta.examples:
            settings = Settings(hardware=example.hardware, version=example.version)
            for text in (example.bad, example.good, example.fixed):
                if text is not None:
                    peers = [(f"peer{i}.sh", peer.encode()) for i, peer in enumerate(example.peers)]
                    _same([("run.sh", text.encode()), *peers], settings, monkeypatch)


QUICK = hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@QUICK
@given(st.sampled_from(qt.all_configs()), st.sampled_from([None, "a2", "a3", "310p"]))
def test_on_generated_launch_scripts(config, hardware):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same([("run.sh", qt.render(config).script.encode())],
              Settings(hardware=hardware or config.hardware, version=config.version), monkeypatch)


@QUICK
@given(qt.violations())
def test_on_mutated_launch_scripts(violation):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same([("run.sh", violation.script.encode())], Settings(), monkeypatch)


# Inputs that flip each condition of the forms ``!fact``, ``!option:``, ``serve:``, ``command:kind>N`` and
# ``plan:`` on a property: per rule, (script, hardware, version, whether its trigger holds there). Each one
# goes through the audit (a rule whose trigger fails must report nothing) and through the run's graph.
FLIPS = {
    "QL104": [("unset http_proxy\n#!/bin/bash\nvllm serve Qwen/Qwen3.6-27B\n", None, None, True),
              ("#/bin/bash\nvllm serve Qwen/Qwen3.6-27B\n", None, None, True),
              ("#!/bin/bash\nvllm serve Qwen/Qwen3.6-27B\n", None, None, False),
              ("vllm serve Qwen/Qwen3.6-27B\n", None, None, False)],
    "QL303": [("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 16384 --max-num-batched-tokens 8192 "
               "--no-enable-chunked-prefill\n", None, None, True),
              ("# qlint: vllm-ascend=v0.11.0rc1\nvllm serve /models/DeepSeek-V3.1-W8A8 --max-model-len 32768 "
               "--max-num-batched-tokens 4096 --additional-config '{\"ascend_scheduler_config\":{\"enabled\":true}}'\n",
               None, None, True),
              ("vllm serve /models/DeepSeek-V3.1-W8A8 --max-model-len 32768 --max-num-batched-tokens 4096 "
               "--additional-config '{\"ascend_scheduler_config\":{\"enabled\":true}}'\n", None, "v0.23.0", False),
              ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 16384 --max-num-batched-tokens 8192 "
               "--enable-chunked-prefill\n", None, None, False)],
    "QL304": [("vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 12 "
               "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n", None, None, True),
              ("vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 12 "
               "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [4, 12]}'\n",
               None, None, False),
              ("vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 12 "
               "--compilation-config '{\"cudagraph_mode\": \"PIECEWISE\"}'\n", None, None, False),
              ("vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 12 --enforce-eager\n",
               None, None, False)],
    "QL313": [("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --max-model-len 262144\n", "a2", "v0.23.0", True),
              ("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --max-model-len 262144 --max-num-seqs 256\n", "a2", "v0.23.0",
               False)],
    "QL314": [("vllm serve /data/ckpt/final --tensor-parallel-size 3 --max-model-len 300000\n", "a2", "v0.23.0", True),
              ("vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n", "a2", "v0.23.0", False)],
    "QL513": [("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --async-scheduling\n", None, "v0.23.0", True),
              ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --additional-config '{\"enable_cpu_binding\": true}'\n", None,
               "v0.23.0", True),
              ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\n", None, "v0.23.0", False)],
    "QL545": [("vllm serve --tensor-parallel-size 2 Qwen/Qwen3.6-27B --served-model-name qwen3.6\n", None, None, True),
              ("vllm serve --port 8000\n", None, None, True),
              ("vllm serve --model Qwen/Qwen3.6-27B\n", None, None, True),
              ("vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --served-model-name qwen3.6\n", None, None, False),
              ("vllm serve\n", None, None, False)],
    "QL550": [("vllm serve Qwen/Qwen3.6-27B --mamba-backend triton --tensor-parallel-size 2\n", None, "v0.18.0", True),
              ("vllm serve Qwen/Qwen3.6-27B --swap-space 16\n", None, "v0.23.0", True),
              ("vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n", None, "v0.18.0", False)],
    "QL616": [("ASCEND_RT_VISIBLE_DEVICES=0,1 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8100 --tensor-parallel-size 2 &\n"
               "ASCEND_RT_VISIBLE_DEVICES=2,3 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8100 --tensor-parallel-size 2 &\n",
               None, None, True),
              ("ASCEND_RT_VISIBLE_DEVICES=0,1 vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port 8100 --tensor-parallel-size 2 &\n",
               None, None, False)],
    "QL618": [("vllm serve Qwen/Qwen3.5-397B-A17B --tensor-parallel-size 16 --enable-expert-parallel\n", "a3", "v0.23.0", True),
              ("vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 1\n", "a3", "v0.23.0", False)],
}


def _trigger_holds(rule_id: str, text: str, settings: Settings) -> bool:
    """Whether a rule's trigger holds for some scope of a script, with its required facts computed."""
    from qlint.rules.graph import Scope, _holds

    plan = lint_module.lint_text("run.sh", text).plan
    settings = lint_module._with_defaults(settings, plan, lint_module.Policy())
    kind, requires = RUN._specs[rule_id][:2]
    trigger = tuple(condition for _, condition in RUN._specs[rule_id][5] if condition is not None)
    script = Scope(plan=plan, kb=load(), settings=settings)
    scopes = [script] if kind == "script" else [Scope(plan=plan, kb=load(), settings=settings, serve=command, parent=script)
                                                for command in plan.serve_commands()]
    return any(all(scope.known(name) is not None for name in requires) and _holds(trigger, scope, kind)
               for scope in scopes)


@pytest.mark.parametrize("rule_id", sorted(FLIPS))
def test_each_new_condition_flips_and_is_sound(rule_id, monkeypatch):
    for text, hardware, version, holds in FLIPS[rule_id]:
        settings = Settings(hardware=hardware, version=version)
        assert _trigger_holds(rule_id, text, settings) is holds, text
        _same([("run.sh", text.encode())], settings, monkeypatch)
        reported = [f.rule.id for f in lint_module.lint_text("run.sh", text, settings=settings).findings]
        if not holds:
            assert rule_id not in reported
    assert any(holds and rule_id in [f.rule.id for f in lint_module.lint_text(
        "run.sh", text, settings=Settings(hardware=hardware, version=version)).findings]
        for text, hardware, version, holds in FLIPS[rule_id])  # (an input where the rule reports)


def test_triggers_that_name_knowledge_name_all_of_it():
    """QL513's trigger names every setting of knowledge/data/redundant.toml; QL304's every full-decode mode."""
    from qlint.rules import kit

    alternatives = {f"{what}:{name}" for what, name, _ in RUN._specs["QL513"][5][0][1]}
    for entry in load().redundant:
        assert (f"option:{entry.setting}" if entry.kind == "flag" else "fact:additional_config") in alternatives
    modes = {value for condition in RUN._specs["QL304"][5] if condition[1] for what, name, value in condition[1]
             if name == "cudagraph_mode"}
    assert modes == set(kit.FULL_DECODE_MODES)


def test_a_trigger_that_hides_a_finding_fails_the_audit():
    from qlint.knowledge.text import Text
    from qlint.rules.base import Finding
    from qlint.rules.graph import RuleDef
    from qlint.rules.plan import Span

    meta = RuleMeta(id="QL998", name="always-reports", severity="info", title=Text(en="x", zh="x"),
                    why=Text(en="x", zh="x"), groups=("flags",), requires=("kv_transfer",),
                    sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/README.md",))
    rule = RuleDef(meta, lambda scope: [Finding(meta, "x", Span(1, 1, 1, 2))], when=("kv_transfer",))
    graph = RuleGraph(dict(FACTS), {"QL998": rule}, audit=True)
    plan = lint_module.lint_text("run.sh", "vllm serve Eco-Tech/Qwen3.6-27B-w8a8\n").plan
    with pytest.raises(AssertionError, match="QL998: its trigger"):
        graph.evaluate(plan, load(), Settings())
    assert [f.rule.id for f in RuleGraph(dict(FACTS), {"QL998": rule}).evaluate(plan, load(), Settings())] == ["QL998"]


def test_a_trigger_reads_only_required_facts():
    with pytest.raises(ValueError, match="not in its requires"):
        parse_trigger("QL998", "serve", ("tp",), ("hardware=310p",))
    with pytest.raises(ValueError, match="serve-scope"):
        parse_trigger("QL998", "script", (), ("env:X",))
    with pytest.raises(ValueError, match="unknown condition kind"):
        parse_trigger("QL998", "serve", (), ("flag:--x",))
    assert parse_trigger("QL998", "serve", ("tp",), ("tp | option:--x",)) == ((("fact", "tp", None), ("option", "--x", None)),)
    assert parse_trigger("QL998", "script", (), ("plan:unread",)) == ((("plan", "unread", None),),)
    assert parse_trigger("QL998", "script", (), ("plan:odd_shebang",)) == ((("plan", "odd_shebang", None),),)
    assert parse_trigger("QL998", "serve", ("tp",), ("!tp | !model | !option:--x",), ("model",)) == (
        (("!fact", "tp", None), ("!fact", "model", None), ("!option", "--x", None)),)
    with pytest.raises(ValueError, match="not in its requires or optional"):
        parse_trigger("QL998", "serve", ("tp",), ("!dp",), ("model",))
    with pytest.raises(ValueError, match="not in its requires"):
        parse_trigger("QL998", "serve", ("tp",), ("model",), ("model",))  # (optional: only negated)
    with pytest.raises(ValueError, match="serve- and script-scope"):
        parse_trigger("QL998", "deployment", (), ("!hardware",), ("hardware",))
    assert parse_trigger("QL998", "serve", (), ("serve:option_first",)) == ((("serve", "option_first", None),),)
    with pytest.raises(ValueError, match="no attribute 'first_option'"):
        parse_trigger("QL998", "serve", (), ("serve:first_option",))
    with pytest.raises(ValueError, match="serve-scope"):
        parse_trigger("QL998", "script", (), ("serve:option_first",))
    assert parse_trigger("QL998", "script", (), ("command:serve>1",)) == ((("command", "serve", "1"),),)
    with pytest.raises(ValueError, match="takes a number"):
        parse_trigger("QL998", "script", (), ("command:serve>x",))
    with pytest.raises(ValueError, match="no field 'unreadable'"):
        parse_trigger("QL998", "script", (), ("plan:unreadable",))
    from qlint.knowledge.text import Text
    from qlint.rules.graph import RuleDef

    meta = RuleMeta(id="QL998", name="bad-trigger", severity="info", title=Text(en="x", zh="x"), why=Text(en="x", zh="x"),
                    groups=("flags",), requires=("tp",), sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/README.md",))
    with pytest.raises(ValueError, match="unknown condition kind"):  # where the index is built (registering does not parse)
        RuleGraph(dict(FACTS), {"QL998": RuleDef(meta, lambda scope: [], when=("flag:--x",))})


def test_a_run_tells_a_trigger_before_the_facts_it_does_not_name():
    """A rule whose trigger fails computes only the facts its conditions name, up to the one that fails;
    the audit computes every required fact first."""
    from qlint.knowledge.text import Text
    from qlint.rules.graph import RuleDef

    meta = RuleMeta(id="QL998", name="never-runs", severity="info", title=Text(en="x", zh="x"),
                    why=Text(en="x", zh="x"), groups=("flags",), requires=("tp", "kv_transfer", "moe", "dp"),
                    sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/README.md",))
    rule = RuleDef(meta, lambda scope: [], when=("option:--tensor-parallel-size", "kv_transfer", "moe"))
    plan = lint_module.lint_text("run.sh", "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n").plan
    computed = {}
    for audit in (False, True):
        graph = RuleGraph.from_index({"facts": load_index()["facts"], "rules": {}, "order": []}, audit=audit)
        trigger = parse_trigger("QL998", "serve", meta.requires, rule.when)
        graph._rules, graph._rule_ids, graph._specs = {"QL998": rule}, ("QL998",), {
            "QL998": ("serve", meta.requires, (), rule.when, "none", _gate(meta.requires, trigger))}
        values: dict = {}
        real = graph._run_step

        def run_step(step, scope, real=real, values=values):
            values.update(scope.values)  # (before: what the step computed is in the scope after it)
            produced = real(step, scope)
            values.update(scope.values)
            return produced

        graph._run_step = run_step  # type: ignore[method-assign]
        assert graph.evaluate(plan, load(), Settings()) == []
        computed[audit] = sorted(values)
    assert computed[False] == ["kv_transfer"]  # the option holds, kv_transfer fails: neither tp, moe nor dp
    assert {"tp", "kv_transfer", "moe", "dp"} <= set(computed[True])


def _fresh(script: Path, **env) -> subprocess.CompletedProcess:
    code = ("import sys\nfrom qlint.linter.cli import main\nsys.argv = ['qlint', sys.argv[1]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('LOADED', sorted(m for m in sys.modules if m.startswith('qlint.rules.')))\n")
    return subprocess.run([sys.executable, "-c", code, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1", **env}, cwd=ROOT / "tests")


def test_a_fresh_run_imports_only_the_modules_it_needs():
    script = ROOT / "examples" / "qwen36_27b_a2.sh"
    lazy, eager = _fresh(script), _fresh(script, QLINT_RULES="all")
    body, _, loaded = lazy.stdout.rpartition("LOADED ")
    assert body == eager.stdout.rpartition("LOADED ")[0] and lazy.stderr == eager.stderr
    assert "problem(s)" in body
    assert "qlint.rules.platform_310p" not in loaded and "qlint.rules.ray_cluster" not in loaded
    for idle in ("script", "serve_cli", "node_layout", "versions", "unknown_model", "redundant", "capture_grid",
                 "scheduling_unchunked", "memory_mamba", "prefix_cache"):  # no rule of theirs can report here
        assert f"qlint.rules.{idle}'" not in loaded
    assert "qlint.rules.speculative" in loaded  # it sets --speculative-config
    assert "qlint.rules.platform_310p" in eager.stdout


def test_indexing_refuses_a_rule_whose_citation_is_not_pinned(monkeypatch):
    """RuleMeta leaves the pinning check to the index build (and tests/test_citations.py): it is slow."""
    from qlint.knowledge.text import Text
    from qlint.rules.graph import RuleDef

    meta = RuleMeta(id="QL998", name="unpinned", severity="info", title=Text(en="x", zh="x"), why=Text(en="x", zh="x"),
                    groups=("flags",), sources=("https://github.com/vllm-project/vllm-ascend/blob/main/README.md",))
    monkeypatch.setitem(RULES, "QL998", RuleDef(meta, lambda scope: []))
    with pytest.raises(ValueError, match="QL998: citation .* is not pinned"):
        rendered()
    with pytest.raises(ValueError, match="at least one citation"):
        RuleMeta(id="QL998", name="x", severity="info", title=Text(en="x", zh="x"), why=Text(en="x", zh="x"),
                 groups=("flags",), sources="https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/README.md")
