"""Hybrid-model prefix caching rules (QL701-QL703) on case-14 and the seeds (edge cases:
tests/fixtures/rules/QL701-QL703.toml)."""

import pytest


from conftest import FIXTURES, SHARED, lint, hits, fixed

SEEDS = FIXTURES / "seeds"


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


@pytest.mark.parametrize("name", ["s003_pd_run_d0.sh", "s003_pd_run_d1.sh", "s001_pd_decode_template.sh"])
def test_seed_decode_nodes_are_right(name):
    assert not hits(lint((SEEDS / name).read_text(), "a3", "v0.23.0"), "QL701")


def test_prefix_caching_info_on_seed_000():
    text = (SEEDS / "s000_a3_w8a8_single_node.sh").read_text()
    assert hits(lint(text, "a3", "v0.22.1rc1"), "QL702")


