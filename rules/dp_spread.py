"""A data-parallel group spread over nodes (QL612): every node of the group agrees on the DP size,
the start ranks cover the group without gaps, and the nodes after the first run --headless.

The same checks (``Instance.checks()``) judge an internal DP group (``vllm serve --data-parallel-size-local``
on each node) and an external one (``launch_online_dp.py --dp-size-local --dp-rank-start`` on each node,
vllm-ascend ``examples/external_online_dp``); the finding is at the option of the script to change.
"""

from __future__ import annotations


from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

PD_SOURCES = (
    "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
)
LAUNCH_HEAD = "python launch_online_dp.py --dp-size 4 --tp-size 2 --dp-size-local 2 --dp-rank-start 0 --dp-address 10.0.0.1 --dp-rpc-port 12321\n"


def launch_node(start: int, port: int = 12321) -> str:
    """The other node's launcher call of the example group (ranks ``start`` .. ``start + 1``)."""
    return (f"python launch_online_dp.py --dp-size 4 --tp-size 2 --dp-size-local 2 --dp-rank-start {start} "
            f"--dp-address 10.0.0.1 --dp-rpc-port {port}\n")


DP_SPREAD = RuleMeta(
    id="QL612",
    name="dp-spread-over-nodes",
    groups=("parallelism", "pd"),
    severity="error",
    scope="deployment",
    fix="unsafe",
    title=Text(en="A DP group spread over nodes is inconsistent",
               zh="跨节点的 DP 组配置不一致"),
    why=Text(
        en="When one DP group spans nodes, every node names the same --data-parallel-size, address and RPC "
        "port; the local sizes add up to the DP size; start ranks follow each other without gaps or "
        "overlap; and every node but the head runs --headless. Otherwise engines wait for ranks that never "
        "come (a hang at startup) or two nodes claim the same rank. An external DP group started by "
        "launch_online_dp.py on each node is held to the same: one --dp-size, --dp-rank-start and "
        "--dp-size-local that tile the ranks (the launcher gives its node ranks --dp-rank-start .. "
        "--dp-rank-start + --dp-size-local - 1).",
        zh="一个 DP 组跨多个节点时，每个节点的 --data-parallel-size、地址和 RPC 端口必须相同；各节点的本地规模之和等于 DP 规模；"
        "起始 rank 首尾相接、既不重叠也不留空；除主节点外都要加 --headless。否则引擎会一直等待不存在的 rank（启动挂起），"
        "或两个节点争用同一 rank。每个节点各用 launch_online_dp.py 启动的外部 DP 组同样如此：--dp-size 相同，"
        "--dp-rank-start 与 --dp-size-local 恰好铺满所有 rank（启动器在本节点上启动 rank --dp-rank-start .. "
        "--dp-rank-start + --dp-size-local - 1）。",
    ),
    sources=PD_SOURCES + ("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1818-L1935",)
    + kit.LAUNCHER_SOURCES,
    faq="qwen35-397b-mp-hang",
    examples=(Example(bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --data-parallel-start-rank 0 --headless\n", good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --data-parallel-start-rank 1 --headless\n", fixed="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --data-parallel-start-rank 1 --headless\n", peers=("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 \n",)),
              Example(bad=launch_node(0), good=launch_node(2), fixed=launch_node(2), peers=(LAUNCH_HEAD,))),
)


FIXES = {
    "dp-size": Text(en="use the same --data-parallel-size on every node of the group",
                    zh="组内每个节点使用相同的 --data-parallel-size"),
    "ranks-sum": Text(en="make the local sizes add up to --data-parallel-size, or add the missing node's script",
                      zh="让各节点本地规模之和等于 --data-parallel-size，或补上缺失节点的脚本"),
    "launch-dp-size": Text(en="use the same --dp-size in every node's launch_online_dp.py call of the group",
                           zh="组内每个节点的 launch_online_dp.py 调用使用相同的 --dp-size"),
    "launch-ranks-sum": Text(en="make the --dp-size-local values add up to --dp-size, or add the missing node's "
                             "launch_online_dp.py call",
                             zh="让各节点的 --dp-size-local 之和等于 --dp-size，或补上缺失节点的 launch_online_dp.py 调用"),
    "headless": Text(en="run it --headless (and drop --api-server-count)", zh="改为 --headless 运行（并去掉 --api-server-count）"),
}


@check(DP_SPREAD, when=("option:--data-parallel-size-local | command:launcher",))  # a DP group over nodes (kit.topology)
def dp_spread(scope: Scope):
    """The DP groups of the deployment's topology (``kit.topology``): their size, ranks and --headless; the
    external groups' launcher calls (``Topology.launch_groups``) too."""
    for instance in kit.topology(scope).groups():
        for problem in instance.checks():
            launch = problem.share.launch if problem.share is not None else None
            if launch is not None:
                if problem.kind != "endpoint":
                    yield kit.launcher_finding(DP_SPREAD, launch.command, launch.path, problem.text, problem.flag,
                                               problem.want, FIXES.get("launch-" + problem.kind, FIXES["launch-ranks-sum"]))
                continue
            engine = problem.share.engine if problem.share is not None else None
            if problem.kind == "endpoint" or engine is None:
                continue  # the head's address and RPC port are QL617's
            serve = engine.serve
            edits = []
            if problem.kind == "start-rank" and problem.want is not None:
                fix = Text(en=f"set --data-parallel-start-rank {problem.want}",
                           zh=f"设置 --data-parallel-start-rank {problem.want}")
                edits = kit.set_value(serve, "--data-parallel-start-rank", problem.want)
            else:
                fix = FIXES[problem.kind]
                if problem.kind == "headless":  # (it fires only with --api-server-count, which --headless refuses)
                    edits = kit.drop_option(serve.opt("--api-server-count")) + kit.insert_option(serve, "--headless")
            span = kit.span_of(serve, problem.flag) if problem.flag is not None else serve.span
            yield Finding(DP_SPREAD, problem.text, span, Fix(fix, edits, safety="unsafe"), path=engine.path)

