"""Weight formats of the served checkpoint (BF16, W8A8, W8A8C8, W4A8, W4A4, FP8, MXFP8/MXFP4, ...)
and the rule that a format runs only where vllm-ascend has kernels for it (QL514).

The format comes, in this order, from a local model directory (ModelSlim
``quant_model_description.json`` or config.json ``quantization_config``), the knowledge's
variant record, or the checkpoint name's marks (``knowledge/data/weight_formats.toml``).
A known model whose name has no mark is BF16; an unknown model without marks is unknown.
"""

from __future__ import annotations

import re


from qlint.knowledge.base import name_words
from qlint.knowledge.text import Text
from qlint.record import record
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, Unknown, check, fact

LLM_COMPRESSOR_WORDS = frozenset({"quantized", "compressor", "compressed"})
"""Name words of LLM-Compressor (compressed-tensors) checkpoints, e.g. vllm-ascend/Qwen3-30B-A3B-quantized.w4a8
(tests/e2e/nightly/single_node/models/configs/Qwen3-30B-A3B-W4A8-llm-compressor.yaml at 182b75ea)."""


@record(frozen=True)
class Weights:
    """The served checkpoint's weight format.

    ``format`` is the weight_formats.toml record; ``modelslim`` is True when the
    checkpoint carries ``quant_model_description.json`` (what ``--quantization ascend``
    reads), False when it does not, None when that cannot be told; ``origin`` says how
    it was found (for messages)."""

    format: object
    modelslim: bool | None
    origin: str

    @property
    def label(self) -> str:
        return str(getattr(self.format, "label"))  # a WeightFormat record (kept untyped: no pydantic on the lint path)


def _local_format(kb, kind: str):
    for candidate in (kind, kind.upper(), kind.upper() + "_DYNAMIC"):
        try:
            return kb.weight_format(candidate)
        except KeyError:
            found = kb.format_from_modelslim(candidate)
            if found is not None:
                return found
    return kb.format_from_config_method(kind)


_NAMED: dict[tuple[int, str], tuple[object, object, bool]] = {}


def _named_format(kb, reference: str):
    """(the weight format a checkpoint name states or None, whether its words name an LLM Compressor
    checkpoint), kept per knowledge base and name (the entry holds its knowledge base: no id reuse)."""
    key = (id(kb), reference)
    hit = _NAMED.get(key)
    if hit is None or hit[0] is not kb:
        if len(_NAMED) > 1024:
            _NAMED.clear()
        found = kb.format_from_name(reference)
        hit = _NAMED[key] = (kb, found, bool(set(name_words(reference)) & LLM_COMPRESSOR_WORDS))
    return hit[1], hit[2]


@fact("weight_format", requires=("model_ref", "model", "local_model"))
def weight_format(scope: Scope):
    """The checkpoint's Weights: local directory metadata, else variant record, else name marks."""
    kb = scope.kb
    local = scope.get("local_model")
    reference = scope.get("model_ref")
    if local is not None and local.quantization is not None:
        if local.quantization == "compressed-tensors":
            found = _named_format(kb, reference)[0]
            if found is None:
                raise Unknown("weight_format")  # quantized, but the config's scheme is not read
            return Known(Weights(found, False, f"compressed-tensors config.json of {local.name}"), "config.json")
        found = _local_format(kb, local.quantization)
        if found is None:
            raise Unknown("weight_format")
        modelslim = local.modelslim if local.modelslim is not None else found.tool == "modelslim"
        where = "quant_model_description.json" if local.modelslim else "config.json quantization_config"
        return Known(Weights(found, modelslim, f"{where} of {local.name}"), where)
    # a local directory without a description file is no ModelSlim checkpoint, whatever its name
    on_disk = local is not None
    match = scope.known("model")
    if match is not None and match.value.variant is not None:
        variant = match.value.variant
        found = kb.weight_format(variant.quantization)
        modelslim = found.tool == "modelslim" and not on_disk
        origin = f"no quant_model_description.json in {local.name}" if on_disk else f"variant {variant.name}"
        return Known(Weights(found, modelslim, origin), "variant record")
    found, compressor = _named_format(kb, reference)
    if found is not None:
        modelslim = found.tool == "modelslim" and not compressor and not on_disk
        origin = f"no quant_model_description.json in {local.name}" if on_disk else f"name {reference}"
        return Known(Weights(found, modelslim, origin), "model name")
    if local is None and re.search(_PLACEHOLDER_PATH, reference, re.I):
        raise Unknown("weight_format")  # xxxxxxx/DeepSeek-R1, /path/to/model: which checkpoint is not said
    if match is not None or local is not None:
        return Known(Weights(kb.weight_format("bf16"), False, "no quantization mark"), "model name has no mark")
    raise Unknown("weight_format")


# a model path the docs left for the reader to fill in: an all-x segment, path/to, <...>, your_...
_PLACEHOLDER_PATH = r"(^|/)(x{3,}|X{3,})(/|$)|path/to/|<[^>]*>|(^|/)your[-_]|\{[^}]*\}"  # compiled on first use (re's cache)


