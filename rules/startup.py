"""Startup validations: what vllm-ascend and vLLM raise or warn about while the server starts,
for the items of ``vllm_ascend_facts.md`` sections 4 and 7 (plus 2.1, 3.3 and 5) that no
other rule family covers. ``docs/startup-validations.md`` maps every item to its rule.

Groups: environment (QL520-QL521), ``--additional-config`` switches (QL522-QL530),
``--kv-transfer-config`` (QL531-QL533), speculative decoding (QL534-QL536), graph capture
(QL537-QL540), data parallel and the serve command line (QL541-QL545), hybrid cache mode,
context parallel and MoE buffers (QL546-QL548), MLA on 310P (QL549). Every version-dependent
message names the release it assumed.
"""

from __future__ import annotations

import difflib
import json

from qlint.knowledge.base import MAIN, parse_version
from qlint.knowledge.text import Text
from qlint.rules.base import Edit, Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, Unknown, check
from qlint.rules.plan import Option, ServeCommand, Span
from qlint.rules.platform_310p import at_version, release
from qlint.rules.versions import at_release_zh, paired_vllm

NESTED_SCHEDULER_SINCE = "v0.25.1rc1"  # additional_config.scheduler_config.* (ascend_config.py)
FULL_ONLY_MODES = ("FULL", "FULL_DECODE_ONLY")
PIECEWISE_MODES = ("PIECEWISE", "FULL_AND_PIECEWISE")


# -- helpers ------------------------------------------------------------------

def since(scope: Scope, tag: str) -> bool:
    """True when the release in use is ``tag`` or later (Unknown when the version is not a release)."""
    return release(scope) >= parse_version(tag)


def value_span(serve: ServeCommand, flag: str) -> Span:
    """The span of an option's value, else of the option, else of the command."""
    option = serve.opt(flag)
    if option is None:
        return serve.span
    return option.value.span if option.value is not None else option.span


def key_span(serve: ServeCommand, flag: str, dotted: str) -> Span:
    """The span of a JSON key's value in a JSON option, else of the option's value."""
    option = serve.opt(flag)
    if option is not None and option.json is not None and dotted in option.json.key_spans:
        return option.json.key_spans[dotted]
    return value_span(serve, flag)


def env_text(serve: ServeCommand, name: str) -> str | None:
    """The value of an environment variable for the command; None when unset, Unknown when symbolic."""
    setting = serve.env.get(name)
    if setting is None or setting.value is None:
        return None
    if setting.value.text is None:
        raise Unknown(name)
    return setting.value.text.strip()


def int_option(serve: ServeCommand, flag: str) -> int | None:
    """An integer option's value; None when absent; Unknown when symbolic or not an integer."""
    option = serve.opt(flag)
    if option is None or option.value is None:
        return None
    number = option.value.as_int()
    if number is None:
        raise Unknown(flag)
    return number


def drop(option: Option | None) -> list[Edit]:
    """An edit that removes a whole option (the fixer drops an emptied line)."""
    return [] if option is None else [Edit(option.span, "")]


def scheduler_setting(scope: Scope, key: str, top_level_since: str | None):
    """(value, dotted key) of a scheduler extension switch in --additional-config, or None.

    ``scheduler_config.<key>`` wins from v0.25.1rc1 on; the top-level spelling is read from
    ``top_level_since`` (and, deprecated, still on main)."""
    config = scope.get("additional_config")
    nested = config.get("scheduler_config")
    if since(scope, NESTED_SCHEDULER_SINCE) and isinstance(nested, dict) and key in nested:
        return nested[key], f"scheduler_config.{key}"
    if top_level_since is not None and since(scope, top_level_since) and key in config:
        return config[key], key
    return None


def balance_scheduling(scope: Scope) -> tuple[str, Span] | None:
    """Where balance scheduling is switched on (key from v0.20.2rc1, env var from v0.18.0), or None."""
    if not since(scope, "v0.18.0"):
        return None
    serve = scope.serve
    found = scheduler_setting(scope, "enable_balance_scheduling", "v0.20.2rc1")
    if found is not None:
        value, dotted = found
        return (f"additional-config {dotted}=true", key_span(serve, "--additional-config", dotted)) if value else None
    text = env_text(serve, "VLLM_ASCEND_BALANCE_SCHEDULING")
    if text is None or not text.lstrip("-").isdigit() or int(text) == 0:
        return None
    return f"VLLM_ASCEND_BALANCE_SCHEDULING={text}", serve.env["VLLM_ASCEND_BALANCE_SCHEDULING"].span


def _enabled(section) -> bool:
    return isinstance(section, dict) and section.get("enabled") is True


def _role(role: str | None) -> str:
    return "no --kv-transfer-config" if role is None else f"kv_role {role}"


def _role_zh(role: str | None) -> str:
    return "未设置 --kv-transfer-config" if role is None else f"kv_role {role}"


# =============================================================================
# Environment
# =============================================================================

LAUNCH_BLOCKING = RuleMeta(
    id="QL520",
    name="launch-blocking-with-graphs",
    severity="error",
    requires=("cudagraph_mode", "version"),
    title=Text(en="ASCEND_LAUNCH_BLOCKING=1 with ACL graphs", zh="ASCEND_LAUNCH_BLOCKING=1 与 ACL 图模式同用"),
    why=Text(
        en="ASCEND_LAUNCH_BLOCKING=1 makes every NPU kernel launch synchronous, which graph capture cannot "
        "work with. From v0.11.0rc1 vllm-ascend refuses to start when the variable is 1 and any graph mode "
        "is left on (the vLLM default is FULL_AND_PIECEWISE). It is a debugging switch: run eager while "
        "debugging, or read the plog files instead.",
        zh="ASCEND_LAUNCH_BLOCKING=1 让每次 NPU 算子下发都同步执行，图捕获无法与之共存。自 v0.11.0rc1 起，只要该变量为 1 "
        "且仍开启任一图模式（vLLM 默认 FULL_AND_PIECEWISE），vllm-ascend 就拒绝启动。它是调试开关：调试时请用 eager "
        "模式运行，或改看 plog 日志。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/platform.py L645-657", "vllm-ascend@main:vllm_ascend/platform.py L1109-1117",
             "vllm_ascend_facts.md section 3.3"),
    examples=(Example(
        bad="export ASCEND_LAUNCH_BLOCKING=1\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n",
        good="export ASCEND_LAUNCH_BLOCKING=1\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --enforce-eager\n",
        version="v0.23.0",
    ),),
)


@check(LAUNCH_BLOCKING)
def launch_blocking(scope: Scope):
    """ASCEND_LAUNCH_BLOCKING=1 while cudagraph_mode is not NONE."""
    if env_text(scope.serve, "ASCEND_LAUNCH_BLOCKING") != "1" or not since(scope, "v0.11.0rc1"):
        return
    mode = scope.get("cudagraph_mode")
    if mode == "NONE":
        return
    error = "'ACL graph is incompatible with ASCEND_LAUNCH_BLOCKING=1'"
    yield Finding(
        LAUNCH_BLOCKING,
        Text(en=f"ASCEND_LAUNCH_BLOCKING=1 with graph mode {mode}: {at_version(scope)} stops with ValueError {error}",
             zh=f"ASCEND_LAUNCH_BLOCKING=1 与图模式 {mode} 同用：{at_release_zh(scope)} 会以 ValueError {error} 退出"),
        scope.serve.env["ASCEND_LAUNCH_BLOCKING"].span,
        Fix(Text(en="unset ASCEND_LAUNCH_BLOCKING, or add --enforce-eager while debugging",
                 zh="取消 ASCEND_LAUNCH_BLOCKING，或在调试期间加上 --enforce-eager")),
    )


ALLOC_CONF = RuleMeta(
    id="QL521",
    name="npu-alloc-conf-conflict",
    severity="warning",
    requires=("version",),
    faq="oom",
    title=Text(en="PYTORCH_NPU_ALLOC_CONF mixes options that exclude each other",
               zh="PYTORCH_NPU_ALLOC_CONF 中混用了互斥的选项"),
    why=Text(
        en="vllm-ascend appends expandable_segments:True to PYTORCH_NPU_ALLOC_CONF unless the variable already "
        "names expandable_segments, max_split_size_mb or garbage_collection_threshold, because the last two "
        "cannot be combined with expandable segments. Writing expandable_segments:True together with one of "
        "them asks the allocator for both (warning); giving only max_split_size_mb silently drops the "
        "expandable segments the OOM FAQ recommends (info).",
        zh="vllm-ascend 会在 PYTORCH_NPU_ALLOC_CONF 中追加 expandable_segments:True，除非变量里已有 expandable_segments、"
        "max_split_size_mb 或 garbage_collection_threshold，因为后两者不能与可扩展段同时启用。把 expandable_segments:True "
        "与其中之一写在一起，等于要求分配器同时使用二者（警告）；只写 max_split_size_mb 则会悄悄失去 OOM 常见问题所推荐的"
        "可扩展段（提示）。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/platform.py L772-790", "vllm-ascend@main:vllm_ascend/platform.py L1208-1227",
             "vllm_ascend_facts.md section 3.3"),
    examples=(Example(
        bad="export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True,max_split_size_mb:250\nvllm serve Qwen/Qwen3.6-27B\n",
        good="export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\nvllm serve Qwen/Qwen3.6-27B\n",
    ),),
)


@check(ALLOC_CONF)
def alloc_conf(scope: Scope):
    """expandable_segments:True together with max_split_size_mb / garbage_collection_threshold."""
    text = env_text(scope.serve, "PYTORCH_NPU_ALLOC_CONF")
    if not text:
        return
    items = {part.split(":", 1)[0].strip(): part.split(":", 1)[-1].strip()
             for part in text.split(",") if part.strip()}
    others = [name for name in ("max_split_size_mb", "garbage_collection_threshold") if name in items]
    span = scope.serve.env["PYTORCH_NPU_ALLOC_CONF"].span
    expandable = items.get("expandable_segments", "").lower() == "true"
    if expandable and others:
        named = ", ".join(others)
        yield Finding(
            ALLOC_CONF,
            Text(en=f"PYTORCH_NPU_ALLOC_CONF={text} combines expandable_segments:True with {named}, which cannot be "
                 "enabled together (vllm-ascend never adds expandable segments next to them)",
                 zh=f"PYTORCH_NPU_ALLOC_CONF={text} 把 expandable_segments:True 与 {named} 写在一起，二者不能同时启用"
                 "（vllm-ascend 从不在它们旁边追加可扩展段）"),
            span,
            Fix(Text(en=f"keep expandable_segments:True alone (the OOM FAQ's setting), or drop it and keep {others[0]}",
                     zh=f"只保留 expandable_segments:True（OOM 常见问题推荐的设置），或删除它只保留 {others[0]}")),
        )
    elif others and "expandable_segments" not in items:
        yield Finding(
            ALLOC_CONF,
            Text(en=f"PYTORCH_NPU_ALLOC_CONF={text}: with {others[0]} set, {at_version(scope)} does not add its "
                 "default expandable_segments:True",
                 zh=f"PYTORCH_NPU_ALLOC_CONF={text}：设置了 {others[0]} 后，{at_release_zh(scope)} 不会再追加默认的 "
                 "expandable_segments:True"),
            span,
            Fix(Text(en="use PYTORCH_NPU_ALLOC_CONF=expandable_segments:True unless the split size is wanted on purpose",
                     zh="除非有意限制切分大小，否则使用 PYTORCH_NPU_ALLOC_CONF=expandable_segments:True")),
            severity="info",
        )


# =============================================================================
# --additional-config switches
# =============================================================================

STATIC_KERNEL = RuleMeta(
    id="QL522",
    name="static-kernel-needs-npugraph-ex",
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
    sources=("vllm-ascend@v0.16.0rc1:vllm_ascend/ascend_config.py L301",
             "vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L639-660",
             "vllm-ascend@v0.23.0:vllm_ascend/platform.py L592-643",
             "vllm_ascend_facts.md section 2.1"),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}' "
        "--additional-config '{\"ascend_compilation_config\": {\"enable_npugraph_ex\": false, \"enable_static_kernel\": true}}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}' "
        "--additional-config '{\"ascend_compilation_config\": {\"enable_static_kernel\": true}}'\n",
        version="v0.23.0",
    ),),
)


