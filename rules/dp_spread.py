"""A data-parallel group spread over nodes (QL612): every node of the group agrees on the DP size,
the start ranks cover the group without gaps, and the nodes after the first run --headless.
"""

from __future__ import annotations


from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check, serve_scopes
from qlint.rules.plan import LaunchPlan, ServeCommand

PD_SOURCES = (
    "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
)


DP_SPREAD = RuleMeta(
    id="QL612",
    name="dp-spread-over-nodes",
    groups=("parallelism", "pd"),
    severity="error",
    scope="deployment",
    title=Text(en="A DP group spread over nodes is inconsistent",
               zh="跨节点的 DP 组配置不一致"),
    why=Text(
        en="When one DP group spans nodes, every node names the same --data-parallel-size, address and RPC "
        "port; the local sizes add up to the DP size; start ranks follow each other without gaps or "
        "overlap; and every node but the head runs --headless. Otherwise engines wait for ranks that never "
        "come (a hang at startup) or two nodes claim the same rank.",
        zh="一个 DP 组跨多个节点时，每个节点的 --data-parallel-size、地址和 RPC 端口必须相同；各节点的本地规模之和等于 DP 规模；"
        "起始 rank 首尾相接、既不重叠也不留空；除主节点外都要加 --headless。否则引擎会一直等待不存在的 rank（启动挂起），"
        "或两个节点争用同一 rank。",
    ),
    sources=PD_SOURCES + ("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1818-L1935",),
    faq="qwen35-397b-mp-hang",
    examples=(Example(bad="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --data-parallel-start-rank 0 --headless\n", good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 --data-parallel-start-rank 1 --headless\n", peers=("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel --data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13389 \n",)),),
)


@check(DP_SPREAD)
def dp_spread(scope: Scope):
    groups: dict[tuple[str, str | None, str | None], list[tuple[LaunchPlan, ServeCommand]]] = {}
    for plan, serve_scope in serve_scopes(scope):
        serve = serve_scope.serve
        if serve.opt("--data-parallel-size-local") is None or serve.opt("--data-parallel-rank") is not None:
            continue
        written = serve.opt("--data-parallel-address")
        rpc = serve.opt("--data-parallel-rpc-port")
        value = written.value if written is not None else None
        if value is None or (value.text is None and len(value.symbols) != 1):
            continue
        # one variable ("${NODE0_IP:?...}", "$MASTER_IP") names the same address in every script that uses it
        address_key = value.text if value.text is not None else "$" + value.symbols[0].lstrip("${").split(":", 1)[0].rstrip("}")
        # A DP group is one vLLM instance: a prefill engine and a decode engine never share one, even when
        # their scripts name the same address (tutorials write the node's own IP as one placeholder, e.g.
        # Qwen3.5-397B-A17B.md section 5.4: "--data-parallel-address ${IP_ADDRESS}" on both P and D).
        role = serve_scope.known("kv_role")
        key = (address_key, rpc.value.text if rpc is not None and rpc.value is not None else "29550",
               role.value if role is not None else None)
        groups.setdefault(key, []).append((plan, serve))
    for (address, port, _role), members in groups.items():
        sizes = {kit.integer(s, "--data-parallel-size", strict=False).value for _, s in members}
        if None in sizes:
            continue
        if len(sizes) > 1:
            plan, serve = members[-1]
            yield Finding(
                DP_SPREAD,
                Text(
                    en=f"nodes of the DP group at {address}:{port} disagree on --data-parallel-size "
                    f"({', '.join(str(s) for s in sorted(sizes))})",
                    zh=f"位于 {address}:{port} 的 DP 组中，各节点的 --data-parallel-size 不一致"
                    f"（{', '.join(str(s) for s in sorted(sizes))}）",
                ),
                kit.span_of(serve, "--data-parallel-size"),
                Fix(Text(en="use the same --data-parallel-size on every node of the group",
                         zh="组内每个节点使用相同的 --data-parallel-size")),
                path=plan.path,
            )
            continue
        total = sizes.pop()
        ranks = []
        for plan, serve in members:
            local = kit.integer(serve, "--data-parallel-size-local", strict=False).value
            start = kit.integer(serve, "--data-parallel-start-rank", strict=False).value or 0
            if local is None:
                break
            ranks.append((start, local, plan, serve))
        else:
            ranks.sort(key=lambda item: item[0])
            covered = sum(local for _, local, _, _ in ranks)
            if len(members) > 1 or covered > total:
                expected = 0
                for start, local, plan, serve in ranks:
                    if start != expected:
                        yield Finding(
                            DP_SPREAD,
                            Text(
                                en=f"--data-parallel-start-rank {start} on {kit.script_name(plan)}: the ranks "
                                f"before it end at {expected - 1}, so ranks {min(start, expected)}.."
                                f"{max(start, expected) - 1} are {'missing' if start > expected else 'claimed twice'}",
                                zh=f"{kit.script_name(plan)} 的 --data-parallel-start-rank 为 {start}：此前的 rank 止于 "
                                f"{expected - 1}，因此 rank {min(start, expected)}..{max(start, expected) - 1} "
                                f"{'无人承担' if start > expected else '被重复占用'}",
                            ),
                            kit.span_of(serve, "--data-parallel-start-rank"),
                            Fix(Text(en=f"set --data-parallel-start-rank {expected}",
                                     zh=f"设置 --data-parallel-start-rank {expected}")),
                            path=plan.path,
                        )
                    expected = start + local
                if covered != total and len(members) > 1:
                    plan, serve = ranks[-1][2], ranks[-1][3]
                    yield Finding(
                        DP_SPREAD,
                        Text(
                            en=f"the local DP sizes of the group add up to {covered}, but "
                            f"--data-parallel-size is {total}",
                            zh=f"该组各节点本地 DP 规模之和为 {covered}，但 --data-parallel-size 为 {total}",
                        ),
                        kit.span_of(serve, "--data-parallel-size-local"),
                        Fix(Text(
                            en="make the local sizes add up to --data-parallel-size, or add the missing node's script",
                            zh="让各节点本地规模之和等于 --data-parallel-size，或补上缺失节点的脚本",
                        )),
                        path=plan.path,
                    )
        if len(members) < 2:
            continue
        for plan, serve in members:
            start = kit.integer(serve, "--data-parallel-start-rank", strict=False).value or 0
            headless = serve.has("--headless")
            hybrid = start != 0 and not headless and serve.opt("--api-server-count") is None
            if start != 0 and not headless and not hybrid:
                yield Finding(
                    DP_SPREAD,
                    Text(
                        en=f"{kit.script_name(plan)} is not the head of the DP group (start rank {start}) and "
                        "must run --headless",
                        zh=f"{kit.script_name(plan)} 不是 DP 组的主节点（起始 rank 为 {start}），必须加 --headless",
                    ),
                    serve.span,
                    Fix(Text(en="add --headless", zh="添加 --headless")),
                    path=plan.path,
                )
