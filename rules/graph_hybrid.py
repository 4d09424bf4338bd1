"""QL405: cudagraph_mode FULL on a hybrid (GDN + full attention) model.

Sources: vLLM's GDN attention metadata builder supports full graphs for uniform (decode) batches
only (``_cudagraph_support = AttentionCGSupport.UNIFORM_BATCH``); when FULL is asked for mixed
prefill-decode batches, vLLM logs that it is not supported with that backend and replaces it
(vllm@v0.12.0 vllm/v1/worker/gpu_model_runner.py L4673-L4701, vllm@v0.23.0
vllm/config/compilation.py L1344-L1369). vllm-ascend serves Qwen3.5/3.6 and Qwen3-Next through
vLLM's GDN builder.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

FULL_ON_HYBRID = RuleMeta(
    id="QL405",
    name="full-graph-on-hybrid-model",
    behaviours=("vllm_full_graph_replaced_for_gdn",),
    applies="vllm_full_graph_replaced_for_gdn",
    groups=("graph-capture",),
    severity="warning",
    requires=("hybrid", "cudagraph_mode", "version"),
    optional=("model",),
    fix="unsafe",
    title=Text(en="cudagraph_mode FULL on a hybrid GDN model is replaced at startup",
               zh="混合 GDN 模型上的 cudagraph_mode FULL 会在启动时被替换"),
    why=Text(
        en="FULL captures whole graphs for every batch, mixed prefill-decode ones included. The GDN (linear "
        "attention) layers of Qwen3.5/3.6 and Qwen3-Next support full graphs for uniform decode batches only, so "
        "vLLM logs 'CUDAGraphMode.FULL is not supported with GDN...' and runs FULL_AND_PIECEWISE (when attention "
        "is a splitting op) or FULL_DECODE_ONLY instead: the mode written is not the mode that runs, and capture "
        "sizes tuned for FULL are spent on another mode. The tutorials of these models use FULL_DECODE_ONLY.",
        zh="FULL 会为所有批次（包括 prefill 与 decode 混合的批次）捕获整图。Qwen3.5/3.6 与 Qwen3-Next 的 GDN（线性注意力）"
        "层只支持对统一的 decode 批次捕获整图，因此 vLLM 会打印 “CUDAGraphMode.FULL is not supported with GDN...”，"
        "并改用 FULL_AND_PIECEWISE（注意力为切分算子时）或 FULL_DECODE_ONLY：写下的模式并不是实际运行的模式，为 FULL "
        "调好的捕获尺寸也用在了另一种模式上。这些模型的教程使用 FULL_DECODE_ONLY。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/compilation.py#L1344-L1369",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/v1/attention/backends/gdn_attn.py#L82",
        "https://github.com/vllm-project/vllm/blob/v0.12.0/vllm/v1/worker/gpu_model_runner.py#L4673-L4701",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL\"}'\n",
            good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
            fixed="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        ),
        Example(
            bad="vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL\"}'\n",
            good="vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --compilation-config '{\"cudagraph_mode\": \"FULL\"}'\n",
            fixed="vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
            version="v0.18.0",
        ),
    ),
)


@check(FULL_ON_HYBRID, when=("hybrid", "cudagraph_mode=FULL"))
def full_on_hybrid(scope: Scope):
    if not scope.get("hybrid") or scope.get("cudagraph_mode") != "FULL":
        return
    if not kit.holds(scope, "vllm_full_graph_replaced_for_gdn"):
        return
    serve = scope.serve
    span = kit.span_of(serve, "--compilation-config", "cudagraph_mode")
    known = scope.known("model")
    name = known.value.model.id if known is not None else "the model"
    yield Finding(
        FULL_ON_HYBRID,
        Text(
            en=f"cudagraph_mode FULL on {name}, a hybrid GDN model: its linear-attention layers capture "
            f"full graphs of decode batches only, so {kit.at_version(scope).en} replaces FULL with FULL_AND_PIECEWISE or "
            "FULL_DECODE_ONLY at startup (with a warning)",
            zh=f"{name} 是混合 GDN 模型，却设置了 cudagraph_mode FULL：其线性注意力层只能对 decode 批次捕获"
            f"整图，因此 {kit.at_version(scope).zh} 会在启动时（打印警告）把 FULL 换成 FULL_AND_PIECEWISE 或 FULL_DECODE_ONLY",
        ),
        span,
        Fix(Text(en="set cudagraph_mode to FULL_DECODE_ONLY, as the tutorials of hybrid models do",
                 zh="将 cudagraph_mode 设为 FULL_DECODE_ONLY（与混合模型的教程一致）"),
            kit.set_key(serve, "--compilation-config", "cudagraph_mode", "FULL_DECODE_ONLY"), "unsafe"),
    )
