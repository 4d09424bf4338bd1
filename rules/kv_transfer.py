"""PD disaggregation rules: --kv-transfer-config against the engine it configures.

Sources (pinned lines in each rule's ``sources``): vllm-ascend's recompute scheduler and PD role
checks, the kv_connector_extra_config checks and Mooncake connectors, and the two tutorials that
disagree on the recompute scheduler (Qwen3.5-397B-A17B vs Qwen3.5-27B/Qwen3.6-27B).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, Unknown, check, fact

PRODUCERS = ("kv_producer", "kv_both")
CONSUMERS = ("kv_consumer", "kv_both")
BLOCK_OF_ROLE = {"prefill": PRODUCERS, "decode": CONSUMERS}
# connectors whose _get_prefill_decode_size asserts tp_size/dp_size in both blocks
ASSERTING = ("MooncakeConnectorV1", "MooncakeHybridConnector")

D_EXAMPLE = (
    "vllm serve /models/Qwen3-32B --tensor-parallel-size 4 --kv-transfer-config "
    "'{{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", "
    "\"kv_connector_extra_config\": {{\"prefill\": {{\"dp_size\": 1, \"tp_size\": 4}}, "
    "\"decode\": {{\"dp_size\": 1, \"tp_size\": {tp}}}}}}}'\n"
)


@fact("kv_engine_sizes", requires=("tp", "dp"))
def kv_engine_sizes(scope: Scope):
    """The engine's TP and DP for comparing with kv_connector_extra_config (None when symbolic)."""
    tp, dp = scope.known("tp"), scope.known("dp")
    return Known({"tp": tp.value if tp else None, "dp": dp.value if dp else None}, "TP/DP of this engine")


@fact("mla_attention", requires=("model",))
def mla_attention(scope: Scope):
    """True for DeepSeek-V3-style MLA models, False for Qwen models, unknown otherwise."""
    model = scope.get("model").model
    if model.family.startswith("Qwen"):
        return Known(False, f"{model.family} uses GQA attention")
    if model.family == "DeepSeek-V3":
        return Known(True, "DeepSeek-V3 family uses MLA")
    raise Unknown("mla_attention")


def _block(config: dict, name: str):
    extra = config.get("kv_connector_extra_config")
    if not isinstance(extra, dict):
        return None
    block = extra.get(name)
    return block if isinstance(block, dict) else None


