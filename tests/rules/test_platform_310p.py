"""Atlas 300I (310P) rules QL501-QL506: capture-size arithmetic, advice-only fixes, case-02, seeds
(edge cases: tests/fixtures/rules/QL501-QL506.toml)."""

import pytest

from qlint.rules.platform_310p_graphs import two_sizes

from conftest import FIXTURES, SHARED, lint, hits_at, fixed

hits = hits_at("310p", "v0.23.0")

Q27 = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8"
FDO = "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": %s}'"


@pytest.mark.parametrize("mtp,max_num_seqs,expected", [
    (0, 128, [1, 8]), (1, 128, [2, 8]), (2, 128, [3, 9]), (3, 128, [4, 8]), (0, 4, [1, 4]), (0, 1, [1]),
])
def test_two_sizes(mtp, max_num_seqs, expected):
    assert two_sizes(mtp, max_num_seqs) == expected


def test_ql502_default_list_is_clipped_to_batched_tokens_like_vllm():
    # vLLM 0.23.0 config/vllm.py L1681-L1728: the default list stops at --max-num-batched-tokens and
    # captures that size too: 64 requests would give 11 sizes, 20 batched tokens give 1, 2, 4, 8, 16, 20
    text = f"{Q27} --tensor-parallel-size 2 --dtype float16 --max-num-seqs 64 --max-num-batched-tokens 20\n"
    found = hits(text, "QL502")
    assert len(found) == 1 and "captures 6 sizes" in found[0].message and "... 20)" in found[0].message
    unclipped = hits(f"{Q27} --tensor-parallel-size 2 --dtype float16 --max-num-seqs 64\n", "QL502")
    assert "captures 11 sizes" in unclipped[0].message


def test_ql502_default_list_counts_sizes():
    text = f"{Q27} --tensor-parallel-size 2 --dtype float16 --max-num-seqs 16\n"
    found = hits(text, "QL502")
    assert len(found) == 1 and found[0].level == "error"
    assert "captures 5 sizes" in found[0].message and "... 16)" in found[0].message
    assert "[1, 8]" in found[0].fix.description and not found[0].fix.edits


def test_ql503_other_additional_config_keys_get_advice_only():
    text = f"{Q27} --dtype float16 " + FDO % "[1, 8]" + " --additional-config '{\"enable_cpu_binding\": true}'\n"
    found = hits(text, "QL503", version="v0.23.0rc1")
    assert len(found) == 1 and not found[0].fix.edits


def test_case_02_fp8_kv_cache_is_reported_with_removal():
    text = (SHARED / "cases" / "case-02.sh").read_text()
    findings = lint(text, path="case-02.sh")  # hardware and version come from the "# Image:" comment
    found = [f for f in findings if f.rule.id == "QL506"]
    assert len(found) == 1
    finding = found[0]
    assert finding.level == "error"
    assert "--kv-cache-dtype fp8" in finding.message and "310P" in finding.message
    assert "first request" in finding.message
    assert finding.fix.description.startswith("remove --kv-cache-dtype fp8")
    assert [e.text for e in finding.fix.edits] == [""]
    after = fixed(text, found)
    assert "  --kv-cache-dtype fp8 \\\n" not in after
    assert after == text.replace("  --kv-cache-dtype fp8 \\\n", "")
    assert not [f for f in lint(after) if f.rule.id == "QL506"]


@pytest.mark.parametrize("name", ["s001_310p_qwen35_27b_w8a8.sh", "s001_310p_qwen36_27b_w8a8.sh"])
def test_seed_310p_blocks_pass_the_310p_rules(name):
    findings = lint((FIXTURES / "seeds" / name).read_text(), "310p", "v0.23.0rc1")
    assert not [f for f in findings if f.rule.id in ("QL501", "QL502", "QL503", "QL504", "QL505", "QL506")]
