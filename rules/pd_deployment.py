"""Rules over a whole PD deployment: prefill scripts, decode scripts and the proxy together
(QL610 peer sizes, QL611 served names, QL614 the proxy against the engines). DP groups spread over
nodes are ``dp_spread`` (QL612), the kv_port range ``kv_port`` (QL613).

A deployment is the set of scripts linted in one call (or one directory). Roles come from
``kv_role``. Sources: each rule's ``sources`` (the Mooncake connectors, ``check_kv_extra_config``,
the proxy's arguments, the PD sections of the tutorials).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import ServeCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.linter.topology import Engine

PD_SOURCES = (
    "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
)


def _engine(role: str, port: int, name: str = "qwen3.6", decode_tp: int = 2, extra: str = "") -> str:
    """A small PD engine script for the rule examples."""
    return (
        f"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --port {port} --served-model-name {name} "
        f"--tensor-parallel-size 2 {extra}--kv-transfer-config '{{\"kv_connector\": \"MooncakeConnectorV1\", "
        f"\"kv_role\": \"{role}\", \"kv_port\": \"36000\", \"kv_connector_extra_config\": "
        f"{{\"prefill\": {{\"tp_size\": 2, \"dp_size\": 1}}, \"decode\": {{\"tp_size\": {decode_tp}, \"dp_size\": 1}}}}}}'\n"
    )


PREFILL = _engine("kv_producer", 8100)
DECODE = _engine("kv_consumer", 8200)


SIDES = {"kv_producer": "prefill", "kv_consumer": "decode"}


def engines(scope: Scope) -> list[Engine]:
    """The PD engines of the deployment's topology (``kit.topology``), prefill and decode, in script order."""
    return [e for e in kit.topology(scope).engines() if e.role in SIDES]


def _value(engine: Engine, name: str):
    known = engine.scope.known(name)
    return None if known is None else known.value


PEER_SIZES = RuleMeta(
    id="QL610",
    name="pd-peer-size-mismatch",
    groups=("pd", "kv-transfer"),
    severity="error",
    scope="deployment",
    fix="safe",
    title=Text(en="kv_connector_extra_config describes the other side wrongly",
               zh="kv_connector_extra_config 中对端的并行规模与实际不符"),
    why=Text(
        en="Each engine's kv_connector_extra_config names the TP and DP of both the prefill and the decode "
        "engines. vllm-ascend checks only its own side at startup; the other side is used to map KV "
        "blocks between ranks, so a wrong peer size shows up later as failed or mismatched transfers. "
        "qlint compares it with the TP/DP the peer scripts really run.",
        zh="每个引擎的 kv_connector_extra_config 同时写明了 prefill 与 decode 引擎的 TP 和 DP。vllm-ascend 启动时只校验"
        "本端；对端的数值用于在 rank 之间映射 KV 块，写错会在之后表现为传输失败或错位。qlint 将其与对端脚本实际运行的 TP/DP 比较。",
    ),
    sources=PD_SOURCES + (
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/utils.py#L1429-L1452",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_connector.py#L2066-L2085",
    ),
    examples=(Example(bad=_engine("kv_producer", 8100, decode_tp=4), good=PREFILL, fixed=_engine("kv_producer", 8100, decode_tp=2), peers=(DECODE,)),),
)


