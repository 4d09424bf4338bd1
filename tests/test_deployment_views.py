"""The deployment pass over plan views (``deployment.deployment_view``: what a batch keeps of a file's plan
once it is analysed) reports what the pass over whole plans reports: every fixture deployment and its
mutations, the fixtures grouped as a batch groups them, generated PD deployments, generated multi-node and
Ray trees and their one-field mutations. A view refuses what it does not keep (``NotKept``), and the batch
then runs the pass on whole plans: the output is the same either way."""

from __future__ import annotations

import pickle
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import qlint.testing as qt
from qlint.knowledge.base import load
from qlint.linter import batch, cli_check, deployment
from qlint.linter.deployment import Kept, NotKept, PlanView, Withheld, deployment_view, lint_deployment
from qlint.linter.lint import lint_bytes
from qlint.rules.graph import Settings

from test_batch import FIXTURES, MIXED, _run

DEPLOYMENTS = FIXTURES / "deployments"
CASES = tomllib.loads((DEPLOYMENTS / "cases.toml").read_text(encoding="utf-8"))["case"]


def _shown(results) -> list:
    """Everything a report shows of the results: findings (with fixes and traces), suppressed findings, errors."""
    return [(r.path, r.error and (r.error.message, r.error.line, r.error.column), [(f.rule.id, f.path, f.span, f.message, f.level, f.fix, f.trace, f.release)
                               for f in r.findings],
             [(s.finding.rule.id, s.finding.span, s.reason) for s in r.suppressed]) for r in results]


def _both(inputs: list[tuple[str, bytes]], version: str | None = None) -> tuple[list, list | None]:
    """The pass over whole plans, and over views (None when a view refused what the pass read)."""
    kb = load()
    chosen = Settings(version=version)
    whole = lint_deployment(inputs, chosen, kb)
    first = [lint_bytes(path, data, settings=chosen, kb=kb) for path, data in inputs]
    for result in first:
        if result.plan is not None:
            result.plan = deployment_view(result.plan)
    try:
        viewed = lint_deployment(inputs, chosen, kb, first=first)
    except NotKept:
        return _shown(whole), None
    return _shown(whole), _shown(viewed)


def _tree(name: str, edits=()) -> list[tuple[str, bytes]]:
    files = {path.name: path.read_text(encoding="utf-8") for path in sorted((DEPLOYMENTS / name).glob("*.sh"))}
    for file, old, new in edits:
        files[file] = files[file].replace(old, new)
    return [(name, text.encode()) for name, text in files.items()]


@pytest.mark.parametrize("version", [None, "main"])
def test_fixture_deployments_and_their_mutations(version):
    trees = sorted({case["tree"] for case in CASES})
    checked = 0
    for inputs in [_tree(name) for name in trees] + [_tree(case["tree"], case["edits"]) for case in CASES]:
        whole, viewed = _both(inputs, version)
        assert viewed is not None, [path for path, _ in inputs]  # these trees need nothing a view withholds
        assert viewed == whole, [path for path, _ in inputs]
        checked += any(findings for _, _, findings, _ in whole)
    assert checked > len(CASES) // 2  # the mutations are reported


def test_fixtures_grouped_as_a_batch_groups_them():
    """Every fixture and example, grouped into deployments by what they reference (as named files are):
    each group whose pass waits for the batch (more than one file, or one that may join others)."""
    from qlint.linter.grouping import groups_of_links, links, may_join

    kb = load()
    paths = sorted(str(p) for p in FIXTURES.rglob("*.sh")) + sorted(str(p) for p in Path("examples").glob("*.sh"))
    inputs = [(path, Path(path).read_bytes()) for path in paths]
    plans = [lint_bytes(path, data, kb=kb).plan for path, data in inputs]
    found = [links(plan) for plan in plans]
    groups = [group for group in groups_of_links(found) if len(group) > 1 or may_join(found[group[0]])]
    assert sum(len(group) > 1 for group in groups) > 5
    refused = 0
    for group in groups:
        whole, viewed = _both([inputs[index] for index in group])
        if viewed is None:
            refused += 1
            continue
        assert viewed == whole, [inputs[index][0] for index in group]
    assert refused <= len(groups) // 10, (refused, len(groups))  # the pass seldom needs the whole plans


