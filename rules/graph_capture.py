"""ACLGraph capture rules: capture sizes vs speculative decoding, --enforce-eager vs a
graph mode, the draft model's eager switch, and FlashComm1's TP constraints.

The capture-size arithmetic they share with ``scheduling`` (QL304) is ``qlint.rules.kit.capture``.
"""

from __future__ import annotations

import json

from qlint.knowledge.base import MAIN
from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, check, fact
from qlint.rules.plan import Span

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

FLASHCOMM1 = RuleMeta(
    id="QL404",
    name="flashcomm1-constraints",
    groups=("graph-capture", "parallelism"),
    severity="error",
    requires=("flashcomm1", "tp", "expert_parallel", "moe_if_known", "capture_sizes", "cudagraph_mode",
              "version", "additional_config"),
    faq="flashcomm1-when",
    title=Text(en="FlashComm1 is on where it cannot work", zh="在不满足条件的配置下开启了 FlashComm1"),
    why=Text(
        en="FlashComm v1 (enable_flashcomm1 / VLLM_ASCEND_ENABLE_FLASHCOMM1, additional-config wins) splits "
        "activations across TP ranks: up to v0.26 vllm-ascend asserts TP > 1 and, for MoE models, "
        "--enable-expert-parallel; with graphs on it keeps only capture sizes that are multiples of TP "
        "(the tutorials say so too) and asserts when none is. On main both switches are ignored with a "
        "deprecation warning, because upstream sequence parallelism turns itself on with EP, TP > 1 "
        "and DP > 1; there the finding is only informational.",
        zh="FlashComm v1（enable_flashcomm1 / VLLM_ASCEND_ENABLE_FLASHCOMM1，additional-config 优先）把激活按 TP "
        "切分：v0.26 及以前 vllm-ascend 断言 TP > 1，MoE 模型还须开启 --enable-expert-parallel；开启图模式时"
        "只保留 TP 整数倍的捕获尺寸（教程也这样要求），一个都没有时断言失败。main 分支上两个开关都只打印"
        "弃用警告并被忽略，因为上游序列并行在 EP、TP > 1、DP > 1 时自动开启，此时仅作提示。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L549-L568",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L763-L770",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/utils.py#L903-L929",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L44-L48",
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L231-L242 (item 6)",
    ),
    examples=(
        Example(
            bad="export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 1\n",
            good="export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
            version="v0.23.0",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 4 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 2, 4, 8]}' "
            "--enable-expert-parallel --additional-config '{\"enable_flashcomm1\": true}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 4 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [4, 8]}' "
            "--enable-expert-parallel --additional-config '{\"enable_flashcomm1\": true}'\n",
            version="v0.23.0",
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


def _flashcomm1_switch(scope: Scope) -> tuple[str, Span] | None:
    """Where FlashComm1 is asked for (additional-config key wins over the env var), or None."""
    config = scope.get("additional_config")
    if "enable_flashcomm1" in config:
        return (f"additional-config enable_flashcomm1={json.dumps(config['enable_flashcomm1'])}",
                kit.span_of(scope.serve, "--additional-config", "enable_flashcomm1"))
    setting = scope.serve.env.get("VLLM_ASCEND_ENABLE_FLASHCOMM1")
    if setting is not None:
        text = (setting.value.text or setting.value.raw) if setting.value is not None else ""
        return f"VLLM_ASCEND_ENABLE_FLASHCOMM1={text}", setting.span
    return None


@check(FLASHCOMM1, relations=(("requires", "flashcomm1", "tp"), ("divides", "tp", "capture_sizes")))
def flashcomm1(scope: Scope):
    """FlashComm1 with TP=1, on MoE without EP, or with capture sizes that are not multiples of TP."""
    version = scope.get("version")
    switch = _flashcomm1_switch(scope)
    if version == MAIN:
        if switch is not None:
            yield Finding(
                FLASHCOMM1,
                Text(
                    en=f"{switch[0]} is ignored on main (FlashComm v1 was removed; vllm-ascend only logs a deprecation "
                    "warning); sequence parallelism now turns on by itself with EP, TP > 1 and DP > 1",
                    zh=f"main 分支上 {switch[0]} 会被忽略（FlashComm v1 已移除，vllm-ascend 只打印一条弃用警告）；"
                    "序列并行现在会在 EP、TP > 1 且 DP > 1 时自动开启",
                ),
                switch[1],
                Fix(Text(en="remove the FlashComm1 switch", zh="删除 FlashComm1 开关")),
                severity="info",
            )
        return
    if not scope.get("flashcomm1") or switch is None:
        return
    where, span = switch
    tp = scope.get("tp")
    if tp <= 1:
        yield Finding(
            FLASHCOMM1,
            Text(
                en=f"{where} with --tensor-parallel-size {tp}: vllm-ascend {version} stops with AssertionError "
                "'Flash Comm v1 is only supported when tp_size > 1'",
                zh=f"{where} 与 --tensor-parallel-size {tp} 同时使用：vllm-ascend {version} 会报 AssertionError "
                "'Flash Comm v1 is only supported when tp_size > 1' 并退出",
            ),
            span,
            Fix(Text(en="use --tensor-parallel-size 2 or more, or switch FlashComm1 off",
                     zh="使用 --tensor-parallel-size 2 或更大的值，或关闭 FlashComm1")),
        )
        return
    if scope.get("moe_if_known") and not scope.get("expert_parallel"):
        yield Finding(
            FLASHCOMM1,
            Text(
                en=f"{where} on a MoE model without --enable-expert-parallel: vllm-ascend {version} stops with "
                "AssertionError 'Flash Comm v1 requires enable_expert_parallel=True for MoE models'",
                zh=f"在 MoE 模型上使用 {where}，但未开启 --enable-expert-parallel：vllm-ascend {version} 会报 "
                "AssertionError 'Flash Comm v1 requires enable_expert_parallel=True for MoE models' 并退出",
            ),
            span,
            Fix(Text(en="add --enable-expert-parallel, or switch FlashComm1 off",
                     zh="添加 --enable-expert-parallel，或关闭 FlashComm1")),
        )
    sizes = scope.get("capture_sizes")
    if sizes is None or scope.get("cudagraph_mode") == "NONE":
        return
    kept = [size for size in sizes if size % tp == 0]
    dropped = [size for size in sizes if size % tp]
    if not dropped:
        return
    sizes_span = kit.span_of(scope.serve, "--compilation-config", "cudagraph_capture_sizes")
    if not kept:
        yield Finding(
            FLASHCOMM1,
            Text(
                en=f"with {where} and TP {tp}, no entry of cudagraph_capture_sizes {kit.sizes(sizes)} is a multiple "
                f"of {tp}: vllm-ascend {version} stops with AssertionError (capture sizes need multiples of tp_size)",
                zh=f"在 {where} 且 TP 为 {tp} 时，cudagraph_capture_sizes {kit.sizes(sizes)} 中没有任何一项是 "
                f"{tp} 的倍数：vllm-ascend {version} 会报 AssertionError 并退出（捕获尺寸须为 tp_size 的倍数）",
            ),
            sizes_span,
            Fix(Text(en=f"use capture sizes that are multiples of {tp}, e.g. {kit.sizes([tp, 2 * tp])}",
                     zh=f"使用 {tp} 的倍数作为捕获尺寸，如 {kit.sizes([tp, 2 * tp])}")),
        )
        return
    yield Finding(
        FLASHCOMM1,
        Text(
            en=f"with {where} and TP {tp}, vllm-ascend {version} drops the capture sizes that are not multiples of "
            f"{tp}: {kit.sizes(dropped)} (keeps {kit.sizes(kept)}); those batches are padded to the next kept size",
            zh=f"在 {where} 且 TP 为 {tp} 时，vllm-ascend {version} 会丢弃不是 {tp} 倍数的捕获尺寸："
            f"{kit.sizes(dropped)}（保留 {kit.sizes(kept)}）；这些批次会被填充到下一个保留的尺寸",
        ),
        sizes_span,
        Fix(Text(en=f"list only multiples of {tp}: {kit.sizes(kept)}",
                 zh=f"只列出 {tp} 的倍数：{kit.sizes(kept)}")),
        severity="warning",
    )
