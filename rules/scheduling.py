"""Scheduling and context rules: --max-model-len vs the model, --max-num-batched-tokens vs
--max-num-seqs and --max-model-len, and --max-num-seqs vs the default ACLGraph capture grid.

Sources: the Qwen3.5-27B/Qwen3.6-27B tutorial's 266000 > 262144, vllm-ascend's default capture
size; vLLM ``vllm/config/scheduler.py L259-300`` and ``config/model.py
L2220-2248``; vllm-ascend v0.11.0rc1 ``core/schedule_config.py`` (ascend scheduler).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, Unknown, check, fact



# -- facts ----------------------------------------------------------------------

@fact("model_len_limit", requires=("max_model_len", "context_limit"))
def model_len_limit(scope: Scope):
    """max_model_len in effect (tokens): --max-model-len, else the model's own maximum
    (scaled by a RoPE factor from --hf-overrides)."""
    given = scope.known("max_model_len")
    if given is not None and given.value is not None:
        return given
    limit = scope.known("context_limit")
    if limit is None:
        raise Unknown("model_len_limit")
    return Known(limit.value, limit.origin)


@fact("chunked_prefill_flag")
def chunked_prefill_flag(scope: Scope):
    """vLLM's chunked prefill switch: False with --no-enable-chunked-prefill, else True (default)."""
    option = scope.serve.opt("--enable-chunked-prefill")
    if option is None:
        return Known(True, "vLLM default for generative models")
    return Known(not option.negated, option.spelled, option.span)


def ascend_scheduler_removed_in(scope: Scope) -> str:
    """Release that dropped additional-config ascend_scheduler_config: the first one after
    behaviour ``ascend_scheduler_config_read`` ends."""
    last = kit.last_release(scope.kb, "ascend_scheduler_config_read")
    tags = [r.tag for r in scope.kb.tagged_releases]
    return tags[tags.index(last) + 1] if last in tags[:-1] else "main"


@fact("ascend_scheduler_unchunked", requires=("additional_config", "version"))
def ascend_scheduler_unchunked(scope: Scope):
    """True when additional-config ascend_scheduler_config.enabled is true without its own
    enable_chunked_prefill, on a release that still reads it (it then turns chunked prefill off)."""
    section = scope.get("additional_config").get("ascend_scheduler_config")
    if not isinstance(section, dict) or section.get("enabled") is not True:
        return Known(False, "ascend scheduler not enabled")
    if section.get("enable_chunked_prefill") is True:
        return Known(False, "ascend scheduler with enable_chunked_prefill")
    if not kit.holds(scope, "ascend_scheduler_config_read"):
        return Known(False, "ascend_scheduler_config no longer read")
    return Known(True, "additional-config ascend_scheduler_config.enabled=true")


@fact("batched_tokens", requires=("max_num_batched_tokens", "chunked_prefill_flag", "model_len_limit"))
def batched_tokens(scope: Scope):
    """Tokens per scheduler step: --max-num-batched-tokens, else vLLM's NPU default (2048, raised
    to max_model_len when chunked prefill is off)."""
    given = scope.known("max_num_batched_tokens")
    if given is None:
        raise Unknown("batched_tokens")
    if given.value is not None:
        return given
    if scope.get("chunked_prefill_flag"):
        return Known(kit.NPU_DEFAULT_BATCHED_TOKENS, "vLLM serve default on NPU (2048)")
    limit = scope.known("model_len_limit")
    if limit is None:
        raise Unknown("batched_tokens")
    return Known(max(limit.value, kit.NPU_DEFAULT_BATCHED_TOKENS), "vLLM default without chunked prefill")


# -- rule metadata ------------------------------------------------------------

