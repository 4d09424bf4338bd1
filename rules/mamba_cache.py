"""Startup check on the mamba cache mode of Qwen hybrid (GDN) models (QL546): 'align' needs
chunked prefill, a mode without prefix caching is reset to 'none', 'all' falls back to 'align'.

Sources: ``vllm@v0.23.0:vllm/model_executor/models/config.py
L337-393``, ``vllm@v0.17.0:vllm/model_executor/models/config.py L395-417``,
``vllm@v0.23.0:vllm/config/model.py L1852-1856``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

MAMBA_MODE = RuleMeta(
    id="QL546",
    name="mamba-cache-mode-adjusted",
    behaviours=("vllm_mamba_cache_mode", "vllm_hybrid_prefix_caching_default_off"),
    applies="vllm_mamba_cache_mode",
    groups=("prefix-cache", "memory"),
    severity="error",
    requires=("model", "prefix_caching", "chunked_prefill_flag", "mamba_cache_mode", "version", "speculative"),
    title=Text(en="vLLM changes or rejects the mamba cache mode of a Qwen hybrid model",
               zh="vLLM 会改写或拒绝 Qwen 混合模型的 mamba 缓存模式"),
    why=Text(
        en="For Qwen3.5/3.6 and Qwen3-Next (GDN hybrids without mamba prefix-caching support) vLLM decides the "
        "mamba cache mode at startup: with prefix caching on it uses 'align' ('all' falls back to 'align' with a "
        "warning), and 'align' asserts that chunked prefill is on, so --no-enable-prefix-caching is not the "
        "problem but --no-enable-chunked-prefill is (error). With prefix caching off (the default for these "
        "models from v0.23.0rc1) any --mamba-cache-mode is reset to 'none' (warning). QL703 covers 'all' with "
        "Qwen3.5 MTP.",
        zh="对于 Qwen3.5/3.6 与 Qwen3-Next（不支持 mamba 前缀缓存的 GDN 混合模型），vLLM 在启动时决定 mamba 缓存模式："
        "开启前缀缓存时使用 align（写 all 会打印警告后退回 align），而 align 断言分块预填充必须开启，因此与 "
        "--no-enable-chunked-prefill 同用会失败（错误）。前缀缓存关闭时（自 v0.23.0rc1 起这些模型默认关闭），任何 "
        "--mamba-cache-mode 都会被重置为 none（警告）。Qwen3.5 MTP 搭配 all 的情况由 QL703 报告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/model_executor/models/config.py#L337-L393",
        "https://github.com/vllm-project/vllm/blob/v0.17.0/vllm/model_executor/models/config.py#L395-L417",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1852-L1856",
    ),
    fix="safe",
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --enable-prefix-caching --no-enable-chunked-prefill --max-model-len 8192\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --enable-prefix-caching --max-model-len 8192\n",
            version="v0.23.0",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --no-enable-prefix-caching --mamba-cache-mode align\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --no-enable-prefix-caching\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --no-enable-prefix-caching\n",
            version="v0.23.0",
        ),
    ),
)


@check(MAMBA_MODE, relations=(("requires", "mamba_cache_mode", "prefix_caching"),),
       when=("option:--enable-prefix-caching | option:--mamba-cache-mode",))  # (a finding needs one of them written)
def mamba_mode(scope: Scope):
    """align without chunked prefill; a mode without prefix caching; 'all' falling back to 'align'."""
    model = scope.get("model").model
    if not model.hybrid or not model.family.startswith("Qwen") or not kit.holds(scope, "vllm_mamba_cache_mode"):
        return
    prefix, mode, serve = scope.get("prefix_caching"), scope.get("mamba_cache_mode"), scope.serve
    if prefix is None and kit.holds(scope, "vllm_hybrid_prefix_caching_default_off"):
        prefix = False
    where = kit.at_version(scope)
    if prefix is True and not scope.get("chunked_prefill_flag"):
        error = "'Chunked prefill is required for mamba cache mode 'align''"
        yield Finding(MAMBA_MODE,
                      Text(en=f"prefix caching on {model.id} uses mamba cache mode 'align', which asserts chunked prefill; "
                           f"with --no-enable-chunked-prefill {where.en} stops with AssertionError {error}",
                           zh=f"{model.id} 开启前缀缓存时使用 mamba 缓存模式 align，它断言分块预填充已开启；加上 "
                           f"--no-enable-chunked-prefill 后 {where.zh} 会以 AssertionError {error} 退出"),
                      kit.option_span(serve, "--enable-chunked-prefill"),
                      Fix(Text(en="drop --no-enable-chunked-prefill", zh="删除 --no-enable-chunked-prefill")))
    elif prefix is False and mode in ("all", "align"):
        option = serve.opt("--mamba-cache-mode")
        yield Finding(MAMBA_MODE,
                      Text(en=f"--mamba-cache-mode {mode} without prefix caching on {model.id}: vLLM resets it to 'none' "
                           f"({where.en})",
                           zh=f"{model.id} 未开启前缀缓存却设置了 --mamba-cache-mode {mode}：vLLM 会把它重置为 none（{where.zh}）"),
                      kit.option_span(serve, "--mamba-cache-mode"),
                      Fix(Text(en="drop --mamba-cache-mode", zh="删除 --mamba-cache-mode"), kit.drop_option(option)),
                      severity="warning")
    elif prefix is True and mode == "all":
        spec = scope.get("speculative") or {}
        if spec.get("method") in ("mtp", "qwen3_5_mtp") and model.mtp_method == "qwen3_5_mtp":
            return  # QL703
        yield Finding(MAMBA_MODE,
                      Text(en=f"--mamba-cache-mode all on {model.id}: the model has no 'all'-mode support, so vLLM falls "
                           f"back to 'align' with a warning ({where.en})",
                           zh=f"{model.id} 设置了 --mamba-cache-mode all：该模型不支持 all 模式，vLLM 会打印警告并退回 align"
                           f"（{where.zh}）"),
                      kit.span_of(serve, "--mamba-cache-mode"),
                      Fix(Text(en="write --mamba-cache-mode align", zh="改写为 --mamba-cache-mode align"),
                          kit.set_value(serve, "--mamba-cache-mode", "align")),
                      severity="info")
