"""A TP/DP fix changes every dependent value with it (issue 4: dependent values) or refuses."""

from qlint.knowledge.base import load
from qlint.linter.fixes import apply_edits
from qlint.linter.lint import lint_text
from qlint.rules.graph import Scope, Settings, default_graph
from qlint.rules.kit import resize

from conftest import lint

KV = ('{"kv_connector": "MooncakeConnectorV1", "kv_role": "kv_consumer", "kv_port": "36000", '
      '"kv_connector_extra_config": {"prefill": {"tp_size": 8, "dp_size": 1}, "decode": {"tp_size": 8, "dp_size": 1}}}')
SCRIPT = ("# qlint: hardware=a3 vllm-ascend=v0.23.0\nexport ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n"
          f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 8 "
          f"--max-model-len 131072 --kv-transfer-config '{KV}'\n")


def scope_of(text):
    result = lint_text("r.sh", text)
    kb = load()
    parent = Scope(plan=result.plan, kb=kb, settings=Settings())
    return Scope(plan=result.plan, kb=kb, settings=Settings(), serve=result.plan.serve_commands()[0], parent=parent)


def test_dp_first_fix_moves_tp_dp_and_the_kv_config_together():
    finding = next(f for f in lint(SCRIPT) if f.rule.id == "QL205")
    fixed, applied = apply_edits(SCRIPT, finding.fix.edits)
    assert len(applied) == 4
    assert "--tensor-parallel-size 2" in fixed and "--data-parallel-size 4" in fixed
    assert '"decode": {"tp_size": 2, "dp_size": 4}' in fixed
    assert '"prefill": {"tp_size": 8, "dp_size": 1}' in fixed  # the peer side is the peer's business
    after = {f.rule.id for f in lint(fixed) if f.level != "info"}
    assert not after & {"QL205", "QL601", "QL204"}


def test_visible_devices_shrink_with_the_npu_count():
    text = SCRIPT.replace("--max-model-len 131072", "--data-parallel-size 1 --max-model-len 131072")
    change = resize(scope_of(text), 2, 2)
    fixed, _ = apply_edits(text, change.edits)
    assert "ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\n" in fixed and "--data-parallel-size 2" in fixed


def test_refuses_when_devices_cannot_follow():
    change = resize(scope_of(SCRIPT), 4, 4)  # 16 NPUs, 8 listed
    assert change.edits == [] and "needs 16" in change.refusal.en and change.refusal.zh


def test_refuses_when_flashcomm1_capture_sizes_break():
    text = SCRIPT.replace(
        "--quantization ascend",
        "--quantization ascend --additional-config '{\"enable_flashcomm1\": true}' "
        "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [2, 6]}'")
    change = resize(scope_of(text), 4, 2)
    assert change.refusal is not None and "multiples of the new TP 4" in change.refusal.en


def test_the_graph_knows_what_follows_tp():
    downstream = default_graph().affected_by("tp")
    assert {"rule:QL204", "rule:QL205", "rule:QL601"} <= set(downstream)
