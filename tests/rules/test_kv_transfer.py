"""PD disaggregation rules (QL601-QL605) on case-17 and the seeds, and the sides a kv_both engine
checks (edge cases: tests/fixtures/rules/QL601-QL605.toml)."""

import json

import pytest


from conftest import FIXTURES, SHARED, lint, hits, fixed

SEEDS = FIXTURES / "seeds"


def serve(model="/models/Qwen3-32B", tp=4, dp=1, role="kv_consumer", prefill=(4, 1), decode=(4, 1),
          connector="MooncakeConnectorV1", extra="", config_extra=None):
    """A one-line PD serve command; prefill/decode are (tp_size, dp_size) or None to omit the block."""
    blocks = {}
    if prefill is not None:
        blocks["prefill"] = {"dp_size": prefill[1], "tp_size": prefill[0]}
    if decode is not None:
        blocks["decode"] = {"dp_size": decode[1], "tp_size": decode[0]}
    config = {"kv_connector": connector, "kv_role": role, "kv_connector_extra_config": blocks}
    config.update(config_extra or {})
    return (f"vllm serve {model} --tensor-parallel-size {tp} --data-parallel-size {dp} {extra}"
            f"--kv-transfer-config '{json.dumps(config)}'\n")


def test_case_17_decode_tp_mismatch_reported_and_fixed():
    text = (SHARED / "cases" / "case-17.sh").read_text()
    found = hits(lint(text, path="case-17.sh"), "QL601")
    assert len(found) == 1
    finding = found[0]
    assert finding.level == "error"
    assert "kv_connector_extra_config.decode.tp_size (8)" in finding.message
    assert "--tensor-parallel-size (4)" in finding.message
    assert "KV transfer 'decode' config has a conflicting tensor parallel size. Expected 4, but got 8" in finding.message
    assert finding.fix.description == "set decode.tp_size to 4 (or run the decode instance with --tensor-parallel-size 8)"
    assert [e.text for e in finding.fix.edits] == ["4"]
    repaired = fixed(text, found)
    assert '"decode": {"dp_size": 1, "tp_size": 4}' in repaired
    assert '"prefill": {"dp_size": 1, "tp_size": 4}' in repaired
    assert not hits(lint(repaired), "QL601")
    # the ratio rule stays quiet: the root cause is the decode block, reported once
    assert not hits(lint(text), "QL605")


def test_kv_both_checks_both_blocks():
    found = hits(lint(serve(tp=4, role="kv_both", prefill=(8, 1), decode=(2, 1))), "QL601")
    assert sorted(f.message.split(" ")[0] for f in found) == [
        "kv_connector_extra_config.decode.tp_size", "kv_connector_extra_config.prefill.tp_size"]


@pytest.mark.parametrize("name", ["s003_pd_run_p.sh", "s003_pd_run_d0.sh", "s003_pd_run_d1.sh",
                                  "s001_pd_prefill_template.sh", "s001_pd_decode_template.sh"])
def test_seed_pd_scripts_are_consistent(name):
    findings = lint((SEEDS / name).read_text(), "a3", "v0.23.0")
    assert not [f for f in findings if f.rule.id in ("QL601", "QL602", "QL604", "QL605")]




def test_seed_003_prefill_node_recompute():
    text = (SEEDS / "s003_pd_run_p.sh").read_text()
    assert not hits(lint(text, "a3", "v0.20.2rc1"), "QL603")  # the seed's own release accepts it
    found = hits(lint(text, "a3", "v0.23.0"), "QL603")
    assert found and found[0].level == "warning"
    assert "'{\"enable_cpu_binding\": true}'" in fixed(text, found)
    for name in ("s003_pd_run_d0.sh", "s003_pd_run_d1.sh"):
        assert not hits(lint((SEEDS / name).read_text(), "a3", "v0.23.0"), "QL603")