@check(STATIC_KERNEL)
def static_kernel(scope: Scope):
    """enable_static_kernel=true with npugraph_ex off (assert) or outside FULL graph modes (ignored)."""
    section = scope.get("additional_config").get("ascend_compilation_config")
    if not isinstance(section, dict) or section.get("enable_static_kernel") is not True:
        return
    if not since(scope, "v0.16.0rc1"):
        return
    if scope.known("hardware_if_known") and scope.get("hardware_if_known") == "310p" and since(scope, "v0.23.0"):
        return  # both switched off with a warning on 310P (QL503's territory)
    span = key_span(scope.serve, "--additional-config", "ascend_compilation_config.enable_static_kernel")
    if section.get("enable_npugraph_ex") is False:
        error = "'Static kernel generation requires npugraph_ex to be enabled'"
        yield Finding(
            STATIC_KERNEL,
            Text(en="ascend_compilation_config.enable_static_kernel=true with enable_npugraph_ex=false: "
                 f"{at_version(scope)} stops with AssertionError {error}",
                 zh="ascend_compilation_config.enable_static_kernel=true 而 enable_npugraph_ex=false："
                 f"{at_release_zh(scope)} 会以 AssertionError {error} 退出"),
            span,
            Fix(Text(en="drop enable_static_kernel, or leave enable_npugraph_ex at its default (true)",
                     zh="删除 enable_static_kernel，或让 enable_npugraph_ex 保持默认值（true）")),
        )
        return
    mode = scope.get("cudagraph_mode")
    if mode not in FULL_ONLY_MODES and since(scope, "v0.22.1rc1"):
        yield Finding(
            STATIC_KERNEL,
            Text(en=f"ascend_compilation_config.enable_static_kernel=true with graph mode {mode}: npugraph_ex only runs "
                 f"with FULL or FULL_DECODE_ONLY, so {at_version(scope)} switches the static kernel off",
                 zh=f"ascend_compilation_config.enable_static_kernel=true 而图模式为 {mode}：npugraph_ex 只在 FULL 或 "
                 f"FULL_DECODE_ONLY 下运行，因此 {at_release_zh(scope)} 会关闭静态 kernel"),
            span,
            Fix(Text(en='set "cudagraph_mode": "FULL_DECODE_ONLY" in --compilation-config, or drop enable_static_kernel',
                     zh='在 --compilation-config 中设置 "cudagraph_mode": "FULL_DECODE_ONLY"，或删除 enable_static_kernel')),
            severity="warning",
        )


DUMP_CONFIG = RuleMeta(
    id="QL523",
    name="dump-config-exclusive",
    severity="error",
    requires=("additional_config", "version"),
    title=Text(en="dump_config and dump_config_path are both set", zh="同时设置了 dump_config 与 dump_config_path"),
    why=Text(
        en="The precision-debugger configuration is given either inline (dump_config, a JSON object) or as a "
        "file (dump_config_path). From v0.20.2rc1 vllm-ascend stops with ValueError when both are present.",
        zh="精度调试器的配置要么内联给出（dump_config，JSON 对象），要么以文件给出（dump_config_path）。自 v0.20.2rc1 起，"
        "两者同时出现时 vllm-ascend 会以 ValueError 退出。",
    ),
    sources=("vllm-ascend@v0.20.2rc1:vllm_ascend/ascend_config.py L317-323",
             "vllm-ascend@main:vllm_ascend/ascend_config.py L462-468", "vllm_ascend_facts.md section 2.1"),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config "
        "'{\"dump_config\": {\"task\": \"statistics\"}, \"dump_config_path\": \"/data/dump.json\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"dump_config_path\": \"/data/dump.json\"}'\n",
        version="v0.23.0",
    ),),
)


@check(DUMP_CONFIG)
def dump_config(scope: Scope):
    """dump_config together with dump_config_path."""
    config = scope.get("additional_config")
    if config.get("dump_config") is None or config.get("dump_config_path") is None or not since(scope, "v0.20.2rc1"):
        return
    error = "'Only one of additional_config.dump_config_path or additional_config.dump_config can be set'"
    yield Finding(
        DUMP_CONFIG,
        Text(en=f"additional-config sets both dump_config and dump_config_path: {at_version(scope)} stops with "
             f"ValueError {error}",
             zh=f"additional-config 同时设置了 dump_config 与 dump_config_path：{at_release_zh(scope)} 会以 ValueError "
             f"{error} 退出"),
        key_span(scope.serve, "--additional-config", "dump_config_path"),
        Fix(Text(en="keep only one of dump_config (inline) and dump_config_path (file)",
                 zh="dump_config（内联）与 dump_config_path（文件）只保留一个")),
    )


FUSED_MC2 = RuleMeta(
    id="QL524",
    name="fused-mc2-config",
    severity="error",
    requires=("additional_config", "version"),
    optional=("hardware_if_known", "routed_experts"),
    title=Text(en="enable_fused_mc2 has a value or company the release rejects",
               zh="enable_fused_mc2 的取值或搭配不被该版本接受"),
    why=Text(
        en="Fused MC2 is chosen by additional-config enable_fused_mc2 (read from v0.20.2rc1) or the variable "
        "VLLM_ASCEND_ENABLE_FUSED_MC2. Up to v0.23.0 it takes 0, 1 (dispatch_ffn_combine) or 2 "
        "(dispatch_gmm_combine_decode, decode nodes with W8A8); from v0.24.0rc1 vllm-ascend asserts 0 or 1, "
        "so the seed-era value 2 stops newer releases. Fused MC2 and enable_mc2_hierarchy_comm exclude each "
        "other (ValueError from v0.18.0). On main hierarchy communication also needs Atlas A2/A3 and at most "
        "512 experts.",
        zh="融合 MC2 由 additional-config 的 enable_fused_mc2（自 v0.20.2rc1 起读取）或环境变量 "
        "VLLM_ASCEND_ENABLE_FUSED_MC2 选择。v0.23.0 及以前可取 0、1（dispatch_ffn_combine）或 2（dispatch_gmm_combine_decode，"
        "仅 W8A8 解码节点）；自 v0.24.0rc1 起 vllm-ascend 断言只能是 0 或 1，所以旧教程里的 2 会让新版本退出。融合 MC2 "
        "与 enable_mc2_hierarchy_comm 互斥（自 v0.18.0 起报 ValueError）。在 main 上分层通信还要求 Atlas A2/A3 且专家数"
        "不超过 512。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/envs.py L96-102", "vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L173-184",
             "vllm-ascend@main:vllm_ascend/ascend_config.py L160-185", "vllm-ascend@v0.18.0:vllm_ascend/platform.py L553-557",
             "vllm-ascend@main:vllm_ascend/platform.py L806-811", "vllm-ascend@main:vllm_ascend/ascend_config.py L330-350",
             "vllm_ascend_facts.md section 2.1", "vllm_ascend_facts.md section 2.2"),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --additional-config '{\"enable_fused_mc2\": 2}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --additional-config '{\"enable_fused_mc2\": 1}'\n",
            version="v0.25.1rc1",
        ),
        Example(
            bad="export VLLM_ASCEND_ENABLE_FUSED_MC2=1\nvllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel "
            "--additional-config '{\"enable_mc2_hierarchy_comm\": true}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel "
            "--additional-config '{\"enable_mc2_hierarchy_comm\": true}'\n",
            version="v0.23.0",
        ),
    ),
)


def _fused_mc2(scope: Scope) -> tuple[object, str, Span] | None:
    """(value, where, span) of the fused MC2 switch in effect, or None when unset."""
    config, serve = scope.get("additional_config"), scope.serve
    if "enable_fused_mc2" in config and since(scope, "v0.20.2rc1"):
        value = config["enable_fused_mc2"]
        return value, f"additional-config enable_fused_mc2={json.dumps(value)}", \
            key_span(serve, "--additional-config", "enable_fused_mc2")
    text = env_text(serve, "VLLM_ASCEND_ENABLE_FUSED_MC2")
    if text is None:
        return None
    value = int(text) if text.lstrip("-").isdigit() else text
    return value, f"VLLM_ASCEND_ENABLE_FUSED_MC2={text}", serve.env["VLLM_ASCEND_ENABLE_FUSED_MC2"].span


@check(FUSED_MC2)
def fused_mc2(scope: Scope):
    """enable_fused_mc2 outside the release's values, or together with hierarchy communication."""
    if not since(scope, "v0.18.0"):
        return
    where, where_zh = at_version(scope), at_release_zh(scope)
    found = _fused_mc2(scope)
    if found is not None:
        value, switch, span = found
        number = int(value) if isinstance(value, (bool, int)) else None
        allowed = (0, 1) if since(scope, "v0.24.0rc1") else (0, 1, 2)
        if number is None and isinstance(value, str):
            yield Finding(FUSED_MC2, Text(en=f"{switch} is not an integer: {where} stops with ValueError when reading it",
                                          zh=f"{switch} 不是整数：{where_zh} 读取时会以 ValueError 退出"),
                          span, Fix(Text(en="use 0 or 1", zh="使用 0 或 1")))
            return
        if number not in allowed:
            strict = allowed == (0, 1)
            listed = ", ".join(map(str, allowed))
            error = "'enable_fused_mc2 must be 0 or 1'"
            yield Finding(
                FUSED_MC2,
                Text(en=f"{switch}: {where} accepts {listed}"
                     + (f" and stops with AssertionError {error}" if strict else "; any other value selects no fused operator"),
                     zh=f"{switch}：{where_zh} 只接受 {listed}"
                     + (f"，并会以 AssertionError {error} 退出" if strict else "；其他取值不会选用任何融合算子")),
                span,
                Fix(Text(en="use 1 (dispatch_ffn_combine / mega MoE) or 0" + ("" if strict else "; 2 = decode-node gmm combine"),
                         zh="使用 1（dispatch_ffn_combine / mega MoE）或 0" + ("" if strict else "；2 表示解码节点的 gmm combine"))),
                severity=None if strict else "warning",
            )
            return
    config = scope.get("additional_config")
    if not config.get("enable_mc2_hierarchy_comm"):
        return
    hier_span = key_span(scope.serve, "--additional-config", "enable_mc2_hierarchy_comm")
    if found is not None and found[0]:
        error = "'fused mc2 op cannot be used with hierarchy communication'"
        yield Finding(
            FUSED_MC2,
            Text(en=f"{found[1]} with enable_mc2_hierarchy_comm=true: {where} stops with ValueError {error}",
                 zh=f"{found[1]} 与 enable_mc2_hierarchy_comm=true 同用：{where_zh} 会以 ValueError {error} 退出"),
            found[2],
            Fix(Text(en="set the fused MC2 switch to 0, or drop enable_mc2_hierarchy_comm",
                     zh="把融合 MC2 开关设为 0，或删除 enable_mc2_hierarchy_comm")),
        )
    if scope.get("version") != MAIN:
        return
    drop_hier = Text(en="drop enable_mc2_hierarchy_comm", zh="删除 enable_mc2_hierarchy_comm")
    hardware = scope.known("hardware_if_known")
    if hardware is not None and hardware.value == "310p":
        yield Finding(FUSED_MC2, Text(en="enable_mc2_hierarchy_comm on Atlas 300I (310P): main raises "
                                      "NotImplementedError (A2 and A3 only)",
                                      zh="在 Atlas 300I（310P）上开启 enable_mc2_hierarchy_comm：main 会抛出 "
                                      "NotImplementedError（仅支持 A2 与 A3）"),
                      hier_span, Fix(drop_hier))
    experts = scope.known("routed_experts")
    if experts is not None and experts.value and experts.value > 512:
        yield Finding(FUSED_MC2, Text(en=f"enable_mc2_hierarchy_comm with {experts.value} routed experts: main supports "
                                      "at most 512 and stops with ValueError",
                                      zh=f"enable_mc2_hierarchy_comm 搭配 {experts.value} 个路由专家：main 最多支持 512 个，"
                                      "会以 ValueError 退出"),
                      hier_span, Fix(drop_hier))


PROFILING_CHUNK = RuleMeta(
    id="QL525",
    name="profiling-chunk-constraints",
    severity="error",
    requires=("additional_config", "pp", "version"),
    title=Text(en="profiling_chunk_config enabled where it cannot run", zh="在无法运行的配置下开启了 profiling_chunk_config"),
    why=Text(
        en="The profiling-based chunked prefill scheduler sizes prefill chunks for pipeline stages: from "
        "v0.19.1rc1 vllm-ascend stops with ValueError when it is enabled with --pipeline-parallel-size 1, or "
        "together with balance scheduling. From v0.25.1rc1 it lives under scheduler_config (the top-level "
        "spelling is deprecated).",
        zh="基于性能剖析的分块预填充调度器按流水线阶段切分预填充：自 v0.19.1rc1 起，若在 --pipeline-parallel-size 为 1 "
        "时开启，或与均衡调度同时开启，vllm-ascend 会以 ValueError 退出。自 v0.25.1rc1 起它位于 scheduler_config 下"
        "（顶层写法已弃用）。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L55-95", "vllm-ascend@main:vllm_ascend/ascend_config.py L72-104",
             "vllm_ascend_facts.md section 2.1"),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"profiling_chunk_config\": {\"enabled\": true}}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --pipeline-parallel-size 2 "
        "--additional-config '{\"profiling_chunk_config\": {\"enabled\": true}}'\n",
        version="v0.23.0",
    ),),
)


