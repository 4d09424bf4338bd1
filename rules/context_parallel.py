"""Startup check on context parallel (QL547): prefill context parallel with DP
(v0.22.1rc1-v0.24.0rc1) or on the V1 model runner (v0.25.1rc1 on), decode context parallel with
dynamic speculative decoding (main).

Sources: ``vllm-ascend@v0.23.0:vllm_ascend/platform.py
L349-358``, ``vllm-ascend@main:vllm_ascend/platform.py L1381-1419``,
``vllm@v0.23.0:vllm/config/vllm.py L519-531``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

PCP = RuleMeta(
    id="QL547",
    name="context-parallel-unsupported",
    behaviours=("pcp_rejects_dp", "pcp_needs_v2_model_runner", "dcp_rejects_dynamic_spec"),
    groups=("parallelism",),
    severity="error",
    requires=("dp", "speculative", "version"),
    title=Text(en="Context parallel where the release rejects it", zh="在该版本拒绝的配置下使用上下文并行"),
    why=Text(
        en="--prefill-context-parallel-size > 1 (PCP) is release-dependent on Ascend: v0.22.1rc1 to v0.24.0rc1 "
        "stop with ValueError when it is combined with --data-parallel-size > 1; from v0.25.1rc1 PCP is refused "
        "on the default (V1) model runner and only runs with Model Runner V2 (VLLM_USE_V2_MODEL_RUNNER=1, or a "
        "model vLLM runs on V2 by default), so without that variable the rule warns. On main, decode context "
        "parallel (--decode-context-parallel-size > 1) is also refused together with dynamic speculative decoding "
        "(num_speculative_tokens_per_batch_size in --speculative-config).",
        zh="--prefill-context-parallel-size > 1（PCP）在昇腾上与版本有关：v0.22.1rc1 至 v0.24.0rc1 中，与 "
        "--data-parallel-size > 1 同用会以 ValueError 退出；自 v0.25.1rc1 起，默认（V1）模型运行器拒绝 PCP，只有 Model "
        "Runner V2（VLLM_USE_V2_MODEL_RUNNER=1，或 vLLM 默认用 V2 运行的模型）才能运行，因此未设置该变量时给出警告。"
        "在 main 上，解码上下文并行（--decode-context-parallel-size > 1）也不能与动态投机解码"
        "（--speculative-config 中的 num_speculative_tokens_per_batch_size）同用。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L349-L358",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L1381-L1388",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L519-L531",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L1401-L1419",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --prefill-context-parallel-size 2 --data-parallel-size 2\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --prefill-context-parallel-size 2\n",
        version="v0.23.0",
    ),),
)


@check(PCP, when=("option:--decode-context-parallel-size | option:--prefill-context-parallel-size",))
def pcp(scope: Scope):
    """PCP > 1 with DP > 1 (v0.22.1rc1..v0.24.0rc1) or on the V1 model runner (v0.25.1rc1+);
    DCP > 1 with dynamic speculative decoding (main)."""
    serve = scope.serve
    dcp = kit.integer(serve, "--decode-context-parallel-size").value
    spec = scope.get("speculative") or {}
    if dcp is not None and dcp > 1 and spec.get("num_speculative_tokens_per_batch_size") \
            and kit.holds(scope, "dcp_rejects_dynamic_spec"):
        yield Finding(PCP,
                      Text(en=f"--decode-context-parallel-size {dcp} with dynamic speculative decoding "
                           "(num_speculative_tokens_per_batch_size): main stops with ValueError",
                           zh=f"--decode-context-parallel-size {dcp} 与动态投机解码（num_speculative_tokens_per_batch_size）"
                           "同用：main 会以 ValueError 退出"),
                      kit.span_of(serve, "--decode-context-parallel-size"),
                      Fix(Text(en="use --decode-context-parallel-size 1, or drop num_speculative_tokens_per_batch_size",
                               zh="使用 --decode-context-parallel-size 1，或删除 num_speculative_tokens_per_batch_size")))
    size = kit.integer(serve, "--prefill-context-parallel-size").value
    if size is None or size <= 1:
        return
    span, dp = kit.span_of(serve, "--prefill-context-parallel-size"), scope.get("dp")
    where = kit.at_version(scope)
    if kit.holds(scope, "pcp_rejects_dp"):
        if dp > 1:
            yield Finding(PCP,
                          Text(en=f"--prefill-context-parallel-size {size} with --data-parallel-size {dp}: {where.en} stops "
                               "with ValueError (PCP and DP cannot be enabled together)",
                               zh=f"--prefill-context-parallel-size {size} 与 --data-parallel-size {dp} 同用：{where.zh} 会以 "
                               "ValueError 退出（PCP 与 DP 不能同时开启）"),
                          span,
                          Fix(Text(en="use --data-parallel-size 1 with PCP, or drop PCP",
                                   zh="使用 PCP 时设 --data-parallel-size 1，或不用 PCP")))
        return
    if not kit.holds(scope, "pcp_needs_v2_model_runner"):
        return
    runner = kit.env(serve, "VLLM_USE_V2_MODEL_RUNNER").value
    if runner is not None and runner.lower() in ("1", "true"):
        return
    explicit = runner is not None
    yield Finding(PCP,
                  Text(en=f"--prefill-context-parallel-size {size}: {where.en} refuses PCP on the V1 model runner"
                       + ("" if explicit else " (unless vLLM picks Model Runner V2 for this model)"),
                       zh=f"--prefill-context-parallel-size {size}：{where.zh} 在 V1 模型运行器上拒绝 PCP"
                       + ("" if explicit else "（除非 vLLM 为该模型选用 Model Runner V2）")),
                  span,
                  Fix(Text(en="export VLLM_USE_V2_MODEL_RUNNER=1, or use --prefill-context-parallel-size 1",
                           zh="导出 VLLM_USE_V2_MODEL_RUNNER=1，或使用 --prefill-context-parallel-size 1")),
                  severity=None if explicit else "warning")
