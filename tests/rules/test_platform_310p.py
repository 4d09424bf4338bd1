"""Atlas 300I (310P) rules QL501-QL506: behaviour beyond the rule examples, case-02."""

import pytest

from qlint.rules.platform_310p import default_capture_sizes, two_sizes

from conftest import FIXTURES, SHARED, lint, hits_at, fixed

hits = hits_at("310p", "v0.23.0")

Q27 = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8"
FDO = "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": %s}'"
NPUGRAPH_OFF = "--additional-config '{\"ascend_compilation_config\": {\"enable_npugraph_ex\": false}}'"


# -- QL501 --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bfloat16", "float32", "float"])
def test_ql501_explicit_non_fp16_is_an_error_fixed_in_place(dtype):
    text = f"{Q27} --tensor-parallel-size 2 --dtype {dtype} --enforce-eager\n"
    found = hits(text, "QL501")
    assert [f.level for f in found] == ["error"]
    assert dtype in found[0].message
    assert fixed(text, found) == text.replace(dtype, "float16")


@pytest.mark.parametrize("dtype", ["float16", "half", "FLOAT16"])
def test_ql501_fp16_spellings_pass(dtype):
    assert not hits(f"{Q27} --dtype {dtype} --enforce-eager\n", "QL501")


def test_ql501_absent_dtype_is_a_warning_with_an_insertion():
    text = "vllm serve /models/Qwen3-32B --tensor-parallel-size 2 --enforce-eager\n"
    found = hits(text, "QL501")
    assert [f.level for f in found] == ["warning"]
    assert fixed(text, found) == "vllm serve /models/Qwen3-32B --dtype float16 --tensor-parallel-size 2 --enforce-eager\n"


def test_ql501_explicit_auto_is_a_warning():
    found = hits(f"{Q27} --dtype auto --enforce-eager\n", "QL501")
    assert [f.level for f in found] == ["warning"]


def test_ql501_mamba_cache_dtype():
    text = f"{Q27} --dtype float16 --mamba-ssm-cache-dtype bfloat16 --enforce-eager\n"
    found = hits(text, "QL501")
    assert [f.level for f in found] == ["warning"]
    assert "--mamba-ssm-cache-dtype bfloat16" in found[0].message
    assert fixed(text, found) == text.replace("bfloat16", "float16")
    # forced to float16 by the 310P GDN code: leaving it out is fine
    assert not hits(f"{Q27} --dtype float16 --enforce-eager\n", "QL501")


@pytest.mark.parametrize("hardware", ["a2", "a3"])
def test_ql501_only_on_310p(hardware):
    assert not hits(f"{Q27} --dtype bfloat16\n", "QL501", hardware)


# -- QL502 --------------------------------------------------------------------

@pytest.mark.parametrize("mtp,max_num_seqs,expected", [
    (0, 128, [1, 8]), (1, 128, [2, 8]), (2, 128, [3, 9]), (3, 128, [4, 8]), (0, 4, [1, 4]), (0, 1, [1]),
])
def test_two_sizes(mtp, max_num_seqs, expected):
    assert two_sizes(mtp, max_num_seqs) == expected


def test_default_capture_sizes_match_vllm():
    assert default_capture_sizes(16) == [1, 2, 4, 8, 16]
    assert len(default_capture_sizes(512)) == 3 + 31 + 17
    assert default_capture_sizes(2) == [1, 2]


def test_ql502_explicit_list_too_long_with_mtp():
    text = (f"{Q27} --tensor-parallel-size 2 --dtype float16 "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 1}' "
            + FDO % "[2, 4, 8, 16]" + "\n")
    found = hits(text, "QL502")
    assert len(found) == 1 and found[0].level == "error"
    assert "TP=2" in found[0].message and "4 capture sizes" in found[0].message
    assert "vllm-ascend v0.23.0" in found[0].message
    assert found[0].fix.safety == "unsafe"
    assert fixed(text, found) == text.replace("[2, 4, 8, 16]", "[2, 8]")


def test_ql502_default_list_counts_sizes():
    text = f"{Q27} --tensor-parallel-size 2 --dtype float16 --max-num-seqs 16\n"
    found = hits(text, "QL502")
    assert len(found) == 1 and found[0].level == "error"
    assert "captures 5 sizes" in found[0].message and "... 16)" in found[0].message
    assert "[1, 8]" in found[0].fix.description and not found[0].fix.edits


@pytest.mark.parametrize("text", [
    f"{Q27} --tensor-parallel-size 2 --dtype float16 " + FDO % "[1, 8]" + "\n",
    f"{Q27} --tensor-parallel-size 1 --dtype float16 " + FDO % "[1, 2, 4, 8]" + "\n",
    f"{Q27} --tensor-parallel-size 2 --dtype float16 --enforce-eager\n",
    f"{Q27} --tensor-parallel-size 2 --dtype float16 --max-num-seqs 1\n",  # default list is just [1]
])
def test_ql502_accepts(text):
    assert not hits(text, "QL502")


def test_ql502_only_on_310p():
    assert not hits(f"{Q27} --tensor-parallel-size 2 " + FDO % "[1, 2, 4, 8]" + "\n", "QL502", "a3")