@check(PROFILING_CHUNK, relations=(("requires", "additional_config", "pp"),))
def profiling_chunk(scope: Scope):
    """profiling_chunk_config.enabled with PP 1 or with balance scheduling."""
    found = scheduler_setting(scope, "profiling_chunk_config", "v0.19.1rc1")
    if found is None or not _enabled(found[0]):
        return
    dotted = found[1]
    span = key_span(scope.serve, "--additional-config", f"{dotted}.enabled")
    pp, where, where_zh = scope.get("pp"), at_version(scope), at_release_zh(scope)
    if pp <= 1:
        error = "'profiling_chunk_config requires pipeline parallelism (pp > 1)'"
        yield Finding(
            PROFILING_CHUNK,
            Text(en=f"{dotted}.enabled=true with --pipeline-parallel-size {pp}: {where} stops with ValueError {error}",
                 zh=f"{dotted}.enabled=true 而 --pipeline-parallel-size 为 {pp}：{where_zh} 会以 ValueError {error} 退出"),
            span,
            Fix(Text(en=f"use --pipeline-parallel-size 2 or more, or disable {dotted}",
                     zh=f"使用 2 或更大的 --pipeline-parallel-size，或关闭 {dotted}")),
        )
    balance = balance_scheduling(scope)
    if balance is not None:
        yield Finding(
            PROFILING_CHUNK,
            Text(en=f"{dotted}.enabled=true together with {balance[0]}: {where} stops with ValueError (the two "
                 "schedulers cannot be enabled at the same time)",
                 zh=f"{dotted}.enabled=true 与 {balance[0]} 同时开启：{where_zh} 会以 ValueError 退出（两种调度器不能同时开启）"),
            span,
            Fix(Text(en="disable one of profiling_chunk_config and balance scheduling",
                     zh="在 profiling_chunk_config 与均衡调度中关闭一个")),
        )


BALANCE_PD = RuleMeta(
    id="QL526",
    name="balance-scheduling-on-pd",
    severity="error",
    requires=("additional_config", "kv_transfer", "kv_role", "version"),
    faq="pd-disaggregation",
    title=Text(en="Balance scheduling on a PD-disaggregated node", zh="在 PD 分离节点上开启了均衡调度"),
    why=Text(
        en="Balance scheduling evens out load between DP ranks of a mixed (non-disaggregated) instance. From "
        "v0.18.0 vllm-ascend stops with ValueError when it is on and --kv-transfer-config gives a kv_role other "
        "than kv_both. It is switched by VLLM_ASCEND_BALANCE_SCHEDULING (deprecated), additional-config "
        "enable_balance_scheduling (from v0.20.2rc1) or scheduler_config.enable_balance_scheduling (from "
        "v0.25.1rc1).",
        zh="均衡调度用于在混合部署（非 PD 分离）实例的各 DP rank 之间均衡负载。自 v0.18.0 起，只要它处于开启状态且 "
        "--kv-transfer-config 给出的 kv_role 不是 kv_both，vllm-ascend 就会以 ValueError 退出。开关可以是 "
        "VLLM_ASCEND_BALANCE_SCHEDULING（已弃用）、additional-config 的 enable_balance_scheduling（自 v0.20.2rc1）或 "
        "scheduler_config.enable_balance_scheduling（自 v0.25.1rc1）。",
    ),
    sources=("vllm-ascend@v0.19.1rc1:vllm_ascend/platform.py L474-482", "vllm-ascend@v0.23.0:vllm_ascend/platform.py L677-685",
             "vllm-ascend@main:vllm_ascend/platform.py L822-831", "vllm_ascend_facts.md section 4.6"),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_balance_scheduling\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_balance_scheduling\": true}'\n",
        version="v0.23.0",
    ),),
)


@check(BALANCE_PD)
def balance_on_pd(scope: Scope):
    """Balance scheduling with kv_role kv_producer / kv_consumer."""
    balance = balance_scheduling(scope)
    role = scope.get("kv_role")
    if balance is None or scope.get("kv_transfer") is None or role == "kv_both":
        return
    error = "'enable_balance_scheduling only supports PD-mixed mode'"
    yield Finding(
        BALANCE_PD,
        Text(en=f"{balance[0]} on a PD node (kv_role {role}): {at_version(scope)} stops with ValueError {error}",
             zh=f"在 PD 节点（kv_role {role}）上开启了 {balance[0]}：{at_release_zh(scope)} 会以 ValueError {error} 退出"),
        balance[1],
        Fix(Text(en="switch balance scheduling off on PD-disaggregated nodes", zh="在 PD 分离节点上关闭均衡调度")),
    )


SHORT_FIRST = RuleMeta(
    id="QL527",
    name="short-request-first-conflicts",
    severity="error",
    requires=("additional_config", "kv_role", "version"),
    title=Text(en="ShortRequestFirst scheduling in a combination it rejects",
               zh="ShortRequestFirst 调度用在了它拒绝的组合中"),
    why=Text(
        en="From v0.25.1rc1 vllm-ascend checks scheduler_config.short_request_first_config at startup: it needs "
        "vLLM's fcfs scheduling policy, cannot run with batch_job_sched_config or profiling_chunk_config, and is "
        "refused on PD decode nodes (kv_consumer). Each violation is a ValueError. (v0.24.0rc1 only warned and "
        "ignored it, so the rule starts at v0.25.1rc1.)",
        zh="自 v0.25.1rc1 起，vllm-ascend 在启动时检查 scheduler_config.short_request_first_config：它要求 vLLM 的 fcfs "
        "调度策略，不能与 batch_job_sched_config 或 profiling_chunk_config 同用，并且不能用于 PD 解码节点（kv_consumer）。"
        "每一项违反都会报 ValueError。（v0.24.0rc1 只是警告并忽略，因此本规则从 v0.25.1rc1 开始。）",
    ),
    sources=("vllm-ascend@v0.25.1rc1:vllm_ascend/platform.py L650-670", "vllm-ascend@main:vllm_ascend/platform.py L835-862",
             "vllm_ascend_facts.md section 4.6"),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --scheduling-policy priority "
        "--additional-config '{\"scheduler_config\": {\"short_request_first_config\": {\"enabled\": true}}}'\n",
        good="vllm serve Qwen/Qwen3.6-27B "
        "--additional-config '{\"scheduler_config\": {\"short_request_first_config\": {\"enabled\": true}}}'\n",
        version="main",
    ),),
)


@check(SHORT_FIRST)
def short_first(scope: Scope):
    """short_request_first_config with a non-fcfs policy, batch-job / profiling scheduling, or on kv_consumer."""
    if not since(scope, NESTED_SCHEDULER_SINCE):
        return
    found = scheduler_setting(scope, "short_request_first_config", "v0.24.0rc1")
    if found is None or not _enabled(found[0]):
        return
    serve, where, where_zh = scope.serve, at_version(scope), at_release_zh(scope)
    span = key_span(serve, "--additional-config", f"{found[1]}.enabled")
    policy_option = serve.opt("--scheduling-policy")
    policy = policy_option.value.text if policy_option is not None and policy_option.value is not None else "fcfs"
    problems = []
    if policy is not None and policy != "fcfs":
        problems.append(Text(en=f"--scheduling-policy {policy} (it needs fcfs)", zh=f"--scheduling-policy {policy}（它要求 fcfs）"))
    for other in ("batch_job_sched_config", "profiling_chunk_config"):
        other_found = scheduler_setting(scope, other, None)
        if other_found is not None and _enabled(other_found[0]):
            problems.append(Text(en=f"{other_found[1]} enabled", zh=f"已开启的 {other_found[1]}"))
    if scope.get("kv_role") == "kv_consumer":
        problems.append(Text(en="a PD decode node (kv_role kv_consumer)", zh="PD 解码节点（kv_role kv_consumer）"))
    for problem in problems:
        yield Finding(SHORT_FIRST,
                      Text(en=f"{found[1]}.enabled=true with {problem.en}: {where} stops with ValueError",
                           zh=f"{found[1]}.enabled=true 搭配 {problem.zh}：{where_zh} 会以 ValueError 退出"),
                      span,
                      Fix(Text(en="disable short_request_first_config here, or remove the conflicting setting",
                               zh="在此关闭 short_request_first_config，或删除与之冲突的设置")))


DYNTRA = RuleMeta(
    id="QL528",
    name="dyntra-lb-placement",
    severity="error",
    requires=("additional_config", "kv_role", "dp", "dp_local", "version"),
    title=Text(en="DyntraLB enabled outside a single-node PD decode instance with DP",
               zh="DyntraLB 开在了单节点、带 DP 的 PD 解码实例之外"),
    why=Text(
        en="DyntraLB (scheduler_config.dyntra_lb_config, main only) balances KV-cache load across the DP ranks "
        "of a decode instance on one node. main stops with ValueError when it is enabled without kv_role "
        "kv_consumer, with --data-parallel-size 1, with a DP group spread over nodes, or together with balance "
        "scheduling or profiling_chunk_config.",
        zh="DyntraLB（scheduler_config.dyntra_lb_config，仅 main）在单个节点内的解码实例各 DP rank 之间均衡 KV 缓存负载。"
        "若开启时 kv_role 不是 kv_consumer、--data-parallel-size 为 1、DP 组跨越多个节点，或与均衡调度、"
        "profiling_chunk_config 同时开启，main 会以 ValueError 退出。",
    ),
    sources=("vllm-ascend@main:vllm_ascend/platform.py L865-893", "vllm_ascend_facts.md section 4.6"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 "
        "--additional-config '{\"scheduler_config\": {\"dyntra_lb_config\": {\"enabled\": true}}}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 "
        "--additional-config '{\"scheduler_config\": {\"dyntra_lb_config\": {\"enabled\": true}}}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="main",
    ),),
)


@check(DYNTRA)
def dyntra(scope: Scope):
    """dyntra_lb_config.enabled off a single-node kv_consumer with DP > 1, or with balance/profiling."""
    if scope.get("version") != MAIN:
        return
    nested = scope.get("additional_config").get("scheduler_config")
    if not isinstance(nested, dict) or not _enabled(nested.get("dyntra_lb_config")):
        return
    span = key_span(scope.serve, "--additional-config", "scheduler_config.dyntra_lb_config.enabled")
    role, dp, local = scope.get("kv_role"), scope.get("dp"), scope.get("dp_local")
    problems = []
    if role != "kv_consumer":
        problems.append(Text(en=_role(role) + " (it needs kv_consumer)", zh=_role_zh(role) + "（它要求 kv_consumer）"))
    if dp <= 1:
        problems.append(Text(en=f"--data-parallel-size {dp} (it needs DP > 1)", zh=f"--data-parallel-size {dp}（它要求 DP > 1）"))
    elif local is not None and local < dp:
        problems.append(Text(en=f"a DP group spread over nodes ({local} of {dp} ranks here)",
                             zh=f"跨节点的 DP 组（本节点只有 {dp} 个 rank 中的 {local} 个）"))
    if balance_scheduling(scope) is not None:
        problems.append(Text(en="balance scheduling", zh="均衡调度"))
    profiling = scheduler_setting(scope, "profiling_chunk_config", None)
    if profiling is not None and _enabled(profiling[0]):
        problems.append(Text(en="profiling_chunk_config", zh="profiling_chunk_config"))
    for problem in problems:
        yield Finding(DYNTRA,
                      Text(en=f"scheduler_config.dyntra_lb_config enabled with {problem.en}: main stops with ValueError",
                           zh=f"开启 scheduler_config.dyntra_lb_config 时遇到{problem.zh}：main 会以 ValueError 退出"),
                      span,
                      Fix(Text(en="enable DyntraLB only on single-node PD decode instances with DP > 1",
                               zh="只在单节点、DP > 1 的 PD 解码实例上开启 DyntraLB")))


