"""Quantization rules: float16 with W8A8 weights on A2/A3, the --quantization ascend flag.

Sources: vllm-ascend's auto-detection of ModelSlim checkpoints and the ValueError for
``--quantization ascend`` on a checkpoint without ``quant_model_description.json`` (pinned lines in
each rule's ``sources``), and vllm-ascend#12907 (the 310P recipe's float16 run on an A2 node).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import Span

_FP16 = ("float16", "half")

FP16_W8A8 = RuleMeta(
    id="QL507",
    name="float16-on-a2-a3",
    groups=("quantization",),
    severity="error",
    requires=("hardware", "dtype", "quantized_weights"),
    fix="safe",
    faq="quantization-support",
    title=Text(en="float16 with W8A8 weights on Atlas A2/A3", zh="在 Atlas A2/A3 上用 float16 运行 W8A8 权重"),
    why=Text(
        en="--dtype float16 and --mamba-ssm-cache-dtype float16 belong to the Atlas 300I (310P) recipe. On "
        "A2/A3 a W8A8 checkpoint run in float16 hands a float16 scale to npu_quant_matmul, which only takes "
        "bfloat16/float32/int64 scales, so the engine dies in the profiling run. Use bfloat16 (or leave "
        "--dtype out). The other 310P-only workarounds that usually travel with it (two capture sizes, "
        "enable_npugraph_ex=false) are reported as info: harmless, but they cost performance on A2/A3.",
        zh="--dtype float16 与 --mamba-ssm-cache-dtype float16 属于 Atlas 300I（310P）的配置。在 A2/A3 上用 "
        "float16 运行 W8A8 权重时，npu_quant_matmul 会收到 float16 的 scale，而它只接受 bfloat16/float32/int64，"
        "引擎在 profiling 阶段即崩溃。应改用 bfloat16（或不写 --dtype）。通常随之一起复制过来的其他 310P 专用"
        "规避项（只捕获两个尺寸、enable_npugraph_ex=false）以提示报告：无害，但会损失 A2/A3 的性能。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/issues/12907",
        "https://github.com/vllm-project/vllm-ascend/issues/7443",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend "
            "--mamba-ssm-cache-dtype float16 --dtype float16\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend "
            "--mamba-ssm-cache-dtype bfloat16 --dtype bfloat16\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend "
            "--mamba-ssm-cache-dtype bfloat16 --dtype bfloat16\n",
            hardware="a2",
            version="v0.23.0rc1",
        ),
    ),
)


def _carried_310p_workarounds(scope: Scope) -> list[tuple[str, Span]]:
    """310P-only settings found in the command, with their spans: a short capture list and
    npugraph_ex switched off."""
    serve = scope.serve
    found = []
    compilation = serve.opt("--compilation-config")
    if compilation is not None and compilation.json is not None and isinstance(compilation.json.data, dict):
        sizes = compilation.json.data.get("cudagraph_capture_sizes")
        if isinstance(sizes, list) and 0 < len(sizes) <= 2:
            span = kit.span_of(serve, "--compilation-config", "cudagraph_capture_sizes")
            found.append((f"cudagraph_capture_sizes {sizes}", span))
    additional = serve.opt("--additional-config")
    if additional is not None and additional.json is not None:
        key = "ascend_compilation_config.enable_npugraph_ex"
        if additional.json.get(key) is False:
            found.append(("enable_npugraph_ex=false", kit.span_of(serve, "--additional-config", key)))
    return found


@check(FP16_W8A8)
def float16_on_a2_a3(scope: Scope):
    hardware = scope.get("hardware")
    if hardware not in ("a2", "a3") or not scope.get("quantized_weights"):
        return
    serve = scope.serve
    ssm_option = serve.opt("--mamba-ssm-cache-dtype")
    ssm = (ssm_option.value.text or "").lower() if ssm_option is not None and ssm_option.value else ""
    dtype_fp16 = scope.get("dtype") in _FP16
    ssm_fp16 = ssm in _FP16
    if not dtype_fp16 and not ssm_fp16:
        return
    name = hardware.upper()
    said = " / ".join(
        text for text, on in (("--dtype float16", dtype_fp16), ("--mamba-ssm-cache-dtype float16", ssm_fp16)) if on
    )
    edits = (kit.set_value(serve, "--dtype", "bfloat16") if dtype_fp16 else []) + \
        (kit.set_value(serve, "--mamba-ssm-cache-dtype", "bfloat16") if ssm_fp16 else [])
    fix_text = " and ".join(
        text for text, on in (("--dtype bfloat16 (or omit --dtype)", dtype_fp16),
                              ("--mamba-ssm-cache-dtype bfloat16", ssm_fp16)) if on
    )
    fix_text_zh = "，并改用 ".join(
        text for text, on in (("--dtype bfloat16（或不写 --dtype）", dtype_fp16),
                              ("--mamba-ssm-cache-dtype bfloat16", ssm_fp16)) if on
    )
    if dtype_fp16:
        yield Finding(
            FP16_W8A8,
            Text(
                en=f"{said} {'are' if ssm_fp16 else 'is an'} Atlas-inference (310P) setting{'s' if ssm_fp16 else ''}; "
                f"on Atlas {name} a W8A8 model fails in npu_quant_matmul (FP16 scale unsupported)",
                zh=f"{said} 是 Atlas 推理产品（310P）的设置；在 Atlas {name} 上，W8A8 模型会在 npu_quant_matmul "
                "中失败（不支持 FP16 scale）",
            ),
            kit.span_of(serve, "--dtype"),
            Fix(Text(en=f"use {fix_text}", zh=f"改用 {fix_text_zh}"), edits),
        )
    else:
        yield Finding(
            FP16_W8A8,
            Text(
                en=f"--mamba-ssm-cache-dtype float16 is an Atlas-inference (310P) setting; on Atlas {name} keep the "
                "SSM cache in bfloat16 next to the W8A8 weights",
                zh=f"--mamba-ssm-cache-dtype float16 是 Atlas 推理产品（310P）的设置；在 Atlas {name} 上，"
                "搭配 W8A8 权重时应将 SSM 缓存保持为 bfloat16",
            ),
            kit.span_of(serve, "--mamba-ssm-cache-dtype"),
            Fix(Text(en="use --mamba-ssm-cache-dtype bfloat16", zh="改用 --mamba-ssm-cache-dtype bfloat16"), edits),
            severity="warning",
        )
    carried = _carried_310p_workarounds(scope)
    if carried:
        yield Finding(
            FP16_W8A8,
            Text(
                en=f"{' and '.join(text for text, _ in carried)} {'are' if len(carried) > 1 else 'is a'} 310P-only "
                f"workaround{'s' if len(carried) > 1 else ''}, not needed on Atlas {name}",
                zh=f"{' 和 '.join(text for text, _ in carried)} 是 310P 专用的规避设置，在 Atlas {name} 上并不需要",
            ),
            carried[0][1],
            Fix(Text(en="drop the 310P workarounds (default capture sizes, npugraph_ex on) on A2/A3",
                     zh="在 A2/A3 上去掉这些 310P 规避设置（改用默认捕获尺寸，开启 npugraph_ex）")),
            severity="info",
        )


FLAG_MISSING = RuleMeta(
    id="QL508",
    name="quantization-flag-missing",
    behaviours=("quantization_auto_detect",),
    groups=("quantization",),
    severity="info",
    requires=("quantized_weights", "version", "weight_format"),
    fix="safe",
    faq="quantization-support",
    title=Text(en="W8A8 weights served without --quantization ascend",
               zh="W8A8 权重未加 --quantization ascend"),
    why=Text(
        en="The tutorials say quantized checkpoints need --quantization ascend. Since v0.17.0rc1 vllm-ascend "
        "finds quant_model_description.json in the checkpoint and selects the ascend method by itself, so the "
        "flag is optional there (info); before that release (apart from v0.15.0rc1, which shipped an early "
        "version of the detection) it is needed and its absence is a warning. Writing it keeps the script "
        "explicit either way.",
        zh="教程说量化权重需要 --quantization ascend。自 v0.17.0rc1 起，vllm-ascend 会在权重目录中发现 "
        "quant_model_description.json 并自动选择 ascend 量化方法，因此该参数可以省略（提示）；在此之前"
        "（除了带有早期自动检测的 v0.15.0rc1）必须写，缺失时报警告。无论哪种情况，写上都能让脚本更明确。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.17.0rc1/vllm_ascend/quantization/utils.py#L133",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/quantization/utils.py#L141",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 2\n",
        ),
    ),
)


@check(FLAG_MISSING)
def quantization_flag_missing(scope: Scope):
    serve = scope.serve
    if not scope.get("quantized_weights") or serve.opt("--quantization") is not None:
        return
    kit.release(scope)  # skip when the version is not a release
    needed = not kit.holds(scope, "quantization_auto_detect")
    where = kit.at_version(scope)
    label = scope.get("weight_format").label
    if needed:
        message = Text(
            en=f"{label} weights without --quantization ascend at {where.en}: this release does not detect "
            "ModelSlim checkpoints, so the flag is required",
            zh=f"{where.zh} 下 {label} 权重未加 --quantization ascend：该版本不会自动识别 ModelSlim 权重，"
            "因此必须加上该参数",
        )
    else:
        message = Text(
            en=f"{label} weights without --quantization ascend: the tutorials ask for it, though {where.en} "
            "detects quant_model_description.json and picks ascend by itself (since v0.17.0rc1)",
            zh=f"{label} 权重未加 --quantization ascend：教程要求写上该参数，不过 {where.zh} 会检测 "
            "quant_model_description.json 并自动选择 ascend（自 v0.17.0rc1 起）",
        )
    yield Finding(
        FLAG_MISSING,
        message,
        serve.model.span if serve.model is not None else serve.span,
        Fix(Text(en="add --quantization ascend", zh="添加 --quantization ascend"),
            kit.insert_option(serve, "--quantization ascend")),
        severity="warning" if needed else None,
    )


FLAG_ON_BF16 = RuleMeta(
    id="QL509",
    name="quantization-on-bf16",
    groups=("quantization",),
    severity="error",
    requires=("quantized_weights", "model_ref", "weight_format"),
    fix="safe",
    faq="quantization-support",
    title=Text(en="--quantization ascend on an unquantized (BF16) checkpoint",
               zh="对未量化（BF16）权重使用 --quantization ascend"),
    why=Text(
        en="--quantization ascend makes vllm-ascend read the ModelSlim description "
        "(quant_model_description.json). A BF16 checkpoint has none, so startup stops with "
        "'ModelSlim Quantization Config Not Found'. Remove the flag, or point the model at the W8A8 checkpoint.",
        zh="--quantization ascend 会让 vllm-ascend 读取 ModelSlim 描述文件（quant_model_description.json）。"
        "BF16 权重没有该文件，启动时报 “ModelSlim Quantization Config Not Found” 并退出。请去掉该参数，"
        "或改用 W8A8 权重。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.22.1rc1/vllm_ascend/quantization/modelslim_config.py#L721",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/quantization/modelslim_config.py#L819",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --quantization ascend\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend\n",
            fixed="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n",
        ),
    ),
)


@check(FLAG_ON_BF16)
def quantization_on_bf16(scope: Scope):
    option = scope.serve.opt("--quantization")
    if option is None or option.value is None or (option.value.text or "").lower() != "ascend":
        return
    if scope.get("quantized_weights"):
        return
    weights = scope.get("weight_format")
    if weights.format.quantized:  # FP8 originals, LLM-Compressor checkpoints: no ModelSlim description
        message = Text(
            en=f"--quantization ascend on {scope.get('model_ref')}, a {weights.label} checkpoint that is not from "
            f"ModelSlim ({weights.origin}): the ascend method reads quant_model_description.json, which it does "
            "not have, so startup fails; vLLM picks the checkpoint's own method without the flag",
            zh=f"对非 ModelSlim 生成的 {weights.label} 权重 {scope.get('model_ref')}（{weights.origin}）使用了 "
            "--quantization ascend：ascend 方法要读取 quant_model_description.json，而该权重没有此文件，启动会失败；"
            "不写该参数时 vLLM 会采用权重自带的量化方法",
        )
    else:
        message = Text(
            en=f"--quantization ascend on {scope.get('model_ref')}, an unquantized (BF16) checkpoint: startup fails "
            "with 'ModelSlim Quantization Config Not Found'",
            zh=f"对未量化（BF16）的权重 {scope.get('model_ref')} 使用了 --quantization ascend：启动会失败，"
            "报错 'ModelSlim Quantization Config Not Found'",
        )
    yield Finding(
        FLAG_ON_BF16,
        message,
        option.span,
        Fix(Text(en="remove --quantization ascend", zh="删除 --quantization ascend"), kit.drop_option(option)),
    )
