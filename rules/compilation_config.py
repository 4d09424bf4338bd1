"""Startup checks on ``--compilation-config`` and graph capture (QL537-QL540): compilation
modes that turn ACL graphs off, max_cudagraph_capture_size against the capture sizes, capture
sizes above --max-num-batched-tokens, and TP-aligned sizes for shared-expert DP.

Sources: ``vllm@v0.23.0:vllm/config/vllm.py L1157-1168,
L1689-1775``, ``vllm-ascend@v0.23.0:vllm_ascend/platform.py L535-568``,
``vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L114-122``, ``vllm-ascend@main:vllm_ascend/platform.py
L974-979, L1040-1064``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

PIECEWISE_MODES = ("PIECEWISE", "FULL_AND_PIECEWISE")
COMPILE_MODES = {1: "STOCK_TORCH_COMPILE", 2: "DYNAMO_TRACE_ONCE", "STOCK_TORCH_COMPILE": "STOCK_TORCH_COMPILE",
                 "DYNAMO_TRACE_ONCE": "DYNAMO_TRACE_ONCE"}
NO_COMPILE = (0, "0", "NONE")

COMPILE_MODE = RuleMeta(
    id="QL537",
    name="compilation-mode-disables-graphs",
    behaviours=("compile_mode_keeps_full_graphs",),
    groups=("graph-capture",),
    severity="warning",
    requires=("compilation", "enforce_eager", "version"),
    title=Text(en="The compilation mode turns ACL graphs off", zh="编译模式导致 ACL 图被关闭"),
    why=Text(
        en="On NPU only compilation mode 0 (NONE) and 3 (VLLM_COMPILE, the default) exist. With mode 1 or 2 "
        "vllm-ascend releases up to v0.25.1rc1 set cudagraph_mode to NONE with a warning (main instead resets "
        "the mode to NONE, keeping only FULL graphs). PIECEWISE and FULL_AND_PIECEWISE graphs also need mode 3: "
        "with mode 0 vLLM quietly sets cudagraph_mode to NONE. Either way the script runs eager without saying so.",
        zh="NPU 上只有编译模式 0（NONE）和 3（VLLM_COMPILE，默认）。使用模式 1 或 2 时，v0.25.1rc1 及以前的 vllm-ascend "
        "会打印警告并把 cudagraph_mode 设为 NONE（main 则把模式重置为 NONE，只保留 FULL 图）。PIECEWISE 与 "
        "FULL_AND_PIECEWISE 也需要模式 3：模式 0 下 vLLM 会悄悄把 cudagraph_mode 设为 NONE。两种情况下脚本都会在不知不觉中"
        "以 eager 模式运行。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L535-L540",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L974-L979",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1157-L1168",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"mode\": 0, \"cudagraph_mode\": \"PIECEWISE\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"mode\": 0, \"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        version="v0.23.0",
    ),),
)


@check(COMPILE_MODE)
def compile_mode(scope: Scope):
    """compilation mode 1/2, or mode 0 with a piecewise cudagraph_mode."""
    config = scope.get("compilation")
    if scope.get("enforce_eager") or "mode" not in config:
        return
    mode = config["mode"]
    mode = mode.upper() if isinstance(mode, str) else mode
    graphs = config.get("cudagraph_mode")
    graphs = graphs.upper() if isinstance(graphs, str) else "FULL_AND_PIECEWISE"
    span = kit.span_of(scope.serve, "--compilation-config", "mode")
    where = kit.at_version(scope)
    if mode in COMPILE_MODES:
        if kit.holds(scope, "compile_mode_keeps_full_graphs"):
            kept = graphs not in PIECEWISE_MODES
            effect = Text(en="resets the mode to NONE; " + (f"{graphs} graphs stay" if kept else "PIECEWISE graphs are dropped"),
                          zh="把模式重置为 NONE；" + (f"{graphs} 图保留" if kept else "PIECEWISE 图被丢弃"))
        else:
            effect = Text(en="sets cudagraph_mode to NONE", zh="把 cudagraph_mode 设为 NONE")
        name = COMPILE_MODES[mode]
        yield Finding(COMPILE_MODE,
                      Text(en=f"compilation mode {name} is not supported on NPU: {where.en} {effect.en}",
                           zh=f"NPU 不支持编译模式 {name}：{where.zh} 会{effect.zh}"),
                      span,
                      Fix(Text(en="drop mode from --compilation-config (VLLM_COMPILE is the default)",
                               zh="从 --compilation-config 中删除 mode（默认即 VLLM_COMPILE）")))
    elif mode in NO_COMPILE and graphs in PIECEWISE_MODES and "cudagraph_mode" in config:
        yield Finding(COMPILE_MODE,
                      Text(en=f"cudagraph_mode {graphs} needs compilation mode VLLM_COMPILE; with mode 0 vLLM sets it to "
                           f"NONE ({where.en} then runs eager)",
                           zh=f"cudagraph_mode {graphs} 需要编译模式 VLLM_COMPILE；mode 为 0 时 vLLM 会把它设为 NONE"
                           f"（{where.zh} 随后以 eager 模式运行）"),
                      span,
                      Fix(Text(en='drop "mode": 0, or use cudagraph_mode FULL_DECODE_ONLY',
                               zh='删除 "mode": 0，或改用 cudagraph_mode FULL_DECODE_ONLY')))


CAPTURE_MAX = RuleMeta(
    id="QL538",
    name="capture-max-mismatch",
    behaviours=("vllm_capture_sizes_checked",),
    applies="vllm_capture_sizes_checked",
    groups=("graph-capture",),
    severity="error",
    requires=("compilation", "capture_sizes", "cudagraph_mode", "batched_tokens", "version"),
    fix="safe",
    title=Text(en="max_cudagraph_capture_size disagrees with cudagraph_capture_sizes",
               zh="max_cudagraph_capture_size 与 cudagraph_capture_sizes 不一致"),
    why=Text(
        en="When --compilation-config gives both cudagraph_capture_sizes and max_cudagraph_capture_size, vLLM "
        "first drops the sizes above --max-num-batched-tokens and then requires the maximum to equal the "
        "largest size left; otherwise it stops with ValueError. Giving only one of the two avoids the check.",
        zh="当 --compilation-config 同时给出 cudagraph_capture_sizes 与 max_cudagraph_capture_size 时，vLLM 先去掉大于 "
        "--max-num-batched-tokens 的尺寸，再要求最大值等于剩下的最大尺寸，否则以 ValueError 退出。只写其中一个即可避免"
        "这一检查。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1689-L1763",),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --compilation-config "
        "'{\"cudagraph_capture_sizes\": [8, 16, 32], \"max_cudagraph_capture_size\": 64}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --compilation-config "
        "'{\"cudagraph_capture_sizes\": [8, 16, 32], \"max_cudagraph_capture_size\": 32}'\n",
        fixed="vllm serve Qwen/Qwen3.6-27B --compilation-config "
        "'{\"cudagraph_capture_sizes\": [8, 16, 32], \"max_cudagraph_capture_size\": 32}'\n",
    ),),
)


@check(CAPTURE_MAX, relations=(("equals", "compilation", "capture_sizes"),))
def capture_max(scope: Scope):
    """Both capture settings given and max != the largest size <= max-num-batched-tokens."""
    sizes, limit = scope.get("capture_sizes"), scope.get("compilation").get("max_cudagraph_capture_size")
    if not sizes or not isinstance(limit, int) or isinstance(limit, bool) or scope.get("cudagraph_mode") == "NONE":
        return
    budget = scope.get("batched_tokens")
    kept = [size for size in sizes if size <= budget]
    largest = max(kept) if kept else 0
    if limit == largest or not kit.holds(scope, "vllm_capture_sizes_checked"):
        return
    span = kit.span_of(scope.serve, "--compilation-config", "max_cudagraph_capture_size")
    trimmed = len(kept) < len(sizes)
    vllm = kit.paired_vllm(scope, scope.get("version"))
    error = ("'customized max_cudagraph_capture_size ... should be consistent with the max value of "
             "cudagraph_capture_sizes'")
    yield Finding(
        CAPTURE_MAX,
        Text(en=f"max_cudagraph_capture_size {limit} differs from the largest capture size {largest}"
             + (f" (sizes above --max-num-batched-tokens {budget} are dropped first)" if trimmed else "")
             + f": {kit.at_version(scope).en} (vLLM {vllm}) stops with ValueError {error}",
             zh=f"max_cudagraph_capture_size {limit} 与最大的捕获尺寸 {largest} 不一致"
             + (f"（大于 --max-num-batched-tokens {budget} 的尺寸会先被去掉）" if trimmed else "")
             + f"：{kit.at_version(scope).zh}（vLLM {vllm}）会以 ValueError {error} 退出"),
        span,
        Fix(Text(en=f"set max_cudagraph_capture_size to {largest}, or drop it",
                 zh=f"把 max_cudagraph_capture_size 设为 {largest}，或删除它"),
            kit.set_key(scope.serve, "--compilation-config", "max_cudagraph_capture_size", largest) if largest else []),
    )


CAPTURE_BUDGET = RuleMeta(
    id="QL539",
    name="capture-sizes-above-batched-tokens",
    behaviours=("vllm_capture_sizes_checked",),
    applies="vllm_capture_sizes_checked",
    groups=("graph-capture", "scheduling"),
    severity="warning",
    requires=("capture_sizes", "cudagraph_mode", "batched_tokens", "mtp_tokens", "version"),
    fix="safe",
    title=Text(en="Capture sizes above --max-num-batched-tokens are dropped",
               zh="大于 --max-num-batched-tokens 的捕获尺寸会被丢弃"),
    why=Text(
        en="A step never holds more tokens than --max-num-batched-tokens, so vLLM drops larger entries of "
        "cudagraph_capture_sizes with only a log line ('is overridden by config'). The list in the script then "
        "is not what runs; with every entry dropped no graph is captured. (With speculative decoding in a FULL "
        "mode QL401 reports this together with its rounding.)",
        zh="单步的 token 数不会超过 --max-num-batched-tokens，因此 vLLM 会丢弃 cudagraph_capture_sizes 中更大的项，"
        "只在日志里提一句（“is overridden by config”）。脚本里的列表因此不是实际运行的列表；若全部被丢弃，则不会捕获任何图。"
        "（FULL 模式下开启投机解码时，由 QL401 连同取整一起报告。）",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1689-L1700",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1765-L1775",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --max-num-batched-tokens 64 --compilation-config "
        "'{\"cudagraph_capture_sizes\": [16, 32, 64, 128]}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --max-num-batched-tokens 64 --compilation-config "
        "'{\"cudagraph_capture_sizes\": [16, 32, 64]}'\n",
        fixed="vllm serve Qwen/Qwen3.6-27B --max-num-batched-tokens 64 --compilation-config "
        "'{\"cudagraph_capture_sizes\": [16, 32, 64]}'\n",
    ),),
)


@check(CAPTURE_BUDGET, relations=(("in_range", "capture_sizes", "batched_tokens"),))
def capture_budget(scope: Scope):
    """Explicit capture sizes larger than --max-num-batched-tokens (outside QL401's spec-decode case)."""
    sizes, mode = scope.get("capture_sizes"), scope.get("cudagraph_mode")
    if not sizes or mode == "NONE" or (mode in kit.FULL_ONLY_MODES + ("FULL_AND_PIECEWISE",) and scope.get("mtp_tokens") >= 1):
        return
    budget = scope.get("batched_tokens")
    too_big = sorted({size for size in sizes if size > budget})
    if not too_big or not kit.holds(scope, "vllm_capture_sizes_checked"):
        return
    kept = [size for size in sizes if size <= budget]
    span = kit.span_of(scope.serve, "--compilation-config", "cudagraph_capture_sizes")
    edits = kit.set_key(scope.serve, "--compilation-config", "cudagraph_capture_sizes", kept) if kept else []
    text = edits[0].text if edits else kit.sizes(kept)
    vllm = kit.paired_vllm(scope, scope.get("version"))
    yield Finding(
        CAPTURE_BUDGET,
        Text(en=f"cudagraph_capture_sizes {too_big} exceed --max-num-batched-tokens {budget}: {kit.at_version(scope).en} "
             f"(vLLM {vllm}) drops them and " + (f"keeps {text}" if kept else "keeps none, so no graph is captured"),
             zh=f"cudagraph_capture_sizes 中的 {too_big} 超过了 --max-num-batched-tokens {budget}：{kit.at_version(scope).zh}"
             f"（vLLM {vllm}）会丢弃它们，" + (f"保留 {text}" if kept else "一个都不剩，因此不会捕获任何图")),
        span,
        Fix(Text(en=f"list only sizes up to {budget}" + (f": {text}" if kept else ""),
                 zh=f"只列出不超过 {budget} 的尺寸" + (f"：{text}" if kept else "")),
            edits),
    )


TP_ALIGNED = RuleMeta(
    id="QL540",
    name="tp-aligned-capture-sizes",
    behaviours=("shared_expert_dp_tp_aligned_capture", "dsa_cp_tp_aligned_capture"),
    applies="shared_expert_dp_tp_aligned_capture",
    groups=("graph-capture", "parallelism"),
    severity="error",
    requires=("additional_config", "tp", "expert_parallel", "capture_sizes", "cudagraph_mode", "version"),
    title=Text(en="Shared-expert DP needs capture sizes that are multiples of TP",
               zh="共享专家 DP 需要 TP 整数倍的捕获尺寸"),
    why=Text(
        en="enable_shared_expert_dp (effective only with --enable-expert-parallel and TP > 1) splits tokens "
        "across TP ranks like sequence parallelism, and so does enable_dsa_cp on main. With graphs on, "
        "vllm-ascend keeps only capture sizes that are multiples of TP and asserts when none is left. "
        "FlashComm1 has the same constraint and is reported by QL404.",
        zh="enable_shared_expert_dp（仅在 --enable-expert-parallel 且 TP > 1 时生效）像序列并行一样把 token 切分到各 TP "
        "rank，main 上的 enable_dsa_cp 也是如此。开启图模式时，vllm-ascend 只保留 TP 整数倍的捕获尺寸，一个不剩时断言失败。"
        "FlashComm1 有同样的约束，由 QL404 报告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L114-L122",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L549-L568",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L1040-L1064",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 4 --enable-expert-parallel "
        "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 2]}' "
        "--additional-config '{\"enable_shared_expert_dp\": true}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 4 --enable-expert-parallel "
        "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [4, 8]}' "
        "--additional-config '{\"enable_shared_expert_dp\": true}'\n",
        version="v0.23.0",
    ),),
)