REDUCE_SAMPLE = RuleMeta(
    id="QL529",
    name="reduce-sample-conflicts",
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
    sources=("vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L324-338", "vllm-ascend@main:vllm_ascend/ascend_config.py L297-312",
             "vllm-ascend@v0.25.1rc1:vllm_ascend/ascend_config.py L273", "vllm_ascend_facts.md section 2.1"),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_reduce_sample\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_reduce_sample\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


def _reduce_sample_checked(scope: Scope) -> bool:
    tag = scope.get("version")
    return tag == MAIN or (since(scope, "v0.23.0") and not since(scope, "v0.24.0rc1"))


@check(REDUCE_SAMPLE)
def reduce_sample(scope: Scope):
    """enable_reduce_sample on kv_producer or with lmhead TP."""
    config = scope.get("additional_config")
    if config.get("enable_reduce_sample") is not True or not _reduce_sample_checked(scope):
        return
    span = key_span(scope.serve, "--additional-config", "enable_reduce_sample")
    where, where_zh = at_version(scope), at_release_zh(scope)
    lmhead = config.get("finegrained_tp_config", {})
    lmhead = lmhead.get("lmhead_tensor_parallel_size", 0) if isinstance(lmhead, dict) else 0
    if isinstance(lmhead, int) and lmhead > 0:
        yield Finding(REDUCE_SAMPLE,
                      Text(en=f"enable_reduce_sample with finegrained_tp_config.lmhead_tensor_parallel_size {lmhead}: "
                           f"{where} stops with ValueError (incompatible)",
                           zh=f"enable_reduce_sample 与 finegrained_tp_config.lmhead_tensor_parallel_size {lmhead} 同用："
                           f"{where_zh} 会以 ValueError 退出（二者不兼容）"),
                      span,
                      Fix(Text(en="disable one of enable_reduce_sample and lmhead tensor parallel",
                               zh="在 enable_reduce_sample 与 lmhead 张量并行中关闭一个")))
    if scope.get("kv_role") == "kv_producer":
        yield Finding(REDUCE_SAMPLE,
                      Text(en=f"enable_reduce_sample on a PD prefill node (kv_role kv_producer): {where} stops with ValueError",
                           zh=f"在 PD 预填充节点（kv_role kv_producer）上开启 enable_reduce_sample：{where_zh} 会以 ValueError 退出"),
                      span,
                      Fix(Text(en="drop enable_reduce_sample on prefill nodes", zh="在预填充节点上删除 enable_reduce_sample")))


KV_NZ = RuleMeta(
    id="QL530",
    name="kv-nz-constraints",
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
    sources=("vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L269-280", "vllm-ascend@main:vllm_ascend/ascend_config.py L251-260",
             "vllm_ascend_facts.md section 2.1"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --additional-config '{\"enable_kv_nz\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


@check(KV_NZ)
def kv_nz(scope: Scope):
    """enable_kv_nz on a non-MLA model or off a kv_consumer."""
    if scope.get("additional_config").get("enable_kv_nz") is not True or not since(scope, "v0.18.0"):
        return
    span = key_span(scope.serve, "--additional-config", "enable_kv_nz")
    where, where_zh = at_version(scope), at_release_zh(scope)
    mla = scope.known("mla_attention")
    if mla is not None and mla.value is False:
        error = "'enable_kv_nz is only supported for mla currently'"
        yield Finding(KV_NZ, Text(en=f"enable_kv_nz on a GQA model: {where} stops with RuntimeError {error}",
                                  zh=f"在 GQA 模型上开启 enable_kv_nz：{where_zh} 会以 RuntimeError {error} 退出"),
                      span, Fix(Text(en="drop enable_kv_nz", zh="删除 enable_kv_nz")))
        return
    role = scope.get("kv_role")
    if role != "kv_consumer":
        yield Finding(KV_NZ, Text(en=f"enable_kv_nz with {_role(role)}: {where} stops with NotImplementedError "
                                  "(PD decode nodes only)",
                                  zh=f"enable_kv_nz 搭配{_role_zh(role)}：{where_zh} 会以 NotImplementedError 退出"
                                  "（仅支持 PD 解码节点）"),
                      span, Fix(Text(en="use enable_kv_nz only on kv_consumer instances",
                                     zh="只在 kv_consumer 实例上使用 enable_kv_nz")))


# =============================================================================
# --kv-transfer-config
# =============================================================================

LOAD_FAILURE = RuleMeta(
    id="QL531",
    name="kv-load-failure-recompute-hybrid",
    severity="error",
    requires=("kv_transfer", "is_hybrid", "version"),
    title=Text(en="kv_load_failure_policy recompute on a hybrid model",
               zh="混合模型使用 kv_load_failure_policy recompute"),
    why=Text(
        en="When a KV block fails to load, policy 'recompute' reschedules the request to compute it again. "
        "vllm-ascend cannot do that for hybrid GDN models (Qwen3.5/3.6, Qwen3-Next) and, from v0.21.0rc1, stops "
        "with AssertionError. vLLM's default 'fail' is accepted.",
        zh="KV 块加载失败时，策略 recompute 会重新调度请求并重算。vllm-ascend 无法对混合 GDN 模型（Qwen3.5/3.6、"
        "Qwen3-Next）这样做，自 v0.21.0rc1 起会以 AssertionError 退出。vLLM 默认的 fail 可以使用。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/platform.py L903-911", "vllm-ascend@main:vllm_ascend/platform.py L927-934",
             "vllm@v0.23.0:vllm/config/kv_transfer.py L70-73", "vllm_ascend_facts.md section 4.6"),
    fix="safe",
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --kv-transfer-config "
        "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"kv_load_failure_policy\": \"recompute\"}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --kv-transfer-config "
        "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"kv_load_failure_policy\": \"fail\"}'\n",
        fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --kv-transfer-config "
        "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"kv_load_failure_policy\": \"fail\"}'\n",
        version="v0.23.0",
    ),),
)


@check(LOAD_FAILURE)
def load_failure(scope: Scope):
    """kv_load_failure_policy recompute with a hybrid model."""
    config = scope.get("kv_transfer")
    if not config or config.get("kv_load_failure_policy") != "recompute" or not scope.get("is_hybrid"):
        return
    if not since(scope, "v0.21.0rc1"):
        return
    span = key_span(scope.serve, "--kv-transfer-config", "kv_load_failure_policy")
    option = scope.serve.opt("--kv-transfer-config")
    mapped = option.json is not None and "kv_load_failure_policy" in option.json.key_spans
    error = "'Hybrid models do not support recompute mode kv load failure policy now'"
    yield Finding(
        LOAD_FAILURE,
        Text(en=f"kv_load_failure_policy \"recompute\" on a hybrid GDN model: {at_version(scope)} stops with "
             f"AssertionError {error}",
             zh=f"混合 GDN 模型使用 kv_load_failure_policy \"recompute\"：{at_release_zh(scope)} 会以 AssertionError "
             f"{error} 退出"),
        span,
        Fix(Text(en='use "kv_load_failure_policy": "fail" (vLLM\'s default)',
                 zh='使用 "kv_load_failure_policy": "fail"（vLLM 的默认值）'),
            [Edit(span, '"fail"')] if mapped else []),
    )


KV_OVERWRITTEN = RuleMeta(
    id="QL532",
    name="kv-transfer-fields-overwritten",
    severity="info",
    requires=("kv_transfer", "version"),
    title=Text(en="A kv-transfer-config field that vllm-ascend overwrites", zh="vllm-ascend 会改写的 kv-transfer-config 字段"),
    why=Text(
        en="vllm-ascend rewrites three kv-transfer-config fields at startup: engine_id gets a random suffix "
        "(so the ids in the seed scripts need not be unique and the docs dropped them), and from v0.21.0rc1 "
        "kv_buffer_size is reset to 1e9 and enable_permute_local_kv to false, because both only matter for GPU "
        "connector backends. The values written have no effect.",
        zh="vllm-ascend 在启动时会改写 kv-transfer-config 的三个字段：engine_id 会被追加随机后缀（因此种子脚本里的 id "
        "无需唯一，文档也已删除它们）；自 v0.21.0rc1 起 kv_buffer_size 被重置为 1e9，enable_permute_local_kv 被重置为 "
        "false，因为两者只对 GPU 连接器后端有意义。写上的取值不起作用。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/platform.py L483-487", "vllm-ascend@v0.23.0:vllm_ascend/platform.py L1134-1152", "vllm-ascend@main:vllm_ascend/platform.py L594-620",
             "vllm_ascend_facts.md section 4.8", "vllm_ascend_facts.md section 7 item 18"),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config "
        "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"engine_id\": \"1\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config "
        "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


@check(KV_OVERWRITTEN)
def kv_overwritten(scope: Scope):
    """engine_id, kv_buffer_size != 1e9, enable_permute_local_kv=true in --kv-transfer-config."""
    config = scope.get("kv_transfer")
    if not config or not since(scope, "v0.13.0"):
        return
    serve, where, where_zh = scope.serve, at_version(scope), at_release_zh(scope)
    if config.get("engine_id") is not None:
        engine = json.dumps(config["engine_id"])
        yield Finding(
            KV_OVERWRITTEN,
            Text(en=f"engine_id {engine}: {where} appends a random suffix to it, so it need not be unique and can be "
                 "left out",
                 zh=f"engine_id {engine}：{where_zh} 会为它追加随机后缀，因此无需保证唯一，可以不写"),
            key_span(serve, "--kv-transfer-config", "engine_id"),
            Fix(Text(en="drop engine_id from --kv-transfer-config", zh="从 --kv-transfer-config 中删除 engine_id")),
        )
    if not since(scope, "v0.21.0rc1"):
        return
    size = config.get("kv_buffer_size")
    if isinstance(size, (int, float)) and not isinstance(size, bool) and size != 1e9:
        yield Finding(KV_OVERWRITTEN,
                      Text(en=f"kv_buffer_size {size:g}: {where} resets it to 1e9 (it only sizes GPU connector buffers)",
                           zh=f"kv_buffer_size {size:g}：{where_zh} 会把它重置为 1e9（它只决定 GPU 连接器的缓冲区大小）"),
                      key_span(serve, "--kv-transfer-config", "kv_buffer_size"),
                      Fix(Text(en="drop kv_buffer_size", zh="删除 kv_buffer_size")))
    if config.get("enable_permute_local_kv") is True:
        yield Finding(KV_OVERWRITTEN,
                      Text(en=f"enable_permute_local_kv true: {where} resets it to false",
                           zh=f"enable_permute_local_kv 为 true：{where_zh} 会把它重置为 false"),
                      key_span(serve, "--kv-transfer-config", "enable_permute_local_kv"),
                      Fix(Text(en="drop enable_permute_local_kv", zh="删除 enable_permute_local_kv")))


VLLM_CONNECTORS = (
    "ExampleConnector", "ExampleHiddenStatesConnector", "P2pNcclConnector", "LMCacheConnectorV1",
    "LMCacheMPConnector", "NixlConnector", "MultiConnector", "MoRIIOConnector", "OffloadingConnector",
    "DecodeBenchConnector", "MooncakeConnector", "MooncakeStoreConnector", "FlexKVConnectorV1",
    "SimpleCPUOffloadConnector", "HF3FSKVConnector",
)
ASCEND_CONNECTORS = (
    "MooncakeConnectorV1", "MooncakeHybridConnector", "MooncakeConnectorStoreV1", "AscendStoreConnector",
    "MooncakeLayerwiseConnector", "UCMConnector", "LMCacheAscendConnector", "RecomputeCPUOffloadConnector",
    "SfaRemoteD2HConnector",
)

UNKNOWN_CONNECTOR = RuleMeta(
    id="QL533",
    name="kv-connector-unknown",
    severity="error",
    requires=("kv_transfer", "version"),
    title=Text(en="kv_connector names no registered connector", zh="kv_connector 不是任何已注册的连接器"),
    why=Text(
        en="vLLM looks kv_connector up in its connector registry, which vllm-ascend extends with its own "
        "connectors (MooncakeConnectorV1, MooncakeLayerwiseConnector, ...); an unknown name stops startup with "
        "ValueError 'Unsupported connector type'. A connector loaded through kv_connector_module_path is not "
        "looked up and is not checked. The names are those registered by vLLM 0.17.0-0.23.0 and vllm-ascend "
        "v0.17.0rc1 to main.",
        zh="vLLM 在其连接器注册表中查找 kv_connector，vllm-ascend 又向其中加入了自己的连接器（MooncakeConnectorV1、"
        "MooncakeLayerwiseConnector 等）；未知名称会让启动以 ValueError “Unsupported connector type” 失败。通过 "
        "kv_connector_module_path 加载的连接器不经过查找，不做检查。名称表取自 vLLM 0.17.0-0.23.0 与 vllm-ascend "
        "v0.17.0rc1 至 main 注册的连接器。",
    ),
    sources=("vllm@v0.23.0:vllm/distributed/kv_transfer/kv_connector/factory.py L96-128",
             "vllm-ascend@v0.23.0:vllm_ascend/distributed/kv_transfer/__init__.py L21-87",
             "vllm-ascend@main:vllm_ascend/distributed/kv_transfer/__init__.py L21-101", "vllm_ascend_facts.md section 4.8"),
    fix="unsafe",
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorv1\", \"kv_role\": \"kv_consumer\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        fixed="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


@check(UNKNOWN_CONNECTOR)
def unknown_connector(scope: Scope):
    """A kv_connector name outside the vLLM and vllm-ascend registries (no module path)."""
    config = scope.get("kv_transfer")
    if not config or config.get("kv_connector_module_path") or not since(scope, "v0.17.0rc1"):
        return
    name = config.get("kv_connector")
    known = VLLM_CONNECTORS + ASCEND_CONNECTORS
    if not isinstance(name, str) or name in known:
        return
    span = key_span(scope.serve, "--kv-transfer-config", "kv_connector")
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    lowered = [k for k in known if k.lower() == name.lower()]
    suggestion = (lowered or close or [None])[0]
    option = scope.serve.opt("--kv-transfer-config")
    mapped = option.json is not None and "kv_connector" in option.json.key_spans
    error = "'Unsupported connector type'"
    yield Finding(
        UNKNOWN_CONNECTOR,
        Text(en=f"kv_connector {json.dumps(name)} is not a registered connector: {at_version(scope)} stops with "
             f"ValueError {error}" + (f"; did you mean {suggestion}?" if suggestion else ""),
             zh=f"kv_connector {json.dumps(name)} 不是已注册的连接器：{at_release_zh(scope)} 会以 ValueError {error} 退出"
             + (f"；是否想写 {suggestion}？" if suggestion else "")),
        span,
        Fix(Text(en=f"use {suggestion}" if suggestion else "use a registered connector such as MooncakeConnectorV1",
                 zh=f"改用 {suggestion}" if suggestion else "改用已注册的连接器，例如 MooncakeConnectorV1"),
            [Edit(span, json.dumps(suggestion))] if suggestion and mapped else [], "unsafe"),
    )


# =============================================================================
# Speculative decoding
# =============================================================================

SPEC_QUANT = RuleMeta(
    id="QL534",
    name="speculative-config-values",
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
    sources=("vllm@v0.23.0:vllm/config/speculative.py L990-994", "vllm@v0.17.0:vllm/config/speculative.py L759","vllm-ascend@v0.23.0:vllm_ascend/platform.py L1124-1130", "vllm-ascend@v0.21.0rc1:vllm_ascend/platform.py L1045", "vllm-ascend@main:vllm_ascend/platform.py L583-592",
             "vllm_ascend_facts.md section 4.3"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config "
        "'{\"method\": \"mtp\", \"num_speculative_tokens\": 1, \"quantization\": \"ascend\"}'\n",
        good="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'\n",
        version="v0.23.0",
    ),),
)


@check(SPEC_QUANT)
def spec_quant(scope: Scope):
    """num_speculative_tokens <= 0; speculative-config quantization (reset by vllm-ascend)."""
    config = scope.get("speculative")
    if not config or not since(scope, "v0.17.0rc1"):
        return
    tokens = config.get("num_speculative_tokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens <= 0:
        error = "'Expected num_speculative_tokens to be greater than zero'"
        yield Finding(
            SPEC_QUANT,
            Text(en=f"num_speculative_tokens {tokens}: {at_version(scope)} stops with ValueError {error}",
                 zh=f"num_speculative_tokens 为 {tokens}：{at_release_zh(scope)} 会以 ValueError {error} 退出"),
            key_span(scope.serve, "--speculative-config", "num_speculative_tokens"),
            Fix(Text(en="use 1 or more speculative tokens, or drop --speculative-config",
                     zh="使用 1 个或更多投机 token，或删除 --speculative-config")),
        )
    if config.get("quantization") is None or not since(scope, "v0.21.0rc1"):
        return
    quant = json.dumps(config["quantization"])
    yield Finding(
        SPEC_QUANT,
        Text(en=f"--speculative-config quantization {quant}: {at_version(scope)} resets it to None; the draft uses "
             "the main model's quantization",
             zh=f"--speculative-config 中的 quantization {quant}：{at_release_zh(scope)} 会把它重置为 None；草稿模型沿用"
             "主模型的量化方式"),
        key_span(scope.serve, "--speculative-config", "quantization"),
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
    severity="info",
    requires=("speculative", "version"),
    fix="safe",
    title=Text(en="A model-specific MTP method name that vLLM rewrites to mtp",
               zh="vLLM 会改写为 mtp 的模型专用 MTP 方法名"),
    why=Text(
        en="vLLM 0.23.0 folds every model-specific MTP method (qwen3_5_mtp, qwen3_next_mtp, deepseek_mtp, ...) "
        "into \"mtp\" and logs that the old name is deprecated. The seeds use qwen3_5_mtp, newer tutorials use "
        "mtp; both start, so this is information only. The rewrite is in every vLLM from 0.17.0 to 0.23.0, "
        "so it is reported from v0.17.0rc1 on.",
        zh="vLLM 0.23.0 会把各模型专用的 MTP 方法名（qwen3_5_mtp、qwen3_next_mtp、deepseek_mtp 等）统一改写为 \"mtp\"，"
        "并提示旧名称已弃用。种子文档使用 qwen3_5_mtp，较新的教程使用 mtp；两者都能启动，因此仅作提示。vLLM 0.17.0 至 0.23.0 都有这一改写，"
        "因此自 v0.17.0rc1 起报告。",
    ),
    sources=("vllm@v0.23.0:vllm/config/speculative.py L34-53", "vllm@v0.23.0:vllm/config/speculative.py L550-554", "vllm@v0.17.0:vllm/config/speculative.py",
             "vllm_ascend_facts.md section 4.4"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 3}'\n",
        good="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n",
        fixed="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n",
        version="v0.23.0",
    ),),
)


@check(MTP_ALIAS)
def mtp_alias(scope: Scope):
    """A model-specific MTP method alias (rewritten to mtp by vLLM 0.17.0 to 0.23.0)."""
    config = scope.get("speculative")
    if not config or config.get("method") not in MTP_ALIASES or not since(scope, "v0.17.0rc1"):
        return
    span = key_span(scope.serve, "--speculative-config", "method")
    option = scope.serve.opt("--speculative-config")
    mapped = option.json is not None and "method" in option.json.key_spans
    method, vllm = json.dumps(config["method"]), paired_vllm(scope, scope.get("version"))
    yield Finding(
        MTP_ALIAS,
        Text(en=f"speculative method {method} is an alias: {at_version(scope)} (vLLM {vllm}) rewrites it to \"mtp\" "
             "with a deprecation warning",
             zh=f"投机方法 {method} 是别名：{at_release_zh(scope)}（vLLM {vllm}）会把它改写为 \"mtp\" 并打印弃用警告"),
        span,
        Fix(Text(en='write "method": "mtp"', zh='写成 "method": "mtp"'), [Edit(span, '"mtp"')] if mapped else []),
    )


NON_ASYNC_METHODS = ("ngram", "medusa", "mlp_speculator", "suffix", "custom_class")  # vLLM 0.23.0 SpeculativeMethod

ASYNC_SPEC = RuleMeta(
    id="QL536",
    name="async-scheduling-spec-method",
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
    sources=("vllm@v0.23.0:vllm/config/vllm.py L933-955", "vllm@v0.23.0:vllm/config/speculative.py L54-57",
             "vllm_ascend_facts.md section 4.4"),
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


@check(ASYNC_SPEC)
def async_spec(scope: Scope):
    """Explicit --async-scheduling with a method outside EAGLE/MTP/draft model/ngram_gpu."""
    serve = scope.serve
    config = scope.get("speculative")
    if not serve.has("--async-scheduling") or not config or not since(scope, "v0.17.0rc1"):
        return
    method = config.get("method")
    if method is None and config.get("model") is not None:
        method = "ngram" if config.get("model") in ("ngram", "[ngram]") else "draft_model"
    option = serve.opt("--async-scheduling")
    where, where_zh = at_version(scope), at_release_zh(scope)
    fix = Fix(Text(en="drop --async-scheduling (vLLM then runs without it)", zh="删除 --async-scheduling（vLLM 随后不使用它运行）"),
              drop(option))
    if method in NON_ASYNC_METHODS:
        error = ("'Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU kind of "
                 "speculative decoding'")
        yield Finding(
            ASYNC_SPEC,
            Text(en=f"--async-scheduling with speculative method {json.dumps(method)}: {where} stops with ValueError {error}",
                 zh=f"--async-scheduling 与投机方法 {json.dumps(method)} 同用：{where_zh} 会以 ValueError {error} 退出"),
            option.span,
            fix,
        )
    elif config.get("disable_padded_drafter_batch") is True:
        yield Finding(ASYNC_SPEC,
                      Text(en=f"--async-scheduling with disable_padded_drafter_batch=true: {where} stops with ValueError",
                           zh=f"--async-scheduling 与 disable_padded_drafter_batch=true 同用：{where_zh} 会以 ValueError 退出"),
                      option.span, fix)


# =============================================================================
# Graph capture
# =============================================================================

COMPILE_MODES = {1: "STOCK_TORCH_COMPILE", 2: "DYNAMO_TRACE_ONCE", "STOCK_TORCH_COMPILE": "STOCK_TORCH_COMPILE",
                 "DYNAMO_TRACE_ONCE": "DYNAMO_TRACE_ONCE"}
NO_COMPILE = (0, "0", "NONE")

COMPILE_MODE = RuleMeta(
    id="QL537",
    name="compilation-mode-disables-graphs",
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
    sources=("vllm-ascend@v0.23.0:vllm_ascend/platform.py L535-540", "vllm-ascend@main:vllm_ascend/platform.py L974-979",
             "vllm@v0.23.0:vllm/config/vllm.py L1157-1168", "vllm_ascend_facts.md section 4.5"),
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
    span = key_span(scope.serve, "--compilation-config", "mode")
    where, where_zh = at_version(scope), at_release_zh(scope)
    if mode in COMPILE_MODES:
        if scope.get("version") == MAIN:
            kept = graphs not in PIECEWISE_MODES
            effect = Text(en="resets the mode to NONE; " + (f"{graphs} graphs stay" if kept else "PIECEWISE graphs are dropped"),
                          zh="把模式重置为 NONE；" + (f"{graphs} 图保留" if kept else "PIECEWISE 图被丢弃"))
        else:
            effect = Text(en="sets cudagraph_mode to NONE", zh="把 cudagraph_mode 设为 NONE")
        name = COMPILE_MODES[mode]
        yield Finding(COMPILE_MODE,
                      Text(en=f"compilation mode {name} is not supported on NPU: {where} {effect.en}",
                           zh=f"NPU 不支持编译模式 {name}：{where_zh} 会{effect.zh}"),
                      span,
                      Fix(Text(en="drop mode from --compilation-config (VLLM_COMPILE is the default)",
                               zh="从 --compilation-config 中删除 mode（默认即 VLLM_COMPILE）")))
    elif mode in NO_COMPILE and graphs in PIECEWISE_MODES and "cudagraph_mode" in config:
        yield Finding(COMPILE_MODE,
                      Text(en=f"cudagraph_mode {graphs} needs compilation mode VLLM_COMPILE; with mode 0 vLLM sets it to "
                           f"NONE ({where} then runs eager)",
                           zh=f"cudagraph_mode {graphs} 需要编译模式 VLLM_COMPILE；mode 为 0 时 vLLM 会把它设为 NONE"
                           f"（{where_zh} 随后以 eager 模式运行）"),
                      span,
                      Fix(Text(en='drop "mode": 0, or use cudagraph_mode FULL_DECODE_ONLY',
                               zh='删除 "mode": 0，或改用 cudagraph_mode FULL_DECODE_ONLY')))


CAPTURE_MAX = RuleMeta(
    id="QL538",
    name="capture-max-mismatch",
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
    sources=("vllm@v0.23.0:vllm/config/vllm.py L1689-1763", "vllm_ascend_facts.md section 4.5"),
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
    if limit == largest or not since(scope, "v0.17.0rc1"):
        return
    span = key_span(scope.serve, "--compilation-config", "max_cudagraph_capture_size")
    option = scope.serve.opt("--compilation-config")
    mapped = option.json is not None and "max_cudagraph_capture_size" in option.json.key_spans
    trimmed = len(kept) < len(sizes)
    vllm = paired_vllm(scope, scope.get("version"))
    error = ("'customized max_cudagraph_capture_size ... should be consistent with the max value of "
             "cudagraph_capture_sizes'")
    yield Finding(
        CAPTURE_MAX,
        Text(en=f"max_cudagraph_capture_size {limit} differs from the largest capture size {largest}"
             + (f" (sizes above --max-num-batched-tokens {budget} are dropped first)" if trimmed else "")
             + f": {at_version(scope)} (vLLM {vllm}) stops with ValueError {error}",
             zh=f"max_cudagraph_capture_size {limit} 与最大的捕获尺寸 {largest} 不一致"
             + (f"（大于 --max-num-batched-tokens {budget} 的尺寸会先被去掉）" if trimmed else "")
             + f"：{at_release_zh(scope)}（vLLM {vllm}）会以 ValueError {error} 退出"),
        span,
        Fix(Text(en=f"set max_cudagraph_capture_size to {largest}, or drop it",
                 zh=f"把 max_cudagraph_capture_size 设为 {largest}，或删除它"),
            [Edit(span, str(largest))] if mapped and largest else []),
    )


CAPTURE_BUDGET = RuleMeta(
    id="QL539",
    name="capture-sizes-above-batched-tokens",
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
    sources=("vllm@v0.23.0:vllm/config/vllm.py L1689-1700", "vllm@v0.23.0:vllm/config/vllm.py L1765-1775",
             "vllm_ascend_facts.md section 4.5"),
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
    if not sizes or mode == "NONE" or (mode in FULL_ONLY_MODES + ("FULL_AND_PIECEWISE",) and scope.get("mtp_tokens") >= 1):
        return
    budget = scope.get("batched_tokens")
    too_big = sorted({size for size in sizes if size > budget})
    if not too_big or not since(scope, "v0.17.0rc1"):
        return
    kept = [size for size in sizes if size <= budget]
    span = key_span(scope.serve, "--compilation-config", "cudagraph_capture_sizes")
    option = scope.serve.opt("--compilation-config")
    mapped = option.json is not None and "cudagraph_capture_sizes" in option.json.key_spans
    raw = option.value.raw if option.value is not None else ""
    text = "[" + (", " if ", " in raw or len(kept) < 2 else ",").join(map(str, kept)) + "]"
    vllm = paired_vllm(scope, scope.get("version"))
    yield Finding(
        CAPTURE_BUDGET,
        Text(en=f"cudagraph_capture_sizes {too_big} exceed --max-num-batched-tokens {budget}: {at_version(scope)} "
             f"(vLLM {vllm}) drops them and " + (f"keeps {text}" if kept else "keeps none, so no graph is captured"),
             zh=f"cudagraph_capture_sizes 中的 {too_big} 超过了 --max-num-batched-tokens {budget}：{at_release_zh(scope)}"
             f"（vLLM {vllm}）会丢弃它们，" + (f"保留 {text}" if kept else "一个都不剩，因此不会捕获任何图")),
        span,
        Fix(Text(en=f"list only sizes up to {budget}" + (f": {text}" if kept else ""),
                 zh=f"只列出不超过 {budget} 的尺寸" + (f"：{text}" if kept else "")),
            [Edit(span, text)] if mapped and kept else []),
    )


TP_ALIGNED = RuleMeta(
    id="QL540",
    name="tp-aligned-capture-sizes",
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
    sources=("vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L114-122", "vllm-ascend@v0.23.0:vllm_ascend/platform.py L549-568",
             "vllm-ascend@main:vllm_ascend/platform.py L1040-1064", "vllm_ascend_facts.md section 4.5"),
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
    if tp <= 1 or not sizes or scope.get("cudagraph_mode") == "NONE" or not since(scope, "v0.23.0rc1"):
        return
    if config.get("enable_shared_expert_dp") is True and scope.get("expert_parallel"):
        switch = "enable_shared_expert_dp"
    elif config.get("enable_dsa_cp") is True and scope.get("version") == MAIN:
        switch = "enable_dsa_cp"
    else:
        return
    kept = [size for size in sizes if size % tp == 0]
    dropped = [size for size in sizes if size % tp]
    if not dropped:
        return
    span = key_span(scope.serve, "--compilation-config", "cudagraph_capture_sizes")
    where, where_zh = at_version(scope), at_release_zh(scope)
    if not kept:
        yield Finding(TP_ALIGNED,
                      Text(en=f"{switch} with TP {tp}: no entry of cudagraph_capture_sizes {sizes} is a multiple of {tp}, "
                           f"so {where} stops with AssertionError",
                           zh=f"{switch} 且 TP 为 {tp}：cudagraph_capture_sizes {sizes} 中没有 {tp} 的整数倍，"
                           f"{where_zh} 会以 AssertionError 退出"),
                      span,
                      Fix(Text(en=f"use capture sizes that are multiples of {tp}, e.g. [{tp}, {2 * tp}]",
                               zh=f"使用 {tp} 的整数倍作为捕获尺寸，例如 [{tp}, {2 * tp}]")))
        return
    yield Finding(TP_ALIGNED,
                  Text(en=f"{switch} with TP {tp}: {where} drops capture sizes {dropped} (not multiples of {tp}) and "
                       f"keeps {kept}",
                       zh=f"{switch} 且 TP 为 {tp}：{where_zh} 会丢弃捕获尺寸 {dropped}（不是 {tp} 的整数倍），保留 {kept}"),
                  span,
                  Fix(Text(en=f"list only multiples of {tp}: {kept}", zh=f"只列出 {tp} 的整数倍：{kept}")),
                  severity="warning")


# =============================================================================
# Data parallel and the serve command line
# =============================================================================

HEADLESS_API = RuleMeta(
    id="QL541",
    name="headless-with-api-servers",
    severity="error",
    fix="safe",
    requires=("version",),
    faq="qwen35-397b-mp-hang",
    title=Text(en="--headless with API servers", zh="--headless 却要求启动 API 服务"),
    why=Text(
        en="A --headless node runs engines only. vllm serve stops with ValueError when --api-server-count is "
        "above 0 there, and the headless runner refuses --data-parallel-hybrid-lb.",
        zh="--headless 节点只运行引擎。若同时给出大于 0 的 --api-server-count，vllm serve 会以 ValueError 退出；"
        "headless 模式也拒绝 --data-parallel-hybrid-lb。",
    ),
    sources=("vllm@v0.23.0:vllm/entrypoints/cli/serve.py L61-69", "vllm@v0.23.0:vllm/entrypoints/cli/serve.py L173-175",
             "vllm_ascend_facts.md section 5"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --headless --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2 --api-server-count 1\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --headless --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2\n",
        fixed="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --headless --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2\n",
    ),),
)


@check(HEADLESS_API)
def headless_api(scope: Scope):
    """--headless with --api-server-count > 0 or --data-parallel-hybrid-lb."""
    serve = scope.serve
    if not serve.has("--headless") or not since(scope, "v0.17.0rc1"):
        return
    where, where_zh = at_version(scope), at_release_zh(scope)
    count = int_option(serve, "--api-server-count")
    if count is not None and count > 0:
        option = serve.opt("--api-server-count")
        yield Finding(HEADLESS_API,
                      Text(en=f"--api-server-count {count} with --headless: vllm serve of {where} stops with ValueError "
                           "(no API server runs in headless mode)",
                           zh=f"--api-server-count {count} 与 --headless 同用：{where_zh} 的 vllm serve 会以 ValueError 退出"
                           "（headless 模式不运行 API 服务）"),
                      option.span,
                      Fix(Text(en="remove --api-server-count from the headless node",
                               zh="从 headless 节点删除 --api-server-count"), drop(option)))
    if serve.has("--data-parallel-hybrid-lb"):
        option = serve.opt("--data-parallel-hybrid-lb")
        error = "'data_parallel_hybrid_lb is not applicable in headless mode'"
        yield Finding(HEADLESS_API,
                      Text(en=f"--data-parallel-hybrid-lb with --headless: vllm serve of {where} stops with ValueError {error}",
                           zh=f"--data-parallel-hybrid-lb 与 --headless 同用：{where_zh} 的 vllm serve 会以 ValueError "
                           f"{error} 退出"),
                      option.span,
                      Fix(Text(en="remove --data-parallel-hybrid-lb from the headless node",
                               zh="从 headless 节点删除 --data-parallel-hybrid-lb"), drop(option)))


DP_LOCAL = RuleMeta(
    id="QL542",
    name="dp-local-size",
    severity="error",
    requires=("dp", "version"),
    title=Text(en="--data-parallel-size-local does not fit the DP group", zh="--data-parallel-size-local 与 DP 组不匹配"),
    why=Text(
        en="The ranks on one node cannot exceed the whole DP group: vLLM stops with ValueError when "
        "--data-parallel-size-local is larger than --data-parallel-size, and a --headless node needs at least "
        "one local rank. An external DP rank (--data-parallel-rank) is one engine, so its local size must be "
        "1 or absent (AssertionError otherwise).",
        zh="一个节点上的 rank 数不能超过整个 DP 组：--data-parallel-size-local 大于 --data-parallel-size 时 vLLM 以 "
        "ValueError 退出；--headless 节点至少要有一个本地 rank。外部 DP rank（--data-parallel-rank）只对应一个引擎，"
        "其本地规模必须为 1 或不写（否则 AssertionError）。",
    ),
    sources=("vllm@v0.23.0:vllm/config/parallel.py L441-445", "vllm@v0.23.0:vllm/engine/arg_utils.py L1872-1882",
             "vllm@v0.23.0:vllm/entrypoints/cli/serve.py L184-185", "vllm_ascend_facts.md section 5"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 2 --data-parallel-size-local 4\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 --data-parallel-size-local 4\n",
    ),),
)


@check(DP_LOCAL, relations=(("in_range", "dp_local", "dp"),))
def dp_local_size(scope: Scope):
    """local DP size above the DP size, 0 on a headless node, or != 1 with --data-parallel-rank."""
    serve, dp = scope.serve, scope.get("dp")
    local = int_option(serve, "--data-parallel-size-local")
    if local is None or not since(scope, "v0.17.0rc1"):
        return
    span, where, where_zh = value_span(serve, "--data-parallel-size-local"), at_version(scope), at_release_zh(scope)
    if serve.opt("--data-parallel-rank") is not None and local != 1:
        yield Finding(DP_LOCAL,
                      Text(en=f"--data-parallel-rank with --data-parallel-size-local {local}: an external DP rank is one "
                           f"engine, {where} asserts the local size is 1",
                           zh=f"--data-parallel-rank 搭配 --data-parallel-size-local {local}：外部 DP rank 只对应一个引擎，"
                           f"{where_zh} 断言本地规模为 1"),
                      span,
                      Fix(Text(en="drop --data-parallel-size-local (or set it to 1) for external DP ranks",
                               zh="外部 DP rank 请删除 --data-parallel-size-local（或设为 1）")))
    elif local > dp:
        yield Finding(DP_LOCAL,
                      Text(en=f"--data-parallel-size-local {local} is larger than --data-parallel-size {dp}: {where} "
                           "stops with ValueError",
                           zh=f"--data-parallel-size-local {local} 大于 --data-parallel-size {dp}：{where_zh} 会以 ValueError 退出"),
                      span,
                      Fix(Text(en=f"use at most {dp} local ranks, or raise --data-parallel-size",
                               zh=f"本地 rank 数最多为 {dp}，或调大 --data-parallel-size")))
    elif local <= 0 and serve.has("--headless"):
        error = "'data_parallel_size_local must be > 0 in headless mode'"
        yield Finding(DP_LOCAL,
                      Text(en=f"--data-parallel-size-local {local} on a --headless node: {where} stops with ValueError {error}",
                           zh=f"--headless 节点上 --data-parallel-size-local 为 {local}：{where_zh} 会以 ValueError {error} 退出"),
                      span,
                      Fix(Text(en="give the node at least one rank", zh="为该节点至少分配一个 rank")))


LB_MODES = RuleMeta(
    id="QL543",
    name="dp-lb-modes-conflict",
    severity="error",
    requires=("version",),
    title=Text(en="Two data-parallel load-balancing modes at once", zh="同时指定了两种数据并行负载均衡模式"),
    why=Text(
        en="vllm serve derives one load-balancing mode: external (--data-parallel-external-lb or "
        "--data-parallel-rank), hybrid (--data-parallel-hybrid-lb, or any --data-parallel-start-rank when "
        "neither hybrid nor multi-port is given) or multi-port (--data-parallel-multi-port-external-lb). Options "
        "implying two of them stop it with ValueError from v0.22.1rc1 (vLLM 0.22.1) on; a "
        "--data-parallel-start-rank 0 next to --data-parallel-rank is enough. Earlier releases only assert when "
        "--data-parallel-hybrid-lb and --data-parallel-external-lb are both given.",
        zh="vllm serve 只能推导出一种负载均衡模式：外部（--data-parallel-external-lb 或 --data-parallel-rank）、混合"
        "（--data-parallel-hybrid-lb；在未指定混合与多端口时，只要给出 --data-parallel-start-rank 也算）或多端口"
        "（--data-parallel-multi-port-external-lb）。隐含两种模式的参数组合自 v0.22.1rc1（vLLM 0.22.1）起会以 ValueError 退出；与 "
        "--data-parallel-rank 一起写一个 --data-parallel-start-rank 0 就足以触发。更早的版本只在同时给出 "
        "--data-parallel-hybrid-lb 与 --data-parallel-external-lb 时断言失败。",
    ),
    sources=("vllm@v0.23.0:vllm/entrypoints/cli/serve.py L71-97", "vllm@v0.17.0:vllm/engine/arg_utils.py L1555-1557",
             "vllm_ascend_facts.md section 5"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 2 --data-parallel-rank 1 --data-parallel-start-rank 0\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 2 --data-parallel-rank 1\n",
    ),),
)


@check(LB_MODES)
def lb_modes(scope: Scope):
    """More than one of external / hybrid / multi-port DP load balancing."""
    serve = scope.serve
    if serve.argv and serve.argv[0].text and "api_server" in " ".join(a.text or "" for a in serve.argv[:3]):
        return  # the mode detection lives in `vllm serve`
    if not since(scope, "v0.17.0rc1"):
        return
    where, where_zh = at_version(scope), at_release_zh(scope)
    if not since(scope, "v0.22.1rc1"):
        if serve.has("--data-parallel-hybrid-lb") and serve.has("--data-parallel-external-lb"):
            yield Finding(LB_MODES,
                          Text(en=f"--data-parallel-hybrid-lb with --data-parallel-external-lb: {where} asserts they are "
                               "not both set",
                               zh=f"--data-parallel-hybrid-lb 与 --data-parallel-external-lb 同用：{where_zh} 断言二者不能同时设置"),
                          serve.opt("--data-parallel-hybrid-lb").span,
                          Fix(Text(en="keep one of the two load-balancing switches", zh="两个负载均衡开关只保留一个")))
        return
    external = serve.has("--data-parallel-external-lb") or serve.opt("--data-parallel-rank") is not None
    multi = serve.has("--data-parallel-multi-port-external-lb")
    if serve.has("--data-parallel-hybrid-lb") or multi:
        hybrid = serve.has("--data-parallel-hybrid-lb")
    else:
        hybrid = serve.opt("--data-parallel-start-rank") is not None
    modes = [(en, zh) for en, zh, on in (
        ("external (--data-parallel-rank / --data-parallel-external-lb)",
         "外部（--data-parallel-rank / --data-parallel-external-lb）", external),
        ("hybrid (--data-parallel-start-rank / --data-parallel-hybrid-lb)",
         "混合（--data-parallel-start-rank / --data-parallel-hybrid-lb）", hybrid),
        ("multi-port (--data-parallel-multi-port-external-lb)", "多端口（--data-parallel-multi-port-external-lb）", multi),
    ) if on]
    if len(modes) < 2:
        return
    blame = serve.opt("--data-parallel-start-rank") or serve.opt("--data-parallel-hybrid-lb") or \
        serve.opt("--data-parallel-multi-port-external-lb")
    error = "'Cannot use more than one data parallel load balancing mode'"
    yield Finding(LB_MODES,
                  Text(en=f"the options imply {' and '.join(m[0] for m in modes)} load balancing: vllm serve of {where} "
                       f"stops with ValueError {error}",
                       zh=f"这些参数同时隐含了{'与'.join(m[1] for m in modes)}负载均衡：{where_zh} 的 vllm serve 会以 "
                       f"ValueError {error} 退出"),
                  blame.span,
                  Fix(Text(en="keep the options of one load-balancing mode only", zh="只保留一种负载均衡模式的参数")))


HYBRID_LB = RuleMeta(
    id="QL544",
    name="dp-hybrid-lb-inferred",
    severity="info",
    requires=("version",),
    faq="qwen35-397b-mp-hang",
    title=Text(en="A non-zero start rank without --headless selects hybrid load balancing",
               zh="非零起始 rank 且未加 --headless 时会选用混合负载均衡"),
    why=Text(
        en="A node of a multi-node DP group that is not the head normally runs --headless. Without it, a "
        "non-zero --data-parallel-start-rank makes vLLM infer hybrid load balancing: the node starts its own API "
        "server(s) (one per local rank by default) and balances only its local ranks, so clients or the proxy "
        "must reach every node; with one local rank it switches to external load balancing. This is valid, but "
        "differs from the usual head + headless layout.",
        zh="多节点 DP 组中的非主节点通常使用 --headless。不加它时，非零的 --data-parallel-start-rank 会让 vLLM 推断为混合负载"
        "均衡：该节点启动自己的 API 服务（默认每个本地 rank 一个），只在本地 rank 之间均衡，因此客户端或代理必须能访问每个节点；"
        "本地只有一个 rank 时会改为外部负载均衡。这样做是合法的，但不同于常见的“主节点 + headless 节点”布局。",
    ),
    sources=("vllm@v0.23.0:vllm/engine/arg_utils.py L1886-1906", "vllm@v0.23.0:vllm/entrypoints/cli/serve.py L99-118",
             "vllm_ascend_facts.md section 5"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2 --data-parallel-address 10.0.0.1\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2 --data-parallel-address 10.0.0.1 --headless\n",
    ),),
)


@check(HYBRID_LB)
def hybrid_lb(scope: Scope):
    """Non-zero --data-parallel-start-rank with a local size, without --headless or --data-parallel-rank."""
    serve = scope.serve
    start = int_option(serve, "--data-parallel-start-rank")
    local = int_option(serve, "--data-parallel-size-local")
    if not start or local is None or serve.has("--headless") or serve.opt("--data-parallel-rank") is not None:
        return
    if not since(scope, "v0.17.0rc1"):
        return
    if local == 1:
        detail = Text(en="with --data-parallel-size-local 1 vLLM switches to external load balancing (one server per rank)",
                      zh="由于 --data-parallel-size-local 为 1，vLLM 改用外部负载均衡（每个 rank 一个服务）")
    else:
        count = int_option(serve, "--api-server-count")
        last = start + local - 1
        servers = Text(en=f"{count} API server(s)", zh=f"{count} 个 API 服务") if count is not None else \
            Text(en=f"{local} API servers (one per local rank)", zh=f"{local} 个 API 服务（每个本地 rank 一个）")
        detail = Text(en=f"this node starts {servers.en} and balances only ranks {start}..{last}",
                      zh=f"本节点启动 {servers.zh}，只在 rank {start}..{last} 之间均衡")
    yield Finding(HYBRID_LB,
                  Text(en=f"--data-parallel-start-rank {start} without --headless: {at_version(scope)} infers hybrid load "
                       f"balancing; {detail.en}",
                       zh=f"--data-parallel-start-rank {start} 且未加 --headless：{at_release_zh(scope)} 推断为混合负载均衡；"
                       f"{detail.zh}"),
                  value_span(serve, "--data-parallel-start-rank"),
                  Fix(Text(en="add --headless if the head node should serve all ranks",
                           zh="若应由主节点服务所有 rank，请加上 --headless")))


MODEL_ARG = RuleMeta(
    id="QL545",
    name="serve-model-argument",
    severity="error",
    requires=("version",),
    title=Text(en="vllm serve without the model as first argument", zh="vllm serve 的第一个参数不是模型"),
    why=Text(
        en="vllm serve takes the model as its first positional argument. When the first word after 'serve' is "
        "an option, --served-model-name is given and neither --model nor --config is used, vLLM stops with "
        "ValueError ('model should be provided as the first positional argument'), even if the model appears "
        "later. Without any model it silently serves vLLM's default model (warning). --model still works but is "
        "deprecated (info).",
        zh="vllm serve 要求模型作为第一个位置参数。若 serve 之后的第一个词是选项、又给了 --served-model-name，且未使用 "
        "--model 或 --config，vLLM 会以 ValueError 退出（“model should be provided as the first positional argument”），"
        "即使模型出现在后面也一样。完全不给模型时，它会悄悄加载 vLLM 的默认模型（警告）。--model 仍可用但已弃用（提示）。",
    ),
    sources=("vllm@v0.23.0:vllm/utils/argparse_utils.py L251-297", "vllm_ascend_facts.md section 5"),
    examples=(Example(
        bad="vllm serve --tensor-parallel-size 2 Qwen/Qwen3.6-27B --served-model-name qwen3.6\n",
        good="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --served-model-name qwen3.6\n",
    ),),
)


@check(MODEL_ARG)
def model_argument(scope: Scope):
    """`vllm serve <option> ... --served-model-name`, no model at all, or --model."""
    serve = scope.serve
    words = [value.text for value in serve.argv]
    if len(words) < 2 or words[1] != "serve" or not (words[0] or "").endswith("vllm"):
        return
    args = words[2:]
    if any(word is None for word in args[:1]) or not since(scope, "v0.17.0rc1"):
        return
    lines = range(serve.span.line, serve.span.end_line + 1)
    if any(span.line in lines for _, span in scope.plan.glued_redirects):
        return  # a <placeholder> eats the model word; QL107 reports it
    where, where_zh = at_version(scope), at_release_zh(scope)
    first = Fix(Text(en="put the model right after `vllm serve`", zh="把模型写在 `vllm serve` 之后的第一个位置"))
    model_opt = serve.opt("--model")
    if model_opt is not None:
        yield Finding(MODEL_ARG,
                      Text(en=f"--model with vllm serve is deprecated: {where} moves it to the positional model argument "
                           "with a warning",
                           zh=f"vllm serve 的 --model 已弃用：{where_zh} 会把它移到位置参数并打印警告"),
                      model_opt.name_span, first, severity="info")
        return
    if serve.opt("--config") is not None or not args or not args[0].startswith("-"):
        return
    if serve.opt("--served-model-name") is not None:
        error = "'model should be provided as the first positional argument'"
        yield Finding(MODEL_ARG,
                      Text(en=f"the first argument after `vllm serve` is the option {args[0]}, and --served-model-name is "
                           f"set: {where} stops with ValueError {error}",
                           zh=f"`vllm serve` 之后的第一个参数是选项 {args[0]}，且设置了 --served-model-name：{where_zh} 会以 "
                           f"ValueError {error} 退出"),
                      serve.argv[2].span, first)
    elif serve.model is None:
        yield Finding(MODEL_ARG,
                      Text(en=f"vllm serve names no model: {where} serves vLLM's built-in default model",
                           zh=f"vllm serve 没有指定模型：{where_zh} 会加载 vLLM 内置的默认模型"),
                      serve.span, first, severity="warning")


# =============================================================================
# Hybrid cache mode, context parallel, MoE buffers
# =============================================================================

MAMBA_MODE = RuleMeta(
    id="QL546",
    name="mamba-cache-mode-adjusted",
    severity="error",
    requires=("model", "prefix_caching", "chunked_prefill_flag", "mamba_cache_mode", "version", "speculative"),
    title=Text(en="vLLM changes or rejects the mamba cache mode of a Qwen hybrid model",
               zh="vLLM 会改写或拒绝 Qwen 混合模型的 mamba 缓存模式"),
    why=Text(
        en="For Qwen3.5/3.6 and Qwen3-Next (GDN hybrids without mamba prefix-caching support) vLLM decides the "
        "mamba cache mode at startup: with prefix caching on it uses 'align' ('all' falls back to 'align' with a "
        "warning), and 'align' asserts that chunked prefill is on, so --no-enable-prefix-caching is not the "
        "problem but --no-enable-chunked-prefill is (error). With prefix caching off (the default for these "
        "models from v0.23.0rc1) any --mamba-cache-mode is reset to 'none' (warning). QL703 covers 'all' with "
        "Qwen3.5 MTP.",
        zh="对于 Qwen3.5/3.6 与 Qwen3-Next（不支持 mamba 前缀缓存的 GDN 混合模型），vLLM 在启动时决定 mamba 缓存模式："
        "开启前缀缓存时使用 align（写 all 会打印警告后退回 align），而 align 断言分块预填充必须开启，因此与 "
        "--no-enable-chunked-prefill 同用会失败（错误）。前缀缓存关闭时（自 v0.23.0rc1 起这些模型默认关闭），任何 "
        "--mamba-cache-mode 都会被重置为 none（警告）。Qwen3.5 MTP 搭配 all 的情况由 QL703 报告。",
    ),
    sources=("vllm@v0.23.0:vllm/model_executor/models/config.py L337-393", "vllm@v0.17.0:vllm/model_executor/models/config.py L395-417",
             "vllm@v0.23.0:vllm/config/model.py L1852-1856", "vllm_ascend_facts.md section 4.7"),
    fix="safe",
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --enable-prefix-caching --no-enable-chunked-prefill --max-model-len 8192\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --enable-prefix-caching --max-model-len 8192\n",
            version="v0.23.0",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --no-enable-prefix-caching --mamba-cache-mode align\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --no-enable-prefix-caching\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --no-enable-prefix-caching\n",
            version="v0.23.0",
        ),
    ),
)


