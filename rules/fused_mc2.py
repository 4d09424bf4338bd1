"""Fused MC2 (QL524): enable_fused_mc2 / VLLM_ASCEND_ENABLE_FUSED_MC2 values per release and
together with hierarchy communication.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import Span

FUSED_MC2 = RuleMeta(
    id="QL524",
    name="fused-mc2-config",
    behaviours=("fused_mc2_hierarchy_exclusive", "fused_mc2_key_read", "fused_mc2_only_0_or_1", "mc2_hierarchy_checks_main"),
    applies="fused_mc2_hierarchy_exclusive",
    groups=("additional-config", "parallelism"),
    severity="error",
    requires=("additional_config", "version"),
    optional=("hardware_if_known", "routed_experts"),
    title=Text(en="enable_fused_mc2 has a value or company the release rejects",
               zh="enable_fused_mc2 的取值或搭配不被该版本接受"),
    why=Text(
        en="Fused MC2 is chosen by additional-config enable_fused_mc2 (read from v0.20.2rc1) or the variable "
        "VLLM_ASCEND_ENABLE_FUSED_MC2. Up to v0.23.0 it takes 0, 1 (dispatch_ffn_combine) or 2 "
        "(dispatch_gmm_combine_decode, decode nodes with W8A8); from v0.24.0rc1 vllm-ascend asserts 0 or 1, "
        "so the value 2 of earlier releases stops newer releases. Fused MC2 and enable_mc2_hierarchy_comm exclude each "
        "other (ValueError from v0.18.0). On main hierarchy communication also needs Atlas A2/A3 and at most "
        "512 experts.",
        zh="融合 MC2 由 additional-config 的 enable_fused_mc2（自 v0.20.2rc1 起读取）或环境变量 "
        "VLLM_ASCEND_ENABLE_FUSED_MC2 选择。v0.23.0 及以前可取 0、1（dispatch_ffn_combine）或 2（dispatch_gmm_combine_decode，"
        "仅 W8A8 解码节点）；自 v0.24.0rc1 起 vllm-ascend 断言只能是 0 或 1，所以旧教程里的 2 会让新版本退出。融合 MC2 "
        "与 enable_mc2_hierarchy_comm 互斥（自 v0.18.0 起报 ValueError）。在 main 上分层通信还要求 Atlas A2/A3 且专家数"
        "不超过 512。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/envs.py#L96-L102",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L173-L184",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L160-L185",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.18.0/vllm_ascend/platform.py#L553-L557",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L806-L811",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L330-L350",
    ),
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
    if "enable_fused_mc2" in config and kit.holds(scope, "fused_mc2_key_read"):
        value = config["enable_fused_mc2"]
        return value, f"additional-config enable_fused_mc2={json.dumps(value)}", \
            kit.span_of(serve, "--additional-config", "enable_fused_mc2")
    text = kit.env(serve, "VLLM_ASCEND_ENABLE_FUSED_MC2").value
    if text is None:
        return None
    value = int(text) if text.lstrip("-").isdigit() else text
    return value, f"VLLM_ASCEND_ENABLE_FUSED_MC2={text}", kit.env_span(serve, "VLLM_ASCEND_ENABLE_FUSED_MC2")


@check(FUSED_MC2, when=("additional_config | env:VLLM_ASCEND_ENABLE_FUSED_MC2",))
def fused_mc2(scope: Scope):
    """enable_fused_mc2 outside the release's values, or together with hierarchy communication."""
    if not kit.holds(scope, "fused_mc2_hierarchy_exclusive"):
        return
    where = kit.at_version(scope)
    found = _fused_mc2(scope)
    if found is not None:
        value, switch, span = found
        number = int(value) if isinstance(value, (bool, int)) else None
        allowed = (0, 1) if kit.holds(scope, "fused_mc2_only_0_or_1") else (0, 1, 2)
        if number is None and isinstance(value, str):
            yield Finding(FUSED_MC2, Text(en=f"{switch} is not an integer: {where.en} stops with ValueError when reading it",
                                          zh=f"{switch} 不是整数：{where.zh} 读取时会以 ValueError 退出"),
                          span, Fix(Text(en="use 0 or 1", zh="使用 0 或 1")))
            return
        if number not in allowed:
            strict = allowed == (0, 1)
            listed = ", ".join(map(str, allowed))
            error = "'enable_fused_mc2 must be 0 or 1'"
            yield Finding(
                FUSED_MC2,
                Text(en=f"{switch}: {where.en} accepts {listed}"
                     + (f" and stops with AssertionError {error}" if strict else "; any other value selects no fused operator"),
                     zh=f"{switch}：{where.zh} 只接受 {listed}"
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
    hier_span = kit.span_of(scope.serve, "--additional-config", "enable_mc2_hierarchy_comm")
    if found is not None and found[0]:
        error = "'fused mc2 op cannot be used with hierarchy communication'"
        yield Finding(
            FUSED_MC2,
            Text(en=f"{found[1]} with enable_mc2_hierarchy_comm=true: {where.en} stops with ValueError {error}",
                 zh=f"{found[1]} 与 enable_mc2_hierarchy_comm=true 同用：{where.zh} 会以 ValueError {error} 退出"),
            found[2],
            Fix(Text(en="set the fused MC2 switch to 0, or drop enable_mc2_hierarchy_comm",
                     zh="把融合 MC2 开关设为 0，或删除 enable_mc2_hierarchy_comm")),
        )
    if not kit.holds(scope, "mc2_hierarchy_checks_main"):
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