@fact("quantized_weights", requires=("weight_format",))
def quantized_weights(scope: Scope):
    """True for a ModelSlim quantized checkpoint (one --quantization ascend can read); unknown
    when the format is known but not where it comes from."""
    weights = scope.get("weight_format")
    if weights.modelslim is None:
        raise Unknown("quantized_weights")
    return Known(weights.modelslim and weights.format.quantized, weights.origin)


# -- QL514 ----------------------------------------------------------------------

_HARDWARE_NAMES = {"a2": "Atlas A2", "a3": "Atlas A3", "310p": "Atlas 300I (310P)", "950": "Ascend 950"}

FORMAT_HARDWARE = RuleMeta(
    id="QL514",
    name="weight-format-unsupported-hardware",
    groups=("quantization",),
    severity="error",
    requires=("weight_format", "hardware", "model_ref"),
    faq="quantization-support",
    title=Text(en="The checkpoint's weight format has no kernels on this hardware",
               zh="权重格式在该硬件上没有对应内核"),
    why=Text(
        en="vllm-ascend implements each quantization scheme with NPU kernels of particular products. "
        "Microscaling formats (W8A8_MXFP8, W4A4_MXFP4, W4A8_MXFP) and original FP8 checkpoints use the "
        "float8/float4 kernels of Ascend 950 products: vllm-ascend detects fp8 checkpoints only there, and its "
        "EPLB guide lists MXFP4/MXFP8 for Ascend 950 only, W8A8 and W4A8 for A2/A3. On Atlas A2/A3 or 300I use "
        "the W8A8 (or W4A8) conversion of the model that the tutorials serve there.",
        zh="vllm-ascend 用特定产品的 NPU 内核实现各量化方案。微缩放格式（W8A8_MXFP8、W4A4_MXFP4、W4A8_MXFP）"
        "和原始 FP8 权重依赖 Ascend 950 系列的 float8/float4 内核：vllm-ascend 只在该平台识别 fp8 权重，其 EPLB "
        "指南也只为 Ascend 950 列出 MXFP4/MXFP8，而为 A2/A3 列出 W8A8 与 W4A8。在 Atlas A2/A3 或 300I 上，"
        "应改用教程在这些平台上部署的 W8A8（或 W4A8）转换权重。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/user_guide/feature_guide/expert_parallelism_load_balancer.md#L22-L29",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/quantization/utils.py#L130-L133",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/quantization/methods/w8a8_mxfp8.py#L43-L55",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/models/Qwen3.5-397B-A17B.md#L28-L29",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8-mxfp8 --tensor-parallel-size 2 --quantization ascend\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --quantization ascend\n",
            hardware="a2", version="v0.23.0",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a4-mxfp4 --tensor-parallel-size 16 --enable-expert-parallel "
            "--quantization ascend\n",
            good="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --tensor-parallel-size 16 --enable-expert-parallel "
            "--quantization ascend\n",
            hardware="a3", version="main",
        ),
    ),
)


@check(FORMAT_HARDWARE)
def format_hardware(scope: Scope):
    weights, hardware = scope.get("weight_format"), scope.get("hardware")
    if hardware in weights.format.hardware:
        return
    where = " / ".join(_HARDWARE_NAMES.get(h, h) for h in weights.format.hardware)
    name = _HARDWARE_NAMES.get(hardware, hardware)
    serve = scope.serve
    yield Finding(
        FORMAT_HARDWARE,
        Text(
            en=f"{scope.get('model_ref')} is a {weights.label} checkpoint ({weights.origin}); vllm-ascend has "
            f"{weights.label} kernels for {where} only, not for {name}",
            zh=f"{scope.get('model_ref')} 是 {weights.label} 权重（{weights.origin}）；vllm-ascend 只为 {where} "
            f"提供 {weights.label} 内核，{name} 上没有",
        ),
        serve.model.span if serve.model is not None else serve.span,
        Fix(Text(en=f"serve a W8A8 (or BF16) checkpoint of the model on {name}",
                 zh=f"在 {name} 上改用该模型的 W8A8（或 BF16）权重")),
    )


# -- QL515 ----------------------------------------------------------------------

W4A8_MOE_TP_LIMIT = 16
_W4A8_SOURCES = (
    "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/quantization/methods/w4a8.py#L351-L367",
    "https://github.com/vllm-project/vllm-ascend/blob/v0.11.0/vllm_ascend/quantization/w4a8_dynamic.py#L233-L235",
    "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/quantization/methods/w4a8.py#L113-L131",
    "https://github.com/vllm-project/vllm-ascend/pull/13713",
)