@check(MAMBA_MODE, relations=(("requires", "mamba_cache_mode", "prefix_caching"),))
def mamba_mode(scope: Scope):
    """align without chunked prefill; a mode without prefix caching; 'all' falling back to 'align'."""
    model = scope.get("model").model
    if not model.hybrid or not model.family.startswith("Qwen") or not since(scope, "v0.17.0rc1"):
        return
    prefix, mode, serve = scope.get("prefix_caching"), scope.get("mamba_cache_mode"), scope.serve
    if prefix is None and since(scope, "v0.23.0rc1"):
        prefix = False
    where, where_zh = at_version(scope), at_release_zh(scope)
    if prefix is True and not scope.get("chunked_prefill_flag"):
        error = "'Chunked prefill is required for mamba cache mode 'align''"
        yield Finding(MAMBA_MODE,
                      Text(en=f"prefix caching on {model.id} uses mamba cache mode 'align', which asserts chunked prefill; "
                           f"with --no-enable-chunked-prefill {where} stops with AssertionError {error}",
                           zh=f"{model.id} 开启前缀缓存时使用 mamba 缓存模式 align，它断言分块预填充已开启；加上 "
                           f"--no-enable-chunked-prefill 后 {where_zh} 会以 AssertionError {error} 退出"),
                      serve.opt("--enable-chunked-prefill").span,
                      Fix(Text(en="drop --no-enable-chunked-prefill", zh="删除 --no-enable-chunked-prefill")))
    elif prefix is False and mode in ("all", "align"):
        option = serve.opt("--mamba-cache-mode")
        yield Finding(MAMBA_MODE,
                      Text(en=f"--mamba-cache-mode {mode} without prefix caching on {model.id}: vLLM resets it to 'none' "
                           f"({where})",
                           zh=f"{model.id} 未开启前缀缓存却设置了 --mamba-cache-mode {mode}：vLLM 会把它重置为 none（{where_zh}）"),
                      option.span,
                      Fix(Text(en="drop --mamba-cache-mode", zh="删除 --mamba-cache-mode"), drop(option)),
                      severity="warning")
    elif prefix is True and mode == "all":
        spec = scope.get("speculative") or {}
        if spec.get("method") in ("mtp", "qwen3_5_mtp") and model.mtp_method == "qwen3_5_mtp":
            return  # QL703
        option = serve.opt("--mamba-cache-mode")
        yield Finding(MAMBA_MODE,
                      Text(en=f"--mamba-cache-mode all on {model.id}: the model has no 'all'-mode support, so vLLM falls "
                           f"back to 'align' with a warning ({where})",
                           zh=f"{model.id} 设置了 --mamba-cache-mode all：该模型不支持 all 模式，vLLM 会打印警告并退回 align"
                           f"（{where_zh}）"),
                      option.value.span,
                      Fix(Text(en="write --mamba-cache-mode align", zh="改写为 --mamba-cache-mode align"),
                          [Edit(option.value.span, "align")]),
                      severity="info")


