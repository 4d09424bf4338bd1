"""Startup checks on ``--additional-config`` switches (QL522, QL523, QL529, QL530): static kernels
without npugraph_ex, dump_config with dump_config_path, reduced sampling, the NZ KV-cache layout.
Fused MC2 is ``fused_mc2`` (QL524); the scheduler extensions are ``scheduler_switches``.
"""

from __future__ import annotations


from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

STATIC_KERNEL = RuleMeta(
    id="QL522",
    name="static-kernel-needs-npugraph-ex",
    behaviours=("static_kernel_requires_npugraph_ex", "npugraph_ex_auto_off_on_310p", "npugraph_ex_off_outside_full_graph"),
    applies="static_kernel_requires_npugraph_ex",
    groups=("additional-config", "graph-capture"),
    severity="error",
    requires=("additional_config", "cudagraph_mode", "version"),
    optional=("hardware_if_known",),
    title=Text(en="enable_static_kernel without npugraph_ex", zh="开启 enable_static_kernel 却没有 npugraph_ex"),
    why=Text(
        en="Static kernels are compiled by the npugraph_ex backend, so from v0.16.0rc1 vllm-ascend asserts "
        "enable_npugraph_ex when ascend_compilation_config.enable_static_kernel is true. npugraph_ex itself only "
        "runs with FULL or FULL_DECODE_ONLY graphs: with NONE, PIECEWISE or the default FULL_AND_PIECEWISE both "
        "switches are turned off, so the static kernel silently does nothing (warning). On Atlas 300I (310P) "
        "from v0.23.0 both are switched off with a warning instead of the assertion (see QL503).",
        zh="静态 kernel 由 npugraph_ex 后端编译，因此自 v0.16.0rc1 起，ascend_compilation_config.enable_static_kernel 为 "
        "true 时 vllm-ascend 会断言 enable_npugraph_ex 已开启。npugraph_ex 只在 FULL 或 FULL_DECODE_ONLY 图模式下运行："
        "在 NONE、PIECEWISE 或默认的 FULL_AND_PIECEWISE 下两个开关都会被关闭，静态 kernel 悄悄失效（警告）。在 Atlas 300I"
        "（310P）上，自 v0.23.0 起两者改为打印警告后关闭，不再断言（见 QL503）。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.16.0rc1/vllm_ascend/ascend_config.py#L301",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L639-L660",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L592-L643",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}' "
        "--additional-config '{\"ascend_compilation_config\": {\"enable_npugraph_ex\": false, \"enable_static_kernel\": true}}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}' "
        "--additional-config '{\"ascend_compilation_config\": {\"enable_static_kernel\": true}}'\n",
        version="v0.23.0",
    ),),
)


@check(STATIC_KERNEL, when=("additional_config",))
def static_kernel(scope: Scope):
    """enable_static_kernel=true with npugraph_ex off (assert) or outside FULL graph modes (ignored)."""
    section = scope.get("additional_config").get("ascend_compilation_config")
    if not isinstance(section, dict) or section.get("enable_static_kernel") is not True:
        return
    if not kit.holds(scope, "static_kernel_requires_npugraph_ex"):
        return
    if scope.known("hardware_if_known") and scope.get("hardware_if_known") == "310p" and kit.holds(scope, "npugraph_ex_auto_off_on_310p"):
        return  # both switched off with a warning on 310P (QL503's territory)
    span = kit.span_of(scope.serve, "--additional-config", "ascend_compilation_config.enable_static_kernel")
    if section.get("enable_npugraph_ex") is False:
        error = "'Static kernel generation requires npugraph_ex to be enabled'"
        yield Finding(
            STATIC_KERNEL,
            Text(en="ascend_compilation_config.enable_static_kernel=true with enable_npugraph_ex=false: "
                 f"{kit.at_version(scope).en} stops with AssertionError {error}",
                 zh="ascend_compilation_config.enable_static_kernel=true 而 enable_npugraph_ex=false："
                 f"{kit.at_version(scope).zh} 会以 AssertionError {error} 退出"),
            span,
            Fix(Text(en="drop enable_static_kernel, or leave enable_npugraph_ex at its default (true)",
                     zh="删除 enable_static_kernel，或让 enable_npugraph_ex 保持默认值（true）")),
        )
        return
    mode = scope.get("cudagraph_mode")
    if mode not in kit.FULL_ONLY_MODES and kit.holds(scope, "npugraph_ex_off_outside_full_graph"):
        yield Finding(
            STATIC_KERNEL,
            Text(en=f"ascend_compilation_config.enable_static_kernel=true with graph mode {mode}: npugraph_ex only runs "
                 f"with FULL or FULL_DECODE_ONLY, so {kit.at_version(scope).en} switches the static kernel off",
                 zh=f"ascend_compilation_config.enable_static_kernel=true 而图模式为 {mode}：npugraph_ex 只在 FULL 或 "
                 f"FULL_DECODE_ONLY 下运行，因此 {kit.at_version(scope).zh} 会关闭静态 kernel"),
            span,
            Fix(Text(en='set "cudagraph_mode": "FULL_DECODE_ONLY" in --compilation-config, or drop enable_static_kernel',
                     zh='在 --compilation-config 中设置 "cudagraph_mode": "FULL_DECODE_ONLY"，或删除 enable_static_kernel')),
            severity="warning",
        )


