"""Startup checks on the ``vllm serve`` command line and data-parallel launch options
(QL541-QL545): --headless with API servers, --data-parallel-size-local, conflicting and inferred
DP load-balancing modes, and the model as first positional argument.

Sources: vLLM 0.23.0 ``vllm/entrypoints/cli/serve.py``, ``vllm/engine/arg_utils.py``,
``vllm/config/parallel.py L441-445``, ``vllm/utils/argparse_utils.py L251-297`` (and vLLM 0.17.0
``vllm/engine/arg_utils.py L1555-1557``); pinned URLs in each rule's ``sources``.
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


@check(HEADLESS_API)
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


@check(DP_LOCAL, relations=(("in_range", "dp_local", "dp"),))
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


LB_MODES = RuleMeta(
    id="QL543",
    name="dp-lb-modes-conflict",
    behaviours=("vllm_lb_modes_exclusive", "vllm_hybrid_and_external_lb_assert"),
    groups=("parallelism",),
    severity="error",
    requires=("version",),
    title=Text(en="Two data-parallel load-balancing modes at once", zh="同时指定了两种数据并行负载均衡模式"),
    why=Text(
        en="vllm serve derives one load-balancing mode: external (--data-parallel-external-lb or "
        "--data-parallel-rank), hybrid (--data-parallel-hybrid-lb, or any --data-parallel-start-rank when "
        "neither hybrid nor multi-port is given) or multi-port (--data-parallel-multi-port-external-lb). Options "
        "implying two of them stop it with ValueError from v0.22.1rc1 (vLLM 0.22.1) on; a "
        "--data-parallel-start-rank 0 next to --data-parallel-rank is enough. Earlier releases only assert when "
        "--data-parallel-hybrid-lb and --data-parallel-external-lb are both given.",
        zh="vllm serve 只能推导出一种负载均衡模式：外部（--data-parallel-external-lb 或 --data-parallel-rank）、混合"
        "（--data-parallel-hybrid-lb；在未指定混合与多端口时，只要给出 --data-parallel-start-rank 也算）或多端口"
        "（--data-parallel-multi-port-external-lb）。隐含两种模式的参数组合自 v0.22.1rc1（vLLM 0.22.1）起会以 ValueError 退出；与 "
        "--data-parallel-rank 一起写一个 --data-parallel-start-rank 0 就足以触发。更早的版本只在同时给出 "
        "--data-parallel-hybrid-lb 与 --data-parallel-external-lb 时断言失败。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/cli/serve.py#L71-L97",
        "https://github.com/vllm-project/vllm/blob/v0.17.0/vllm/engine/arg_utils.py#L1555-L1557",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 2 --data-parallel-rank 1 --data-parallel-start-rank 0\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 2 --data-parallel-rank 1\n",
    ),),
)


@check(LB_MODES)
def lb_modes(scope: Scope):
    """More than one of external / hybrid / multi-port DP load balancing."""
    serve = scope.serve
    if serve.argv and serve.argv[0].text and "api_server" in " ".join(a.text or "" for a in serve.argv[:3]):
        return  # the mode detection lives in `vllm serve`
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
    if not kit.holds(scope, "vllm_lb_modes_exclusive"):
        if serve.has("--data-parallel-hybrid-lb") and serve.has("--data-parallel-external-lb") \
                and kit.holds(scope, "vllm_hybrid_and_external_lb_assert"):
            yield Finding(LB_MODES,
                          Text(en=f"--data-parallel-hybrid-lb with --data-parallel-external-lb: {where} asserts they are "
                               "not both set",
                               zh=f"--data-parallel-hybrid-lb 与 --data-parallel-external-lb 同用：{where_zh} 断言二者不能同时设置"),
                          kit.option_span(serve, "--data-parallel-hybrid-lb"),
                          Fix(Text(en="keep one of the two load-balancing switches", zh="两个负载均衡开关只保留一个")))
        return
    external = serve.has("--data-parallel-external-lb") or serve.opt("--data-parallel-rank") is not None
    multi = serve.has("--data-parallel-multi-port-external-lb")
    if serve.has("--data-parallel-hybrid-lb") or multi:
        hybrid = serve.has("--data-parallel-hybrid-lb")
    else:
        hybrid = serve.opt("--data-parallel-start-rank") is not None
    modes = [(en, zh) for en, zh, on in (
        ("external (--data-parallel-rank / --data-parallel-external-lb)",
         "外部（--data-parallel-rank / --data-parallel-external-lb）", external),
        ("hybrid (--data-parallel-start-rank / --data-parallel-hybrid-lb)",
         "混合（--data-parallel-start-rank / --data-parallel-hybrid-lb）", hybrid),
        ("multi-port (--data-parallel-multi-port-external-lb)", "多端口（--data-parallel-multi-port-external-lb）", multi),
    ) if on]
    if len(modes) < 2:
        return
    error = "'Cannot use more than one data parallel load balancing mode'"
    yield Finding(LB_MODES,
                  Text(en=f"the options imply {' and '.join(m[0] for m in modes)} load balancing: vllm serve of {where} "
                       f"stops with ValueError {error}",
                       zh=f"这些参数同时隐含了{'与'.join(m[1] for m in modes)}负载均衡：{where_zh} 的 vllm serve 会以 "
                       f"ValueError {error} 退出"),
                  kit.option_span(serve, "--data-parallel-start-rank", "--data-parallel-hybrid-lb",
                                  "--data-parallel-multi-port-external-lb"),
                  Fix(Text(en="keep the options of one load-balancing mode only", zh="只保留一种负载均衡模式的参数")))


HYBRID_LB = RuleMeta(
    id="QL544",
    name="dp-hybrid-lb-inferred",
    behaviours=("vllm_start_rank_infers_hybrid_lb",),
    applies="vllm_start_rank_infers_hybrid_lb",
    groups=("parallelism",),
    severity="info",
    requires=("version",),
    faq="qwen35-397b-mp-hang",
    title=Text(en="A non-zero start rank without --headless selects hybrid load balancing",
               zh="非零起始 rank 且未加 --headless 时会选用混合负载均衡"),
    why=Text(
        en="A node of a multi-node DP group that is not the head normally runs --headless. Without it, a "
        "non-zero --data-parallel-start-rank makes vLLM infer hybrid load balancing: the node starts its own API "
        "server(s) (one per local rank by default) and balances only its local ranks, so clients or the proxy "
        "must reach every node; with one local rank it switches to external load balancing. This is valid, but "
        "differs from the usual head + headless layout.",
        zh="多节点 DP 组中的非主节点通常使用 --headless。不加它时，非零的 --data-parallel-start-rank 会让 vLLM 推断为混合负载"
        "均衡：该节点启动自己的 API 服务（默认每个本地 rank 一个），只在本地 rank 之间均衡，因此客户端或代理必须能访问每个节点；"
        "本地只有一个 rank 时会改为外部负载均衡。这样做是合法的，但不同于常见的“主节点 + headless 节点”布局。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1886-L1906",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/cli/serve.py#L99-L118",
    ),
    examples=(Example(
        bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2 --data-parallel-address 10.0.0.1\n",
        good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 4 --data-parallel-size-local 2 "
        "--data-parallel-start-rank 2 --data-parallel-address 10.0.0.1 --headless\n",
    ),),
)


@check(HYBRID_LB)
def hybrid_lb(scope: Scope):
    """Non-zero --data-parallel-start-rank with a local size, without --headless or --data-parallel-rank."""
    serve = scope.serve
    start = kit.integer(serve, "--data-parallel-start-rank").value
    local = kit.integer(serve, "--data-parallel-size-local").value
    if not start or local is None or serve.has("--headless") or serve.opt("--data-parallel-rank") is not None:
        return
    if not kit.holds(scope, "vllm_start_rank_infers_hybrid_lb"):
        return
    if local == 1:
        detail = Text(en="with --data-parallel-size-local 1 vLLM switches to external load balancing (one server per rank)",
                      zh="由于 --data-parallel-size-local 为 1，vLLM 改用外部负载均衡（每个 rank 一个服务）")
    else:
        count = kit.integer(serve, "--api-server-count").value
        last = start + local - 1
        servers = Text(en=f"{count} API server(s)", zh=f"{count} 个 API 服务") if count is not None else \
            Text(en=f"{local} API servers (one per local rank)", zh=f"{local} 个 API 服务（每个本地 rank 一个）")
        detail = Text(en=f"this node starts {servers.en} and balances only ranks {start}..{last}",
                      zh=f"本节点启动 {servers.zh}，只在 rank {start}..{last} 之间均衡")
    yield Finding(HYBRID_LB,
                  Text(en=f"--data-parallel-start-rank {start} without --headless: {kit.at_version(scope).en} infers hybrid load "
                       f"balancing; {detail.en}",
                       zh=f"--data-parallel-start-rank {start} 且未加 --headless：{kit.at_version(scope).zh} 推断为混合负载均衡；"
                       f"{detail.zh}"),
                  kit.span_of(serve, "--data-parallel-start-rank"),
                  Fix(Text(en="add --headless if the head node should serve all ranks",
                           zh="若应由主节点服务所有 rank，请加上 --headless")))


MODEL_ARG = RuleMeta(
    id="QL545",
    name="serve-model-argument",
    behaviours=("vllm_serve_model_positional",),
    applies="vllm_serve_model_positional",
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


@check(MODEL_ARG)
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
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
    first = Fix(Text(en="put the model right after `vllm serve`", zh="把模型写在 `vllm serve` 之后的第一个位置"))
    model_opt = serve.opt("--model")
    if model_opt is not None:
        yield Finding(MODEL_ARG,
                      Text(en=f"--model with vllm serve is deprecated: {where} moves it to the positional model argument "
                           "with a warning",
                           zh=f"vllm serve 的 --model 已弃用：{where_zh} 会把它移到位置参数并打印警告"),
                      model_opt.name_span, first, severity="info")
        return
    if serve.opt("--config") is not None or not args or not (args[0] or "").startswith("-"):
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