W4A8_MOE = RuleMeta(
    id="QL515",
    name="w4a8-moe-layout-unsupported",
    groups=("quantization",),
    severity="error",
    requires=("weight_format", "moe", "tp", "expert_parallel", "version", "local_model"),
    title=Text(en="W4A8 MoE weights in a layout the release refuses", zh="W4A8 MoE 权重的布局被该版本拒绝"),
    why=Text(
        en="vllm-ascend's W4A8 MoE scheme checks the checkpoint's quant_model_description.json at startup. Without "
        "expert parallel the MoE layers are split by TP, and more than 16 ranks raise ValueError ('The current "
        "weight does not support moe part tp>16'): on the tagged releases for checkpoints of description version "
        "1.0.0, on main for every ModelSlim W4A8 checkpoint. On main, per-group W4A8 MoE weights (group_size > 0, "
        "the older default of 256) are refused as well: the scheme takes per-channel weights only. Turn on "
        "--enable-expert-parallel (or keep TP at 16 or less), and on main use a per-channel W4A8 checkpoint.",
        zh="vllm-ascend 的 W4A8 MoE 方案在启动时检查权重的 quant_model_description.json。未开启专家并行时 MoE 层按 TP "
        "切分，超过 16 个 rank 会报 ValueError（'The current weight does not support moe part tp>16'）：在已发布的版本中"
        "针对描述文件 version 为 1.0.0 的权重，在 main 上针对所有 ModelSlim W4A8 权重。在 main 上，按组量化的 W4A8 MoE "
        "权重（group_size > 0，旧默认值 256）也会被拒绝：该方案只接受按通道量化的权重。请开启 --enable-expert-parallel"
        "（或把 TP 控制在 16 以内），在 main 上改用按通道量化的 W4A8 权重。",
    ),
    sources=_W4A8_SOURCES,
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --tensor-parallel-size 32 --quantization ascend\n",
            good="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --tensor-parallel-size 32 --enable-expert-parallel "
            "--quantization ascend\n",
            hardware="a3", version="main",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --tensor-parallel-size 32 --quantization ascend\n",
            good="vllm serve Eco-Tech/Qwen3.5-397B-A17B-w4a8-mtp --tensor-parallel-size 16 --quantization ascend\n",
            hardware="a3", version="v0.23.0",
        ),
    ),
)


@check(W4A8_MOE)
def w4a8_moe_layout(scope: Scope):
    weights = scope.get("weight_format")
    if weights.format.id != "w4a8" or not weights.modelslim or not scope.get("moe"):
        return
    local, on_main, serve = scope.get("local_model"), scope.get("version") == "main", scope.serve
    where = "vllm-ascend main" if on_main else f"vllm-ascend {scope.get('version')}"
    tp = scope.get("tp")
    version_known = local is not None and local.modelslim
    new_layout = version_known and local.quant_version == "1.0.0"
    if not scope.get("expert_parallel") and tp > W4A8_MOE_TP_LIMIT and (on_main or new_layout or not version_known):
        why = "every ModelSlim W4A8 checkpoint" if on_main else "description version 1.0.0 checkpoints"
        why_zh = "所有 ModelSlim W4A8 权重" if on_main else "描述文件 version 为 1.0.0 的权重"
        unsure = not on_main and not new_layout  # a hub id: its description's version is not read
        tail = ("; the description of this checkpoint is not read here, so check its version" if unsure else "")
        tail_zh = "；此处未读取该权重的描述文件，请确认其 version" if unsure else ""
        option = serve.opt("--tensor-parallel-size")
        yield Finding(
            W4A8_MOE,
            Text(en=f"W4A8 MoE weights split by TP {tp} without expert parallel: {where} refuses MoE TP above "
                 f"{W4A8_MOE_TP_LIMIT} for {why} ('The current weight does not support moe part tp>16'){tail}",
                 zh=f"W4A8 MoE 权重在未开启专家并行时按 TP {tp} 切分：{where} 对{why_zh}拒绝超过 "
                 f"{W4A8_MOE_TP_LIMIT} 的 MoE TP（'The current weight does not support moe part tp>16'）{tail_zh}"),
            option.value.span if option is not None and option.value is not None else serve.span,
            Fix(Text(en="add --enable-expert-parallel (MoE layers then use EP, not TP) or keep TP at 16 or less",
                     zh="添加 --enable-expert-parallel（MoE 层改用 EP 而非 TP），或把 TP 控制在 16 以内")),
            severity="info" if unsure else None,
        )
    if on_main and local is not None and local.quant_group_size:
        yield Finding(
            W4A8_MOE,
            Text(en=f"{local.name} holds per-group W4A8 MoE weights (group_size {local.quant_group_size} in "
                 "quant_model_description.json); vllm-ascend main takes per-channel W4A8 MoE weights only and stops "
                 "with ValueError",
                 zh=f"{local.name} 为按组量化的 W4A8 MoE 权重（quant_model_description.json 中 group_size 为 "
                 f"{local.quant_group_size}）；vllm-ascend main 只接受按通道量化的 W4A8 MoE 权重，会以 ValueError 退出"),
            serve.model.span if serve.model is not None else serve.span,
            Fix(Text(en="re-quantize per-channel (group_size 0) or serve it with a release up to v0.25.1rc1",
                     zh="改用按通道量化（group_size 0）的权重，或使用 v0.25.1rc1 及更早的版本运行")),
        )
