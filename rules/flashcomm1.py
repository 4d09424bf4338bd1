"""FlashComm1 where it cannot work (QL404): TP 1, MoE without expert parallel, capture sizes that
are not multiples of TP, and the switch ignored on main.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.knowledge.base import MAIN
from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import Span

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


@check(FLASHCOMM1, relations=(("requires", "flashcomm1", "tp"), ("divides", "tp", "capture_sizes")),
       when=("additional_config | env:VLLM_ASCEND_ENABLE_FLASHCOMM1",))
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
