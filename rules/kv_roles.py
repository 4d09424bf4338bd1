"""kv_role of a PD engine: a connector without a role (QL602), and the recompute scheduler on the
wrong kind of instance (QL603).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

ROLE_MISSING = RuleMeta(
    id="QL602",
    name="kv-role-missing",
    groups=("pd", "kv-transfer"),
    severity="error",
    requires=("kv_transfer",),
    title=Text(en="kv_connector is set but kv_role is not", zh="设置了 kv_connector 却没有设置 kv_role"),
    why=Text(
        en="vLLM's KVTransferConfig refuses a connector without a role: every PD instance must say "
        "whether it produces KV (prefill, kv_producer), consumes it (decode, kv_consumer) or both "
        "(kv_both). Values outside that list are reported by QL106.",
        zh="vLLM 的 KVTransferConfig 不接受没有角色的连接器：每个 PD 实例都必须声明自己是产生 KV 的一方"
        "（预填充，kv_producer）、消费 KV 的一方（解码，kv_consumer）还是两者兼有（kv_both）。"
        "取值不在列表内的情况由 QL106 报告。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/kv_transfer.py",),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-32B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\"}'\n",
            good="vllm serve /models/Qwen3-32B --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
        ),
    ),
)


@check(ROLE_MISSING, when=("kv_transfer",))
def role_missing(scope: Scope):
    config = scope.get("kv_transfer")
    if config is None or config.get("kv_connector") is None or config.get("kv_role") is not None:
        return
    yield Finding(
        ROLE_MISSING,
        Text(
            en=f"kv_connector {config['kv_connector']} is set without kv_role; vLLM stops with \"Please specify "
            "kv_role when kv_connector is set\"",
            zh=f"设置了 kv_connector {config['kv_connector']} 却没有设置 kv_role；vLLM 会报错退出：\"Please specify "
            "kv_role when kv_connector is set\"",
        ),
        kit.span_of(scope.serve, "--kv-transfer-config", "kv_connector"),
        Fix(Text(en="add \"kv_role\": \"kv_producer\" on prefill instances or \"kv_consumer\" on decode instances",
                 zh="在预填充实例上添加 \"kv_role\": \"kv_producer\"，在解码实例上添加 \"kv_role\": \"kv_consumer\"")),
    )


# -- recompute scheduler -------------------------------------------------------

RECOMPUTE = RuleMeta(
    id="QL603",
    name="recompute-scheduler-placement",
    behaviours=("recompute_scheduler_ignored_on_prefill", "recompute_scheduler_rejects_mixed", "scheduler_config_nested"),
    groups=("pd", "scheduling"),
    severity="error",
    requires=("additional_config", "kv_transfer", "kv_role", "version"),
    fix="safe",
    faq="pd-disaggregation",
    title=Text(en="recompute_scheduler_enable on the wrong kind of instance",
               zh="recompute_scheduler_enable 开在了不适用的实例上"),
    why=Text(
        en="The recompute scheduler sends requests whose KV no longer fits on a decode node back to "
        "prefill. Without PD roles (no --kv-transfer-config, or kv_both) vllm-ascend refuses it from "
        "v0.18.0. On a prefill node (kv_producer) the sources disagree: the Qwen3.5-397B-A17B tutorial recommends enabling it "
        "on both prefill and decode nodes, while the Qwen3.5-27B/Qwen3.6-27B tutorial says decode nodes only. The code decides, by "
        "release: up to v0.22.1rc1 it is accepted on prefill nodes; from v0.23.0rc1 it is ignored there "
        "with a warning, so the rule warns from that release on and stays silent before it.",
        zh="重计算调度器会把解码节点上 KV 放不下的请求送回预填充节点重新计算。没有 PD 角色时"
        "（未给 --kv-transfer-config，或 kv_role 为 kv_both），vllm-ascend 自 v0.18.0 起拒绝启动。"
        "对预填充节点（kv_producer）两份教程说法不同：Qwen3.5-397B-A17B 教程建议预填充和解码节点都开启，Qwen3.5-27B/Qwen3.6-27B 教程则说只在"
        "解码节点开启。以代码为准并按版本区分：v0.22.1rc1 及以前预填充节点可以开启；自 v0.23.0rc1 起在"
        "预填充节点上会被忽略并打印警告，所以本规则从该版本起给出警告，之前的版本不报告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.22.1rc1/vllm_ascend/platform.py#L677-L689",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L689-L710",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L895-L925",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541 (Notice)",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-32B --additional-config '{\"recompute_scheduler_enable\": true}'\n",
            good="vllm serve /models/Qwen3-32B --additional-config '{\"recompute_scheduler_enable\": true}' "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        ),
        Example(
            bad="vllm serve /models/Qwen3-32B --additional-config "
            "'{\"recompute_scheduler_enable\": true, \"enable_cpu_binding\": true}' "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
            good="vllm serve /models/Qwen3-32B --additional-config '{\"enable_cpu_binding\": true}' "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
            fixed="vllm serve /models/Qwen3-32B --additional-config '{\"enable_cpu_binding\": true}' "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
            version="v0.23.0",
        ),
    ),
)


def _recompute_key(scope: Scope, config: dict) -> str | None:
    """The dotted additional-config key that decides recompute_scheduler_enable, if it is on."""
    nested = config.get("scheduler_config")
    if kit.holds(scope, "scheduler_config_nested") and isinstance(nested, dict) \
            and "recompute_scheduler_enable" in nested:
        return "scheduler_config.recompute_scheduler_enable" if nested["recompute_scheduler_enable"] is True else None
    return "recompute_scheduler_enable" if config.get("recompute_scheduler_enable") is True else None


@check(RECOMPUTE, when=("additional_config",))
def recompute_placement(scope: Scope):
    version = scope.get("version")
    key = _recompute_key(scope, scope.get("additional_config"))
    if key is None:
        return
    span = kit.span_of(scope.serve, "--additional-config", key)
    config, role = scope.get("kv_transfer"), scope.get("kv_role")
    if role == "kv_producer":
        ignored_since = kit.first_release(scope.kb, "recompute_scheduler_ignored_on_prefill")
        if not kit.holds(scope, "recompute_scheduler_ignored_on_prefill"):
            return
        yield Finding(
            RECOMPUTE,
            Text(
                en=f"{key}=true on a prefill instance (kv_role kv_producer) is ignored with a warning from "
                f"{ignored_since} on (this script: {version}); the recompute scheduler only runs on decode "
                "instances",
                zh=f"自 {ignored_since} 起，预填充实例（kv_role kv_producer）上的 {key}=true 会被忽略并打印警告"
                f"（本脚本：{version}）；重计算调度器只在解码实例上运行",
            ),
            span,
            Fix(Text(en=f"remove {key} from this prefill instance's --additional-config",
                     zh=f"从该预填充实例的 --additional-config 中删除 {key}"),
                kit.drop_key(scope.serve, "--additional-config", key)),
            severity="warning",
        )
    elif role not in ("kv_consumer", "kv_producer") and kit.holds(scope, "recompute_scheduler_rejects_mixed"):
        p_ignored = kit.holds(scope, "recompute_scheduler_ignored_on_prefill")
        where = "without --kv-transfer-config" if config is None else f"with kv_role {role}"
        where_zh = "未设置 --kv-transfer-config 时" if config is None else f"kv_role 为 {role} 时"
        quoted = (f"\"recompute_scheduler_enable can only be "
                  f"enabled {'on PD-disaggregated D nodes' if p_ignored else 'in PD-disaggregated mode'}\"")
        needs_zh = "解码实例（kv_role kv_consumer）" if p_ignored else "PD 分离实例"
        yield Finding(
            RECOMPUTE,
            Text(
                en=f"{key}=true {where}: vllm-ascend {version} refuses it ({quoted}); "
                f"it needs a {'decode instance (kv_role kv_consumer)' if p_ignored else 'PD instance'}",
                zh=f"{where_zh}设置了 {key}=true：vllm-ascend {version} 会拒绝启动（{quoted}）；"
                f"它只能用于{needs_zh}",
            ),
            span,
            Fix(Text(en=f"remove {key}, or run this instance as a PD decode node (kv_role kv_consumer)",
                     zh=f"删除 {key}，或将本实例作为 PD 解码节点运行（kv_role kv_consumer）"),
                # safe like the rule's other fix: the release refuses to start with the key, and dropping it
                # is the only change that keeps the rest of the command as written
                kit.drop_key(scope.serve, "--additional-config", key)),
        )
