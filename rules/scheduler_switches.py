"""Startup checks on vllm-ascend's scheduler extensions in ``--additional-config``
(QL525-QL528): profiling-based chunked prefill, balance scheduling on PD nodes,
ShortRequestFirst and DyntraLB. From v0.25.1rc1 they live under ``scheduler_config``; the
top-level spellings are read from the release that introduced them.

Sources: ``vllm_ascend/ascend_config.py`` and
``vllm_ascend/platform.py`` at v0.19.1rc1, v0.23.0, v0.25.1rc1 and main (line ranges in each
rule's ``sources``).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import Span



def scheduler_setting(scope: Scope, key: str, top_level: str | None):
    """(value, dotted key) of a scheduler extension switch in --additional-config, or None.

    ``scheduler_config.<key>`` wins from v0.25.1rc1 on; the top-level spelling is read from
    ``top_level`` (a behaviour name) (and, deprecated, still on main)."""
    config = scope.get("additional_config")
    nested = config.get("scheduler_config")
    if kit.holds(scope, "scheduler_config_nested") and isinstance(nested, dict) and key in nested:
        return nested[key], f"scheduler_config.{key}"
    if top_level is not None and kit.holds(scope, top_level) and key in config:
        return config[key], key
    return None


def balance_scheduling(scope: Scope) -> tuple[str, Span] | None:
    """Where balance scheduling is switched on (key from v0.20.2rc1, env var from v0.18.0), or None."""
    if not kit.holds(scope, "balance_scheduling_env_read"):
        return None
    serve = scope.serve
    found = scheduler_setting(scope, "enable_balance_scheduling", "balance_scheduling_key_read")
    if found is not None:
        value, dotted = found
        return (f"additional-config {dotted}=true", kit.span_of(serve, "--additional-config", dotted)) if value else None
    text = kit.env(serve, "VLLM_ASCEND_BALANCE_SCHEDULING").value
    if text is None or not text.lstrip("-").isdigit() or int(text) == 0:
        return None
    return f"VLLM_ASCEND_BALANCE_SCHEDULING={text}", kit.env_span(serve, "VLLM_ASCEND_BALANCE_SCHEDULING")


def _enabled(section) -> bool:
    return isinstance(section, dict) and section.get("enabled") is True


PROFILING_CHUNK = RuleMeta(
    id="QL525",
    name="profiling-chunk-constraints",
    behaviours=("profiling_chunk_checks", "scheduler_config_nested", "balance_scheduling_env_read", "balance_scheduling_key_read"),
    applies="profiling_chunk_checks",
    groups=("scheduling",),
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
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L55-L95",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L72-L104",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"profiling_chunk_config\": {\"enabled\": true}}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --pipeline-parallel-size 2 "
        "--additional-config '{\"profiling_chunk_config\": {\"enabled\": true}}'\n",
        version="v0.23.0",
    ),),
)


@check(PROFILING_CHUNK, relations=(("requires", "additional_config", "pp"),), when=("additional_config",))
def profiling_chunk(scope: Scope):
    """profiling_chunk_config.enabled with PP 1 or with balance scheduling."""
    found = scheduler_setting(scope, "profiling_chunk_config", "profiling_chunk_checks")
    if found is None or not _enabled(found[0]):
        return
    dotted = found[1]
    span = kit.span_of(scope.serve, "--additional-config", f"{dotted}.enabled")
    pp, where, where_zh = scope.get("pp"), kit.at_version(scope).en, kit.at_version(scope).zh
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
    behaviours=("balance_scheduling_env_read", "balance_scheduling_key_read", "scheduler_config_nested"),
    applies="balance_scheduling_env_read",
    groups=("scheduling", "pd"),
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
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.19.1rc1/vllm_ascend/platform.py#L474-L482",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L677-L685",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L822-L831",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_balance_scheduling\": true}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --additional-config '{\"enable_balance_scheduling\": true}'\n",
        version="v0.23.0",
    ), Example(
        bad="export VLLM_ASCEND_BALANCE_SCHEDULING=1\nvllm serve Qwen/Qwen3.6-27B "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        good="export VLLM_ASCEND_BALANCE_SCHEDULING=1\nvllm serve Qwen/Qwen3.6-27B\n",
        version="v0.18.0",
    )),
)


@check(BALANCE_PD, when=("kv_transfer",))
def balance_on_pd(scope: Scope):
    """Balance scheduling with kv_role kv_producer / kv_consumer."""
    balance = balance_scheduling(scope)
    role = scope.get("kv_role")
    if balance is None or scope.get("kv_transfer") is None or role == "kv_both":
        return
    error = "'enable_balance_scheduling only supports PD-mixed mode'"
    yield Finding(
        BALANCE_PD,
        Text(en=f"{balance[0]} on a PD node (kv_role {role}): {kit.at_version(scope).en} stops with ValueError {error}",
             zh=f"在 PD 节点（kv_role {role}）上开启了 {balance[0]}：{kit.at_version(scope).zh} 会以 ValueError {error} 退出"),
        balance[1],
        Fix(Text(en="switch balance scheduling off on PD-disaggregated nodes", zh="在 PD 分离节点上关闭均衡调度")),
    )


SHORT_FIRST = RuleMeta(
    id="QL527",
    name="short-request-first-conflicts",
    behaviours=("short_request_first_checks", "short_request_first_read", "scheduler_config_nested"),
    applies="short_request_first_checks",
    groups=("scheduling",),
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
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.25.1rc1/vllm_ascend/platform.py#L650-L670",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L835-L862",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --scheduling-policy priority "
        "--additional-config '{\"scheduler_config\": {\"short_request_first_config\": {\"enabled\": true}}}'\n",
        good="vllm serve Qwen/Qwen3.6-27B "
        "--additional-config '{\"scheduler_config\": {\"short_request_first_config\": {\"enabled\": true}}}'\n",
        version="main",
    ),),
)


@check(SHORT_FIRST, when=("additional_config",))
def short_first(scope: Scope):
    """short_request_first_config with a non-fcfs policy, batch-job / profiling scheduling, or on kv_consumer."""
    if not kit.holds(scope, "short_request_first_checks"):
        return
    found = scheduler_setting(scope, "short_request_first_config", "short_request_first_read")
    if found is None or not _enabled(found[0]):
        return
    serve, where, where_zh = scope.serve, kit.at_version(scope).en, kit.at_version(scope).zh
    span = kit.span_of(serve, "--additional-config", f"{found[1]}.enabled")
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
    behaviours=("dyntra_lb_checks", "scheduler_config_nested"),
    applies="dyntra_lb_checks",
    groups=("scheduling", "pd", "parallelism"),
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
    sources=("https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L865-L893",),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 "
        "--additional-config '{\"scheduler_config\": {\"dyntra_lb_config\": {\"enabled\": true}}}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 "
        "--additional-config '{\"scheduler_config\": {\"dyntra_lb_config\": {\"enabled\": true}}}' "
        "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="main",
    ),),
)


@check(DYNTRA, when=("additional_config",))
def dyntra(scope: Scope):
    """dyntra_lb_config.enabled off a single-node kv_consumer with DP > 1, or with balance/profiling."""
    if not kit.holds(scope, "dyntra_lb_checks"):
        return
    nested = scope.get("additional_config").get("scheduler_config")
    if not isinstance(nested, dict) or not _enabled(nested.get("dyntra_lb_config")):
        return
    span = kit.span_of(scope.serve, "--additional-config", "scheduler_config.dyntra_lb_config.enabled")
    role, dp, local = scope.get("kv_role"), scope.get("dp"), scope.get("dp_local")
    problems = []
    if role != "kv_consumer":
        problems.append(Text(en=kit.kv_role_phrase(role).en + " (it needs kv_consumer)", zh=kit.kv_role_phrase(role).zh + "（它要求 kv_consumer）"))
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