PCP = RuleMeta(
    id="QL547",
    name="context-parallel-unsupported",
    severity="error",
    requires=("dp", "speculative", "version"),
    title=Text(en="Context parallel where the release rejects it", zh="在该版本拒绝的配置下使用上下文并行"),
    why=Text(
        en="--prefill-context-parallel-size > 1 (PCP) is release-dependent on Ascend: v0.22.1rc1 to v0.24.0rc1 "
        "stop with ValueError when it is combined with --data-parallel-size > 1; from v0.25.1rc1 PCP is refused "
        "on the default (V1) model runner and only runs with Model Runner V2 (VLLM_USE_V2_MODEL_RUNNER=1, or a "
        "model vLLM runs on V2 by default), so without that variable the rule warns. On main, decode context "
        "parallel (--decode-context-parallel-size > 1) is also refused together with dynamic speculative decoding "
        "(num_speculative_tokens_per_batch_size in --speculative-config).",
        zh="--prefill-context-parallel-size > 1（PCP）在昇腾上与版本有关：v0.22.1rc1 至 v0.24.0rc1 中，与 "
        "--data-parallel-size > 1 同用会以 ValueError 退出；自 v0.25.1rc1 起，默认（V1）模型运行器拒绝 PCP，只有 Model "
        "Runner V2（VLLM_USE_V2_MODEL_RUNNER=1，或 vLLM 默认用 V2 运行的模型）才能运行，因此未设置该变量时给出警告。"
        "在 main 上，解码上下文并行（--decode-context-parallel-size > 1）也不能与动态投机解码"
        "（--speculative-config 中的 num_speculative_tokens_per_batch_size）同用。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/platform.py L349-358", "vllm-ascend@main:vllm_ascend/platform.py L1381-1388",
             "vllm@v0.23.0:vllm/config/vllm.py L519-531", "vllm-ascend@main:vllm_ascend/platform.py L1401-1419",
             "vllm_ascend_facts.md section 4", "vllm_ascend_facts.md section 4.4"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --prefill-context-parallel-size 2 --data-parallel-size 2\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --prefill-context-parallel-size 2\n",
        version="v0.23.0",
    ),),
)


