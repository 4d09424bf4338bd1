"""Atlas inference products (Atlas 300I Duo, Ascend 310P): tensor parallel only (QL504) and no PD
disaggregation (QL505). The data types are ``platform_310p_dtype`` (QL501, QL506), the graph limits
``platform_310p_graphs`` (QL502, QL503).

Sources: each rule's ``sources`` (the 310P guide, the 310P model runner at each release).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

# -- QL504-QL506 ----------------------------------------------------------------

TP_ONLY = RuleMeta(
    id="QL504",
    name="310p-tp-only",
    groups=("310p", "parallelism"),
    severity="error",
    requires=("hardware", "dp", "expert_parallel"),
    fix="unsafe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="Atlas 300I (310P) supports tensor parallel only", zh="Atlas 300I（310P）只支持张量并行"),
    why=Text(
        en="The guide for Atlas inference products states that only the TP scenario is supported (TP=2 or "
        "TP=4). The 310P worker still has a data-parallel code path, but it is not a supported layout, and "
        "expert parallelism is not offered on these cards either; the rule follows the guide.",
        zh="Atlas 推理产品的指南明确只支持 TP 场景（TP=2 或 TP=4）。310P worker 代码中虽保留了数据并行分支，"
        "但这并不是受支持的部署方式，这类卡也不提供专家并行；规则以指南为准。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L908",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --data-parallel-size 2 --dtype float16\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4 --dtype float16\n",
            hardware="310p",
        ),
    ),
)


@check(TP_ONLY, when=("hardware=310p",))
def tp_only(scope: Scope):
    if scope.get("hardware") != "310p":
        return
    serve = scope.serve
    dp = scope.get("dp")
    if dp > 1:
        yield Finding(
            TP_ONLY,
            Text(
                en=f"--data-parallel-size {dp} on Atlas 300I (310P): only the TP scenario is supported",
                zh=f"Atlas 300I（310P）上设置了 --data-parallel-size {dp}：只支持 TP（张量并行）场景",
            ),
            kit.span_of(serve, "--data-parallel-size", absent=kit.model_span(serve)),
            Fix(Text(en=f"use tensor parallel only (e.g. TP={min(4, 2 * dp)}) or run separate instances",
                     zh=f"只使用张量并行（如 TP={min(4, 2 * dp)}），或分别运行多个独立实例"), safety="unsafe"),
        )
    if scope.get("expert_parallel"):
        option = serve.opt("--enable-expert-parallel")
        yield Finding(
            TP_ONLY,
            Text(
                en="--enable-expert-parallel on Atlas 300I (310P): only the TP scenario is supported",
                zh="Atlas 300I（310P）上开启了 --enable-expert-parallel：只支持 TP（张量并行）场景",
            ),
            kit.option_span(serve, "--enable-expert-parallel"),
            Fix(Text(en="remove --enable-expert-parallel", zh="删除 --enable-expert-parallel"),
                kit.drop_option(option), safety="unsafe"),
            # a guide's statement, not a startup check: vllm-ascend v0.11.0's own 300I page runs
            # Pangu-Pro-MoE with --enable-expert-parallel, and no code rejects it
            severity="warning",
        )


NO_PD = RuleMeta(
    id="QL505",
    name="310p-no-pd",
    groups=("310p", "pd"),
    severity="error",
    requires=("hardware", "kv_transfer"),
    faq="atlas-300i-duo-deployment",
    title=Text(en="PD disaggregation (KV transfer) is not supported on Atlas 300I (310P)",
               zh="Atlas 300I（310P）不支持 PD 分离（KV 传输）"),
    why=Text(
        en="The 310P model runner refuses any --kv-transfer-config with a ValueError when it allocates the KV "
        "cache, and the guide states that multi-node PD separation is not supported on these cards.",
        zh="310P 的 model runner 在分配 KV cache 时遇到任何 --kv-transfer-config 都会抛出 ValueError，"
        "指南也说明这类卡不支持多节点 PD 分离部署。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.18.0rc1/vllm_ascend/_310p/model_runner_310p.py#L209",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/_310p/model_runner_310p.py#L747",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16\n",
            hardware="310p",
        ),
    ),
)


@check(NO_PD, when=("hardware=310p", "kv_transfer"))
def no_pd(scope: Scope):
    if scope.get("hardware") != "310p" or scope.get("kv_transfer") is None:
        return
    yield Finding(
        NO_PD,
        Text(
            en="--kv-transfer-config on Atlas 300I (310P): the 310P runner raises "
            "\"KV cache transfer is not supported for 310P\"",
            zh="Atlas 300I（310P）上设置了 --kv-transfer-config：310P 的 model runner 会抛出 "
            "\"KV cache transfer is not supported for 310P\"",
        ),
        kit.name_span(scope.serve, "--kv-transfer-config"),
        Fix(Text(en="serve prefill and decode in one instance (no --kv-transfer-config) or use Atlas A2/A3 for PD",
                 zh="在同一实例中完成 prefill 与 decode（不使用 --kv-transfer-config），或在 Atlas A2/A3 上做 PD 分离")),
    )
