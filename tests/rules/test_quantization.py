"""Quantization rules QL507-QL509: behaviour beyond the rule examples, case-01."""

import pytest


from conftest import SHARED, lint, hits_at, fixed

hits = hits_at("a2", "v0.23.0")


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


W8A8 = "vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp --tensor-parallel-size 16"


@pytest.mark.parametrize("hardware", ["a2", "a3"])
@pytest.mark.parametrize("spelling", ["float16", "half"])
def test_ql507_dtype_alone_on_other_models(hardware, spelling):
    text = f"{W8A8} --dtype {spelling}\n"
    found = hits(text, "QL507", hardware)
    assert [f.level for f in found] == ["error"]
    assert found[0].message.startswith(f"--dtype float16 is an Atlas-inference (310P) setting; on Atlas {hardware.upper()}")
    assert fixed(text, found) == f"{W8A8} --dtype bfloat16\n"


def test_ql507_mamba_alone_is_a_warning():
    text = f"{W8A8} --dtype bfloat16 --mamba-ssm-cache-dtype float16\n"
    found = hits(text, "QL507")
    assert [f.level for f in found] == ["warning"]
    assert fixed(text, found) == f"{W8A8} --dtype bfloat16 --mamba-ssm-cache-dtype bfloat16\n"


def test_ql507_w8a8_from_the_name_only():
    assert hits("vllm serve /data/MyModel-W8A8 --dtype float16\n", "QL507")


@pytest.mark.parametrize("text,hardware", [
    ("vllm serve Qwen/Qwen3.6-27B --dtype float16\n", "a2"),  # BF16 weights: not this rule
    ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --dtype float16\n", "310p"),  # the 310P recipe itself
    ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --dtype bfloat16\n", "a3"),
    ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8\n", "a3"),
])
def test_ql507_accepts(text, hardware):
    assert not hits(text, "QL507", hardware)


def test_ql507_no_info_without_310p_workarounds():
    found = hits(f"{W8A8} --dtype float16 --compilation-config '{{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}}'\n", "QL507")
    assert [f.level for f in found] == ["error"]


# -- QL508 --------------------------------------------------------------------

def test_ql508_missing_flag_is_info_with_insertion():
    text = "export MODEL_PATH=Eco-Tech/Qwen3.6-27B-w8a8\nvllm serve $MODEL_PATH --tensor-parallel-size 2\n"
    found = hits(text, "QL508", version="v0.23.0rc1")
    assert [f.level for f in found] == ["info"]
    assert "v0.23.0rc1" in found[0].message and "quant_model_description.json" in found[0].message
    assert fixed(text, found) == text.replace("$MODEL_PATH", "$MODEL_PATH --quantization ascend")
    assert not hits(fixed(text, found), "QL508", version="v0.23.0rc1")


@pytest.mark.parametrize("version,level", [
    ("v0.13.0", "warning"), ("v0.15.0rc1", "info"), ("v0.16.0rc1", "warning"), ("v0.17.0rc1", "info"), ("main", "info"),
])
def test_ql508_version_boundary(version, level):
    found = hits("vllm serve vllm-ascend/DeepSeek-V3.1-W8A8 --tensor-parallel-size 16\n", "QL508", "a3", version)
    assert [f.level for f in found] == [level]
    assert version in found[0].message


@pytest.mark.parametrize("text", [
    "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\n",
    "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 -q ascend\n",
    "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization=ascend\n",
    "vllm serve Qwen/Qwen3.6-27B\n",
])
def test_ql508_accepts(text):
    assert not hits(text, "QL508")


def test_ql508_assumed_version_is_said():
    found = [f for f in lint("vllm serve Eco-Tech/Qwen3.6-27B-w8a8\n") if f.rule.id == "QL508"]
    assert "assumed" in found[0].message


# -- QL509 --------------------------------------------------------------------

@pytest.mark.parametrize("model", ["Qwen/Qwen3.6-27B", "/models/Qwen3.5-27B", "/models/Qwen3-30B-A3B"])
def test_ql509_flag_on_bf16_weights(model):
    text = f"vllm serve {model} \\\n  --tensor-parallel-size 2 \\\n  --quantization ascend \\\n  --port 8000\n"
    found = hits(text, "QL509")
    assert [f.level for f in found] == ["error"]
    assert "ModelSlim Quantization Config Not Found" in found[0].message and model in found[0].message
    assert fixed(text, found) == f"vllm serve {model} \\\n  --tensor-parallel-size 2 \\\n  --port 8000\n"


@pytest.mark.parametrize("text", [
    "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\n",
    "vllm serve /models/some-unknown-model --quantization ascend\n",  # weights unknown: no guess
    "vllm serve Qwen/Qwen3.6-27B --quantization fp8\n",
])
def test_ql509_accepts(text):
    assert not hits(text, "QL509")