DUMP_CONFIG = RuleMeta(
    id="QL523",
    name="dump-config-exclusive",
    behaviours=("dump_config_exclusive",),
    applies="dump_config_exclusive",
    groups=("additional-config",),
    severity="error",
    requires=("additional_config", "version"),
    title=Text(en="dump_config and dump_config_path are both set", zh="同时设置了 dump_config 与 dump_config_path"),
    why=Text(
        en="The precision-debugger configuration is given either inline (dump_config, a JSON object) or as a "
        "file (dump_config_path). From v0.20.2rc1 vllm-ascend stops with ValueError when both are present.",
        zh="精度调试器的配置要么内联给出（dump_config，JSON 对象），要么以文件给出（dump_config_path）。自 v0.20.2rc1 起，"
        "两者同时出现时 vllm-ascend 会以 ValueError 退出。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.20.2rc1/vllm_ascend/ascend_config.py#L317-L323",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L462-L468",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config "
        "'{\"dump_config\": {\"task\": \"statistics\"}, \"dump_config_path\": \"/data/dump.json\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"dump_config_path\": \"/data/dump.json\"}'\n",
        version="v0.23.0",
    ),),
)


@check(DUMP_CONFIG, when=("additional_config",))
def dump_config(scope: Scope):
    """dump_config together with dump_config_path."""
    config = scope.get("additional_config")
    if config.get("dump_config") is None or config.get("dump_config_path") is None or not kit.holds(scope, "dump_config_exclusive"):
        return
    error = "'Only one of additional_config.dump_config_path or additional_config.dump_config can be set'"
    yield Finding(
        DUMP_CONFIG,
        Text(en=f"additional-config sets both dump_config and dump_config_path: {kit.at_version(scope).en} stops with "
             f"ValueError {error}",
             zh=f"additional-config 同时设置了 dump_config 与 dump_config_path：{kit.at_version(scope).zh} 会以 ValueError "
             f"{error} 退出"),
        kit.span_of(scope.serve, "--additional-config", "dump_config_path"),
        Fix(Text(en="keep only one of dump_config (inline) and dump_config_path (file)",
                 zh="dump_config（内联）与 dump_config_path（文件）只保留一个")),
    )


