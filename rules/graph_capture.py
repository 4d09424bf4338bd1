"""ACLGraph capture rules: capture sizes vs speculative decoding (QL401), --enforce-eager vs a graph
mode (QL402), the draft model's eager switch (QL403). FlashComm1 is ``flashcomm1`` (QL404).

The capture-size arithmetic they share with ``capture_grid`` (QL304) is ``qlint.rules.kit.capture``.
"""

from __future__ import annotations


from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, check, fact

# -- facts ----------------------------------------------------------------------

@fact("moe_if_known", requires=("moe",))
def moe_if_known(scope: Scope):
    """True/False for a model in the knowledge, None when the model is not known."""
    known = scope.known("moe")
    return Known(None, "model not in the knowledge") if known is None else known


# -- rule metadata ------------------------------------------------------------

SPEC_MULTIPLE = RuleMeta(
    id="QL401",
    name="capture-sizes-not-multiple-of-spec",
    groups=("graph-capture",),
    severity="warning",
    requires=("capture_sizes", "mtp_tokens", "cudagraph_mode", "batched_tokens"),
    fix="safe",
    title=Text(en="Capture sizes are not multiples of num_speculative_tokens + 1",
               zh="捕获尺寸不是 num_speculative_tokens + 1 的倍数"),
    why=Text(
        en="In a FULL decode graph mode with k speculative tokens every decode step carries k+1 tokens "
        "per request, so vLLM rounds each cudagraph_capture_sizes entry up to a multiple of k+1, drops "
        "rounded sizes above the largest one (and sizes above --max-num-batched-tokens) and fails with "
        "ValueError when nothing is left. The list you wrote is not the list that gets captured; the "
        "MTP tutorials recommend n x (k+1). The Qwen3.5-27B/Qwen3.6-27B tutorial's Atlas 300I example [1, 8] with k=1 becomes "
        "[2, 8], which the v0.23.0 release docs later wrote out.",
        zh="在 FULL 类解码图模式下使用 k 个推测 token 时，每个请求每步解码携带 k+1 个 token，"
        "因此 vLLM 会把 cudagraph_capture_sizes 的每一项向上取整为 k+1 的倍数，丢弃取整后超过最大值的项"
        "（以及超过 --max-num-batched-tokens 的项），若一项不剩则报 ValueError。实际捕获的列表与所写的不同；"
        "MTP 教程建议取 n x (k+1)。Qwen3.5-27B/Qwen3.6-27B 教程中 Atlas 300I 的 [1, 8]（k=1）会变成 [2, 8]，"
        "v0.23.0 的发布文档随后也改成了 [2, 8]。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/compilation.py#L1432-L1518",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1690-L1770",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541 (Notice (cudagraph_capture_sizes n x (mtp + 1)))",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --tensor-parallel-size 4 "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 1}' "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 8]}'\n",
            good="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --tensor-parallel-size 4 "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 1}' "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [2, 8]}'\n",
            fixed="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --tensor-parallel-size 4 "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 1}' "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [2, 8]}'\n",
        ),
    ),
)

EAGER_OVERRIDES = RuleMeta(
    id="QL402",
    name="enforce-eager-overrides-graph",
    groups=("graph-capture",),
    severity="warning",
    requires=("enforce_eager", "compilation"),
    title=Text(en="--enforce-eager silently cancels the configured graph mode",
               zh="--enforce-eager 会悄悄取消已配置的图模式"),
    why=Text(
        en="--enforce-eager is the same as compilation mode none with cudagraph_mode none: vLLM logs one "
        "line and ignores the cudagraph_mode (and capture sizes) of --compilation-config. The script "
        "asks for two opposite things; whoever reads it cannot tell whether graphs are meant to run.",
        zh="--enforce-eager 等同于 compilation mode 为 none 且 cudagraph_mode 为 none：vLLM 只打印一行日志，"
        "就忽略 --compilation-config 中的 cudagraph_mode（及捕获尺寸）。脚本同时提出了两个相反的要求，"
        "读者无法判断是否本应运行图模式。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1054-L1060",),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --enforce-eager --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
            good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        ),
    ),
)

