"""Hybrid-model prefix caching rules (QL701-QL703)."""

import json

import pytest


from conftest import FIXTURES, SHARED, lint, hits, fixed

SEEDS = FIXTURES / "seeds"


def pd(model, role, flags):
    config = {"kv_connector": "MooncakeLayerwiseConnector", "kv_role": role}
    return f"vllm serve {model} --tensor-parallel-size 2 {flags} --kv-transfer-config '{json.dumps(config)}'\n"


# -- QL701 ---------------------------------------------------------------------

def test_case_14_decode_prefix_caching_reported_and_fixed():
    text = (SHARED / "cases" / "case-14.sh").read_text()
    found = hits(lint(text, path="case-14.sh"), "QL701")
    assert len(found) == 1
    finding = found[0]
    assert finding.level == "error"
    for part in ("--enable-prefix-caching with --mamba-cache-mode align", "kv_role kv_consumer",
                 "Qwen3.5/3.6/Qwen3-Next", "vllm-ascend #7944", "wontfix"):
        assert part in finding.message
    assert finding.fix.description == ("use --no-enable-prefix-caching on the decode node and drop "
                                       "--mamba-cache-mode align there")
    assert finding.fix.safety == "safe"
    repaired = fixed(text, found)
    assert "  --no-enable-prefix-caching \\\n  --kv-transfer-config \\\n" in repaired
    assert "--mamba-cache-mode" not in repaired
    assert "--enable-prefix-caching" not in repaired.replace("--no-enable-prefix-caching", "")
    again = lint(repaired)
    assert not hits(again, "QL701") and not hits(again, "QL702")


@pytest.mark.parametrize("model", ["Eco-Tech/Qwen3.6-27B-w8a8", "Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp",
                                   "/models/Qwen3.6-35B-A3B"])
def test_every_hybrid_model_on_a_decode_node(model):
    text = pd(model, "kv_consumer", "--enable-prefix-caching")
    found = hits(lint(text), "QL701")
    assert found and "--mamba-cache-mode" not in found[0].message
    assert [e.text for e in found[0].fix.edits] == ["--no-enable-prefix-caching"]
    assert fixed(text, found) == pd(model, "kv_consumer", "--no-enable-prefix-caching")


def test_mamba_all_is_dropped_too():
    found = hits(lint(pd("/models/Qwen3.6-27B", "kv_consumer", "--mamba-cache-mode all --enable-prefix-caching")),
                 "QL701")
    assert found and "drop --mamba-cache-mode all" in found[0].fix.description


def test_not_reported_off_the_decode_node_or_for_dense_models():
    assert not hits(lint(pd("/models/Qwen3.6-27B", "kv_producer", "--enable-prefix-caching")), "QL701")
    assert not hits(lint(pd("/models/Qwen3.6-27B", "kv_consumer", "--no-enable-prefix-caching")), "QL701")
    assert not hits(lint(pd("/models/Qwen3-32B", "kv_consumer", "--enable-prefix-caching")), "QL701")
    # align alone is a supported PD path (no prefix caching): not this rule's business
    assert not hits(lint(pd("/models/Qwen3.6-27B", "kv_consumer", "--mamba-cache-mode align")), "QL701")


@pytest.mark.parametrize("name", ["s003_pd_run_d0.sh", "s003_pd_run_d1.sh", "s001_pd_decode_template.sh"])
def test_seed_decode_nodes_are_right(name):
    assert not hits(lint((SEEDS / name).read_text(), "a3", "v0.23.0"), "QL701")


# -- QL702 ---------------------------------------------------------------------

def test_hybrid_prefix_caching_is_an_info():
    found = hits(lint("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --enable-prefix-caching\n"), "QL702")
    assert found and found[0].level == "info" and "2048" in found[0].message


def test_prefix_caching_info_on_prefill_node_and_seed_000():
    assert hits(lint(pd("/models/Qwen3.6-27B", "kv_producer", "--enable-prefix-caching")), "QL702")
    text = (SEEDS / "s000_a3_w8a8_single_node.sh").read_text()
    assert hits(lint(text, "a3", "v0.22.1rc1"), "QL702")


def test_no_block_size_info_where_it_does_not_apply():
    assert not hits(lint("vllm serve /models/Qwen3-32B --enable-prefix-caching\n"), "QL702")
    assert not hits(lint("vllm serve /models/Qwen3.6-27B --no-enable-prefix-caching\n"), "QL702")
    assert not hits(lint("vllm serve /models/Qwen3.6-27B\n"), "QL702")  # off by default in vLLM 0.23.0
    # the decode case is QL701's error, not an info
    assert not hits(lint(pd("/models/Qwen3.6-27B", "kv_consumer", "--enable-prefix-caching")), "QL702")


# -- QL703 ---------------------------------------------------------------------

SPEC = "--speculative-config '{\"method\": \"%s\", \"num_speculative_tokens\": 1}'"


@pytest.mark.parametrize("method", ["qwen3_5_mtp", "mtp"])
def test_mamba_all_with_qwen35_mtp(method):
    text = f"vllm serve /models/Qwen3.6-27B --enable-prefix-caching --mamba-cache-mode all {SPEC % method}\n"
    found = hits(lint(text), "QL703")
    assert found and "NotImplementedError" in found[0].message
    assert "--mamba-cache-mode align" in fixed(text, found)


def test_mamba_all_without_mtp_or_on_other_models():
    assert not hits(lint("vllm serve /models/Qwen3.6-27B --enable-prefix-caching --mamba-cache-mode all\n"), "QL703")
    text = f"vllm serve /models/Qwen3.6-27B --enable-prefix-caching --mamba-cache-mode align {SPEC % 'mtp'}\n"
    assert not hits(lint(text), "QL703")
    text = f"vllm serve /models/DeepSeek-R1-W8A8 --mamba-cache-mode all {SPEC % 'mtp'}\n"
    assert not hits(lint(text), "QL703")
