"""Data-parallel load-balancing modes vllm serve refuses to combine, and hybrid load balancing
without its start rank or API servers.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

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


@check(LB_MODES, when=("option:--data-parallel-hybrid-lb | option:--data-parallel-external-lb | option:--data-parallel-rank"
                       " | option:--data-parallel-multi-port-external-lb | option:--data-parallel-start-rank",))
def lb_modes(scope: Scope):
    """More than one of external / hybrid / multi-port DP load balancing."""
    serve = scope.serve
    if serve.argv and serve.argv[0].text and "api_server" in " ".join(a.text or "" for a in serve.argv[:3]):
        return  # the mode detection lives in `vllm serve`
    if not kit.holds(scope, "vllm_lb_modes_exclusive"):
        if serve.has("--data-parallel-hybrid-lb") and serve.has("--data-parallel-external-lb") \
                and kit.holds(scope, "vllm_hybrid_and_external_lb_assert"):
            where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
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
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
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


@check(HYBRID_LB, when=("option:--data-parallel-start-rank",))
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
