"""PD disaggregation rules (QL601-QL605): kv_connector_extra_config vs the engine, kv_role,
the recompute scheduler by release, Mooncake size keys, prefill/decode TP ratio."""

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


# -- QL601 ---------------------------------------------------------------------

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


def test_producer_checks_prefill_block_dp():
    found = hits(lint(serve(tp=2, dp=8, role="kv_producer", prefill=(2, 4), decode=(2, 8))), "QL601")
    assert len(found) == 1
    assert "prefill.dp_size (4)" in found[0].message and "--data-parallel-size (8)" in found[0].message
    assert "conflicting data parallel size. Expected 8, but got 4" in found[0].message
    assert found[0].fix.edits[0].text == "8"


def test_producer_ignores_decode_block_and_consumer_ignores_prefill_block():
    # 1P2D: decode side is larger than the prefill engine; the producer only checks prefill.*
    assert not hits(lint(serve(tp=2, dp=8, role="kv_producer", prefill=(2, 8), decode=(2, 16))), "QL601")
    assert not hits(lint(serve(tp=2, dp=16, role="kv_consumer", prefill=(2, 8), decode=(2, 16))), "QL601")


def test_kv_both_checks_both_blocks():
    found = hits(lint(serve(tp=4, role="kv_both", prefill=(8, 1), decode=(2, 1))), "QL601")
    assert sorted(f.message.split(" ")[0] for f in found) == [
        "kv_connector_extra_config.decode.tp_size", "kv_connector_extra_config.prefill.tp_size"]


def test_symbolic_tp_is_not_guessed():
    text = serve(decode=(8, 1)).replace("--tensor-parallel-size 4", "--tensor-parallel-size $TP")
    assert not hits(lint(text), "QL601")


def test_release_without_startup_check_says_so():
    found = hits(lint(serve(decode=(8, 1)), version="v0.11.0rc1"), "QL601")
    assert found and "conflicting" not in found[0].message
    assert "pairs ranks" in found[0].message


@pytest.mark.parametrize("name", ["s003_pd_run_p.sh", "s003_pd_run_d0.sh", "s003_pd_run_d1.sh",
                                  "s001_pd_prefill_template.sh", "s001_pd_decode_template.sh"])
def test_seed_pd_scripts_are_consistent(name):
    findings = lint((SEEDS / name).read_text(), "a3", "v0.23.0")
    assert not [f for f in findings if f.rule.id in ("QL601", "QL602", "QL604", "QL605")]


# -- QL602 ---------------------------------------------------------------------

def test_kv_role_missing():
    text = "vllm serve /models/Qwen3-32B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\"}'\n"
    found = hits(lint(text), "QL602")
    assert found and "Please specify kv_role when kv_connector is set" in found[0].message


def test_kv_role_present_or_no_connector():
    assert not hits(lint(serve()), "QL602")
    assert not hits(lint("vllm serve /models/Qwen3-32B --kv-transfer-config '{\"kv_buffer_size\": 1e9}'\n"), "QL602")


# -- QL603 ---------------------------------------------------------------------

RECOMPUTE = "--additional-config '{\"recompute_scheduler_enable\": true, \"enable_cpu_binding\": true}' "


@pytest.mark.parametrize("version", ["v0.18.0", "v0.22.1rc1", "v0.23.0", "v0.25.1rc1", "main"])
def test_recompute_without_pd_is_an_error(version):
    text = f"vllm serve /models/Qwen3-32B {RECOMPUTE}\n"
    found = hits(lint(text, version=version), "QL603")
    assert found and found[0].level == "error"
    assert "without --kv-transfer-config" in found[0].message


def test_recompute_without_pd_before_the_check():
    assert not hits(lint(f"vllm serve /models/Qwen3-32B {RECOMPUTE}\n", version="v0.18.0rc1"), "QL603")


def test_recompute_with_kv_both_is_an_error():
    found = hits(lint(serve(role="kv_both", extra=RECOMPUTE), version="v0.23.0"), "QL603")
    assert found and "kv_role kv_both" in found[0].message and found[0].level == "error"
    assert found[0].fix.safety == "unsafe"


@pytest.mark.parametrize("version,expected", [
    ("v0.20.2rc1", False), ("v0.22.1rc1", False), ("v0.23.0rc1", True), ("v0.23.0", True), ("main", True)])