SIZE_MISMATCH = RuleMeta(
    id="QL601",
    name="kv-parallel-size-mismatch",
    behaviours=("kv_extra_config_size_check",),
    groups=("pd", "kv-transfer", "parallelism"),
    severity="error",
    requires=("kv_transfer", "kv_role", "kv_engine_sizes", "version"),
    fix="safe",
    faq="pd-disaggregation",
    title=Text(en="kv_connector_extra_config sizes disagree with the engine's TP/DP",
               zh="kv_connector_extra_config 中的并行规模与本实例的 TP/DP 不一致"),
    why=Text(
        en="In a PD deployment each instance describes the prefill and decode layouts in "
        "kv_connector_extra_config. vllm-ascend compares the block of its own role with its real "
        "parallel sizes (prefill.* on a kv_producer, decode.* on a kv_consumer, both on kv_both) and "
        "refuses to start when tp_size differs from --tensor-parallel-size or dp_size from "
        "--data-parallel-size. Copying a prefill script to a decode node and changing only TP is the "
        "usual way to hit it.",
        zh="PD 分离部署中，每个实例都在 kv_connector_extra_config 里描述预填充与解码两侧的布局。"
        "vllm-ascend 会把与自身角色对应的那一段与实际并行规模比较（kv_producer 看 prefill.*，"
        "kv_consumer 看 decode.*，kv_both 两段都看）：tp_size 与 --tensor-parallel-size 或 dp_size 与 "
        "--data-parallel-size 不同就拒绝启动。把预填充脚本复制到解码节点后只改了 TP，最容易踩到这一点。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.18.0rc1/vllm_ascend/utils.py#L1125-L1148",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/utils.py#L1429-L1454",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L483-L484",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    ),
    examples=(
        Example(bad=D_EXAMPLE.format(tp=8), good=D_EXAMPLE.format(tp=4), fixed=D_EXAMPLE.format(tp=4)),
    ),
)


@check(SIZE_MISMATCH, relations=(("equals", "kv_transfer", "tp"), ("equals", "kv_transfer", "dp")))
def size_mismatch(scope: Scope):
    config, role = scope.get("kv_transfer"), scope.get("kv_role")
    if config is None:
        return
    sizes = scope.get("kv_engine_sizes")
    checked = kit.holds(scope, "kv_extra_config_size_check")
    for block_name, roles in BLOCK_OF_ROLE.items():
        block = _block(config, block_name)
        if role not in roles or block is None:
            continue
        instance = "prefill" if block_name == "prefill" else "decode"
        instance_zh = "预填充" if block_name == "prefill" else "解码"
        for key, engine_key, flag, word in (("tp_size", "tp", "--tensor-parallel-size", "tensor"),
                                            ("dp_size", "dp", "--data-parallel-size", "data")):
            given, actual = block.get(key), sizes[engine_key]
            if not isinstance(given, int) or isinstance(given, bool) or actual is None or given == actual:
                continue
            path = f"kv_connector_extra_config.{block_name}.{key}"
            if checked:
                quoted = (f"\"KV transfer '{block_name}' config has a conflicting {word} "
                          f"parallel size. Expected {actual}, but got {given}.\"")
                effect = f"startup fails with {quoted}"
                effect_zh = f"启动时报错 {quoted}"
            else:
                effect = "the connector then pairs ranks for a layout this instance does not have"
                effect_zh = "连接器会按本实例并不具备的布局来配对 rank"
            span = kit.span_of(scope.serve, "--kv-transfer-config", path)
            yield Finding(
                SIZE_MISMATCH,
                Text(
                    en=f"{path} ({given}) must equal this {instance} instance's {flag} ({actual}) "
                    f"(kv_role {role}); {effect}",
                    zh=f"{path}（{given}）必须等于本{instance_zh}实例的 {flag}（{actual}）"
                    f"（kv_role {role}）；{effect_zh}",
                ),
                span,
                Fix(Text(en=f"set {block_name}.{key} to {actual} (or run the {instance} instance with {flag} {given})",
                         zh=f"将 {block_name}.{key} 设为 {actual}（或以 {flag} {given} 运行该{instance_zh}实例）"),
                    kit.set_key(scope.serve, "--kv-transfer-config", path, actual)),
            )


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


@check(ROLE_MISSING)
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


SIZES_MISSING = RuleMeta(
    id="QL604",
    name="kv-extra-config-sizes-missing",
    behaviours=("layerwise_connector_asserts_sizes",),
    groups=("pd", "kv-transfer"),
    severity="error",
    requires=("kv_transfer", "version"),
    title=Text(en="The Mooncake connector needs tp_size and dp_size for both prefill and decode",
               zh="Mooncake 连接器要求 prefill 与 decode 两段都给出 tp_size 和 dp_size"),
    why=Text(
        en="MooncakeConnectorV1 and MooncakeHybridConnector read the prefill and decode layouts from "
        "kv_connector_extra_config when they start and assert that both blocks carry tp_size and "
        "dp_size, on every instance. MooncakeLayerwiseConnector made the same assertion up to "
        "v0.14.0rc1 and derives the remote TP from request metadata since v0.15.0rc1, so it is only "
        "checked for those older releases.",
        zh="MooncakeConnectorV1 与 MooncakeHybridConnector 启动时从 kv_connector_extra_config 读取预填充"
        "与解码两侧的布局，并断言两段都包含 tp_size 和 dp_size，每个实例都是如此。"
        "MooncakeLayerwiseConnector 在 v0.14.0rc1 及以前也有同样的断言，自 v0.15.0rc1 起改为从请求元数据"
        "获取对端 TP，因此只对这些旧版本检查。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_connector.py#L2066-L2088",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_hybrid_connector.py#L1582-L1600",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.14.0rc1/vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_layerwise_connector.py",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-32B --tensor-parallel-size 4 --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\", "
            "\"kv_connector_extra_config\": {\"prefill\": {\"dp_size\": 1, \"tp_size\": 4}}}'\n",
            good="vllm serve /models/Qwen3-32B --tensor-parallel-size 4 --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\", "
            "\"kv_connector_extra_config\": {\"prefill\": {\"dp_size\": 1, \"tp_size\": 4}, "
            "\"decode\": {\"dp_size\": 1, \"tp_size\": 4}}}'\n",
        ),
    ),
)


def _asserts_sizes(scope: Scope, config: dict) -> bool:
    connector = config.get("kv_connector")
    module = str(config.get("kv_connector_module_path") or "")
    if connector in ASSERTING:
        return True
    if connector == "MooncakeConnector" and module.rsplit(".", 1)[-1] in ("mooncake_connector",
                                                                           "mooncake_hybrid_connector"):
        return True
    return connector == "MooncakeLayerwiseConnector" and kit.holds(scope, "layerwise_connector_asserts_sizes")


