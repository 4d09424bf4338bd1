"""Startup checks on the NPU runtime environment variables (QL520-QL521):
ASCEND_LAUNCH_BLOCKING=1 with ACL graphs, and PYTORCH_NPU_ALLOC_CONF options that exclude
expandable segments.

Sources: ``vllm-ascend@v0.23.0:vllm_ascend/platform.py
L645-657, L772-790`` and ``vllm-ascend@main:vllm_ascend/platform.py L1109-1117, L1208-1227``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

LAUNCH_BLOCKING = RuleMeta(
    id="QL520",
    name="launch-blocking-with-graphs",
    behaviours=("launch_blocking_rejects_graph",),
    applies="launch_blocking_rejects_graph",
    groups=("env", "graph-capture"),
    severity="error",
    requires=("cudagraph_mode", "version"),
    title=Text(en="ASCEND_LAUNCH_BLOCKING=1 with ACL graphs", zh="ASCEND_LAUNCH_BLOCKING=1 与 ACL 图模式同用"),
    why=Text(
        en="ASCEND_LAUNCH_BLOCKING=1 makes every NPU kernel launch synchronous, which graph capture cannot "
        "work with. From v0.11.0rc1 vllm-ascend refuses to start when the variable is 1 and any graph mode "
        "is left on (the vLLM default is FULL_AND_PIECEWISE). It is a debugging switch: run eager while "
        "debugging, or read the plog files instead.",
        zh="ASCEND_LAUNCH_BLOCKING=1 让每次 NPU 算子下发都同步执行，图捕获无法与之共存。自 v0.11.0rc1 起，只要该变量为 1 "
        "且仍开启任一图模式（vLLM 默认 FULL_AND_PIECEWISE），vllm-ascend 就拒绝启动。它是调试开关：调试时请用 eager "
        "模式运行，或改看 plog 日志。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L645-L657",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L1109-L1117",
    ),
    examples=(Example(
        bad="export ASCEND_LAUNCH_BLOCKING=1\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n",
        good="export ASCEND_LAUNCH_BLOCKING=1\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --enforce-eager\n",
        version="v0.23.0",
    ),),
)


@check(LAUNCH_BLOCKING, when=("env:ASCEND_LAUNCH_BLOCKING",))
def launch_blocking(scope: Scope):
    """ASCEND_LAUNCH_BLOCKING=1 while cudagraph_mode is not NONE."""
    if kit.env(scope.serve, "ASCEND_LAUNCH_BLOCKING").value != "1" or not kit.holds(scope, "launch_blocking_rejects_graph"):
        return
    mode = scope.get("cudagraph_mode")
    if mode == "NONE":
        return
    error = "'ACL graph is incompatible with ASCEND_LAUNCH_BLOCKING=1'"
    yield Finding(
        LAUNCH_BLOCKING,
        Text(en=f"ASCEND_LAUNCH_BLOCKING=1 with graph mode {mode}: {kit.at_version(scope).en} stops with ValueError {error}",
             zh=f"ASCEND_LAUNCH_BLOCKING=1 与图模式 {mode} 同用：{kit.at_version(scope).zh} 会以 ValueError {error} 退出"),
        kit.env_span(scope.serve, "ASCEND_LAUNCH_BLOCKING"),
        Fix(Text(en="unset ASCEND_LAUNCH_BLOCKING, or add --enforce-eager while debugging",
                 zh="取消 ASCEND_LAUNCH_BLOCKING，或在调试期间加上 --enforce-eager")),
    )


ALLOC_CONF = RuleMeta(
    id="QL521",
    name="npu-alloc-conf-conflict",
    groups=("env", "memory"),
    severity="warning",
    requires=("version",),
    faq="oom",
    title=Text(en="PYTORCH_NPU_ALLOC_CONF mixes options that exclude each other",
               zh="PYTORCH_NPU_ALLOC_CONF 中混用了互斥的选项"),
    why=Text(
        en="vllm-ascend appends expandable_segments:True to PYTORCH_NPU_ALLOC_CONF unless the variable already "
        "names expandable_segments, max_split_size_mb or garbage_collection_threshold, because the last two "
        "cannot be combined with expandable segments. Writing expandable_segments:True together with one of "
        "them asks the allocator for both (warning); giving only max_split_size_mb silently drops the "
        "expandable segments the OOM FAQ recommends (info).",
        zh="vllm-ascend 会在 PYTORCH_NPU_ALLOC_CONF 中追加 expandable_segments:True，除非变量里已有 expandable_segments、"
        "max_split_size_mb 或 garbage_collection_threshold，因为后两者不能与可扩展段同时启用。把 expandable_segments:True "
        "与其中之一写在一起，等于要求分配器同时使用二者（警告）；只写 max_split_size_mb 则会悄悄失去 OOM 常见问题所推荐的"
        "可扩展段（提示）。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L772-L790",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/vllm_ascend/platform.py#L1208-L1227",
    ),
    examples=(Example(
        bad="export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True,max_split_size_mb:250\nvllm serve Qwen/Qwen3.6-27B\n",
        good="export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\nvllm serve Qwen/Qwen3.6-27B\n",
    ),),
)


@check(ALLOC_CONF, when=("env:PYTORCH_NPU_ALLOC_CONF",))
def alloc_conf(scope: Scope):
    """expandable_segments:True together with max_split_size_mb / garbage_collection_threshold."""
    text = kit.env(scope.serve, "PYTORCH_NPU_ALLOC_CONF").value
    if not text:
        return
    items = {part.split(":", 1)[0].strip(): part.split(":", 1)[-1].strip()
             for part in text.split(",") if part.strip()}
    others = [name for name in ("max_split_size_mb", "garbage_collection_threshold") if name in items]
    if not others:
        return  # (both findings name one of them)
    span = kit.env_span(scope.serve, "PYTORCH_NPU_ALLOC_CONF")
    expandable = items.get("expandable_segments", "").lower() == "true"
    if expandable and others:
        named = ", ".join(others)
        yield Finding(
            ALLOC_CONF,
            Text(en=f"PYTORCH_NPU_ALLOC_CONF={text} combines expandable_segments:True with {named}, which cannot be "
                 "enabled together (vllm-ascend never adds expandable segments next to them)",
                 zh=f"PYTORCH_NPU_ALLOC_CONF={text} 把 expandable_segments:True 与 {named} 写在一起，二者不能同时启用"
                 "（vllm-ascend 从不在它们旁边追加可扩展段）"),
            span,
            Fix(Text(en=f"keep expandable_segments:True alone (the OOM FAQ's setting), or drop it and keep {others[0]}",
                     zh=f"只保留 expandable_segments:True（OOM 常见问题推荐的设置），或删除它只保留 {others[0]}")),
        )
    elif others and "expandable_segments" not in items:
        yield Finding(
            ALLOC_CONF,
            Text(en=f"PYTORCH_NPU_ALLOC_CONF={text}: with {others[0]} set, {kit.at_version(scope).en} does not add its "
                 "default expandable_segments:True",
                 zh=f"PYTORCH_NPU_ALLOC_CONF={text}：设置了 {others[0]} 后，{kit.at_version(scope).zh} 不会再追加默认的 "
                 "expandable_segments:True"),
            span,
            Fix(Text(en="use PYTORCH_NPU_ALLOC_CONF=expandable_segments:True unless the split size is wanted on purpose",
                     zh="除非有意限制切分大小，否则使用 PYTORCH_NPU_ALLOC_CONF=expandable_segments:True")),
            severity="info",
        )
