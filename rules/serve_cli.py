"""vllm serve command-line checks at startup: --headless with API servers (QL541), the local DP size
(QL542) and the model argument (QL548). The DP load-balancing modes are ``dp_load_balancing``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

HEADLESS_API = RuleMeta(
    id="QL541",
    name="headless-with-api-servers",
    behaviours=("vllm_headless_rejects_api_server_count", "vllm_headless_rejects_hybrid_lb"),
    groups=("parallelism",),
    severity="error",
    fix="safe",
    requires=("version",),
    faq="qwen35-397b-mp-hang",
    title=Text(en="--headless with API servers", zh="--headless 却要求启动 API 服务"),
    why=Text(
        en="A --headless node runs engines only. vllm serve stops with ValueError when --api-server-count is "
        "above 0 there, and the headless runner refuses --data-parallel-hybrid-lb.",
        zh="--headless 节点只运行引擎。若同时给出大于 0 的 --api-server-count，vllm serve 会以 ValueError 退出；"
        "headless 模式也拒绝 --data-parallel-hybrid-lb。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/cli/serve.py#L61-L69",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/cli/serve.py#L173-L175",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --headless --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2 --api-server-count 1\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --headless --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2\n",
        fixed="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --headless --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2\n",
    ),),
)


@check(HEADLESS_API, when=("option:--headless",))
def headless_api(scope: Scope):
    """--headless with --api-server-count > 0 or --data-parallel-hybrid-lb."""
    serve = scope.serve
    if not serve.has("--headless"):
        return
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
    count = kit.integer(serve, "--api-server-count").value
    if count is not None and count > 0 and kit.holds(scope, "vllm_headless_rejects_api_server_count"):
        option = serve.opt("--api-server-count")
        yield Finding(HEADLESS_API,
                      Text(en=f"--api-server-count {count} with --headless: vllm serve of {where} stops with ValueError "
                           "(no API server runs in headless mode)",
                           zh=f"--api-server-count {count} 与 --headless 同用：{where_zh} 的 vllm serve 会以 ValueError 退出"
                           "（headless 模式不运行 API 服务）"),
                      kit.option_span(serve, "--api-server-count"),
                      Fix(Text(en="remove --api-server-count from the headless node",
                               zh="从 headless 节点删除 --api-server-count"), kit.drop_option(option)))
    if serve.has("--data-parallel-hybrid-lb") and kit.holds(scope, "vllm_headless_rejects_hybrid_lb"):
        option = serve.opt("--data-parallel-hybrid-lb")
        error = "'data_parallel_hybrid_lb is not applicable in headless mode'"
        yield Finding(HEADLESS_API,
                      Text(en=f"--data-parallel-hybrid-lb with --headless: vllm serve of {where} stops with ValueError {error}",
                           zh=f"--data-parallel-hybrid-lb 与 --headless 同用：{where_zh} 的 vllm serve 会以 ValueError "
                           f"{error} 退出"),
                      kit.option_span(serve, "--data-parallel-hybrid-lb"),
                      Fix(Text(en="remove --data-parallel-hybrid-lb from the headless node",
                               zh="从 headless 节点删除 --data-parallel-hybrid-lb"), kit.drop_option(option)))


DP_LOCAL = RuleMeta(
    id="QL542",
    name="dp-local-size",
    behaviours=("vllm_external_rank_local_one", "vllm_dp_local_at_most_dp", "vllm_headless_needs_local_ranks"),
    groups=("parallelism",),
    severity="error",
    requires=("dp", "version"),
    title=Text(en="--data-parallel-size-local does not fit the DP group", zh="--data-parallel-size-local 与 DP 组不匹配"),
    why=Text(
        en="The ranks on one node cannot exceed the whole DP group: vLLM stops with ValueError when "
        "--data-parallel-size-local is larger than --data-parallel-size, and a --headless node needs at least "
        "one local rank. An external DP rank (--data-parallel-rank) is one engine, so its local size must be "
        "1 or absent (AssertionError otherwise).",
        zh="一个节点上的 rank 数不能超过整个 DP 组：--data-parallel-size-local 大于 --data-parallel-size 时 vLLM 以 "
        "ValueError 退出；--headless 节点至少要有一个本地 rank。外部 DP rank（--data-parallel-rank）只对应一个引擎，"
        "其本地规模必须为 1 或不写（否则 AssertionError）。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/parallel.py#L441-L445",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1872-L1882",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/cli/serve.py#L184-L185",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 2 --data-parallel-size-local 4\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 --data-parallel-size-local 4\n",
    ),),
)


@check(DP_LOCAL, relations=(("in_range", "dp_local", "dp"),), when=("option:--data-parallel-size-local",))
def dp_local_size(scope: Scope):
    """local DP size above the DP size, 0 on a headless node, or != 1 with --data-parallel-rank."""
    serve, dp = scope.serve, scope.get("dp")
    local = kit.integer(serve, "--data-parallel-size-local").value
    if local is None:
        return
    span, where, where_zh = kit.span_of(serve, "--data-parallel-size-local"), kit.at_version(scope).en, kit.at_version(scope).zh
    if serve.opt("--data-parallel-rank") is not None and local != 1 and kit.holds(scope, "vllm_external_rank_local_one"):
        yield Finding(DP_LOCAL,
                      Text(en=f"--data-parallel-rank with --data-parallel-size-local {local}: an external DP rank is one "
                           f"engine, {where} asserts the local size is 1",
                           zh=f"--data-parallel-rank 搭配 --data-parallel-size-local {local}：外部 DP rank 只对应一个引擎，"
                           f"{where_zh} 断言本地规模为 1"),
                      span,
                      Fix(Text(en="drop --data-parallel-size-local (or set it to 1) for external DP ranks",
                               zh="外部 DP rank 请删除 --data-parallel-size-local（或设为 1）")))
    elif local > dp and kit.holds(scope, "vllm_dp_local_at_most_dp"):
        yield Finding(DP_LOCAL,
                      Text(en=f"--data-parallel-size-local {local} is larger than --data-parallel-size {dp}: {where} "
                           "stops with ValueError",
                           zh=f"--data-parallel-size-local {local} 大于 --data-parallel-size {dp}：{where_zh} 会以 ValueError 退出"),
                      span,
                      Fix(Text(en=f"use at most {dp} local ranks, or raise --data-parallel-size",
                               zh=f"本地 rank 数最多为 {dp}，或调大 --data-parallel-size")))
    elif local <= 0 and serve.has("--headless") and kit.holds(scope, "vllm_headless_needs_local_ranks"):
        error = "'data_parallel_size_local must be > 0 in headless mode'"
        yield Finding(DP_LOCAL,
                      Text(en=f"--data-parallel-size-local {local} on a --headless node: {where} stops with ValueError {error}",
                           zh=f"--headless 节点上 --data-parallel-size-local 为 {local}：{where_zh} 会以 ValueError {error} 退出"),
                      span,
                      Fix(Text(en="give the node at least one rank", zh="为该节点至少分配一个 rank")))


MODEL_ARG = RuleMeta(
    id="QL545",
    name="serve-model-argument",
    behaviours=("vllm_serve_model_positional",),
    groups=("flags",),
    severity="error",
    requires=("version",),
    title=Text(en="vllm serve without the model as first argument", zh="vllm serve 的第一个参数不是模型"),
    why=Text(
        en="vllm serve takes the model as its first positional argument. When the first word after 'serve' is "
        "an option, --served-model-name is given and neither --model nor --config is used, vLLM stops with "
        "ValueError ('model should be provided as the first positional argument'), even if the model appears "
        "later. Without any model it silently serves vLLM's default model (warning). --model still works but is "
        "deprecated (info).",
        zh="vllm serve 要求模型作为第一个位置参数。若 serve 之后的第一个词是选项、又给了 --served-model-name，且未使用 "
        "--model 或 --config，vLLM 会以 ValueError 退出（“model should be provided as the first positional argument”），"
        "即使模型出现在后面也一样。完全不给模型时，它会悄悄加载 vLLM 的默认模型（警告）。--model 仍可用但已弃用（提示）。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/utils/argparse_utils.py#L251-L297",),
    examples=(Example(
        bad="vllm serve --tensor-parallel-size 2 Qwen/Qwen3.6-27B --served-model-name qwen3.6\n",
        good="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --served-model-name qwen3.6\n",
    ),),
)


@check(MODEL_ARG, when=("option:--model | serve:option_first",))
def model_argument(scope: Scope):
    """`vllm serve <option> ... --served-model-name`, no model at all, or --model."""
    serve = scope.serve
    words = [value.text for value in serve.argv]
    if len(words) < 2 or words[1] != "serve" or not (words[0] or "").endswith("vllm"):
        return
    args = words[2:]
    if any(word is None for word in args[:1]) or not kit.holds(scope, "vllm_serve_model_positional"):
        return
    lines = range(serve.span.line, serve.span.end_line + 1)
    if any(span.line in lines for _, span in scope.plan.glued_redirects):
        return  # a <placeholder> eats the model word; QL107 reports it
    model_opt = serve.opt("--model")
    if model_opt is None and (serve.opt("--config") is not None or not args or not (args[0] or "").startswith("-")):
        return  # (before the message parts: most commands put the model first)
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
    first = Fix(Text(en="put the model right after `vllm serve`", zh="把模型写在 `vllm serve` 之后的第一个位置"))
    if model_opt is not None:
        yield Finding(MODEL_ARG,
                      Text(en=f"--model with vllm serve is deprecated: {where} moves it to the positional model argument "
                           "with a warning",
                           zh=f"vllm serve 的 --model 已弃用：{where_zh} 会把它移到位置参数并打印警告"),
                      model_opt.name_span, first, severity="info")
        return
    if serve.opt("--served-model-name") is not None:
        error = "'model should be provided as the first positional argument'"
        yield Finding(MODEL_ARG,
                      Text(en=f"the first argument after `vllm serve` is the option {args[0]}, and --served-model-name is "
                           f"set: {where} stops with ValueError {error}",
                           zh=f"`vllm serve` 之后的第一个参数是选项 {args[0]}，且设置了 --served-model-name：{where_zh} 会以 "
                           f"ValueError {error} 退出"),
                      serve.argv[2].span, first)
    elif serve.model is None:
        yield Finding(MODEL_ARG,
                      Text(en=f"vllm serve names no model: {where} serves vLLM's built-in default model",
                           zh=f"vllm serve 没有指定模型：{where_zh} 会加载 vLLM 内置的默认模型"),
                      serve.span, first, severity="warning")