DRAFT_EAGER = RuleMeta(
    id="QL403",
    name="spec-decode-eager-draft",
    groups=("graph-capture", "speculative"),
    severity="info",
    requires=("speculative", "cudagraph_mode"),
    fix="unsafe",
    title=Text(en="The speculative draft does not say whether it runs eager",
               zh="推测解码的草稿模型未声明是否以 eager 方式运行"),
    why=Text(
        en="Without an enforce_eager key in --speculative-config the draft (MTP) model inherits the main "
        "model's graph mode. vLLM accepts either; every MTP launch command in the Qwen3.5/3.6 tutorials "
        "sets \"enforce_eager\": true so only the main model is captured, which keeps capture time and "
        "graph memory down. This is a note, not an error; an explicit false is respected. The fix is unsafe "
        "(--unsafe-fixes): it changes how the draft runs.",
        zh="--speculative-config 中没有 enforce_eager 键时，草稿（MTP）模型沿用主模型的图模式。"
        "vLLM 两种写法都接受；Qwen3.5/3.6 教程里每条 MTP 启动命令都写了 \"enforce_eager\": true，"
        "只捕获主模型，以减少捕获时间和图内存。这只是提示而非错误；显式写 false 时不提示。该修复不安全"
        "（需 --unsafe-fixes）：它会改变草稿模型的运行方式。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/speculative.py#L77-L78",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L88-L149",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3, \"enforce_eager\": true}'\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3, \"enforce_eager\": true}'\n",
        ),
    ),
)


# -- checks --------------------------------------------------------------------

@check(SPEC_MULTIPLE, relations=(("divides", "mtp_tokens", "capture_sizes"),))
def spec_multiple(scope: Scope):
    """Explicit capture sizes in a FULL decode mode with k > 0: report vLLM's rounding."""
    sizes, k = scope.get("capture_sizes"), scope.get("mtp_tokens")
    if sizes is None or k < 1 or scope.get("cudagraph_mode") not in kit.FULL_DECODE_MODES or not sizes:
        return
    step = k + 1
    budget = scope.get("batched_tokens")
    kept = sorted({size for size in sizes if size <= budget})
    too_big = sorted({size for size in sizes if size > budget})
    rounded = kit.round_for_spec(kept, step)
    span = kit.span_of(scope.serve, "--compilation-config", "cudagraph_capture_sizes")
    dropped = f"; sizes above --max-num-batched-tokens {budget} are dropped first ({', '.join(map(str, too_big))})" \
        if too_big else ""
    dropped_zh = f"；超过 --max-num-batched-tokens {budget} 的尺寸会先被丢弃（{', '.join(map(str, too_big))}）" \
        if too_big else ""
    if not rounded:
        yield Finding(
            SPEC_MULTIPLE,
            Text(
                en=f"cudagraph_capture_sizes {kit.sizes(sizes)} leaves no size that is a multiple of "
                f"num_speculative_tokens + 1 = {k} + 1 = {step} after rounding{dropped}: vLLM stops with "
                "ValueError 'No valid cudagraph sizes after rounding'",
                zh=f"cudagraph_capture_sizes {kit.sizes(sizes)} 取整后没有任何尺寸是 "
                f"num_speculative_tokens + 1 = {k} + 1 = {step} 的倍数{dropped_zh}：vLLM 会报 "
                "ValueError 'No valid cudagraph sizes after rounding' 并退出",
            ),
            span,
            Fix(Text(en=f"use capture sizes that are multiples of {step}, e.g. {kit.sizes([step, 2 * step])}",
                     zh=f"使用 {step} 的倍数作为捕获尺寸，如 {kit.sizes([step, 2 * step])}")),
            severity="error",
        )
        return
    if rounded == sorted(set(sizes)):
        return
    edits = kit.set_key(scope.serve, "--compilation-config", "cudagraph_capture_sizes", rounded)
    new_text = edits[0].text if edits else kit.sizes(rounded)
    yield Finding(
        SPEC_MULTIPLE,
        Text(
            en=f"with num_speculative_tokens {k} each decode step holds {step} tokens per request, so vLLM rounds "
            f"cudagraph_capture_sizes {kit.sizes(sizes)} to {kit.sizes(rounded)} (multiples of {step}, "
            f"none above the largest){dropped}",
            zh=f"num_speculative_tokens 为 {k} 时，每个请求的每个解码步包含 {step} 个 token，因此 vLLM 会把 "
            f"cudagraph_capture_sizes {kit.sizes(sizes)} 取整为 {kit.sizes(rounded)}（{step} 的倍数，"
            f"且不超过原列表的最大值）{dropped_zh}",
        ),
        span,
        Fix(Text(en=f"write the sizes vLLM captures: {new_text} (n x (k+1))",
                 zh=f"直接写出 vLLM 实际捕获的尺寸：{new_text}（n x (k+1)）"),
            edits),
    )