MODEL_LEN = RuleMeta(
    id="QL301",
    name="max-model-len-above-model-max",
    behaviours=("vllm_reads_rope_parameters",),
    groups=("scheduling",),
    severity="error",
    requires=("max_model_len", "context_limit", "model_label"),
    optional=("rope_override",),
    fix="unsafe",
    title=Text(en="--max-model-len is above the model's maximum context", zh="--max-model-len 超过模型的最大上下文"),
    why=Text(
        en="vLLM compares --max-model-len with the length derived from the checkpoint's config "
        "(max_position_embeddings) and refuses a larger value with ValueError, unless "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set; then it only warns, and positions past the trained "
        "length may produce NaN or garbage. RoPE scaling given with --hf-overrides raises the limit: for "
        "YaRN (rope_parameters, or the older rope_scaling spelling) it becomes original_max_position_embeddings x "
        "factor, e.g. 262144 x 4 = 1048576 for the Qwen3.5-397B-A17B million-token runs. vLLM reads "
        "rope_parameters from 0.12.0 on; releases paired with vLLM 0.11 or older read only rope_scaling. The Qwen3.5-27B/Qwen3.6-27B tutorial's "
        "long-context row asks for 266000 tokens while the same tutorial gives 262144 as the model's limit.",
        zh="vLLM 会把 --max-model-len 与检查点配置推导出的长度（max_position_embeddings）比较，"
        "更大的值直接以 ValueError 拒绝；只有设置 VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 时才仅给出警告，"
        "而超出训练长度的位置可能产生 NaN 或无意义输出。通过 --hf-overrides 设置的 RoPE 缩放会提高该上限："
        "YaRN（rope_parameters，或旧写法 rope_scaling）的上限为 original_max_position_embeddings x factor，"
        "例如 Qwen3.5-397B-A17B 百万 token 配置中的 262144 x 4 = 1048576。vLLM 自 0.12.0 起读取 rope_parameters；"
        "配套 vLLM 0.11 及更早版本的发行版只读取 rope_scaling。Qwen3.5-27B/Qwen3.6-27B 教程的长上下文配置写了 266000，"
        "而同一教程给出的模型上限是 262144。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L2220-L2248",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L2165-L2197",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/transformers_utils/config.py#L855-L864",
        "https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/config/model.py#L1839-L1843",
        "https://github.com/vllm-project/vllm/blob/v0.12.0/vllm/config/model.py#L2198-L2221",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/weekly/multi_node/external_dp/config/Qwen3.5-397B-w4a8_986k-function-PD.yaml#L75-L98",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828 (table 2)",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 8 --max-model-len 266000\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 8 --max-model-len 262144\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 8 --max-model-len 262144\n",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp --tensor-parallel-size 16 --enable-expert-parallel "
            "--max-num-seqs 4 --max-model-len 1100000 --hf-overrides '{\"text_config\": {\"rope_parameters\": "
            "{\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 262144}}}'\n",
            good="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp --tensor-parallel-size 16 --enable-expert-parallel "
            "--max-num-seqs 4 --max-model-len 1010000 --hf-overrides '{\"text_config\": {\"rope_parameters\": "
            "{\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 262144}}}'\n",
            fixed="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp --tensor-parallel-size 16 --enable-expert-parallel "
            "--max-num-seqs 4 --max-model-len 1048576 --hf-overrides '{\"text_config\": {\"rope_parameters\": "
            "{\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 262144}}}'\n",
            hardware="a3", version="main",
        ),
    ),
)

DECODE_NEED = RuleMeta(
    id="QL302",
    name="batched-tokens-below-decode-need",
    groups=("scheduling",),
    severity="error",
    requires=("max_num_seqs", "batched_tokens", "mtp_tokens"),
    fix="unsafe",
    title=Text(en="--max-num-batched-tokens cannot hold one decode step of every sequence",
               zh="--max-num-batched-tokens 容纳不下所有序列的一步解码"),
    why=Text(
        en="Each running request needs one token per decode step, k+1 with k speculative tokens. vLLM "
        "refuses max_num_batched_tokens below max_num_seqs outright. Between max_num_seqs and "
        "max_num_seqs x (k+1) it starts, but a full decode step no longer fits one batch, so MTP "
        "requests are split across steps; the tutorials size decode nodes as max_num_seqs x (k+1) "
        "(the Qwen3.5-397B-A17B tutorial's D nodes: 32 x 4 = 128). Without the option vLLM's NPU default of 2048 is used.",
        zh="每个运行中的请求每步解码需要 1 个 token，使用 k 个推测 token 时需要 k+1 个。"
        "max_num_batched_tokens 小于 max_num_seqs 时 vLLM 直接拒绝启动；介于 max_num_seqs 与 "
        "max_num_seqs x (k+1) 之间时可以启动，但一次完整的解码步放不进一个批次，MTP 请求会被拆到多步；"
        "教程按 max_num_seqs x (k+1) 配置解码节点（Qwen3.5-397B-A17B 教程的 D 节点：32 x 4 = 128）。"
        "未设置该参数时按 vLLM 在 NPU 上的默认值 2048 计算。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/scheduler.py#L259-L300",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L2287-L2335",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 64 --max-num-batched-tokens 32\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 64 --max-num-batched-tokens 4096\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 64 --max-num-batched-tokens 64\n",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 32 --max-num-batched-tokens 64 "
            "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3, \"enforce_eager\": true}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 32 --max-num-batched-tokens 128 "
            "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3, \"enforce_eager\": true}'\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 32 --max-num-batched-tokens 128 "
            "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3, \"enforce_eager\": true}'\n",
        ),
    ),
)

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

