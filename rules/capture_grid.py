"""--max-num-seqs off vLLM-Ascend's default ACL-graph capture grid (QL304): full decode batches
that the default capture list misses run eager.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

OFF_GRID = RuleMeta(
    id="QL304",
    name="max-num-seqs-off-capture-grid",
    behaviours=("ascend_default_capture_grid",),
    applies="ascend_default_capture_grid",
    groups=("scheduling", "graph-capture"),
    severity="warning",
    requires=("cudagraph_mode", "capture_sizes", "compilation", "max_num_seqs", "mtp_tokens", "batched_tokens",
              "version", "kv_role"),
    fix="unsafe",
    title=Text(en="--max-num-seqs falls between the default ACLGraph capture sizes",
               zh="--max-num-seqs 落在默认 ACLGraph 捕获尺寸之间"),
    why=Text(
        en="Without explicit cudagraph_capture_sizes, vllm-ascend (since v0.18.0rc1) caps capture at "
        "min(max_num_seqs x (1+k), 512) tokens and vLLM fills the list with 1, 2, 4, multiples of 8 "
        "(of 16 from 256) up to that cap, then rounds to multiples of k+1. A full decode batch of "
        "max_num_seqs x (1+k) tokens that is not on this grid has no graph: the largest batches, the "
        "ones that matter at full load, run eager. Choose max_num_seqs on the grid or list the size.",
        zh="未显式设置 cudagraph_capture_sizes 时，vllm-ascend（v0.18.0rc1 起）把捕获上限定为 "
        "min(max_num_seqs x (1+k), 512) 个 token，vLLM 用 1、2、4 以及 8 的倍数（256 起为 16 的倍数）"
        "填满到该上限，再按 k+1 的倍数取整。若满载解码批次 max_num_seqs x (1+k) 不在这个网格上，"
        "就没有对应的图：满载时最大的那些批次只能以 eager 方式运行。应把 max_num_seqs 取在网格上，或显式列出该尺寸。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L207-L241",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/vllm.py#L1661-L1730",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/compilation.py#L1432-L1518",
        "https://github.com/vllm-project/vllm-ascend/issues/16049",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 12 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
            good="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
            fixed="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --max-num-seqs 16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        ),
    ),
)


def _captured(seqs: int, k: int, budget: int) -> list[int]:
    """The default capture list (tokens) vLLM-Ascend builds for ``seqs`` requests of k+1 tokens."""
    limit = min(seqs * (k + 1), kit.ASCEND_DEFAULT_CAPTURE_CAP)
    return kit.round_for_spec(kit.default_capture_sizes(limit, budget), k + 1)


def _on_grid(seqs: int, k: int, budget: int) -> bool:
    return seqs * (k + 1) in _captured(seqs, k, budget)


def _grid_neighbours(seqs: int, k: int, budget: int) -> tuple[int | None, int | None]:
    """The nearest max-num-seqs values below and above ``seqs`` whose full decode batch is captured."""
    step = k + 1
    highest = kit.ASCEND_DEFAULT_CAPTURE_CAP // step  # no larger batch is ever captured by default
    lower = next((s for s in range(min(seqs - 1, highest), 0, -1) if _on_grid(s, k, budget)), None)
    upper = next((s for s in range(seqs + 1, kit.ASCEND_DEFAULT_CAPTURE_CAP // step + 1)
                  if s * step <= budget and _on_grid(s, k, budget)), None)
    return lower, upper


@check(OFF_GRID, relations=(("in_range", "max_num_seqs", "capture_sizes"),),
       when=("!capture_sizes", "cudagraph_mode=FULL | cudagraph_mode=FULL_DECODE_ONLY | cudagraph_mode=FULL_AND_PIECEWISE"))
def off_grid(scope: Scope):
    """A full decode batch (max_num_seqs x (1+k) tokens) that the default capture list misses."""
    mode = scope.get("cudagraph_mode")
    if mode not in kit.FULL_DECODE_MODES or scope.get("capture_sizes") is not None:
        return
    if scope.get("compilation").get("max_cudagraph_capture_size") is not None or scope.get("kv_role") == "kv_producer":
        return
    if not kit.holds(scope, "ascend_default_capture_grid"):
        return
    seqs, k, budget = scope.get("max_num_seqs"), scope.get("mtp_tokens"), scope.get("batched_tokens")
    step = k + 1
    target = seqs * step
    if target > kit.ASCEND_DEFAULT_CAPTURE_CAP or target > budget:
        return  # capped by design / reported by QL302
    sizes = _captured(seqs, k, budget)
    if target in sizes or not sizes:
        return
    last = sizes[-1]
    covered = last // step
    grid = "1,2,4, multiples of 8" + (", of 16 from 256" if target > 256 else "") + \
        (f", rounded to multiples of {step}" if step > 1 else "")
    grid_zh = "1,2,4 及 8 的倍数" + ("，256 起为 16 的倍数" if target > 256 else "") + \
        (f"，再取整为 {step} 的倍数" if step > 1 else "")
    batch = f"--max-num-seqs {seqs}" + (f" x (1 + {k} speculative tokens) = {target} tokens" if k else "")
    batch_zh = f"--max-num-seqs {seqs}" + (f" x (1 + {k} 个推测 token) = {target} 个 token" if k else "")
    stops = f"{last}" + (f" tokens ({covered} requests)" if k else "")
    stops_zh = f"{last}" + (f" 个 token（{covered} 个请求）" if k else "")
    lower, upper = _grid_neighbours(seqs, k, budget)
    choices = " or ".join(str(s) for s in (lower, upper) if s is not None)
    choices_zh = " 或 ".join(str(s) for s in (lower, upper) if s is not None)
    listed = sorted(set(sizes) | {target})
    example = f" (e.g. [{','.join(map(str, listed))}])" if len(listed) <= 8 else ""
    example_zh = f"（如 [{','.join(map(str, listed))}]）" if len(listed) <= 8 else ""
    stated = kit.option(scope.serve, "--max-num-seqs").value is not None
    edits = kit.set_value(scope.serve, "--max-num-seqs", str(upper)) if stated and upper is not None else []
    yield Finding(
        OFF_GRID,
        Text(
            en=f"{batch} is off the default ACL-graph capture grid ({grid}) with {mode}, so the default capture list "
            f"stops at {stops} and decode batches of {covered + 1}-{seqs} run eager (~7x slower at full load in a "
            "reported case)",
            zh=f"在 {mode} 模式下，{batch_zh} 不在默认的 ACLGraph 捕获网格（{grid_zh}）上，因此默认捕获列表止于 "
            f"{stops_zh}，包含 {covered + 1}-{seqs} 个请求的解码批次会以 eager 方式运行（在一个已报告的案例中，"
            "满载时慢约 7 倍）",
        ),
        kit.span_of(scope.serve, "--max-num-seqs"),
        Fix(Text(en=f"use --max-num-seqs {choices}, or set cudagraph_capture_sizes explicitly including {target}{example}",
                 zh=f"使用 --max-num-seqs {choices_zh}，或显式设置包含 {target} 的 cudagraph_capture_sizes{example_zh}"),
            edits, "unsafe"),
    )