def test_generated_pd_deployments():
    configs = qt.all_configs()
    checked = 0
    for config in configs[::max(1, len(configs) // 60)]:
        made = qt.render(config)
        inputs = [(name, text.encode()) for name, text in getattr(made, "scripts_in_order", [])]
        if len(inputs) < 2:
            inputs = [("generated.sh", made.script.encode())]
        whole, viewed = _both(inputs)
        assert viewed == whole, config
        checked += 1
    assert checked > 30


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(qt.tree_mutations())
def test_generated_trees_and_mutations(mutation):
    for files in (mutation.tree.files, mutation.files):
        whole, viewed = _both([(name, text.encode()) for name, text in files.items()])
        assert viewed is None or viewed == whole


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(qt.node_trees(layout="ray", model="Qwen3.5-397B-A17B"))
def test_generated_ray_trees(tree):
    whole, viewed = _both([(name, text.encode()) for name, text in tree.files.items()])
    assert viewed is None or viewed == whole


def test_a_view_keeps_what_it_names_and_refuses_the_rest():
    plan = lint_bytes("t.sh", b"HCCL_IF_IP=10.0.0.1 FOO=1 vllm serve Qwen/Qwen3.6-27B --port 8100 "
                              b"--max-model-len 4096 --data-parallel-size $3\n").plan
    view = deployment_view(plan)
    assert isinstance(view, PlanView) and view.template
    serve = view.serve_commands()[0]
    assert serve.opt("--port") is plan.serve_commands()[0].opt("--port")
    assert serve.opt("--headless") is None and "--headless" not in serve.options
    assert serve.env["HCCL_IF_IP"].value.text == "10.0.0.1"
    for refused in (lambda: serve.opt("--max-model-len"), lambda: "FOO" in serve.env, lambda: list(serve.options),
                    lambda: serve.argv[-1], lambda: [o for o in serve.all_options], lambda: len(serve.env)):
        with pytest.raises(NotKept):
            refused()
    back = pickle.loads(pickle.dumps(view))  # what a worker sends back
    assert back.template and back.serve_commands()[0].opt("--port") == serve.opt("--port")
    assert isinstance(back.serve_commands()[0].options, Kept) and isinstance(back.serve_commands()[0].argv, Withheld)
    ray = lint_bytes("r.sh", b"ray start --head --port 6379\nvllm serve Qwen/Qwen3.6-27B --distributed-executor-backend ray\n").plan
    assert deployment_view(ray) is ray  # the Ray cluster reader reads every command


def test_a_batch_keeps_views_and_reports_what_whole_plans_report(monkeypatch):
    """A batch of every fixture deployment and the mixed fixtures: the views kept for the deployment pass,
    whole plans kept, and views that refuse what the pass reads (the pass then runs on whole plans again)
    all give the same output."""
    monkeypatch.setattr(batch, "PARALLEL_FROM", 10**9)
    files = MIXED + sorted(str(p) for p in DEPLOYMENTS.rglob("*.sh"))
    kept: list = []
    real = batch.keep
    monkeypatch.setattr(cli_check, "keep", lambda item: real(item) or kept.append(item.result.plan))
    viewed = [_run(["--format", output, *files]) for output in ("text", "json")]
    assert sum(isinstance(plan, PlanView) for plan in kept) > 50
    monkeypatch.setattr(deployment, "deployment_view", lambda plan: plan)
    whole = [_run(["--format", output, *files]) for output in ("text", "json")]
    monkeypatch.undo()
    monkeypatch.setattr(batch, "PARALLEL_FROM", 10**9)
    monkeypatch.setattr(deployment, "VIEW_OPTIONS", frozenset({"--port"}))  # too little: NotKept, then whole plans
    refused = []

    def spied(*args, **kwargs):
        try:
            return lint_deployment(*args, **kwargs)
        except NotKept as error:
            refused.append(error)
            raise

    monkeypatch.setattr(deployment, "lint_deployment", spied)
    narrow = [_run(["--format", output, *files]) for output in ("text", "json")]
    assert refused
    assert viewed == whole == narrow
