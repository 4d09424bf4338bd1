"""Settings that repeat the engine's own default at the release in use (info).

The table lives in ``knowledge/data/redundant.toml``; each entry cites the code
that sets the default.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

REDUNDANT = RuleMeta(
    id="QL513",
    name="redundant-setting",
    groups=("redundant",),
    behaviours=("vllm_async_scheduling_default_on", "vllm_hybrid_prefix_caching_default_off", "mooncake_supports_hybrid_kv_cache", "cpu_binding_default_on"),
    severity="info",
    requires=("version", "additional_config"),
    optional=("model", "hybrid"),
    fix="safe",
    title=Text(en="A setting repeats the default of this release", zh="设置项与当前版本的默认值相同"),
    why=Text(
        en="Tutorials carry switches from older releases that later became defaults (async scheduling, "
        "CPU binding, prefix caching off for hybrid models). They do no harm, but they hide which "
        "settings were chosen on purpose and they drift when defaults change again.",
        zh="教程里保留了一些旧版本的开关，后来它们已成为默认行为（异步调度、CPU 绑核、混合模型默认关闭前缀缓存）。"
        "它们无害，但会掩盖哪些设置是有意为之，并且在默认值再次变化时容易过时。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L957-L997",),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --async-scheduling\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\n",
            version="v0.23.0",
        ),
    ),
)


def _hybrid(scope: Scope) -> bool:
    known = scope.known("hybrid")
    return known is not None and known.value is True


@check(REDUNDANT, when=("option:--async-scheduling | option:--enable-prefix-caching | option:--disable-hybrid-kv-cache-manager"
                          " | additional_config",))  # the settings of knowledge/data/redundant.toml (a test checks)
def redundant(scope: Scope):
    additional = scope.get("additional_config")
    for entry in scope.kb.redundant:
        if not kit.holds(scope, entry.behaviour):
            continue
        if entry.hybrid_only and not _hybrid(scope):
            continue
        if entry.kind == "flag":
            option = scope.serve.opt(entry.setting)
            if option is None or option.negated != entry.negated:
                continue
            yield Finding(
                REDUNDANT,
                Text(
                    en=f"{option.spelled} is already the default at vllm-ascend {scope.get('version')}: {entry.note.en}",
                    zh=f"{option.spelled} 在 vllm-ascend {scope.get('version')} 中已是默认行为：{entry.note.zh}",
                ),
                option.span,
                Fix(Text(en=f"remove {option.spelled}", zh=f"删除 {option.spelled}"), kit.drop_option(option)),
            )
        elif entry.kind == "additional-config" and additional.get(entry.setting, object()) == entry.value:
            span = kit.span_of(scope.serve, "--additional-config", entry.setting)
            yield Finding(
                REDUNDANT,
                Text(
                    en=f"additional-config {entry.setting}={str(entry.value).lower()} is already the default at "
                    f"vllm-ascend {scope.get('version')}: {entry.note.en}",
                    zh=f"additional-config 中的 {entry.setting}={str(entry.value).lower()} 在 "
                    f"vllm-ascend {scope.get('version')} 中已是默认值：{entry.note.zh}",
                ),
                span,
                Fix(Text(en=f"drop {entry.setting} from --additional-config",
                         zh=f"从 --additional-config 中删除 {entry.setting}")),
            )