@pytest.mark.parametrize("version,level", [("v0.17.0rc1", "warning"), ("v0.18.0rc1", "warning"), ("v0.18.0", None)])
def test_ql502_eager_only_before_v0_18_0(version, level):
    text = "vllm serve /models/Qwen3-32B --tensor-parallel-size 1 --dtype float16\n"
    found = hits(text, "QL502", version=version)
    assert [f.level for f in found] == ([level] if level else [])
    if level:
        assert version in found[0].message and "eager" in found[0].message
        assert fixed(text, found) == "vllm serve /models/Qwen3-32B --enforce-eager --tensor-parallel-size 1 --dtype float16\n"


# -- QL503 --------------------------------------------------------------------

@pytest.mark.parametrize("version", ["v0.22.1rc1", "v0.23.0rc1", "v0.20.2rc1"])
def test_ql503_missing_before_v0_23_0_is_an_error_with_insertion(version):
    text = f"{Q27} --tensor-parallel-size 2 --dtype float16 " + FDO % "[1, 8]" + "\n"
    found = hits(text, "QL503", version=version)
    assert [f.level for f in found] == ["error"]
    assert version in found[0].message
    assert fixed(text, found) == text.replace(Q27, f"{Q27} {NPUGRAPH_OFF}")
    assert not hits(fixed(text, found), "QL503", version=version)


def test_ql503_explicit_true_is_set_to_false():
    text = f"{Q27} --dtype float16 " + FDO % "[1, 8]" + " " + NPUGRAPH_OFF.replace("false", "true") + "\n"
    found = hits(text, "QL503", version="v0.22.1rc1")
    assert "enable_npugraph_ex=true" in found[0].message
    assert fixed(text, found) == text.replace("true}}", "false}}")


def test_ql503_other_additional_config_keys_get_advice_only():
    text = f"{Q27} --dtype float16 " + FDO % "[1, 8]" + " --additional-config '{\"enable_cpu_binding\": true}'\n"
    found = hits(text, "QL503", version="v0.23.0rc1")
    assert len(found) == 1 and not found[0].fix.edits


def test_ql503_redundant_from_v0_23_0_is_info():
    text = f"{Q27} --dtype float16 " + FDO % "[1, 8]" + " " + NPUGRAPH_OFF + "\n"
    for version in ("v0.23.0", "v0.24.0rc1", "main"):
        found = hits(text, "QL503", version=version)
        assert [f.level for f in found] == ["info"], version
        assert f"vllm-ascend {version}" in found[0].message
    found = hits(text, "QL503", version="v0.23.0")
    assert fixed(text, found) == text.replace(" " + NPUGRAPH_OFF, "")
    assert not hits(f"{Q27} --dtype float16 " + FDO % "[1, 8]" + "\n", "QL503", version="v0.23.0")


@pytest.mark.parametrize("compilation", [
    "--compilation-config '{\"cudagraph_mode\": \"PIECEWISE\", \"cudagraph_capture_sizes\": [1, 8]}'",
    "--enforce-eager",
    "",  # default FULL_AND_PIECEWISE needs piecewise compilation, which switches npugraph_ex off
])
def test_ql503_only_full_graph_modes(compilation):
    assert not hits(f"{Q27} --dtype float16 {compilation}\n", "QL503", version="v0.23.0rc1")


def test_ql503_not_on_a2():
    assert not hits(f"{Q27} " + FDO % "[1, 8]" + "\n", "QL503", "a2", "v0.23.0rc1")


# -- QL504-QL506 --------------------------------------------------------------

def test_ql504_dp_and_ep():
    text = "vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 2 --data-parallel-size 2 --enable-expert-parallel\n"
    found = hits(text, "QL504")
    assert len(found) == 2 and all(f.level == "error" for f in found)
    assert any("--data-parallel-size 2" in f.message for f in found)
    assert any(f.fix.edits for f in found if "expert" in f.message)
    assert not hits("vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4\n", "QL504")
    assert not hits(text, "QL504", "a3")


def test_ql505_kv_transfer():
    text = (f"{Q27} --dtype float16 --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n")
    found = hits(text, "QL505")
    assert len(found) == 1 and "KV cache transfer is not supported for 310P" in found[0].message
    assert not hits(text, "QL505", "a3")


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


@pytest.mark.parametrize("value", ["fp8_e4m3", "fp8_e5m2", "FP8"])
def test_ql506_every_fp8_kind(value):
    text = f"vllm serve /models/Qwen3-32B --dtype float16 --kv-cache-dtype {value} --enforce-eager\n"
    assert [f.level for f in hits(text, "QL506")] == ["error"]


def test_ql506_other_dtypes_and_hardware():
    assert not hits("vllm serve /models/Qwen3-32B --kv-cache-dtype auto\n", "QL506")
    assert not hits("vllm serve /models/Qwen3-32B --kv-cache-dtype fp8\n", "QL506", "a2")


@pytest.mark.parametrize("name", ["s001_310p_qwen35_27b_w8a8.sh", "s001_310p_qwen36_27b_w8a8.sh"])
def test_seed_310p_blocks_pass_the_310p_rules(name):
    findings = lint((FIXTURES / "seeds" / name).read_text(), "310p", "v0.23.0rc1")
    assert not [f for f in findings if f.rule.id in ("QL501", "QL502", "QL503", "QL504", "QL505", "QL506")]


def test_ql503_true_is_ignored_from_v0_23_0():
    text = f"{Q27} --dtype float16 " + FDO % "[1, 8]" + " " + NPUGRAPH_OFF.replace("false", "true") + "\n"
    found = hits(text, "QL503", version="v0.23.0")
    assert [f.level for f in found] == ["info"] and "ignored (true)" in found[0].message
