"""--max-num-batched-tokens below max_model_len with chunked prefill off (QL303): the scheduler
cannot take a full prompt in one step.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.facts_scheduling import ascend_scheduler_removed_in

UNCHUNKED = RuleMeta(
    id="QL303",
    name="batched-tokens-below-model-len",
    behaviours=("ascend_scheduler_config_read",),
    groups=("scheduling",),
    severity="error",
    requires=("max_num_batched_tokens", "model_len_limit", "chunked_prefill_flag", "ascend_scheduler_unchunked",
              "additional_config", "version"),
    fix="unsafe",
    title=Text(en="Without chunked prefill, --max-num-batched-tokens is below --max-model-len",
               zh="关闭分块预填充时 --max-num-batched-tokens 小于 --max-model-len"),
    why=Text(
        en="Without chunked prefill a whole prompt must fit one scheduler step, so vLLM (and the old "
        "Ascend scheduler, additional-config ascend_scheduler_config.enabled without its own "
        "enable_chunked_prefill) raises ValueError when max_num_batched_tokens < max_model_len. The "
        "ascend scheduler was dropped in v0.12.0rc1, after which its section is ignored and chunked "
        "prefill stays on; the rule follows the release the script runs.",
        zh="关闭分块预填充时，一条完整的提示必须放进一个调度步，因此当 max_num_batched_tokens < max_model_len 时，"
        "vLLM（以及旧版 Ascend 调度器：additional-config 中 ascend_scheduler_config.enabled 为真且未在其中开启 "
        "enable_chunked_prefill）会报 ValueError。Ascend 调度器已在 v0.12.0rc1 删除，此后该配置被忽略、"
        "分块预填充保持开启；本规则按脚本实际使用的版本判断。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/scheduler.py#L259-L271",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.11.0rc1/vllm_ascend/core/schedule_config.py#L38-L75",
        "https://github.com/vllm-project/vllm-ascend/pull/4623",
        "https://github.com/vllm-project/vllm-ascend/pull/4365",
    ),
    examples=(
        Example(
            bad="# qlint: vllm-ascend=v0.11.0rc1\nvllm serve /models/DeepSeek-V3.1-W8A8 --max-model-len 32768 "
            "--max-num-batched-tokens 4096 --additional-config '{\"ascend_scheduler_config\":{\"enabled\":true}}'\n",
            good="# qlint: vllm-ascend=v0.11.0rc1\nvllm serve /models/DeepSeek-V3.1-W8A8 --max-model-len 32768 "
            "--max-num-batched-tokens 32768 --additional-config '{\"ascend_scheduler_config\":{\"enabled\":true}}'\n",
            fixed="# qlint: vllm-ascend=v0.11.0rc1\nvllm serve /models/DeepSeek-V3.1-W8A8 --max-model-len 32768 "
            "--max-num-batched-tokens 32768 --additional-config '{\"ascend_scheduler_config\":{\"enabled\":true}}'\n",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 16384 --max-num-batched-tokens 8192 "
            "--no-enable-chunked-prefill\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 16384 --max-num-batched-tokens 8192\n",
        ),
    ),
)


@check(UNCHUNKED, relations=(("in_range", "max_num_batched_tokens", "model_len_limit"),),
       when=("!chunked_prefill_flag | ascend_scheduler_unchunked",))
def unchunked(scope: Scope):
    """Chunked prefill off and an explicit --max-num-batched-tokens below max_model_len."""
    budget, length = scope.get("max_num_batched_tokens"), scope.get("model_len_limit")
    by_scheduler = scope.get("ascend_scheduler_unchunked")
    if budget is None or budget >= length or (scope.get("chunked_prefill_flag") and not by_scheduler):
        return
    section = scope.get("additional_config").get("ascend_scheduler_config", {})
    if by_scheduler and ("max_num_batched_tokens" in section or "max_model_len" in section):
        return  # the section overrides the numbers itself
    length_text = f"--max-model-len ({length})" if kit.option(scope.serve, "--max-model-len").value is not None else \
        f"the model's max_model_len ({length})"
    length_text_zh = f"--max-model-len（{length}）" if kit.option(scope.serve, "--max-model-len").value is not None else \
        f"模型的 max_model_len（{length}）"
    if by_scheduler:
        cause = "additional-config ascend_scheduler_config.enabled=true runs without chunked prefill"
        note = (f" (note: ascend_scheduler_config was removed in vllm-ascend {ascend_scheduler_removed_in(scope)}; "
                "later releases ignore it)")
        doc = " (the doc fix used 8192)"
        cause_zh = "additional-config 中的 ascend_scheduler_config.enabled=true 会在不使用 chunked prefill 的情况下运行"
        note_zh = (f"（注意：ascend_scheduler_config 已在 vllm-ascend {ascend_scheduler_removed_in(scope)} 中移除，"
                   "之后的版本会忽略它）")
        doc_zh = "（文档中的修正用的是 8192）"
    else:
        cause, note, doc = "--no-enable-chunked-prefill turns chunked prefill off", "", ""
        cause_zh, note_zh, doc_zh = "--no-enable-chunked-prefill 关闭了 chunked prefill", "", ""
    span = kit.span_of(scope.serve, "--max-num-batched-tokens")
    yield Finding(
        UNCHUNKED,
        Text(
            en=f"{cause}, so --max-num-batched-tokens ({budget}) must be >= {length_text} (ValueError at startup){note}",
            zh=f"{cause_zh}，因此 --max-num-batched-tokens（{budget}）必须 >= {length_text_zh}"
            f"（否则启动时报 ValueError）{note_zh}",
        ),
        span,
        Fix(Text(en=f"raise --max-num-batched-tokens to >= {length} or lower --max-model-len{doc}",
                 zh=f"将 --max-num-batched-tokens 提高到 >= {length}，或降低 --max-model-len{doc_zh}"),
            kit.set_value(scope.serve, "--max-num-batched-tokens", str(length)), "unsafe"),
    )
