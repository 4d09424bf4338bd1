"""Startup checks on ``--kv-transfer-config`` fields (QL531-QL533): the recompute load-failure
policy on hybrid models, fields vllm-ascend overwrites (engine_id, kv_buffer_size,
enable_permute_local_kv), and kv_connector names outside the connector registries. The PD
rules over the same option are in ``kv_transfer``.

Sources: vllm-ascend v0.23.0 ``vllm_ascend/platform.py``, ``vllm_ascend/distributed/kv_transfer/__init__.py``
(v0.23.0 and main), ``vllm@v0.23.0:vllm/config/kv_transfer.py L70-73`` and
``vllm@v0.23.0:vllm/distributed/kv_transfer/kv_connector/factory.py L96-128``.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

LOAD_FAILURE = RuleMeta(
    id="QL531",
    name="kv-load-failure-recompute-hybrid",
    behaviours=("kv_load_failure_policy_checked",),
    applies="kv_load_failure_policy_checked",
    groups=("kv-transfer", "pd"),
    severity="error",
    requires=("kv_transfer", "hybrid", "version"),
    title=Text(en="kv_load_failure_policy recompute on a hybrid model",
               zh="混合模型使用 kv_load_failure_policy recompute"),
    why=Text(
        en="When a KV block fails to load, policy 'recompute' reschedules the request to compute it again. "
        "vllm-ascend cannot do that for hybrid GDN models (Qwen3.5/3.6, Qwen3-Next) and, from v0.21.0rc1, stops "
        "with AssertionError. vLLM's default 'fail' is accepted.",
        zh="KV 块加载失败时，策略 recompute 会重新调度请求并重算。vllm-ascend 无法对混合 GDN 模型（Qwen3.5/3.6、"
        "Qwen3-Next）这样做，自 v0.21.0rc1 起会以 AssertionError 退出。vLLM 默认的 fail 可以使用。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L903-L911",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L927-L934",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/kv_transfer.py#L70-L73",
    ),
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


@check(LOAD_FAILURE, when=("kv_transfer",))
def load_failure(scope: Scope):
    """kv_load_failure_policy recompute with a hybrid model."""
    config = scope.get("kv_transfer")
    if not config or config.get("kv_load_failure_policy") != "recompute" or not scope.get("hybrid"):
        return
    if not kit.holds(scope, "kv_load_failure_policy_checked"):
        return
    span = kit.span_of(scope.serve, "--kv-transfer-config", "kv_load_failure_policy")
    error = "'Hybrid models do not support recompute mode kv load failure policy now'"
    yield Finding(
        LOAD_FAILURE,
        Text(en=f"kv_load_failure_policy \"recompute\" on a hybrid GDN model: {kit.at_version(scope).en} stops with "
             f"AssertionError {error}",
             zh=f"混合 GDN 模型使用 kv_load_failure_policy \"recompute\"：{kit.at_version(scope).zh} 会以 AssertionError "
             f"{error} 退出"),
        span,
        Fix(Text(en='use "kv_load_failure_policy": "fail" (vLLM\'s default)',
                 zh='使用 "kv_load_failure_policy": "fail"（vLLM 的默认值）'),
            kit.set_key(scope.serve, "--kv-transfer-config", "kv_load_failure_policy", "fail")),
    )


KV_OVERWRITTEN = RuleMeta(
    id="QL532",
    name="kv-transfer-fields-overwritten",
    behaviours=("kv_engine_id_made_unique", "kv_buffer_settings_reset"),
    applies="kv_engine_id_made_unique",
    groups=("kv-transfer", "pd"),
    severity="info",
    requires=("kv_transfer", "version"),
    title=Text(en="A kv-transfer-config field that vllm-ascend overwrites", zh="vllm-ascend 会改写的 kv-transfer-config 字段"),
    why=Text(
        en="vllm-ascend rewrites three kv-transfer-config fields at startup: engine_id gets a random suffix "
        "(so the ids in the tutorial scripts need not be unique and the docs dropped them), and from v0.21.0rc1 "
        "kv_buffer_size is reset to 1e9 and enable_permute_local_kv to false, because both only matter for GPU "
        "connector backends. The values written have no effect.",
        zh="vllm-ascend 在启动时会改写 kv-transfer-config 的三个字段：engine_id 会被追加随机后缀（因此教程脚本里的 id "
        "无需唯一，文档也已删除它们）；自 v0.21.0rc1 起 kv_buffer_size 被重置为 1e9，enable_permute_local_kv 被重置为 "
        "false，因为两者只对 GPU 连接器后端有意义。写上的取值不起作用。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L483-L487",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L1134-L1152",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L594-L620",
    ),
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config "
        "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"engine_id\": \"1\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config "
        "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


@check(KV_OVERWRITTEN, when=("kv_transfer",))
def kv_overwritten(scope: Scope):
    """engine_id, kv_buffer_size != 1e9, enable_permute_local_kv=true in --kv-transfer-config."""
    config = scope.get("kv_transfer")
    if not config:
        return
    serve, where, where_zh = scope.serve, kit.at_version(scope).en, kit.at_version(scope).zh
    if config.get("engine_id") is not None and kit.holds(scope, "kv_engine_id_made_unique"):
        engine = json.dumps(config["engine_id"])
        yield Finding(
            KV_OVERWRITTEN,
            Text(en=f"engine_id {engine}: {where} appends a random suffix to it, so it need not be unique and can be "
                 "left out",
                 zh=f"engine_id {engine}：{where_zh} 会为它追加随机后缀，因此无需保证唯一，可以不写"),
            kit.span_of(serve, "--kv-transfer-config", "engine_id"),
            Fix(Text(en="drop engine_id from --kv-transfer-config", zh="从 --kv-transfer-config 中删除 engine_id")),
        )
    if not kit.holds(scope, "kv_buffer_settings_reset"):
        return
    size = config.get("kv_buffer_size")
    if isinstance(size, (int, float)) and not isinstance(size, bool) and size != 1e9:
        yield Finding(KV_OVERWRITTEN,
                      Text(en=f"kv_buffer_size {size:g}: {where} resets it to 1e9 (it only sizes GPU connector buffers)",
                           zh=f"kv_buffer_size {size:g}：{where_zh} 会把它重置为 1e9（它只决定 GPU 连接器的缓冲区大小）"),
                      kit.span_of(serve, "--kv-transfer-config", "kv_buffer_size"),
                      Fix(Text(en="drop kv_buffer_size", zh="删除 kv_buffer_size")))
    if config.get("enable_permute_local_kv") is True:
        yield Finding(KV_OVERWRITTEN,
                      Text(en=f"enable_permute_local_kv true: {where} resets it to false",
                           zh=f"enable_permute_local_kv 为 true：{where_zh} 会把它重置为 false"),
                      kit.span_of(serve, "--kv-transfer-config", "enable_permute_local_kv"),
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
    behaviours=("ascend_kv_connectors_registered",),
    applies="ascend_kv_connectors_registered",
    groups=("kv-transfer", "pd"),
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
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/distributed/kv_transfer/kv_connector/factory.py#L96-L128",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/distributed/kv_transfer/__init__.py#L21-L87",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/distributed/kv_transfer/__init__.py#L21-L101",
    ),
    fix="unsafe",
    examples=(Example(
        bad="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorv1\", \"kv_role\": \"kv_consumer\"}'\n",
        good="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        fixed="vllm serve Qwen/Qwen3.6-27B --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n",
        version="v0.23.0",
    ),),
)


@check(UNKNOWN_CONNECTOR, when=("kv_transfer",))
def unknown_connector(scope: Scope):
    """A kv_connector name outside the vLLM and vllm-ascend registries (no module path)."""
    config = scope.get("kv_transfer")
    if not config or config.get("kv_connector_module_path") or not kit.holds(scope, "ascend_kv_connectors_registered"):
        return
    name = config.get("kv_connector")
    known = VLLM_CONNECTORS + ASCEND_CONNECTORS
    if not isinstance(name, str) or name in known:
        return
    span = kit.span_of(scope.serve, "--kv-transfer-config", "kv_connector")
    from difflib import get_close_matches  # imported when a spelling is wrong
    close = get_close_matches(name, known, n=1, cutoff=0.8)
    lowered = [k for k in known if k.lower() == name.lower()]
    suggestion = (lowered or close or [None])[0]
    error = "'Unsupported connector type'"
    yield Finding(
        UNKNOWN_CONNECTOR,
        Text(en=f"kv_connector {json.dumps(name)} is not a registered connector: {kit.at_version(scope).en} stops with "
             f"ValueError {error}" + (f"; did you mean {suggestion}?" if suggestion else ""),
             zh=f"kv_connector {json.dumps(name)} 不是已注册的连接器：{kit.at_version(scope).zh} 会以 ValueError {error} 退出"
             + (f"；是否想写 {suggestion}？" if suggestion else "")),
        span,
        Fix(Text(en=f"use {suggestion}" if suggestion else "use a registered connector such as MooncakeConnectorV1",
                 zh=f"改用 {suggestion}" if suggestion else "改用已注册的连接器，例如 MooncakeConnectorV1"),
            kit.set_key(scope.serve, "--kv-transfer-config", "kv_connector", suggestion) if suggestion else [], "unsafe"),
    )
