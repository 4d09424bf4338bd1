"""The devices a command may use against the NPUs it needs (QL204): ASCEND_RT_VISIBLE_DEVICES, or
the /dev/davinciN devices its container maps.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

VISIBLE_DEVICES = RuleMeta(
    id="QL204",
    name="visible-devices-mismatch",
    groups=("parallelism",),
    severity="error",
    requires=("tp", "dp_local", "pp", "visible_devices", "container_devices"),
    optional=("hardware",),
    title=Text(en="ASCEND_RT_VISIBLE_DEVICES does not match TP x local DP",
               zh="ASCEND_RT_VISIBLE_DEVICES 与 TP x 本地 DP 不一致"),
    why=Text(
        en="vllm-ascend places ranks on the devices listed in ASCEND_RT_VISIBLE_DEVICES. Listing fewer "
        "devices than TP x local DP x PP fails at startup; listing more leaves NPUs idle.",
        zh="vllm-ascend 只在 ASCEND_RT_VISIBLE_DEVICES 列出的设备上放置 rank。列出的设备少于 "
        "TP x 本地 DP x PP 会启动失败；多于所需则有 NPU 闲置。",
    ),
    sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L134",),
    examples=(
        Example(
            bad="export ASCEND_RT_VISIBLE_DEVICES=0,1\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4\n",
            good="export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4\n",
        ),
    ),
)


@check(VISIBLE_DEVICES)
def visible_devices(scope: Scope):
    if kit.option(scope.serve, "--distributed-executor-backend", strict=False).value == "ray":
        return  # Ray places the workers on every node of its cluster: QL623 (ray-cluster-npus) counts the cluster
    devices = scope.get("visible_devices")
    if devices is None:
        yield from _container_devices(scope)
        return
    tp, dp_local, pp = scope.get("tp"), scope.get("dp_local"), scope.get("pp")
    needed = tp * dp_local * pp
    listed = len(devices)
    setting = scope.serve.env["ASCEND_RT_VISIBLE_DEVICES"]
    if needed > listed:
        yield Finding(
            VISIBLE_DEVICES,
            Text(
                en=f"TP x DP(local) = {tp} x {dp_local} = {needed} NPUs, but ASCEND_RT_VISIBLE_DEVICES lists {listed}",
                zh=f"TP x DP(local) = {tp} x {dp_local} = {needed} 张 NPU，但 ASCEND_RT_VISIBLE_DEVICES 只列出了 {listed} 张",
            ),
            setting.span,
            Fix(Text(en=f"list {needed} devices in ASCEND_RT_VISIBLE_DEVICES or lower TP/DP",
                     zh=f"在 ASCEND_RT_VISIBLE_DEVICES 中列出 {needed} 个设备，或降低 TP/DP")),
        )
    elif needed < listed:
        yield Finding(
            VISIBLE_DEVICES,
            Text(
                en=f"ASCEND_RT_VISIBLE_DEVICES lists {listed} NPUs but TP x DP(local) = {tp} x {dp_local} uses {needed}; "
                f"{listed - needed} stay idle",
                zh=f"ASCEND_RT_VISIBLE_DEVICES 列出了 {listed} 张 NPU，但 TP x DP(local) = {tp} x {dp_local} 只用 {needed} 张；"
                f"{listed - needed} 张闲置",
            ),
            setting.span,
            severity="info",
        )


def _container_devices(scope: Scope):
    """Without ASCEND_RT_VISIBLE_DEVICES the engine sees the NPUs its container maps (``--device``)."""
    devices = scope.get("container_devices")
    if devices is None:
        return
    tp, dp_local, pp = scope.get("tp"), scope.get("dp_local"), scope.get("pp")
    needed = tp * dp_local * pp
    hardware = scope.known("hardware")
    node = scope.kb.hardware_by_id(hardware.value) if hardware is not None else None
    if node is not None and len(devices) >= node.npus_per_node:
        return  # the container maps the whole node: QL203 (npus-exceed-node) says it
    if needed > len(devices):
        yield Finding(
            VISIBLE_DEVICES,
            Text(
                en=f"TP x DP(local) = {tp} x {dp_local} = {needed} NPUs, but the container maps {len(devices)} "
                f"(--device {', '.join(devices[:3])}{', ...' if len(devices) > 3 else ''})",
                zh=f"TP x DP(local) = {tp} x {dp_local} = {needed} 张 NPU，但容器只映射了 {len(devices)} 张"
                f"（--device {', '.join(devices[:3])}{', ...' if len(devices) > 3 else ''}）",
            ),
            scope.serve.devices[-1].span if scope.serve.devices else scope.serve.span,
            Fix(Text(en=f"map {needed} /dev/davinciN devices into the container or lower TP/DP",
                     zh=f"向容器映射 {needed} 个 /dev/davinciN 设备，或降低 TP/DP")),
        )
