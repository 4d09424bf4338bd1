"""Hybrid-model rules: prefix caching and the mamba cache mode on Qwen3.5/3.6 (GDN + full attention).

Sources (pinned lines in each rule's ``sources``): vLLM's prefix-caching default and mamba cache
modes for hybrid models, Qwen3.5 MTP and ``mamba_cache_mode=all``, the Qwen3.5-397B-A17B
tutorial's "enabled by default" claim, vllm-ascend#7944 (decode-node limitation).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

MTP_METHODS = ("mtp", "qwen3_5_mtp")


DECODE_PREFIX = RuleMeta(
    id="QL701",
    name="pd-decode-prefix-caching",
    groups=("prefix-cache", "pd"),
    severity="error",
    requires=("kv_role", "hybrid", "prefix_caching", "mamba_cache_mode", "model"),
    fix="safe",
    faq="qwen35-397b-pd-prefix-caching",
    title=Text(en="Prefix caching on a PD decode node serving a hybrid model",
               zh="混合架构模型的 PD 解码节点开启了前缀缓存"),
    why=Text(
        en="On a decode instance (kv_role kv_consumer) the KV arrives from the prefill side through the "
        "connector. For hybrid models (Qwen3.5/3.6, Qwen3-Next: GDN linear attention plus full "
        "attention) prefix caching on such a node is a known, unfixed limitation (vllm-ascend#7944, "
        "labelled wontfix), which is why the PD tutorials start decode nodes with "
        "--no-enable-prefix-caching. The mamba cache 'align' mode only matters for prefix caching, so it "
        "goes too.",
        zh="解码实例（kv_role 为 kv_consumer）的 KV 由预填充侧经连接器传来。对混合架构模型（Qwen3.5/3.6、"
        "Qwen3-Next：GDN 线性注意力加全注意力），在这类节点上开启前缀缓存是已知且不会修复的限制"
        "（vllm-ascend#7944，标记为 wontfix），因此 PD 教程的解码节点都用 --no-enable-prefix-caching 启动。"
        "mamba 缓存的 align 模式只为前缀缓存服务，也应一并去掉。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/issues/7944",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541 (Notice)",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3.5-35B-A3B --mamba-cache-mode align --enable-prefix-caching "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeLayerwiseConnector\", \"kv_role\": \"kv_consumer\"}'\n",
            good="vllm serve /models/Qwen3.5-35B-A3B --no-enable-prefix-caching "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeLayerwiseConnector\", \"kv_role\": \"kv_consumer\"}'\n",
            fixed="vllm serve /models/Qwen3.5-35B-A3B --no-enable-prefix-caching "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeLayerwiseConnector\", \"kv_role\": \"kv_consumer\"}'\n",
        ),
    ),
)


@check(DECODE_PREFIX, relations=(("conflicts", "kv_role", "prefix_caching"),), when=("kv_role=kv_consumer", "hybrid", "prefix_caching"))
def decode_prefix(scope: Scope):
    if scope.get("kv_role") != "kv_consumer" or not scope.get("hybrid") or scope.get("prefix_caching") is not True:
        return
    span = kit.option_span(scope.serve, "--enable-prefix-caching")
    mode = scope.get("mamba_cache_mode")
    edits = kit.replace(span, "--no-enable-prefix-caching")
    with_mode, drop = "", ""
    with_mode_zh, drop_zh = "", ""
    if mode in ("align", "all"):
        edits += kit.drop_option(scope.serve.opt("--mamba-cache-mode"))
        with_mode, drop = f" with --mamba-cache-mode {mode}", f" and drop --mamba-cache-mode {mode} there"
        with_mode_zh, drop_zh = f"，搭配 --mamba-cache-mode {mode}", f"，并去掉该节点上的 --mamba-cache-mode {mode}"
    model = scope.get("model").model.id
    yield Finding(
        DECODE_PREFIX,
        Text(
            en=f"prefix caching (--enable-prefix-caching{with_mode}) is not supported on PD decode nodes "
            f"(kv_role kv_consumer) for hybrid Qwen3.5/3.6/Qwen3-Next models such as {model} "
            "(known limitation, vllm-ascend #7944, wontfix)",
            zh=f"对 {model} 这类 Qwen3.5/3.6/Qwen3-Next 混合架构模型，PD 解码节点（kv_role kv_consumer）"
            f"不支持前缀缓存（--enable-prefix-caching{with_mode_zh}）（已知限制，vllm-ascend #7944，wontfix）",
        ),
        span,
        Fix(Text(en=f"use --no-enable-prefix-caching on the decode node{drop}",
                 zh=f"在解码节点上改用 --no-enable-prefix-caching{drop_zh}"), edits),
    )


BLOCK_SIZE = RuleMeta(
    id="QL702",
    name="hybrid-prefix-cache-block-size",
    groups=("prefix-cache",),
    severity="info",
    requires=("kv_role", "hybrid", "prefix_caching", "model"),
    faq="hybrid-prefix-caching-block-size",
    title=Text(en="Prefix caching on a hybrid model only reuses prefixes of about 2048 tokens or more",
               zh="混合架构模型的前缀缓存只能复用约 2048 token 以上的前缀"),
    why=Text(
        en="To keep one attention page the same size as one GDN state page, vllm-ascend enlarges the "
        "attention block of hybrid models, to about 2048 tokens. Prefix caching works in whole blocks, "
        "so shared prefixes shorter than one block are never reused. Note on defaults: the Qwen3.5-397B-A17B tutorial says "
        "prefix caching is on by default, but vLLM 0.23.0 (paired with vllm-ascend v0.23.0) turns it off "
        "by default for hybrid models; the rule follows the code and only speaks when "
        "--enable-prefix-caching is given explicitly.",
        zh="为了让一个注意力页与一个 GDN 状态页大小相同，vllm-ascend 会把混合架构模型的注意力 block 调大到约 "
        "2048 token。前缀缓存以整个 block 为单位，因此短于一个 block 的公共前缀永远不会被复用。关于默认值："
        "Qwen3.5-397B-A17B 教程说前缀缓存默认开启，但 vLLM 0.23.0（与 vllm-ascend v0.23.0 配套）对混合架构模型默认关闭；"
        "本规则以代码为准，只在显式给出 --enable-prefix-caching 时提示。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L88-L149",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/patch/platform/patch_mamba_config.py#L60-L122",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1852-L1856",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --enable-prefix-caching\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
        ),
    ),
)


@check(BLOCK_SIZE, when=("hybrid", "prefix_caching"))
def block_size(scope: Scope):
    if scope.get("kv_role") == "kv_consumer" or not scope.get("hybrid") or scope.get("prefix_caching") is not True:
        return
    model = scope.get("model").model.id
    yield Finding(
        BLOCK_SIZE,
        Text(
            en=f"--enable-prefix-caching on hybrid {model}: the attention block grows to about 2048 tokens to match "
            "the GDN state page, so only shared prefixes of roughly 2048+ tokens are ever reused",
            zh=f"混合架构模型 {model} 开启了 --enable-prefix-caching：注意力 block 会增大到约 2048 token 以与 GDN "
            "状态页大小一致，因此只有约 2048 token 及以上的公共前缀才会被复用",
        ),
        kit.option_span(scope.serve, "--enable-prefix-caching"),
    )


MTP_ALL = RuleMeta(
    id="QL703",
    name="qwen35-mtp-mamba-cache-all",
    groups=("prefix-cache", "speculative"),
    severity="error",
    requires=("model", "speculative", "mamba_cache_mode"),
    fix="safe",
    title=Text(en="--mamba-cache-mode all with Qwen3.5/3.6 MTP", zh="Qwen3.5/3.6 MTP 与 --mamba-cache-mode all 同用"),
    why=Text(
        en="The Qwen3.5 MTP draft model (also used by Qwen3.6) refuses the 'all' mamba cache mode when it "
        "is built and asks for 'align' instead, so the server stops at model load. 'align' is also what "
        "vLLM picks by itself for these models when prefix caching is on.",
        zh="Qwen3.5 的 MTP 草稿模型（Qwen3.6 也使用它）在构建时拒绝 mamba 缓存的 all 模式，并提示改用 align，"
        "因此服务会在加载模型时退出。对这些模型开启前缀缓存时，vLLM 自己选择的也正是 align。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/model_executor/models/qwen3_5_mtp.py#L363-L367",),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --enable-prefix-caching --mamba-cache-mode all "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 3}'\n",
            good="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --enable-prefix-caching --mamba-cache-mode align "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 3}'\n",
            fixed="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --enable-prefix-caching --mamba-cache-mode align "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 3}'\n",
        ),
    ),
)


@check(MTP_ALL, relations=(("conflicts", "speculative", "mamba_cache_mode"),), when=("speculative", "mamba_cache_mode=all"))
def mtp_all(scope: Scope):
    model = scope.get("model").model
    speculative = scope.get("speculative")
    if scope.get("mamba_cache_mode") != "all" or model.mtp_method != "qwen3_5_mtp" or not speculative:
        return
    method = speculative.get("method")
    if method not in MTP_METHODS:
        return
    yield Finding(
        MTP_ALL,
        Text(
            en=f"--mamba-cache-mode all with {method} speculative decoding on {model.id}: the MTP draft model raises "
            "NotImplementedError (\"Qwen3_5MTP currently does not support 'all' prefix caching, please use "
            "'--mamba-cache-mode=align' instead\")",
            zh=f"{model.id} 上 --mamba-cache-mode all 与 {method} 推测解码同用：MTP 草稿模型会抛出 "
            "NotImplementedError（\"Qwen3_5MTP currently does not support 'all' prefix caching, please use "
            "'--mamba-cache-mode=align' instead\"）",
        ),
        kit.span_of(scope.serve, "--mamba-cache-mode"),
        Fix(Text(en="use --mamba-cache-mode align", zh="改用 --mamba-cache-mode align"), kit.set_value(scope.serve, "--mamba-cache-mode", "align")),
    )
