"""Quantization rules QL507-QL509 on handed case-01 (edge cases: tests/fixtures/rules/QL507-QL509.toml)."""

from conftest import SHARED, fixed, lint


# -- QL507 --------------------------------------------------------------------

def test_case_01_float16_with_w8a8_on_a2():
    text = (SHARED / "cases" / "case-01.sh").read_text()
    findings = [f for f in lint(text, path="case-01.sh") if f.rule.id == "QL507"]
    errors = [f for f in findings if f.level == "error"]
    assert len(errors) == 1
    error = errors[0]
    assert error.message.startswith("--dtype float16 / --mamba-ssm-cache-dtype float16 are Atlas-inference (310P)")
    assert "Atlas A2" in error.message and "npu_quant_matmul" in error.message and "FP16 scale" in error.message
    assert error.span.line == 18  # the --dtype value
    assert error.fix.safety == "safe"
    assert error.fix.description == "use --dtype bfloat16 (or omit --dtype) and --mamba-ssm-cache-dtype bfloat16"
    assert sorted(e.text for e in error.fix.edits) == ["bfloat16", "bfloat16"]
    after = fixed(text, errors)
    assert "--mamba-ssm-cache-dtype bfloat16 \\\n--dtype bfloat16 \\\n" in after
    assert after.count("float16") == after.count("bfloat16")
    assert not [f for f in lint(after) if f.rule.id == "QL507"]
    infos = [f for f in findings if f.level == "info"]
    assert len(infos) == 1
    assert "cudagraph_capture_sizes [1, 8]" in infos[0].message
    assert "enable_npugraph_ex=false" in infos[0].message and "not needed on Atlas A2" in infos[0].message
    assert infos[0].span.line == 20  # the cudagraph_capture_sizes value