@check(TP_ALIGNED, relations=(("divides", "tp", "capture_sizes"),))
def tp_aligned(scope: Scope):
    """enable_shared_expert_dp (EP, TP>1) or enable_dsa_cp (main) with capture sizes not multiples of TP."""
    config, tp, sizes = scope.get("additional_config"), scope.get("tp"), scope.get("capture_sizes")
    if tp <= 1 or not sizes or scope.get("cudagraph_mode") == "NONE":
        return
    if config.get("enable_shared_expert_dp") is True and scope.get("expert_parallel") \
            and kit.holds(scope, "shared_expert_dp_tp_aligned_capture"):
        switch = "enable_shared_expert_dp"
    elif config.get("enable_dsa_cp") is True and kit.holds(scope, "dsa_cp_tp_aligned_capture"):
        switch = "enable_dsa_cp"
    else:
        return
    kept = [size for size in sizes if size % tp == 0]
    dropped = [size for size in sizes if size % tp]
    if not dropped:
        return
    span = kit.span_of(scope.serve, "--compilation-config", "cudagraph_capture_sizes")
    where = kit.at_version(scope)
    if not kept:
        yield Finding(TP_ALIGNED,
                      Text(en=f"{switch} with TP {tp}: no entry of cudagraph_capture_sizes {sizes} is a multiple of {tp}, "
                           f"so {where.en} stops with AssertionError",
                           zh=f"{switch} 且 TP 为 {tp}：cudagraph_capture_sizes {sizes} 中没有 {tp} 的整数倍，"
                           f"{where.zh} 会以 AssertionError 退出"),
                      span,
                      Fix(Text(en=f"use capture sizes that are multiples of {tp}, e.g. [{tp}, {2 * tp}]",
                               zh=f"使用 {tp} 的整数倍作为捕获尺寸，例如 [{tp}, {2 * tp}]")))
        return
    yield Finding(TP_ALIGNED,
                  Text(en=f"{switch} with TP {tp}: {where.en} drops capture sizes {dropped} (not multiples of {tp}) and "
                       f"keeps {kept}",
                       zh=f"{switch} 且 TP 为 {tp}：{where.zh} 会丢弃捕获尺寸 {dropped}（不是 {tp} 的整数倍），保留 {kept}"),
                  span,
                  Fix(Text(en=f"list only multiples of {tp}: {kept}", zh=f"只列出 {tp} 的整数倍：{kept}")),
                  severity="warning")