@check(EAGER_OVERRIDES, relations=(("conflicts", "enforce_eager", "compilation"),))
def eager_overrides(scope: Scope):
    """--enforce-eager with an explicit cudagraph_mode other than NONE."""
    if not scope.get("enforce_eager"):
        return
    mode = scope.get("compilation").get("cudagraph_mode")
    if not isinstance(mode, str) or mode.upper() == "NONE":
        return
    yield Finding(
        EAGER_OVERRIDES,
        Text(
            en=f"--enforce-eager forces cudagraph_mode NONE, so cudagraph_mode {mode.upper()} in "
            "--compilation-config is ignored (vLLM only logs a warning)",
            zh=f"--enforce-eager 会强制 cudagraph_mode 为 NONE，因此 --compilation-config 中的 cudagraph_mode "
            f"{mode.upper()} 被忽略（vLLM 只打印一条警告）",
        ),
        kit.span_of(scope.serve, "--compilation-config", "cudagraph_mode"),
        Fix(Text(en="drop --enforce-eager to run graphs, or drop cudagraph_mode to run eager",
                 zh="要运行图模式就去掉 --enforce-eager；要以 eager 模式运行就去掉 cudagraph_mode")),
    )


@check(DRAFT_EAGER)
def draft_eager(scope: Scope):
    """A speculative config without enforce_eager while the main model runs graphs."""
    config = scope.get("speculative")
    mode = scope.get("cudagraph_mode")
    if config is None or mode == "NONE" or "enforce_eager" in config:
        return
    option = scope.serve.opt("--speculative-config")
    edits = kit.set_key(scope.serve, "--speculative-config", "enforce_eager", True)
    method_zh = f"{config['method']} " if "method" in config else ""
    yield Finding(
        DRAFT_EAGER,
        Text(
            en=f"--speculative-config has no enforce_eager, so the {config.get('method', 'draft')} draft is captured "
            f"in the main model's {mode} graph mode; the tutorials set \"enforce_eager\": true (vLLM accepts both)",
            zh=f"--speculative-config 未设置 enforce_eager，因此 {method_zh}草稿模型会按主模型的 {mode} 图模式被捕获；"
            "教程中设置了 \"enforce_eager\": true（vLLM 两种写法都接受）",
        ),
        option.value.span if option is not None and option.value is not None else scope.serve.span,
        # unsafe: the draft stops being captured and runs eager, which changes its speed and graph memory
        Fix(Text(en='add "enforce_eager": true to --speculative-config (the draft then runs eager)',
                 zh='在 --speculative-config 中加入 "enforce_eager": true（草稿模型随后以 eager 方式运行）'), edits,
            safety="unsafe"),
    )