@check(PEER_SIZES, when=("option:--kv-transfer-config",))
def peer_sizes(scope: Scope):
    found = engines(scope)
    real: dict[str, dict[str, set]] = {"prefill": {"tp_size": set(), "dp_size": set()},
                                        "decode": {"tp_size": set(), "dp_size": set()}}
    names: dict[str, list[str]] = {"prefill": [], "decode": []}
    for engine in found:
        side = "prefill" if engine.role == "kv_producer" else "decode"
        tp, dp = _value(engine, "tp"), _value(engine, "dp")
        if tp is not None:
            real[side]["tp_size"].add(tp)
        if dp is not None:
            real[side]["dp_size"].add(dp)
        if engine.script not in names[side]:  # a template's ranks are one script
            names[side].append(engine.script)
    for engine in found:
        peer = "decode" if engine.role == "kv_producer" else "prefill"
        config = _value(engine, "kv_transfer")
        if not config or not names[peer]:
            continue
        block = (config.get("kv_connector_extra_config") or {}).get(peer) or {}
        for key, flag in (("tp_size", "--tensor-parallel-size"), ("dp_size", "--data-parallel-size")):
            values = real[peer][key]
            stated = block.get(key)
            if len(values) != 1 or stated is None:
                continue
            actual = next(iter(values))
            try:
                stated_int = int(stated)
            except (TypeError, ValueError, OverflowError):  # inf and NaN from JSON too
                continue
            if stated_int != actual:
                dotted = f"kv_connector_extra_config.{peer}.{key}"
                span = kit.span_of(engine.serve, "--kv-transfer-config", dotted)
                yield Finding(
                    PEER_SIZES,
                    Text(
                        en=f"{dotted} is {stated_int}, but the {peer} engines ({', '.join(names[peer])}) run "
                        f"{flag} {actual}",
                        zh=f"{dotted} 为 {stated_int}，但 {peer} 引擎（{', '.join(names[peer])}）实际运行的是 "
                        f"{flag} {actual}",
                    ),
                    span,
                    Fix(Text(en=f"set {dotted} to {actual}", zh=f"将 {dotted} 设为 {actual}"),
                        kit.set_key(engine.serve, "--kv-transfer-config", dotted, actual)),
                    path=engine.path,
                )


SERVED_NAME = RuleMeta(
    id="QL611",
    name="pd-served-name-mismatch",
    groups=("pd",),
    severity="error",
    scope="deployment",
    title=Text(en="Prefill and decode engines answer to different model names",
               zh="prefill 与 decode 引擎的服务模型名不一致"),
    why=Text(
        en="The proxy forwards the client's model name to both the prefill and the decode engine. If their "
        "--served-model-name differ, one of them rejects every request with 'model does not exist'.",
        zh="代理会把客户端请求中的模型名原样转发给 prefill 与 decode 引擎。两者的 --served-model-name 不同时，"
        "其中一方会以 “model does not exist” 拒绝所有请求。",
    ),
    sources=PD_SOURCES + ("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/openai/engine/serving.py#L234-L239",),
    fix="unsafe",
    examples=(Example(bad=_engine("kv_consumer", 8200, name="qwen"), good=DECODE, fixed=DECODE, peers=(PREFILL,)),),
)


def _served(serve: ServeCommand) -> str | None:
    option = serve.opt("--served-model-name")
    if option is not None and option.value is not None:
        return option.value.text
    return serve.model.text if serve.model is not None else None


@check(SERVED_NAME, when=("option:--kv-transfer-config",))
def served_name(scope: Scope):
    found = engines(scope)
    prefill = {(_served(e.serve), e.script) for e in found if e.role == "kv_producer"}
    decode = [e for e in found if e.role == "kv_consumer"]
    prefill_names = {name for name, _ in prefill if name}
    if len(prefill_names) != 1:
        return
    wanted = next(iter(prefill_names))
    for engine in decode:
        name = _served(engine.serve)
        if name is not None and name != wanted:
            yield Finding(
                SERVED_NAME,
                Text(
                    en=f"decode engine serves {name!r} but the prefill engines ({', '.join(sorted(p for _, p in prefill))}) "
                    f"serve {wanted!r}",
                    zh=f"decode 引擎的服务模型名是 {name!r}，而 prefill 引擎（{', '.join(sorted(p for _, p in prefill))}）"
                    f"的是 {wanted!r}",
                ),
                kit.span_of(engine.serve, "--served-model-name"),
                Fix(Text(en=f"use --served-model-name {wanted} on every engine",
                         zh=f"所有引擎都使用 --served-model-name {wanted}"),
                    kit.set_value(engine.serve, "--served-model-name", kit.shell_word(wanted)), safety="unsafe"),
                path=engine.path,
            )


