"""Startup checks on ``--speculative-config`` (QL534-QL536): num_speculative_tokens and the
draft's quantization, model-specific MTP method aliases, and --async-scheduling with methods it
does not support.

Sources: ``vllm@v0.23.0:vllm/config/speculative.py``
and ``vllm/config/vllm.py L933-955`` (and v0.17.0), ``vllm-ascend@v0.23.0:vllm_ascend/platform.py
L1124-1130``, ``vllm-ascend@main:vllm_ascend/platform.py L583-592``.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

SPEC_QUANT = RuleMeta(
    id="QL534",
    name="speculative-config-values",
    behaviours=("vllm_spec_tokens_positive", "spec_quantization_reset"),
    groups=("speculative",),
    severity="error",
    requires=("speculative", "version"),
    title=Text(en="A --speculative-config value vLLM rejects or vllm-ascend overrides",
               zh="--speculative-config 中被 vLLM 拒绝或被 vllm-ascend 改写的取值"),
    why=Text(
        en="vLLM stops with ValueError when num_speculative_tokens is not greater than zero. On Ascend the draft "
        "model always uses the main model's quantization method: from v0.21.0rc1 vllm-ascend resets "
        "speculative-config quantization to None with a warning (info).",
        zh="num_speculative_tokens 不大于 0 时，vLLM 以 ValueError 退出。在昇腾上，草稿模型始终沿用主模型的量化方式："
        "自 v0.21.0rc1 起，vllm-ascend 会把 speculative-config 的 quantization 重置为 None 并打印警告（提示）。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/speculative.py#L990-L994",
        "https://github.com/vllm-project/vllm/blob/v0.17.0/vllm/config/speculative.py#L759",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L1124-L1130",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.21.0rc1/vllm_ascend/platform.py#L1045",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L583-L592",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config "
        "'{\"method\": \"mtp\", \"num_speculative_tokens\": 1, \"quantization\": \"ascend\"}'\n",
        good="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'\n",
        version="v0.23.0",
    ),),
)


@check(SPEC_QUANT, when=("speculative",))
def spec_quant(scope: Scope):
    """num_speculative_tokens <= 0; speculative-config quantization (reset by vllm-ascend)."""
    config = scope.get("speculative")
    if not config:
        return
    tokens = config.get("num_speculative_tokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens <= 0 \
            and kit.holds(scope, "vllm_spec_tokens_positive"):
        error = "'Expected num_speculative_tokens to be greater than zero'"
        yield Finding(
            SPEC_QUANT,
            Text(en=f"num_speculative_tokens {tokens}: {kit.at_version(scope).en} stops with ValueError {error}",
                 zh=f"num_speculative_tokens 为 {tokens}：{kit.at_version(scope).zh} 会以 ValueError {error} 退出"),
            kit.span_of(scope.serve, "--speculative-config", "num_speculative_tokens"),
            Fix(Text(en="use 1 or more speculative tokens, or drop --speculative-config",
                     zh="使用 1 个或更多投机 token，或删除 --speculative-config")),
        )
    if config.get("quantization") is None or not kit.holds(scope, "spec_quantization_reset"):
        return
    quant = json.dumps(config["quantization"])
    yield Finding(
        SPEC_QUANT,
        Text(en=f"--speculative-config quantization {quant}: {kit.at_version(scope).en} resets it to None; the draft uses "
             "the main model's quantization",
             zh=f"--speculative-config 中的 quantization {quant}：{kit.at_version(scope).zh} 会把它重置为 None；草稿模型沿用"
             "主模型的量化方式"),
        kit.span_of(scope.serve, "--speculative-config", "quantization"),
        Fix(Text(en="drop quantization from --speculative-config", zh="从 --speculative-config 中删除 quantization")),
        severity="info",
    )


MTP_ALIASES = (
    "deepseek_mtp", "mimo_mtp", "mimo_v2_mtp", "glm4_moe_mtp", "glm4_moe_lite_mtp", "glm_ocr_mtp", "ernie_mtp",
    "nemotron_h_mtp", "exaone_moe_mtp", "exaone4_5_mtp", "qwen3_next_mtp", "qwen3_5_mtp", "longcat_flash_mtp",
    "pangu_ultra_moe_mtp", "step3p5_mtp", "hy_v3_mtp", "gemma4_mtp",
)

MTP_ALIAS = RuleMeta(
    id="QL535",
    name="mtp-method-alias",
    behaviours=("vllm_mtp_aliases_deprecated",),
    applies="vllm_mtp_aliases_deprecated",
    groups=("speculative",),
    severity="info",
    requires=("speculative", "version"),
    fix="safe",
    title=Text(en="A model-specific MTP method name that vLLM rewrites to mtp",
               zh="vLLM 会改写为 mtp 的模型专用 MTP 方法名"),
    why=Text(
        en="vLLM 0.23.0 folds every model-specific MTP method (qwen3_5_mtp, qwen3_next_mtp, deepseek_mtp, ...) "
        "into \"mtp\" and logs that the old name is deprecated. Older tutorials use qwen3_5_mtp, newer tutorials use "
        "mtp; both start, so this is information only. The rewrite is in every vLLM from 0.17.0 to 0.23.0, "
        "so it is reported from v0.17.0rc1 on.",
        zh="vLLM 0.23.0 会把各模型专用的 MTP 方法名（qwen3_5_mtp、qwen3_next_mtp、deepseek_mtp 等）统一改写为 \"mtp\"，"
        "并提示旧名称已弃用。较早的教程使用 qwen3_5_mtp，较新的教程使用 mtp；两者都能启动，因此仅作提示。vLLM 0.17.0 至 0.23.0 都有这一改写，"
        "因此自 v0.17.0rc1 起报告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/speculative.py#L34-L53",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/speculative.py#L550-L554",
        "https://github.com/vllm-project/vllm/blob/v0.17.0/vllm/config/speculative.py",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 3}'\n",
        good="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n",
        fixed="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n",
        version="v0.23.0",
    ),),
)


@check(MTP_ALIAS, when=("speculative",))
def mtp_alias(scope: Scope):
    """A model-specific MTP method alias (rewritten to mtp by vLLM 0.17.0 to 0.23.0)."""
    config = scope.get("speculative")
    if not config or config.get("method") not in MTP_ALIASES or not kit.holds(scope, "vllm_mtp_aliases_deprecated"):
        return
    span = kit.span_of(scope.serve, "--speculative-config", "method")
    method, vllm = json.dumps(config["method"]), kit.paired_vllm(scope, scope.get("version"))
    yield Finding(
        MTP_ALIAS,
        Text(en=f"speculative method {method} is an alias: {kit.at_version(scope).en} (vLLM {vllm}) rewrites it to \"mtp\" "
             "with a deprecation warning",
             zh=f"投机方法 {method} 是别名：{kit.at_version(scope).zh}（vLLM {vllm}）会把它改写为 \"mtp\" 并打印弃用警告"),
        span,
        Fix(Text(en='write "method": "mtp"', zh='写成 "method": "mtp"'), kit.set_key(scope.serve, "--speculative-config", "method", "mtp")),
    )


NON_ASYNC_METHODS = ("ngram", "medusa", "mlp_speculator", "suffix", "custom_class")  # vLLM 0.23.0 SpeculativeMethod

ASYNC_SPEC = RuleMeta(
    id="QL536",
    name="async-scheduling-spec-method",
    behaviours=("vllm_async_scheduling_spec_methods",),
    applies="vllm_async_scheduling_spec_methods",
    groups=("speculative", "scheduling"),
    severity="error",
    requires=("speculative", "version"),
    title=Text(en="--async-scheduling with a speculative method it does not support",
               zh="--async-scheduling 与其不支持的投机方法同用"),
    why=Text(
        en="Async scheduling works with EAGLE/MTP, draft-model and GPU n-gram speculative decoding. When "
        "--async-scheduling is given explicitly, vLLM (0.17.0 to 0.23.0) stops with ValueError for any other method (ngram, "
        "suffix, medusa, ...) and for disable_padded_drafter_batch=true; without the flag it only switches async "
        "scheduling off with a warning. Methods newer than vLLM 0.23.0 are not judged.",
        zh="异步调度支持 EAGLE/MTP、草稿模型与 GPU n-gram 投机解码。显式给出 --async-scheduling 时，对其他方法（ngram、"
        "suffix、medusa 等）以及 disable_padded_drafter_batch=true，vLLM（0.17.0 至 0.23.0）会以 ValueError 退出；不加该参数时只会打印"
        "警告并关闭异步调度。比 vLLM 0.23.0 更新的方法不做判断。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L933-L955",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/speculative.py#L54-L57",
    ),
    fix="safe",
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --async-scheduling --speculative-config "
        "'{\"method\": \"ngram\", \"num_speculative_tokens\": 3, \"prompt_lookup_max\": 4}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --speculative-config "
        "'{\"method\": \"ngram\", \"num_speculative_tokens\": 3, \"prompt_lookup_max\": 4}'\n",
        fixed="vllm serve Qwen/Qwen3.6-27B --speculative-config "
        "'{\"method\": \"ngram\", \"num_speculative_tokens\": 3, \"prompt_lookup_max\": 4}'\n",
        version="v0.23.0",
    ),),
)


@check(ASYNC_SPEC, when=("speculative",))
def async_spec(scope: Scope):
    """Explicit --async-scheduling with a method outside EAGLE/MTP/draft model/ngram_gpu."""
    serve = scope.serve
    config = scope.get("speculative")
    if not serve.has("--async-scheduling") or not config or not kit.holds(scope, "vllm_async_scheduling_spec_methods"):
        return
    method = config.get("method")
    if method is None and config.get("model") is not None:
        method = "ngram" if config.get("model") in ("ngram", "[ngram]") else "draft_model"
    option = serve.opt("--async-scheduling")
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
    fix = Fix(Text(en="drop --async-scheduling (vLLM then runs without it)", zh="删除 --async-scheduling（vLLM 随后不使用它运行）"),
              kit.drop_option(option))
    if method in NON_ASYNC_METHODS:
        error = ("'Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU kind of "
                 "speculative decoding'")
        yield Finding(
            ASYNC_SPEC,
            Text(en=f"--async-scheduling with speculative method {json.dumps(method)}: {where} stops with ValueError {error}",
                 zh=f"--async-scheduling 与投机方法 {json.dumps(method)} 同用：{where_zh} 会以 ValueError {error} 退出"),
            kit.option_span(serve, "--async-scheduling"),
            fix,
        )
    elif config.get("disable_padded_drafter_batch") is True:
        yield Finding(ASYNC_SPEC,
                      Text(en=f"--async-scheduling with disable_padded_drafter_batch=true: {where} stops with ValueError",
                           zh=f"--async-scheduling 与 disable_padded_drafter_batch=true 同用：{where_zh} 会以 ValueError 退出"),
                      kit.option_span(serve, "--async-scheduling"), fix)
