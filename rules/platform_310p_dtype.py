"""Data types on Atlas inference products (Atlas 300I Duo, Ascend 310P): float16 only (QL501) and
no FP8 KV cache (QL506).

Sources: each rule's ``sources`` (the 310P guide, the 310P GDN kernels, the FP8 crash report).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

# -- QL501 ----------------------------------------------------------------------

DTYPE = RuleMeta(
    id="QL501",
    name="310p-dtype-float16",
    groups=("310p", "quantization"),
    severity="error",
    requires=("hardware", "dtype"),
    fix="safe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="Atlas 300I (310P) needs --dtype float16", zh="Atlas 300I（310P）需要 --dtype float16"),
    why=Text(
        en="The 310P chip computes in float16 only: its Gated-DeltaNet kernels for Qwen3.5/3.6 raise a "
        "TypeError when q/k/v are not float16, and the guide asks for --dtype float16 on these cards. "
        "An explicit bfloat16/float32 is reported as an error. Leaving --dtype out is only a warning: the "
        "guide says it must be set, but the project's own 310P CI config omits it and no startup check "
        "exists, so the outcome depends on the checkpoint's dtype. The SSM cache of the GDN layers is forced "
        "to float16 by the 310P code, so --mamba-ssm-cache-dtype may be left out; another explicit value is "
        "ignored and reported as a warning.",
        zh="310P 芯片只支持 float16 计算：Qwen3.5/3.6 的 Gated-DeltaNet 算子在 q/k/v 不是 float16 时抛出 "
        "TypeError，部署指南也要求在这类卡上设置 --dtype float16。显式写 bfloat16/float32 报错误。未写 --dtype "
        "只报警告：指南说必须设置，但项目自己的 310P CI 配置并没有写，启动时也没有检查，结果取决于权重自身的 dtype。"
        "GDN 层的 SSM 缓存由 310P 代码强制为 float16，因此 --mamba-ssm-cache-dtype 可以不写；写成其他值会被忽略，报警告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/_310p/ops/fla/chunk_gated_delta_rule.py#L196-L197",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/_310p/ops/fla/gdn_310.py#L149-L151",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/weekly/single_node/configs/Qwen3.6-27B-W8A8-310P-300I-DUO.yaml",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype bfloat16 --enforce-eager\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 --enforce-eager\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 --enforce-eager\n",
            hardware="310p",
            version="v0.23.0",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --enforce-eager\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype half --enforce-eager\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --dtype float16 --tensor-parallel-size 2 --enforce-eager\n",
            hardware="310p",
            version="v0.23.0",
        ),
    ),
)

_FP16 = ("float16", "half")


@check(DTYPE, when=("hardware=310p",))
def dtype_float16(scope: Scope):
    if scope.get("hardware") != "310p":
        return
    serve = scope.serve
    dtype = scope.get("dtype")
    option = serve.opt("--dtype")
    if dtype not in _FP16:
        if option is not None and option.value is not None and dtype != "auto":
            yield Finding(
                DTYPE,
                Text(
                    en=f"--dtype {dtype} on Atlas 300I (310P): the chip only computes in float16",
                    zh=f"在 Atlas 300I（310P）上使用了 --dtype {dtype}：该芯片只支持 float16 计算",
                ),
                option.value.span,
                Fix(Text(en="set --dtype float16", zh="将 --dtype 设为 float16"), kit.set_value(serve, "--dtype", "float16")),
            )
        elif option is not None and option.value is not None:
            yield Finding(
                DTYPE,
                Text(
                    en="--dtype auto on Atlas 300I (310P) follows the checkpoint, usually bfloat16; the guide asks for float16",
                    zh="Atlas 300I（310P）上 --dtype auto 会沿用权重的 dtype（通常为 bfloat16）；指南要求使用 float16",
                ),
                option.value.span,
                Fix(Text(en="set --dtype float16", zh="将 --dtype 设为 float16"), kit.set_value(serve, "--dtype", "float16")),
                severity="warning",
            )
        else:
            yield Finding(
                DTYPE,
                Text(
                    en="no --dtype on Atlas 300I (310P): the checkpoint's dtype (usually bfloat16) is used, "
                    "but the guide asks for --dtype float16",
                    zh="Atlas 300I（310P）上未设置 --dtype：将使用权重自身的 dtype（通常为 bfloat16），"
                    "但指南要求 --dtype float16",
                ),
                kit.model_span(serve),
                Fix(Text(en="add --dtype float16", zh="添加 --dtype float16"), kit.insert_option(serve, "--dtype float16")),
                severity="warning",
            )
    ssm = serve.opt("--mamba-ssm-cache-dtype")
    if ssm is not None and ssm.value is not None and ssm.value.text is not None:
        value = ssm.value.text.lower()
        if value not in _FP16 and value != "auto":
            yield Finding(
                DTYPE,
                Text(
                    en=f"--mamba-ssm-cache-dtype {value} on Atlas 300I (310P): only float16 is supported "
                    "(the 310P GDN layers force a float16 SSM cache, so this value is ignored)",
                    zh=f"Atlas 300I（310P）上设置了 --mamba-ssm-cache-dtype {value}：只支持 float16"
                    "（310P 的 GDN 层强制使用 float16 的 SSM 缓存，因此该值会被忽略）",
                ),
                ssm.value.span,
                Fix(Text(en="set --mamba-ssm-cache-dtype float16", zh="将 --mamba-ssm-cache-dtype 设为 float16"),
                    kit.set_value(serve, "--mamba-ssm-cache-dtype", "float16")),
                severity="warning",
            )


KV_FP8 = RuleMeta(
    id="QL506",
    name="310p-kv-cache-fp8",
    groups=("310p", "memory"),
    severity="error",
    requires=("hardware",),
    fix="safe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="FP8 KV cache is not supported on Atlas 300I (310P)", zh="Atlas 300I（310P）不支持 FP8 KV cache"),
    why=Text(
        en="The 310P has no FP8 support. vLLM accepts --kv-cache-dtype fp8 and the server starts, but the "
        "first request crashes the engine; the maintainers' answer is to drop the option and keep the "
        "default KV cache dtype (float16 on these cards).",
        zh="310P 不支持 FP8。vLLM 接受 --kv-cache-dtype fp8，服务也能启动，但第一个请求就会让引擎崩溃；"
        "维护者给出的办法是去掉该参数，使用默认的 KV cache 类型（这类卡上为 float16）。",
    ),
    sources=("https://github.com/vllm-project/vllm-ascend/issues/8284",),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-30B-A3B-Instruct-2507 --tensor-parallel-size 2 --dtype float16 "
            "--kv-cache-dtype fp8 --enforce-eager\n",
            good="vllm serve /models/Qwen3-30B-A3B-Instruct-2507 --tensor-parallel-size 2 --dtype float16 "
            "--enforce-eager\n",
            fixed="vllm serve /models/Qwen3-30B-A3B-Instruct-2507 --tensor-parallel-size 2 --dtype float16 "
            "--enforce-eager\n",
            hardware="310p",
        ),
    ),
)


@check(KV_FP8, when=("hardware=310p",))
def kv_cache_fp8(scope: Scope):
    if scope.get("hardware") != "310p":
        return
    option = scope.serve.opt("--kv-cache-dtype")
    if option is None or option.value is None or option.value.text is None:
        return
    value = option.value.text.strip().lower()
    if not value.startswith("fp8"):
        return
    yield Finding(
        KV_FP8,
        Text(
            en=f"--kv-cache-dtype {value} is not supported on Atlas 300I Duo / 310P: the server starts but "
            "crashes on the first request",
            zh=f"Atlas 300I Duo / 310P 不支持 --kv-cache-dtype {value}：服务能启动，但第一个请求就会使其崩溃",
        ),
        option.span,
        Fix(Text(en=f"remove --kv-cache-dtype {value} (use the default float16 KV cache)",
                 zh=f"删除 --kv-cache-dtype {value}（使用默认的 float16 KV 缓存）"), kit.drop_option(option)),
    )
