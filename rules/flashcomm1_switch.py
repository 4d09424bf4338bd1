"""Which FlashComm1 switch a release reads (QL552): the additional-config key before it is read,
the renamed variable before it exists, and the key overriding the variable.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

# -- QL552 --------------------------------------------------------------------

FLASHCOMM1_SWITCH = RuleMeta(
    id="QL552",
    name="flashcomm1-switch-by-version",
    behaviours=("flashcomm1_key_read", "flashcomm1_env_name", "flashcomm1_removed"),
    groups=("release", "parallelism"),
    severity="warning",
    requires=("additional_config", "version"),
    fix="none",
    faq="flashcomm1-when",
    title=Text(en="The FlashComm1 switch used is not the one this release reads",
               zh="所用的 FlashComm1 开关不是该版本读取的那个"),
    why=Text(
        en="FlashComm v1 has had three switches: the environment variable VLLM_ASCEND_ENABLE_FLASHCOMM1 "
        "(from v0.11.0rc1; earlier releases read VLLM_ASCEND_ENABLE_FLASHCOMM), the additional-config key "
        "enable_flashcomm1 (read from v0.20.2rc1, and then preferred over the variable, which is marked "
        "deprecated), and nothing on main, where both are ignored. The Qwen3.6-35B-A3B tutorial uses the key and the Qwen3.5-27B/Qwen3.6-27B and Qwen3.5-397B-A17B tutorials "
        "the variable; both work from v0.20.2rc1 up to v0.26. The key on an older release, or the variable on "
        "a release before its name, silently leaves FlashComm1 off. When both are set with different values "
        "the key wins, which is reported as info. The dead switches on main are already reported by "
        "QL105/QL512 (and QL404), so this rule stays silent there.",
        zh="FlashComm v1 先后有三种开关：环境变量 VLLM_ASCEND_ENABLE_FLASHCOMM1（自 v0.11.0rc1 起；更早的版本读取 "
        "VLLM_ASCEND_ENABLE_FLASHCOMM）、additional-config 键 enable_flashcomm1（自 v0.20.2rc1 起读取，且优先于"
        "已被标为弃用的环境变量），以及 main 分支上的“无”：两者都被忽略。Qwen3.6-35B-A3B 教程用的是键，Qwen3.5-27B/Qwen3.6-27B 与 Qwen3.5-397B-A17B 教程用的是"
        "环境变量；从 v0.20.2rc1 到 v0.26 两者都有效。在更早的版本上用键、或在变量改名之前的版本上用新变量名，"
        "FlashComm1 都会悄悄保持关闭。两者同时设置且取值不同时以键为准，按提示级别报告。main 上失效的开关已由 "
        "QL105/QL512（以及 QL404）报告，本规则在 main 上不重复报告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.20.2rc1/vllm_ascend/ascend_config.py#L83-L87",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.19.1rc1/vllm_ascend/envs.py#L74",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.11.0rc1/vllm_ascend/envs.py#L136-L137",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/utils.py#L903-L929",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L44-L48",
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L81-L140",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 2 --enable-expert-parallel "
            "--additional-config '{\"enable_flashcomm1\": true}'\n",
            good="export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\nvllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 "
            "--tensor-parallel-size 2 --enable-expert-parallel\n",
            version="v0.19.1rc1",
        ),
    ),
)


@check(FLASHCOMM1_SWITCH, when=("additional_config | env:VLLM_ASCEND_ENABLE_FLASHCOMM1",))
def flashcomm1_switch(scope: Scope):
    """enable_flashcomm1 before v0.20.2rc1, the new env name before v0.11.0rc1, key vs env disagreement."""
    if kit.holds(scope, "flashcomm1_removed"):
        return  # both switches are dead there (QL105/QL512 report them)
    serve = scope.serve
    config = scope.get("additional_config")
    text, env_span = kit.env(serve, "VLLM_ASCEND_ENABLE_FLASHCOMM1", strict=False)
    env = None if text is None else (text.lower() in ("1", "true"), env_span, text)  # (on, span, value)
    if "enable_flashcomm1" in config and not kit.holds(scope, "flashcomm1_key_read"):
        span = kit.span_of(serve, "--additional-config", "enable_flashcomm1")
        where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
        FLASHCOMM1_KEY_SINCE = kit.first_release(scope.kb, "flashcomm1_key_read")
        uses_env = env is not None and env[0] and kit.holds(scope, "flashcomm1_env_name")
        state = Text(en="on through VLLM_ASCEND_ENABLE_FLASHCOMM1", zh="由 VLLM_ASCEND_ENABLE_FLASHCOMM1 开启") \
            if uses_env else Text(en="off", zh="关闭")
        yield Finding(
            FLASHCOMM1_SWITCH,
            Text(en=f"additional-config enable_flashcomm1 is read from vllm-ascend {FLASHCOMM1_KEY_SINCE} on; {where} "
                 f"ignores it, so FlashComm1 stays {state.en}",
                 zh=f"additional-config 的 enable_flashcomm1 自 vllm-ascend {FLASHCOMM1_KEY_SINCE} 起才被读取；{where_zh} "
                 f"会忽略它，FlashComm1 保持{state.zh}"),
            span,
            Fix(Text(en="on this release switch FlashComm1 with export VLLM_ASCEND_ENABLE_FLASHCOMM1=1",
                     zh="在该版本上用 export VLLM_ASCEND_ENABLE_FLASHCOMM1=1 开启 FlashComm1")),
        )
    elif env is not None and not kit.holds(scope, "flashcomm1_env_name"):
        where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
        FLASHCOMM1_ENV_SINCE = kit.first_release(scope.kb, "flashcomm1_env_name")
        yield Finding(
            FLASHCOMM1_SWITCH,
            Text(en=f"VLLM_ASCEND_ENABLE_FLASHCOMM1 is read from vllm-ascend {FLASHCOMM1_ENV_SINCE} on; {where} reads "
                 "VLLM_ASCEND_ENABLE_FLASHCOMM instead",
                 zh=f"VLLM_ASCEND_ENABLE_FLASHCOMM1 自 vllm-ascend {FLASHCOMM1_ENV_SINCE} 起才被读取；{where_zh} 读取的是 "
                 "VLLM_ASCEND_ENABLE_FLASHCOMM"),
            env[1],
            Fix(Text(en="on this release export VLLM_ASCEND_ENABLE_FLASHCOMM=1",
                     zh="在该版本上导出 VLLM_ASCEND_ENABLE_FLASHCOMM=1")),
        )
    elif "enable_flashcomm1" in config and env is not None and bool(config["enable_flashcomm1"]) != env[0]:
        span = kit.span_of(serve, "--additional-config", "enable_flashcomm1")
        key_value, env_value, on = json.dumps(config["enable_flashcomm1"]), env[2], config["enable_flashcomm1"]
        where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
        yield Finding(
            FLASHCOMM1_SWITCH,
            Text(en=f"additional-config enable_flashcomm1={key_value} overrides VLLM_ASCEND_ENABLE_FLASHCOMM1="
                 f"{env_value} at {where}: FlashComm1 is {'on' if on else 'off'}",
                 zh=f"在 {where_zh} 上，additional-config 的 enable_flashcomm1={key_value} 覆盖了 "
                 f"VLLM_ASCEND_ENABLE_FLASHCOMM1={env_value}：FlashComm1 {'开启' if on else '关闭'}"),
            span,
            Fix(Text(en="keep one FlashComm1 switch (the additional-config key; the variable is deprecated)",
                     zh="只保留一个 FlashComm1 开关（additional-config 的键；环境变量已弃用）")),
            severity="info",
        )