REDUCE_SAMPLE = RuleMeta(
    id="QL529",
    name="reduce-sample-conflicts",
    behaviours=("reduce_sample_checks",),
    applies="reduce_sample_checks",
    groups=("additional-config",),
    severity="error",
    requires=("additional_config", "kv_role", "version"),
    title=Text(en="enable_reduce_sample where it is refused", zh="在被拒绝的场景下开启了 enable_reduce_sample"),
    why=Text(
        en="The experimental reduced sampling path is refused with ValueError on PD prefill nodes (kv_producer) "
        "and together with finegrained_tp_config.lmhead_tensor_parallel_size. The check exists in v0.23.0 and on "
        "main; v0.24.0rc1 and v0.25.1rc1 were cut without it and accept the setting.",
        zh="实验性的精简采样路径在 PD 预填充节点（kv_producer）上，以及与 finegrained_tp_config.lmhead_tensor_parallel_size "
        "同用时会报 ValueError。该检查存在于 v0.23.0 与 main；v0.24.0rc1、v0.25.1rc1 未包含它，会接受这一设置。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L324-L338",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L297-L312",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.25.1rc1/vllm_ascend/ascend_config.py#L273",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_reduce_sample\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_reduce_sample\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


def _reduce_sample_checked(scope: Scope) -> bool:
    return kit.holds(scope, "reduce_sample_checks")


@check(REDUCE_SAMPLE, when=("additional_config",))
def reduce_sample(scope: Scope):
    """enable_reduce_sample on kv_producer or with lmhead TP."""
    config = scope.get("additional_config")
    if config.get("enable_reduce_sample") is not True or not _reduce_sample_checked(scope):
        return
    span = kit.span_of(scope.serve, "--additional-config", "enable_reduce_sample")
    where = kit.at_version(scope)
    lmhead = config.get("finegrained_tp_config", {})
    lmhead = lmhead.get("lmhead_tensor_parallel_size", 0) if isinstance(lmhead, dict) else 0
    if isinstance(lmhead, int) and lmhead > 0:
        yield Finding(REDUCE_SAMPLE,
                      Text(en=f"enable_reduce_sample with finegrained_tp_config.lmhead_tensor_parallel_size {lmhead}: "
                           f"{where.en} stops with ValueError (incompatible)",
                           zh=f"enable_reduce_sample 与 finegrained_tp_config.lmhead_tensor_parallel_size {lmhead} 同用："
                           f"{where.zh} 会以 ValueError 退出（二者不兼容）"),
                      span,
                      Fix(Text(en="disable one of enable_reduce_sample and lmhead tensor parallel",
                               zh="在 enable_reduce_sample 与 lmhead 张量并行中关闭一个")))
    if scope.get("kv_role") == "kv_producer":
        yield Finding(REDUCE_SAMPLE,
                      Text(en=f"enable_reduce_sample on a PD prefill node (kv_role kv_producer): {where.en} stops with ValueError",
                           zh=f"在 PD 预填充节点（kv_role kv_producer）上开启 enable_reduce_sample：{where.zh} 会以 ValueError 退出"),
                      span,
                      Fix(Text(en="drop enable_reduce_sample on prefill nodes", zh="在预填充节点上删除 enable_reduce_sample")))


KV_NZ = RuleMeta(
    id="QL530",
    name="kv-nz-constraints",
    behaviours=("kv_nz_constraints",),
    applies="kv_nz_constraints",
    groups=("additional-config", "pd"),
    severity="error",
    requires=("additional_config", "kv_role", "version"),
    optional=("mla_attention",),
    title=Text(en="enable_kv_nz outside an MLA model's PD decode node", zh="enable_kv_nz 用在了 MLA 模型 PD 解码节点之外"),
    why=Text(
        en="The NZ layout for the KV cache is implemented for MLA attention (DeepSeek style) on PD decode nodes "
        "only: vllm-ascend raises RuntimeError for any other model and NotImplementedError when the instance is "
        "not a kv_consumer. Qwen3/Qwen3.5/Qwen3.6 use GQA attention.",
        zh="KV 缓存的 NZ 布局只为 PD 解码节点上的 MLA 注意力（DeepSeek 类）实现：其他模型会触发 RuntimeError，实例不是 "
        "kv_consumer 时会触发 NotImplementedError。Qwen3/Qwen3.5/Qwen3.6 使用的是 GQA 注意力。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L269-L280",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L251-L260",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --additional-config '{\"enable_kv_nz\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


@check(KV_NZ, when=("additional_config",))
def kv_nz(scope: Scope):
    """enable_kv_nz on a non-MLA model or off a kv_consumer."""
    if scope.get("additional_config").get("enable_kv_nz") is not True or not kit.holds(scope, "kv_nz_constraints"):
        return
    span = kit.span_of(scope.serve, "--additional-config", "enable_kv_nz")
    where = kit.at_version(scope)
    mla = scope.known("mla_attention")
    if mla is not None and mla.value is False:
        error = "'enable_kv_nz is only supported for mla currently'"
        yield Finding(KV_NZ, Text(en=f"enable_kv_nz on a GQA model: {where.en} stops with RuntimeError {error}",
                                  zh=f"在 GQA 模型上开启 enable_kv_nz：{where.zh} 会以 RuntimeError {error} 退出"),
                      span, Fix(Text(en="drop enable_kv_nz", zh="删除 enable_kv_nz")))
        return
    role = scope.get("kv_role")
    if role != "kv_consumer":
        yield Finding(KV_NZ, Text(en=f"enable_kv_nz with {kit.kv_role_phrase(role).en}: {where.en} stops with NotImplementedError "
                                  "(PD decode nodes only)",
                                  zh=f"enable_kv_nz 搭配{kit.kv_role_phrase(role).zh}：{where.zh} 会以 NotImplementedError 退出"
                                  "（仅支持 PD 解码节点）"),
                      span, Fix(Text(en="use enable_kv_nz only on kv_consumer instances",
                                     zh="只在 kv_consumer 实例上使用 enable_kv_nz")))
