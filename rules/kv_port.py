"""The Mooncake kv_port inside the range the NPUs' own ports use (QL613).
"""

from __future__ import annotations


from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check


PD_SOURCES = (
    "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
)


KV_PORT = RuleMeta(
    id="QL613",
    name="kv-port-in-reserved-range",
    groups=("pd", "kv-transfer"),
    severity="warning",
    requires=("kv_transfer", "hardware"),
    title=Text(en="kv_port lies in the range the transfer engine picks random ports from",
               zh="kv_port 落在传输引擎随机取端口的范围内"),
    why=Text(
        en="Ascend's direct transport for Mooncake binds random ports in [20000, 20000 + 1000 x NPUs per node). "
        "A kv_port (and the ports after it, one per rank) inside that range collides now and then: "
        "'zmq.error.ZMQError: Address already in use' at random restarts. The Mooncake guide asks for "
        "kv_port >= 28000 on 8-NPU nodes and >= 36000 on 16-NPU nodes. The tutorials use 23010, 30000 and "
        "30200 on Atlas A3 nodes, inside the range.",
        zh="昇腾上 Mooncake 的直连传输会在 [20000, 20000 + 1000 x 每节点 NPU 数) 内随机绑定端口。kv_port（以及其后每个 rank "
        "占用的端口）落在这个范围内就会偶发冲突：随机重启时出现 “zmq.error.ZMQError: Address already in use”。Mooncake "
        "指南要求 8 卡节点 kv_port >= 28000，16 卡节点 >= 36000。教程在 Atlas A3 上使用了 23010、30000、30200，"
        "均在该范围内。",
    ),
    sources=PD_SOURCES + ("https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/examples/disaggregated_prefill_v1/mooncake_connector_deployment_guide.md",),
    faq="kv-port-range",
    fix="unsafe",
    examples=(
        Example(
            bad="# qlint: hardware=a3\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"kv_port\": \"30200\"}'\n",
            good="# qlint: hardware=a3\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --kv-transfer-config "
            "'{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"kv_port\": \"36200\"}'\n",
        ),
    ),
)


@check(KV_PORT, when=("kv_transfer",))
def kv_port(scope: Scope):
    config = scope.get("kv_transfer")
    if not config or "kv_port" not in config:
        return
    try:
        port = int(config["kv_port"])
    except (TypeError, ValueError, OverflowError):  # (a JSON 1e999 is an infinite float)
        return
    hardware = scope.kb.hardware_by_id(scope.get("hardware"))
    low, high = 20000, 20000 + 1000 * hardware.npus_per_node
    if low <= port < high:
        span = kit.span_of(scope.serve, "--kv-transfer-config", "kv_port")
        yield Finding(
            KV_PORT,
            Text(
                en=f"kv_port {port} is inside [{low}, {high}), the range the Ascend direct transport draws random ports "
                f"from on a {hardware.npus_per_node}-NPU node; use {high} or above",
                zh=f"kv_port {port} 位于 [{low}, {high}) 内，这是 {hardware.npus_per_node} 卡节点上昇腾直连传输"
                f"随机取端口的范围；请使用 {high} 及以上的端口",
            ),
            span,
            Fix(Text(en=f"move kv_port to {high} or above (and keep P and D ports apart)",
                     zh=f"把 kv_port 改到 {high} 及以上（并让 P 与 D 的端口互不重叠）"), safety="unsafe"),
        )
