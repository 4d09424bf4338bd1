"""qlint's generator: recommended sizing, refusals with reasons, and output that lints clean."""

import itertools

import pytest
from hypothesis import given, strategies as st

from qlint.knowledge.base import load
from qlint.linter.generate import SCENARIOS, TUNING_TABLE, GenerationError, generate
from qlint.linter.lint import lint_text

KB = load()
MODELS = [m.id for m in KB.models if m.in_scope]
HARDWARE = ["a2", "a3", "310p"]
VERSIONS = ["v0.22.1rc1", "v0.23.0rc1", "v0.23.0"]
MATRIX = list(itertools.product(MODELS, HARDWARE, SCENARIOS, [True, False], VERSIONS))


def problems(script):
    result = lint_text("generated.sh", script)
    assert result.error is None
    return [f for f in result.findings if f.level != "info"]


def test_whole_matrix_lints_clean_or_refuses_with_reason():
    generated = refused = 0
    for model, hardware, scenario, quantized, version in MATRIX:
        try:
            deployment = generate(KB, model, hardware, scenario, quantized, version)
        except GenerationError as error:
            assert str(error)
            refused += 1
            continue
        generated += 1
        found = problems(deployment.script)
        assert not found, (model, hardware, scenario, quantized, version, [(f.rule.id, f.message) for f in found])
    assert generated >= 100 and refused > 0


def test_recipe_sizing_is_dp_first_on_a3():
    deployment = generate(KB, "Qwen3.6-27B", "a3", "high-throughput", True, "v0.23.0")
    assert (deployment.tp, deployment.dp, deployment.mtp_tokens) == (2, 8, 3)
    assert "\"method\": \"mtp\"" in deployment.script
    assert "--data-parallel-size 8" in deployment.script
    assert deployment.served_model_name == "qwen3.6"
    assert TUNING_TABLE in deployment.sources


def test_long_context_uses_large_tp_and_stays_within_model_max():
    deployment = generate(KB, "Qwen3.5-27B", "a3", "long-context", True, "v0.23.0")
    assert deployment.tp == 8 and deployment.max_model_len <= 262144


def test_310p_gets_float16_two_capture_sizes_and_npugraph_switch_by_version():
    old = generate(KB, "Qwen3.6-27B", "310p", "high-throughput", True, "v0.23.0rc1")
    assert "--dtype float16" in old.script and "enable_npugraph_ex" in old.script
    assert old.dp == 1 and '"cudagraph_capture_sizes": [2, ' in old.script
    new = generate(KB, "Qwen3.6-27B", "310p", "high-throughput", True, "v0.23.0")
    assert "enable_npugraph_ex" not in new.script


@pytest.mark.parametrize("args,reason", [
    (("Qwen3.5-397B-A17B", "a2", "high-throughput", False, "v0.23.0"), "needs 32 NPUs by its tutorial"),
    (("Qwen3.6-27B", "310p", "high-throughput", True, "v0.22.1rc1"), "needs vllm-ascend v0.23.0rc1"),
    (("Qwen3.6-27B", "a3", "high-throughput", True, "v0.17.0rc1"), "needs vllm-ascend v0.18.0rc1"),
    (("Llama-3-8B", "a2", "high-throughput", True, "v0.23.0"), "not in the knowledge"),
])
def test_refusals(args, reason):
    with pytest.raises(GenerationError) as error:
        generate(KB, *args)
    assert reason in str(error.value)


@given(st.sampled_from(MATRIX))
def test_generated_capture_sizes_are_multiples_of_mtp_plus_one(combo):
    try:
        deployment = generate(KB, *combo)
    except GenerationError:
        return
    if '"cudagraph_capture_sizes"' in deployment.script:
        sizes = deployment.script.split('"cudagraph_capture_sizes": [', 1)[1].split("]", 1)[0]
        assert all(int(size) % (deployment.mtp_tokens + 1) == 0 for size in sizes.split(","))
    assert deployment.max_num_batched_tokens >= deployment.max_num_seqs * (deployment.mtp_tokens + 1)


def test_pd_deployment_lints_clean_as_one_deployment():
    from qlint.linter.deployment import lint_deployment
    from qlint.linter.generate_nodes import generate_pd

    for model in ("Qwen3.6-27B", "Qwen3.5-27B", "Qwen3.6-35B-A3B"):
        for hardware in ("a2", "a3"):
            pd = generate_pd(KB, model, hardware)
            results = lint_deployment([(name, text.encode()) for name, text in pd.scripts_in_order])
            found = [(r.path, f.rule.id, f.message) for r in results for f in r.findings if f.level != "info"]
            assert not found, (model, hardware, found)
            prefill, decode = pd.side("prefill").script, pd.side("decode").script
            assert '"kv_role": "kv_producer"' in prefill and '"kv_role": "kv_consumer"' in decode
            assert "recompute_scheduler_enable" in decode and "recompute" not in prefill


def test_pd_refused_on_310p():
    from qlint.linter.generate_nodes import generate_pd

    with pytest.raises(GenerationError, match="not supported on Atlas inference products"):
        generate_pd(KB, "Qwen3.6-27B", "310p")