OFF_GRID = RuleMeta(
    id="QL304",
    name="max-num-seqs-off-capture-grid",
    behaviours=("ascend_default_capture_grid",),
    applies="ascend_default_capture_grid",
    groups=("scheduling", "graph-capture"),
    severity="warning",
    requires=("cudagraph_mode", "capture_sizes", "compilation", "max_num_seqs", "mtp_tokens", "batched_tokens",
              "version", "kv_role"),
    fix="unsafe",
    title=Text(en="--max-num-seqs falls between the default ACLGraph capture sizes",
               zh="--max-num-seqs 落在默认 ACLGraph 捕获尺寸之间"),
    why=Text(
        en="Without explicit cudagraph_capture_sizes, vllm-ascend (since v0.18.0rc1) caps capture at "
        "min(max_num_seqs x (1+k), 512) tokens and vLLM fills the list with 1, 2, 4, multiples of 8 "
        "(of 16 from 256) up to that cap, then rounds to multiples of k+1. A full decode batch of "
        "max_num_seqs x (1+k) tokens that is not on this grid has no graph: the largest batches, the "
        "ones that matter at full load, run eager. Choose max_num_seqs on the grid or list the size.",
        zh="未显式设置 cudagraph_capture_sizes 时，vllm-ascend（v0.18.0rc1 起）把捕获上限定为 "
        "min(max_num_seqs x (1+k), 512) 个 token，vLLM 用 1、2、4 以及 8 的倍数（256 起为 16 的倍数）"
        "填满到该上限，再按 k+1 的倍数取整。若满载解码批次 max_num_seqs x (1+k) 不在这个网格上，"
        "就没有对应的图：满载时最大的那些批次只能以 eager 方式运行。应把 max_num_seqs 取在网格上，或显式列出该尺寸。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L207-L241",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1661-L1730",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/compilation.py#L1432-L1518",
        "https://github.com/vllm-project/vllm-ascend/issues/16049",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 12 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
            good="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
            fixed="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        ),
    ),
)


# -- checks --------------------------------------------------------------------

@check(MODEL_LEN, relations=(("in_range", "max_model_len", "context_limit"),))
def model_len(scope: Scope):
    """--max-model-len above the model's max_model_len (RoPE-scaled by --hf-overrides when given)."""
    asked, limit = scope.get("max_model_len"), scope.get("context_limit")
    if asked is None or not limit or asked <= limit:
        return
    label = label_zh = scope.get("model_label")
    override = scope.known("rope_override")
    limit_known = scope.known("context_limit")
    if override is not None and override.value is not None and limit_known is not None:
        origin = limit_known.origin
        label, label_zh = f"{label} with {origin}", f"{label}（{origin}）"
    span = kit.span_of(scope.serve, "--max-model-len")
    fix = Fix(Text(en=f"set --max-model-len to {limit}, the model maximum",
                   zh=f"将 --max-model-len 设为模型上限 {limit}"),
              kit.set_value(scope.serve, "--max-model-len", str(limit)), "unsafe")
    if kit.env_on(scope.serve, "VLLM_ALLOW_LONG_MAX_MODEL_LEN"):
        yield Finding(
            MODEL_LEN,
            Text(
                en=f"--max-model-len {asked} is above the {limit} maximum of {label}; "
                "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets it start, but positions past the trained length may give NaN",
                zh=f"--max-model-len {asked} 超过了 {label_zh} 的上限 {limit}；VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 "
                "能让服务启动，但超出训练长度的位置可能产生 NaN",
            ),
            span, fix, severity="warning",
        )
        return
    yield Finding(
        MODEL_LEN,
        Text(
            en=f"--max-model-len {asked} is above the {limit} maximum of {label}: vLLM stops with "
            "ValueError (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)",
            zh=f"--max-model-len {asked} 超过了 {label_zh} 的上限 {limit}：vLLM 会报 ValueError 并退出"
            "（除非设置 VLLM_ALLOW_LONG_MAX_MODEL_LEN=1）",
        ),
        span, fix,
    )