@check(PCP)
def pcp(scope: Scope):
    """PCP > 1 with DP > 1 (v0.22.1rc1..v0.24.0rc1) or on the V1 model runner (v0.25.1rc1+);
    DCP > 1 with dynamic speculative decoding (main)."""
    serve = scope.serve
    dcp = int_option(serve, "--decode-context-parallel-size")
    spec = scope.get("speculative") or {}
    if dcp is not None and dcp > 1 and spec.get("num_speculative_tokens_per_batch_size") \
            and scope.get("version") == MAIN:
        yield Finding(PCP,
                      Text(en=f"--decode-context-parallel-size {dcp} with dynamic speculative decoding "
                           "(num_speculative_tokens_per_batch_size): main stops with ValueError",
                           zh=f"--decode-context-parallel-size {dcp} 与动态投机解码（num_speculative_tokens_per_batch_size）"
                           "同用：main 会以 ValueError 退出"),
                      value_span(serve, "--decode-context-parallel-size"),
                      Fix(Text(en="use --decode-context-parallel-size 1, or drop num_speculative_tokens_per_batch_size",
                               zh="使用 --decode-context-parallel-size 1，或删除 num_speculative_tokens_per_batch_size")))
    size = int_option(serve, "--prefill-context-parallel-size")
    if size is None or size <= 1 or not since(scope, "v0.22.1rc1"):
        return
    span, dp = value_span(serve, "--prefill-context-parallel-size"), scope.get("dp")
    where, where_zh = at_version(scope), at_release_zh(scope)
    if not since(scope, "v0.25.1rc1"):
        if dp > 1:
            yield Finding(PCP,
                          Text(en=f"--prefill-context-parallel-size {size} with --data-parallel-size {dp}: {where} stops "
                               "with ValueError (PCP and DP cannot be enabled together)",
                               zh=f"--prefill-context-parallel-size {size} 与 --data-parallel-size {dp} 同用：{where_zh} 会以 "
                               "ValueError 退出（PCP 与 DP 不能同时开启）"),
                          span,
                          Fix(Text(en="use --data-parallel-size 1 with PCP, or drop PCP",
                                   zh="使用 PCP 时设 --data-parallel-size 1，或不用 PCP")))
        return
    runner = env_text(serve, "VLLM_USE_V2_MODEL_RUNNER")
    if runner is not None and runner.lower() in ("1", "true"):
        return
    explicit = runner is not None
    yield Finding(PCP,
                  Text(en=f"--prefill-context-parallel-size {size}: {where} refuses PCP on the V1 model runner"
                       + ("" if explicit else " (unless vLLM picks Model Runner V2 for this model)"),
                       zh=f"--prefill-context-parallel-size {size}：{where_zh} 在 V1 模型运行器上拒绝 PCP"
                       + ("" if explicit else "（除非 vLLM 为该模型选用 Model Runner V2）")),
                  span,
                  Fix(Text(en="export VLLM_USE_V2_MODEL_RUNNER=1, or use --prefill-context-parallel-size 1",
                           zh="导出 VLLM_USE_V2_MODEL_RUNNER=1，或使用 --prefill-context-parallel-size 1")),
                  severity=None if explicit else "warning")


