"""Several scripts as one PD deployment; DP templates evaluated under their launcher."""

from pathlib import Path

import pytest

from qlint.linter.deployment import Launcher, is_template, lint_deployment, parse_launcher
from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings

from conftest import FIXTURES

SEEDS = FIXTURES / "seeds"
A3 = Settings(hardware="a3", version="v0.22.1rc1")


def files(*names, replace=None):
    out = []
    for name in names:
        text = (SEEDS / name).read_text()
        for old, new in (replace or {}).get(name, []):
            assert old in text
            text = text.replace(old, new)
        out.append((name, text.encode()))
    return out


def by_rule(results, rule):
    return [(r.path, f) for r in results for f in r.findings if f.rule.id == rule]


SEED_003 = ("s003_pd_run_p.sh", "s003_pd_run_d0.sh", "s003_pd_run_d1.sh", "s003_pd_proxy.sh")
SEED_001 = ("s001_pd_prefill_template.sh", "s001_pd_decode_template.sh", "s001_pd_launchers.sh", "s001_pd_proxy.sh")


def test_seed_003_deployment_is_consistent():
    results = lint_deployment(files(*SEED_003), A3)
    assert not [f for r in results for f in r.findings if f.rule.id in ("QL610", "QL611", "QL612", "QL614")]


def test_peer_sizes_point_at_the_script_that_is_wrong():
    results = lint_deployment(files(*SEED_003, replace={"s003_pd_run_p.sh": [('"dp_size": 16', '"dp_size": 8')]}), A3)
    found = by_rule(results, "QL610")
    assert len(found) == 1
    path, finding = found[0]
    assert path == "s003_pd_run_p.sh"
    assert "decode.dp_size is 8" in finding.message and "--data-parallel-size 16" in finding.message
    assert finding.fix.replacement == "16"


def test_dp_ranks_claimed_twice_and_missing_headless():
    swap = {"s003_pd_run_d1.sh": [("--data-parallel-start-rank 8", "--data-parallel-start-rank 4"),
                                   ("--headless \\\n", "")]}
    results = lint_deployment(files(*SEED_003, replace=swap), A3)
    messages = [f.message for _, f in by_rule(results, "QL612")]
    assert any("claimed twice" in m for m in messages)
    assert not any("must run --headless" in m for m in messages)  # start rank != 0 without --headless: hybrid LB


def test_local_sizes_must_add_up():
    swap = {"s003_pd_run_d1.sh": [("--data-parallel-size-local 8", "--data-parallel-size-local 4")]}
    messages = [f.message for _, f in by_rule(lint_deployment(files(*SEED_003, replace=swap), A3), "QL612")]
    assert any("add up to 12" in m for m in messages)


def test_served_name_and_proxy_mismatches():
    swap = {
        "s003_pd_run_d0.sh": [("--served-model-name qwen3.5", "--served-model-name qwen")],
        "s003_pd_proxy.sh": [("--prefiller-ports 30060", "--prefiller-ports 30061 30062")],
    }
    results = lint_deployment(files(*SEED_003, replace=swap), A3)
    assert [p for p, _ in by_rule(results, "QL611")] == ["s003_pd_run_d0.sh"]
    proxy = [f.message for _, f in by_rule(results, "QL614")]
    assert any("lists 1 hosts but --prefiller-ports lists 2" in m for m in proxy)
    assert any("30061" in m and "30060" in m for m in proxy)


def test_layerwise_connector_needs_layerwise_proxy():
    swap = {"s003_pd_proxy.sh": [("load_balance_proxy_layerwise_server_example.py", "load_balance_proxy_server_example.py")]}
    results = lint_deployment(files(*SEED_003, replace=swap), A3)
    assert any("not the layerwise one" in f.message for _, f in by_rule(results, "QL614"))


def test_templates_without_launcher_raise_no_false_alarm():
    for name in SEED_001[:2]:
        result = lint_text(name, (SEEDS / name).read_text(), settings=A3)
        assert is_template(result.plan)
        assert not [f for f in result.findings if f.level == "error"], [f.message for f in result.findings]


def test_templates_under_their_launchers_show_external_dp_on_dense_model():
    results = lint_deployment(files(*SEED_001), A3)
    external = by_rule(results, "QL208")
    assert sorted(p for p, _ in external) == ["s001_pd_decode_template.sh", "s001_pd_prefill_template.sh"]
    assert "--data-parallel-size 8" in external[0][1].message
    # launcher ports 7100..7107 match the proxy's lists: no proxy finding
    assert not by_rule(results, "QL614")


def test_launcher_option_binds_positional_parameters():
    launcher = parse_launcher("python launch_online_dp.py --dp-size 2 --tp-size 4 --dp-address 10.0.0.1 --vllm-start-port 7000")
    assert launcher == Launcher(dp_size=2, tp_size=4, dp_address="10.0.0.1", vllm_start_port=7000)
    bindings = launcher.rank_bindings()
    assert bindings[1] == {"1": "4,5,6,7", "2": "7001", "3": "2", "4": "1", "5": "10.0.0.1", "6": "12345", "7": "4"}
    template = (SEEDS / "s001_pd_decode_template.sh").read_text()
    results = lint_deployment([("t.sh", template.encode())], A3, launcher=launcher)
    # TP 4 under the launcher while the kv config says decode tp_size 2
    assert any(f.rule.id == "QL601" for f in results[0].findings)


@pytest.mark.parametrize("text", ["python other.py --dp-size 2", "python launch_online_dp.py --tp-size 2", "'unbalanced"])
def test_bad_launcher_strings(text):
    with pytest.raises(ValueError):
        parse_launcher(text)
