"""Change TP/DP and every value that depends on them, in one fix (or refuse with a reason).

The rule graph says what depends on TP and DP (``RuleGraph.affected_by``):
the NPU count (``ASCEND_RT_VISIBLE_DEVICES``), the engine's own side of
``kv_connector_extra_config`` (``tp_size``/``dp_size``, checked at startup by
vllm-ascend's ``check_kv_extra_config``), and, with FlashComm1, the
capture sizes, which must be multiples of TP. A resize
edits all of them together so that the fixed script is consistent; when a
dependent cannot follow (too few devices listed, capture sizes that are not
multiples of the new TP under FlashComm1) it refuses and says why.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.record import record
from qlint.rules.base import Edit
from qlint.rules.graph import Scope
from qlint.rules.kit.edits import replace, set_env, set_value
from qlint.rules.plan import ServeCommand


@record
class Resize:
    """The edits of a TP/DP change, or ``refusal`` (both languages) when it cannot be done."""

    edits: list[Edit]
    refusal: Text | None = None


def _set_size(serve: ServeCommand, flag: str, value: int) -> list[Edit]:
    option = serve.options.get(flag)
    if option is not None and option.value is not None and option.value.as_int() == value:
        return []
    return set_value(serve, flag, str(value), default="1")


def resize(scope: Scope, tp: int, dp: int) -> Resize:
    """Edits that make this serve command run TP ``tp`` x DP ``dp`` consistently.

    Reads facts tp, dp, dp_local, pp, visible_devices, kv_transfer, kv_role,
    flashcomm1 and capture_sizes from ``scope`` (the calling rule declares them).
    """
    serve = scope.serve
    assert serve is not None
    edits = _set_size(serve, "--tensor-parallel-size", tp) + _set_size(serve, "--data-parallel-size", dp)
    local = serve.options.get("--data-parallel-size-local")
    dp_local = dp
    if local is not None and local.value is not None:
        dp_local = min(dp, local.value.as_int() or dp)
    pp = scope.get("pp")
    devices = scope.get("visible_devices")
    needed = tp * dp_local * pp
    if devices is not None and len(devices) != needed:
        if len(devices) < needed:
            return Resize([], Text(
                en=f"ASCEND_RT_VISIBLE_DEVICES lists {len(devices)} NPUs but TP {tp} x DP {dp_local} needs {needed}",
                zh=f"ASCEND_RT_VISIBLE_DEVICES 只列出 {len(devices)} 张 NPU，而 TP {tp} x DP {dp_local} 需要 {needed} 张",
            ))
        edits += set_env(serve, "ASCEND_RT_VISIBLE_DEVICES", ",".join(devices[:needed]))
    config = scope.get("kv_transfer")
    role = scope.get("kv_role")
    option = serve.options.get("--kv-transfer-config")
    if config and option is not None and option.json is not None and role in ("kv_producer", "kv_consumer"):
        side = "prefill" if role == "kv_producer" else "decode"
        for key, value in (("tp_size", tp), ("dp_size", dp)):
            dotted = f"kv_connector_extra_config.{side}.{key}"
            if option.json.get(dotted) != value:
                edits += replace(option.json.key_spans.get(dotted), str(value))
    sizes = scope.get("capture_sizes")
    if scope.get("flashcomm1") and sizes and tp > 1 and any(size % tp for size in sizes):
        return Resize([], Text(
            en=f"with FlashComm1 the capture sizes {sizes} must be multiples of the new TP {tp}",
            zh=f"开启 FlashComm1 时，捕获尺寸 {sizes} 必须是新 TP {tp} 的倍数",
        ))
    return Resize(edits)


RESIZE_FACTS = ("tp", "dp", "dp_local", "pp", "visible_devices", "kv_transfer", "kv_role", "flashcomm1", "capture_sizes")
"""Facts a rule using ``resize`` must declare (as ``optional`` or ``requires``)."""