PROXY = RuleMeta(
    id="QL614",
    name="proxy-engine-mismatch",
    groups=("pd",),
    severity="error",
    scope="deployment",
    title=Text(en="The PD proxy does not match the engines", zh="PD 代理与引擎不匹配"),
    why=Text(
        en="load_balance_proxy_server_example.py pairs the i-th host with the i-th port and refuses lists of "
        "different lengths. Its ports must be the ports the prefill and decode engines listen on, and the "
        "layerwise proxy goes with MooncakeLayerwiseConnector while the plain one goes with "
        "MooncakeConnectorV1; mixing them breaks the request flow.",
        zh="load_balance_proxy_server_example.py 把第 i 个主机与第 i 个端口配对，长度不同的列表会被拒绝。其端口必须是 prefill "
        "与 decode 引擎实际监听的端口；分层代理（layerwise）要配 MooncakeLayerwiseConnector，普通代理配 MooncakeConnectorV1，"
        "混用会打断请求流程。",
    ),
    sources=PD_SOURCES + ("https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/examples/disaggregated_prefill_v1/load_balance_proxy_server_example.py#L672-L708",),
    examples=(Example(bad="python load_balance_proxy_server_example.py --prefiller-hosts 127.0.0.1 --prefiller-ports 8101 --decoder-hosts 127.0.0.1 --decoder-ports 8200\n", good="python load_balance_proxy_server_example.py --prefiller-hosts 127.0.0.1 --prefiller-ports 8100 --decoder-hosts 127.0.0.1 --decoder-ports 8200\n", peers=(PREFILL, DECODE)),),
)


@check(PROXY, when=("command:proxy",))
def proxy(scope: Scope):
    topology = kit.topology(scope)
    found = engines(scope)
    for proxy in topology.proxies:
        plan, command = proxy, proxy.command
        for side in ("prefiller", "decoder"):
            hosts = command.options.get(f"--{side}-hosts", [])
            ports = command.options.get(f"--{side}-ports", [])
            if hosts and ports and len(hosts) != len(ports):
                yield Finding(
                    PROXY,
                    Text(
                        en=f"--{side}-hosts lists {len(hosts)} hosts but --{side}-ports lists {len(ports)} "
                        "ports; the proxy refuses unequal lists",
                        zh=f"--{side}-hosts 列出了 {len(hosts)} 个主机，而 --{side}-ports 列出了 {len(ports)} 个端口；"
                        "代理会拒绝长度不同的列表",
                    ),
                    ports[0].span,
                    Fix(Text(en=f"give one port per {side} host", zh=f"为每个 {side} 主机提供一个端口")),
                    path=plan.path,
                )
        role_of = {"prefiller": "kv_producer", "decoder": "kv_consumer"}
        for side, role in role_of.items():
            engine_ports = topology.ports(SIDES[role])  # every engine's, launcher ranks' included
            if not engine_ports:
                continue
            for port, (_, number) in zip(command.options.get(f"--{side}-ports", []), proxy.targets[SIDES[role]]):
                if number is not None and number not in engine_ports:
                    listening = ", ".join(str(p) for p in sorted(engine_ports))
                    yield Finding(
                        PROXY,
                        Text(
                            en=f"--{side}-ports {number}: no {role} engine of this deployment listens there "
                            f"(they listen on {listening})",
                            zh=f"--{side}-ports {number}：本部署中没有 {role} 引擎监听该端口（它们监听的是 {listening}）",
                        ),
                        port.span,
                        Fix(Text(en=f"use the engines' --port values ({listening})",
                                 zh=f"使用引擎的 --port 取值（{listening}）")),
                        path=plan.path,
                    )
        connectors = {(_value(e, "kv_transfer") or {}).get("kv_connector") for e in found}
        layerwise = "MooncakeLayerwiseConnector" in connectors
        plain = bool(connectors & {"MooncakeConnectorV1", "MooncakeConnector", "MooncakeHybridConnector"})
        if command.layerwise and plain and not layerwise:
            yield Finding(
                PROXY,
                Text(
                    en="the layerwise proxy is used but the engines run a non-layerwise Mooncake connector",
                    zh="使用了分层（layerwise）代理，但引擎运行的是非分层的 Mooncake 连接器",
                ),
                command.span,
                Fix(Text(en="run load_balance_proxy_server_example.py",
                         zh="改为运行 load_balance_proxy_server_example.py")),
                path=plan.path,
            )
        elif not command.layerwise and layerwise and not plain:
            yield Finding(
                PROXY,
                Text(
                    en="the engines run MooncakeLayerwiseConnector but the proxy is not the layerwise one",
                    zh="引擎运行的是 MooncakeLayerwiseConnector，但代理不是分层（layerwise）版本",
                ),
                command.span,
                Fix(Text(en="run load_balance_proxy_layerwise_server_example.py",
                         zh="改为运行 load_balance_proxy_layerwise_server_example.py")),
                path=plan.path,
            )
