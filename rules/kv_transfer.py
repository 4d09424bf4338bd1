"""KV transfer (PD disaggregation) per engine: kv_connector_extra_config against the engine's TP/DP
(QL601), the sizes the Mooncake connectors assert (QL604) and the prefill/decode TP ratio (QL605).
kv_role and the recompute scheduler are ``kv_roles`` (QL602, QL603).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, check, fact

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


@check(SIZE_MISMATCH, relations=(("equals", "kv_transfer", "tp"), ("equals", "kv_transfer", "dp")), when=("kv_transfer",))
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


@check(SIZES_MISSING, when=("kv_transfer",))
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


@check(TP_RATIO, when=("kv_transfer",))
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