def test_recompute_on_prefill_node_by_release(version, expected):
    text = serve(role="kv_producer", extra=RECOMPUTE)
    found = hits(lint(text, version=version), "QL603")
    assert bool(found) == expected
    if found:
        assert found[0].level == "warning"
        repaired = fixed(text, found)
        assert "--additional-config '{\"enable_cpu_binding\": true}'" in repaired
        assert not hits(lint(repaired, version=version), "QL603")


def test_recompute_on_decode_node_is_fine():
    assert not hits(lint(serve(role="kv_consumer", extra=RECOMPUTE), version="v0.23.0"), "QL603")


def test_recompute_only_key_removes_the_option():
    text = serve(role="kv_producer", extra="--additional-config '{\"recompute_scheduler_enable\":true}' ")
    found = hits(lint(text, version="v0.23.0"), "QL603")
    assert "--additional-config" not in fixed(text, found)


def test_nested_scheduler_config_key_is_read_from_v0_25_1rc1():
    extra = "--additional-config '{\"scheduler_config\": {\"recompute_scheduler_enable\": true}}' "
    text = serve(role="kv_producer", extra=extra)
    assert not hits(lint(text, version="v0.23.0"), "QL603")  # not read there: nothing happens
    found = hits(lint(text, version="v0.25.1rc1"), "QL603")
    assert found and "scheduler_config.recompute_scheduler_enable" in found[0].message
    assert "--additional-config" not in fixed(text, found)


def test_seed_003_prefill_node_recompute():
    text = (SEEDS / "s003_pd_run_p.sh").read_text()
    assert not hits(lint(text, "a3", "v0.20.2rc1"), "QL603")  # the seed's own release accepts it
    found = hits(lint(text, "a3", "v0.23.0"), "QL603")
    assert found and found[0].level == "warning"
    assert "'{\"enable_cpu_binding\": true}'" in fixed(text, found)
    for name in ("s003_pd_run_d0.sh", "s003_pd_run_d1.sh"):
        assert not hits(lint((SEEDS / name).read_text(), "a3", "v0.23.0"), "QL603")


# -- QL604 ---------------------------------------------------------------------

def test_mooncake_connector_needs_both_blocks():
    found = hits(lint(serve(role="kv_producer", decode=None)), "QL604")
    assert found and "decode.tp_size, decode.dp_size are missing" in found[0].message


def test_mooncake_connector_needs_dp_size():
    text = serve(role="kv_consumer").replace('"dp_size": 1, "tp_size": 4}}', '"tp_size": 4}}')
    found = hits(lint(text), "QL604")
    assert found and "decode.dp_size is missing" in found[0].message


def test_hybrid_and_module_path_connectors_assert_too():
    assert hits(lint(serve(connector="MooncakeHybridConnector", decode=None)), "QL604")
    path = {"kv_connector_module_path": "vllm_ascend.distributed.kv_transfer.kv_p2p.mooncake_connector"}
    assert hits(lint(serve(connector="MooncakeConnector", decode=None, config_extra=path)), "QL604")
    assert not hits(lint(serve(connector="MooncakeConnector", decode=None)), "QL604")


def test_layerwise_connector_asserted_only_in_old_releases():
    text = serve(connector="MooncakeLayerwiseConnector", decode=None)
    assert hits(lint(text, version="v0.11.0rc1"), "QL604")
    assert not hits(lint(text, version="v0.23.0"), "QL604")


# -- QL605 ---------------------------------------------------------------------

def test_prefill_tp_smaller_than_decode_tp():
    found = hits(lint(serve(tp=2, role="kv_producer", prefill=(2, 1), decode=(4, 1))), "QL605")
    assert found and "prefill.tp_size 2 is not a multiple of decode.tp_size 4" in found[0].message


def test_prefill_tp_multiple_of_decode_tp_is_fine():
    assert not hits(lint(serve(tp=4, role="kv_producer", prefill=(4, 1), decode=(2, 1))), "QL605")


def test_mla_models_are_exempt():
    text = serve(model="/models/DeepSeek-R1-W8A8", tp=2, role="kv_producer", prefill=(2, 1), decode=(4, 1))
    assert not hits(lint(text), "QL605")


def test_hybrid_qwen_models_are_checked():
    text = serve(model="Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp", tp=4, role="kv_consumer",
                 prefill=(2, 8), decode=(4, 4), connector="MooncakeLayerwiseConnector")
    found = hits(lint(text), "QL605")
    assert found and "prefill.tp_size 2" in found[0].message