@check(DECODE_NEED, relations=(("in_range", "max_num_seqs", "batched_tokens"),))
def decode_need(scope: Scope):
    """max_num_batched_tokens below max_num_seqs (error) or below max_num_seqs x (k+1) (warning)."""
    seqs, budget, k = scope.get("max_num_seqs"), scope.get("batched_tokens"), scope.get("mtp_tokens")
    need = seqs * (k + 1)
    if budget >= need:
        return
    stated = kit.option(scope.serve, "--max-num-batched-tokens").value is not None
    budget_text = f"--max-num-batched-tokens {budget}" if stated else f"the default max-num-batched-tokens {budget}"
    budget_text_zh = f"--max-num-batched-tokens {budget}" if stated else f"默认的 max-num-batched-tokens {budget}"
    edits = kit.set_value(scope.serve, "--max-num-batched-tokens", str(need)) if stated else []
    why = f"max-num-seqs x (k+1) = {seqs} x {k + 1}" if k else "one token per sequence"
    why_zh = f"max-num-seqs x (k+1) = {seqs} x {k + 1}" if k else "每个序列一个 token"
    fix = Fix(Text(en=f"set --max-num-batched-tokens to at least {need} ({why})",
                   zh=f"将 --max-num-batched-tokens 设为至少 {need}（{why_zh}）"), edits, "unsafe")
    where = kit.span_of(scope.serve, ("--max-num-batched-tokens", "--max-num-seqs"))
    if budget < seqs:
        yield Finding(
            DECODE_NEED,
            Text(
                en=f"{budget_text} is below --max-num-seqs {seqs}: vLLM stops with ValueError "
                "(max_num_batched_tokens must be >= max_num_seqs)",
                zh=f"{budget_text_zh} 小于 --max-num-seqs {seqs}：vLLM 会报 ValueError 并退出"
                "（max_num_batched_tokens 必须 >= max_num_seqs）",
            ),
            where, fix,
        )
        return
    yield Finding(
        DECODE_NEED,
        Text(
            en=f"{budget_text} is below --max-num-seqs x (num_speculative_tokens + 1) = {seqs} x {k + 1} = {need}: "
            "a full MTP decode step does not fit one batch",
            zh=f"{budget_text_zh} 小于 --max-num-seqs x (num_speculative_tokens + 1) = {seqs} x {k + 1} = {need}："
            "一个完整的 MTP 解码步放不进一个批次",
        ),
        where, fix, severity="warning",
    )


@check(UNCHUNKED, relations=(("in_range", "max_num_batched_tokens", "model_len_limit"),))
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


def _captured(seqs: int, k: int, budget: int) -> list[int]:
    """The default capture list (tokens) vLLM-Ascend builds for ``seqs`` requests of k+1 tokens."""
    limit = min(seqs * (k + 1), kit.ASCEND_DEFAULT_CAPTURE_CAP)
    return kit.round_for_spec(kit.default_capture_sizes(limit, budget), k + 1)


def _on_grid(seqs: int, k: int, budget: int) -> bool:
    return seqs * (k + 1) in _captured(seqs, k, budget)