@check(SIZES_MISSING)
def sizes_missing(scope: Scope):
    config = scope.get("kv_transfer")
    if config is None or not _asserts_sizes(scope, config):
        return
    missing = [f"{name}.{key}" for name in ("prefill", "decode") for key in ("tp_size", "dp_size")
               if key not in (_block(config, name) or {})]
    if not missing:
        return
    first_block = missing[0].split(".")[0]
    serve = scope.serve
    block_key = f"kv_connector_extra_config.{first_block}"
    span = kit.span_of(serve, "--kv-transfer-config",
                       block_key if kit.key_mapped(serve, "--kv-transfer-config", block_key) else "kv_connector_extra_config")
    yield Finding(
        SIZES_MISSING,
        Text(
            en=f"{config['kv_connector']} asserts tp_size and dp_size in both kv_connector_extra_config blocks, "
            f"but {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing (AssertionError at startup)",
            zh=f"{config['kv_connector']} 断言 kv_connector_extra_config 的两段都包含 tp_size 和 dp_size，"
            f"但缺少 {', '.join(missing)}（启动时报 AssertionError）",
        ),
        span,
        Fix(Text(en="give prefill.{tp_size,dp_size} = the prefill instances' TP/DP and decode.{tp_size,dp_size} = "
                 "the decode instances' TP/DP, identically on every instance",
                 zh="将 prefill.{tp_size,dp_size} 设为预填充实例的 TP/DP，decode.{tp_size,dp_size} 设为解码实例的 "
                 "TP/DP，并在每个实例上保持一致")),
    )


TP_RATIO = RuleMeta(
    id="QL605",
    name="pd-tp-ratio",
    groups=("pd", "kv-transfer", "parallelism"),
    severity="error",
    requires=("kv_transfer", "kv_role", "kv_engine_sizes", "mla_attention"),
    title=Text(en="Prefill TP is not a multiple of decode TP", zh="预填充 TP 不是解码 TP 的整数倍"),
    why=Text(
        en="For models without MLA (Qwen and other GQA models) vllm-ascend maps each decode rank onto "
        "a whole group of prefill ranks, so it asserts that prefill.tp_size is divisible by "
        "decode.tp_size; a prefill side with fewer TP ranks than the decode side cannot be laid out. "
        "MLA models (DeepSeek-V3 family) are exempt.",
        zh="对没有 MLA 的模型（Qwen 等 GQA 模型），vllm-ascend 把每个解码 rank 对应到一组完整的预填充 rank，"
        "因此断言 prefill.tp_size 能被 decode.tp_size 整除；预填充侧 TP 比解码侧小则无法排布。"
        "MLA 模型（DeepSeek-V3 系列）不受此限制。",
    ),
    sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L205-L235",),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-32B --tensor-parallel-size 2 --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\", "
            "\"kv_connector_extra_config\": {\"prefill\": {\"dp_size\": 1, \"tp_size\": 2}, "
            "\"decode\": {\"dp_size\": 1, \"tp_size\": 4}}}'\n",
            good="vllm serve /models/Qwen3-32B --tensor-parallel-size 4 --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\", "
            "\"kv_connector_extra_config\": {\"prefill\": {\"dp_size\": 1, \"tp_size\": 4}, "
            "\"decode\": {\"dp_size\": 1, \"tp_size\": 2}}}'\n",
        ),
    ),
)


@check(TP_RATIO)
def tp_ratio(scope: Scope):
    config = scope.get("kv_transfer")
    if config is None or scope.get("mla_attention"):
        return
    prefill = (_block(config, "prefill") or {"tp_size": 1}).get("tp_size")
    decode = (_block(config, "decode") or {"tp_size": 1}).get("tp_size")
    if not (isinstance(prefill, int) and isinstance(decode, int)) or isinstance(prefill, bool) \
            or isinstance(decode, bool) or prefill <= 0 or decode <= 0:
        return
    if prefill % decode == 0:
        return
    own = {"kv_producer": prefill, "kv_consumer": decode}.get(scope.get("kv_role"))
    engine_tp = scope.get("kv_engine_sizes")["tp"]
    if own is not None and engine_tp is not None and own != engine_tp:
        return  # this instance's own block disagrees with its TP: QL601 reports that first
    decode_key = "kv_connector_extra_config.decode.tp_size"
    divisors = ", ".join(str(d) for d in kit.divisors(prefill)[:24])
    yield Finding(
        TP_RATIO,
        Text(
            en=f"prefill.tp_size {prefill} is not a multiple of decode.tp_size {decode}; vllm-ascend asserts "
            "\"Prefill TP size must be divisible by Decode TP size.\" for non-MLA models",
            zh=f"prefill.tp_size {prefill} 不是 decode.tp_size {decode} 的整数倍；对非 MLA 模型，vllm-ascend 会断言 "
            "\"Prefill TP size must be divisible by Decode TP size.\"",
        ),
        kit.span_of(scope.serve, "--kv-transfer-config", decode_key if kit.key_mapped(
            scope.serve, "--kv-transfer-config", decode_key) else "kv_connector_extra_config.prefill.tp_size"),
        Fix(Text(en=f"make the prefill TP a multiple of the decode TP (decode TP must divide prefill TP {prefill}: "
                 f"{divisors})",
                 zh=f"让预填充 TP 成为解码 TP 的整数倍（解码 TP 必须能整除预填充 TP {prefill}：{divisors}）"),
            safety="unsafe"),
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


@check(RECOMPUTE)
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
