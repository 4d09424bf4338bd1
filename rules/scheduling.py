"""Scheduling limits: --max-model-len against the model's maximum (QL301) and
--max-num-batched-tokens against max_num_seqs x (k + 1) (QL302). The scheduler facts are
``facts_scheduling``; --max-num-batched-tokens without chunked prefill is ``scheduling_unchunked``
(QL303), --max-num-seqs against the capture grid ``capture_grid`` (QL304).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

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
