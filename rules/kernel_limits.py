"""Startup checks on what vllm-ascend's fused operators and attention backends refuse
(QL548-QL549): a non-positive mega_moe_max_tokens for the fused mega-MoE operator, and MLA
attention models on Atlas 300I (310P), whose model runner has the plain attention backend only.

Sources: ``vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L306-318``,
``vllm-ascend@main:vllm_ascend/ascend_config.py L283-290``,
``vllm-ascend@v0.15.0rc1:vllm_ascend/_310p/model_runner_310p.py L52`` and
``vllm-ascend@v0.23.0:vllm_ascend/_310p/model_runner_310p.py L744-753``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

MEGA_MOE = RuleMeta(
    id="QL548",
    name="mega-moe-max-tokens",
    behaviours=("mega_moe_max_tokens_positive",),
    applies="mega_moe_max_tokens_positive",
    groups=("additional-config",),
    severity="error",
    requires=("additional_config", "version"),
    title=Text(en="mega_moe_max_tokens is not a positive integer", zh="mega_moe_max_tokens 不是正整数"),
    why=Text(
        en="mega_moe_max_tokens caps the tokens one rank receives in the fused mega-MoE operator. From "
        "v0.23.0rc1 vllm-ascend stops with ValueError unless it is a positive integer. The documentation gives "
        "65536 as its default while main's code uses 131072; any positive value is accepted, so that "
        "disagreement is not reported.",
        zh="mega_moe_max_tokens 限制融合 mega-MoE 算子中单个 rank 接收的 token 数。自 v0.23.0rc1 起，它不是正整数时 "
        "vllm-ascend 会以 ValueError 退出。文档写的默认值是 65536，而 main 的代码用的是 131072；任何正值都会被接受，"
        "因此这一差异不作报告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L306-L318",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/ascend_config.py#L283-L290",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --additional-config '{\"mega_moe_max_tokens\": 0}'\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --additional-config '{\"mega_moe_max_tokens\": 65536}'\n",
        version="v0.23.0",
    ),),
)


@check(MEGA_MOE, when=("additional_config",))
def mega_moe(scope: Scope):
    """mega_moe_max_tokens <= 0 (non-integers are QL106's)."""
    value = scope.get("additional_config").get("mega_moe_max_tokens")
    if not isinstance(value, int) or isinstance(value, bool) or value > 0 or not kit.holds(scope, "mega_moe_max_tokens_positive"):
        return
    error = "'mega_moe_max_tokens must be a positive integer'"
    yield Finding(MEGA_MOE,
                  Text(en=f"mega_moe_max_tokens {value}: {kit.at_version(scope).en} stops with ValueError {error}",
                       zh=f"mega_moe_max_tokens 为 {value}：{kit.at_version(scope).zh} 会以 ValueError {error} 退出"),
                  kit.span_of(scope.serve, "--additional-config", "mega_moe_max_tokens"),
                  Fix(Text(en="use a positive token count (or drop the key for the default)",
                           zh="使用正的 token 数（或删除该键以使用默认值）")))


MLA_310P = RuleMeta(
    id="QL549",
    name="310p-mla-model",
    behaviours=("mla_rejected_on_310p",),
    applies="mla_rejected_on_310p",
    groups=("310p",),
    severity="error",
    requires=("hardware", "mla_attention", "version"),
    faq="atlas-300i-duo-deployment",
    title=Text(en="An MLA model on Atlas 300I (310P)", zh="在 Atlas 300I（310P）上运行 MLA 模型"),
    why=Text(
        en="The 310P model runner only has the plain attention backend: when it allocates the KV cache it stops "
        "with ValueError 'MLAAttention is not supported for 310P' (and likewise for DeepSeek sparse attention) "
        "from v0.15.0rc1, when MoE models reached 310P. DeepSeek-V3-style models therefore cannot run there.",
        zh="310P 的模型运行器只有普通注意力后端：自 v0.15.0rc1（MoE 模型登陆 310P）起，它在分配 KV 缓存时会以 ValueError "
        "“MLAAttention is not supported for 310P” 退出（DeepSeek 稀疏注意力同样如此）。因此 DeepSeek-V3 类模型无法在其上运行。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.15.0rc1/vllm_ascend/_310p/model_runner_310p.py#L52",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/_310p/model_runner_310p.py#L744-L753",
    ),
    examples=(Example(
        bad="vllm serve deepseek-ai/DeepSeek-V3.1 --dtype float16 --tensor-parallel-size 4\n",
        good="vllm serve Qwen/Qwen3-32B --dtype float16 --tensor-parallel-size 4\n",
        hardware="310p",
        version="v0.23.0",
    ),),
)


@check(MLA_310P, when=("hardware=310p",))
def mla_310p(scope: Scope):
    """An MLA model served on 310P."""
    if scope.get("hardware") != "310p" or not scope.get("mla_attention") or not kit.holds(scope, "mla_rejected_on_310p"):
        return
    serve = scope.serve
    error = "'MLAAttention is not supported for 310P'"
    yield Finding(MLA_310P,
                  Text(en=f"MLA attention model on Atlas 300I (310P): {kit.at_version(scope).en} stops with ValueError {error} "
                       "when it allocates the KV cache",
                       zh=f"在 Atlas 300I（310P）上运行 MLA 注意力模型：{kit.at_version(scope).zh} 在分配 KV 缓存时会以 ValueError "
                       f"{error} 退出"),
                  serve.model.span if serve.model is not None else serve.span,
                  Fix(Text(en="serve this model on Atlas A2/A3; 310P runs GQA models only",
                           zh="请在 Atlas A2/A3 上运行该模型；310P 只能运行 GQA 模型")))