MEGA_MOE = RuleMeta(
    id="QL548",
    name="mega-moe-max-tokens",
    severity="error",
    requires=("additional_config", "version"),
    title=Text(en="mega_moe_max_tokens is not a positive integer", zh="mega_moe_max_tokens 不是正整数"),
    why=Text(
        en="mega_moe_max_tokens caps the tokens one rank receives in the fused mega-MoE operator. From "
        "v0.23.0rc1 vllm-ascend stops with ValueError unless it is a positive integer. The documentation gives "
        "65536 as its default while main's code uses 131072; any positive value is accepted, so that "
        "disagreement is not reported.",
        zh="mega_moe_max_tokens 限制融合 mega-MoE 算子中单个 rank 接收的 token 数。自 v0.23.0rc1 起，它不是正整数时 "
        "vllm-ascend 会以 ValueError 退出。文档写的默认值是 65536，而 main 的代码用的是 131072；任何正值都会被接受，"
        "因此这一差异不作报告。",
    ),
    sources=("vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L306-318", "vllm-ascend@main:vllm_ascend/ascend_config.py L283-290",
             "vllm_ascend_facts.md section 7 item 21"),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --additional-config '{\"mega_moe_max_tokens\": 0}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --additional-config '{\"mega_moe_max_tokens\": 65536}'\n",
        version="v0.23.0",
    ),),
)


@check(MEGA_MOE)
def mega_moe(scope: Scope):
    """mega_moe_max_tokens <= 0 (non-integers are QL106's)."""
    value = scope.get("additional_config").get("mega_moe_max_tokens")
    if not isinstance(value, int) or isinstance(value, bool) or value > 0 or not since(scope, "v0.23.0rc1"):
        return
    error = "'mega_moe_max_tokens must be a positive integer'"
    yield Finding(MEGA_MOE,
                  Text(en=f"mega_moe_max_tokens {value}: {at_version(scope)} stops with ValueError {error}",
                       zh=f"mega_moe_max_tokens 为 {value}：{at_release_zh(scope)} 会以 ValueError {error} 退出"),
                  key_span(scope.serve, "--additional-config", "mega_moe_max_tokens"),
                  Fix(Text(en="use a positive token count (or drop the key for the default)",
                           zh="使用正的 token 数（或删除该键以使用默认值）")))


MLA_310P = RuleMeta(
    id="QL549",
    name="310p-mla-model",
    severity="error",
    requires=("hardware", "mla_attention", "version"),
    faq="atlas-300i-duo-deployment",
    title=Text(en="An MLA model on Atlas 300I (310P)", zh="在 Atlas 300I（310P）上运行 MLA 模型"),
    why=Text(
        en="The 310P model runner only has the plain attention backend: when it allocates the KV cache it stops "
        "with ValueError 'MLAAttention is not supported for 310P' (and likewise for DeepSeek sparse attention) "
        "from v0.15.0rc1, when MoE models reached 310P. DeepSeek-V3-style models therefore cannot run there.",
        zh="310P 的模型运行器只有普通注意力后端：自 v0.15.0rc1（MoE 模型登陆 310P）起，它在分配 KV 缓存时会以 ValueError "
        "“MLAAttention is not supported for 310P” 退出（DeepSeek 稀疏注意力同样如此）。因此 DeepSeek-V3 类模型无法在其上运行。",
    ),
    sources=("vllm-ascend@v0.15.0rc1:vllm_ascend/_310p/model_runner_310p.py L52",
             "vllm-ascend@v0.23.0:vllm_ascend/_310p/model_runner_310p.py L744-753", "vllm_ascend_facts.md section 4.1"),
    examples=(Example(
        bad="vllm serve deepseek-ai/DeepSeek-V3.1 --dtype float16 --tensor-parallel-size 4\n",
        good="vllm serve Qwen/Qwen3-32B --dtype float16 --tensor-parallel-size 4\n",
        hardware="310p",
        version="v0.23.0",
    ),),
)


@check(MLA_310P)
def mla_310p(scope: Scope):
    """An MLA model served on 310P."""
    if scope.get("hardware") != "310p" or not scope.get("mla_attention") or not since(scope, "v0.15.0rc1"):
        return
    serve = scope.serve
    error = "'MLAAttention is not supported for 310P'"
    yield Finding(MLA_310P,
                  Text(en=f"MLA attention model on Atlas 300I (310P): {at_version(scope)} stops with ValueError {error} "
                       "when it allocates the KV cache",
                       zh=f"在 Atlas 300I（310P）上运行 MLA 注意力模型：{at_release_zh(scope)} 在分配 KV 缓存时会以 ValueError "
                       f"{error} 退出"),
                  serve.model.span if serve.model is not None else serve.span,
                  Fix(Text(en="serve this model on Atlas A2/A3; 310P runs GQA models only",
                           zh="请在 Atlas A2/A3 上运行该模型；310P 只能运行 GQA 模型")))