def _grid_neighbours(seqs: int, k: int, budget: int) -> tuple[int | None, int | None]:
    """The nearest max-num-seqs values below and above ``seqs`` whose full decode batch is captured."""
    step = k + 1
    highest = kit.ASCEND_DEFAULT_CAPTURE_CAP // step  # no larger batch is ever captured by default
    lower = next((s for s in range(min(seqs - 1, highest), 0, -1) if _on_grid(s, k, budget)), None)
    upper = next((s for s in range(seqs + 1, kit.ASCEND_DEFAULT_CAPTURE_CAP // step + 1)
                  if s * step <= budget and _on_grid(s, k, budget)), None)
    return lower, upper


@check(OFF_GRID, relations=(("in_range", "max_num_seqs", "capture_sizes"),))
def off_grid(scope: Scope):
    """A full decode batch (max_num_seqs x (1+k) tokens) that the default capture list misses."""
    mode = scope.get("cudagraph_mode")
    if mode not in kit.FULL_DECODE_MODES or scope.get("capture_sizes") is not None:
        return
    if scope.get("compilation").get("max_cudagraph_capture_size") is not None or scope.get("kv_role") == "kv_producer":
        return
    if not kit.holds(scope, "ascend_default_capture_grid"):
        return
    seqs, k, budget = scope.get("max_num_seqs"), scope.get("mtp_tokens"), scope.get("batched_tokens")
    step = k + 1
    target = seqs * step
    if target > kit.ASCEND_DEFAULT_CAPTURE_CAP or target > budget:
        return  # capped by design / reported by QL302
    sizes = _captured(seqs, k, budget)
    if target in sizes or not sizes:
        return
    last = sizes[-1]
    covered = last // step
    grid = "1,2,4, multiples of 8" + (", of 16 from 256" if target > 256 else "") + \
        (f", rounded to multiples of {step}" if step > 1 else "")
    grid_zh = "1,2,4 及 8 的倍数" + ("，256 起为 16 的倍数" if target > 256 else "") + \
        (f"，再取整为 {step} 的倍数" if step > 1 else "")
    batch = f"--max-num-seqs {seqs}" + (f" x (1 + {k} speculative tokens) = {target} tokens" if k else "")
    batch_zh = f"--max-num-seqs {seqs}" + (f" x (1 + {k} 个推测 token) = {target} 个 token" if k else "")
    stops = f"{last}" + (f" tokens ({covered} requests)" if k else "")
    stops_zh = f"{last}" + (f" 个 token（{covered} 个请求）" if k else "")
    lower, upper = _grid_neighbours(seqs, k, budget)
    choices = " or ".join(str(s) for s in (lower, upper) if s is not None)
    choices_zh = " 或 ".join(str(s) for s in (lower, upper) if s is not None)
    listed = sorted(set(sizes) | {target})
    example = f" (e.g. [{','.join(map(str, listed))}])" if len(listed) <= 8 else ""
    example_zh = f"（如 [{','.join(map(str, listed))}]）" if len(listed) <= 8 else ""
    stated = kit.option(scope.serve, "--max-num-seqs").value is not None
    edits = kit.set_value(scope.serve, "--max-num-seqs", str(upper)) if stated and upper is not None else []
    yield Finding(
        OFF_GRID,
        Text(
            en=f"{batch} is off the default ACL-graph capture grid ({grid}) with {mode}, so the default capture list "
            f"stops at {stops} and decode batches of {covered + 1}-{seqs} run eager (~7x slower at full load in a "
            "reported case)",
            zh=f"在 {mode} 模式下，{batch_zh} 不在默认的 ACLGraph 捕获网格（{grid_zh}）上，因此默认捕获列表止于 "
            f"{stops_zh}，包含 {covered + 1}-{seqs} 个请求的解码批次会以 eager 方式运行（在一个已报告的案例中，"
            "满载时慢约 7 倍）",
        ),
        kit.span_of(scope.serve, "--max-num-seqs"),
        Fix(Text(en=f"use --max-num-seqs {choices}, or set cudagraph_capture_sizes explicitly including {target}{example}",
                 zh=f"使用 --max-num-seqs {choices_zh}，或显式设置包含 {target} 的 cudagraph_capture_sizes{example_zh}"),
            edits, "unsafe"),
    )
