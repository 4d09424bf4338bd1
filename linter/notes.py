"""The notes ``qlint check`` prints besides the findings, so that silence is never read as "clean".

- a file that runs no engine command: what was found instead;
- files whose hardware is known from nowhere: one note naming the rule families that
  were skipped for it and the ways to set the hardware.
"""

from __future__ import annotations

from functools import lru_cache

from qlint.knowledge.text import Text


@lru_cache(maxsize=4)
def rules_needing(fact_name: str) -> tuple[str, ...]:
    """Ids of the rules that cannot run while ``fact_name`` is unknown (it is required, directly or
    through the facts they require; ``<fact>_if_known`` facts exist to read it optionally)."""
    from qlint.rules.graph import default_graph

    graph = default_graph()  # (its index: no rule module is imported)
    facts = graph.fact_requires()
    needing = {fact_name}
    changed = True
    while changed:
        changed = False
        for name, requires in facts.items():
            if name in needing or name == f"{fact_name}_if_known":
                continue
            if any(required in needing for required in requires):
                needing.add(name)
                changed = True
    return tuple(sorted(rule_id for rule_id in graph.rule_ids()
                        if any(required in needing for required in graph.rule_requires(rule_id))))


def no_engine(path: str, found: str) -> Text:
    return Text(
        en=f"{path}: no engine command (vllm serve) was read here; {found}",
        zh=f"{path}：这里没有读到推理引擎命令（vllm serve）；{_zh_found(found)}",
    )


def _zh_found(found: str) -> str:
    if found in ("it runs no command", "the file is empty"):
        return "其中没有任何命令" if found.startswith("it") else "文件为空"
    return (found.replace("ray start --head (a Ray head node)", "ray start --head（Ray 主节点）")
            .replace("ray start --address (a Ray worker node: the engine runs on the head)",
                     "ray start --address（Ray worker 节点：引擎运行在主节点上）")
            .replace("runs ", "运行的是 ").replace("a container with no engine command in it", "一个内部没有引擎命令的容器")
            .replace("no shell code block", "没有 shell 代码块")
            .replace("YAML without containers, services or server_cmd", "YAML 中没有 containers、services 或 server_cmd"))


def no_hardware(paths: list[str]) -> Text:
    """One note for every file whose hardware is unknown."""
    from qlint.rules.index import rule_groups

    ids = rules_needing("hardware")
    groups = sorted({group for rule_id in ids for group in rule_groups(rule_id)})
    shown = _shown(paths)
    return Text(
        en=f"no hardware given or found for {shown}: {len(ids)} rules of the families {', '.join(groups)} were "
        "skipped (e.g. TP x DP against the node's NPUs). Set it with --hardware a2|a3|310p, hardware = \"a2\" in "
        "[tool.qlint], a '# qlint: hardware=a2' comment, or a vllm-ascend image tag (suffix -a3, -310p).",
        zh=f"{shown} 没有给出也没有找到硬件：跳过了 {', '.join(groups)} 类别中的 {len(ids)} 条规则"
        "（例如按节点 NPU 数检查 TP x DP）。可用 --hardware a2|a3|310p、[tool.qlint] 中的 hardware = \"a2\"、"
        "注释 '# qlint: hardware=a2'，或带后缀（-a3、-310p）的 vllm-ascend 镜像标签来指定。",
    )


def _shown(paths: list[str]) -> str:
    """The first three paths, and how many more."""
    return ", ".join(paths[:3]) + (f" (+{len(paths) - 3})" if len(paths) > 3 else "")


def assumed_release(tag: str, paths: list[str]) -> Text:
    """Said once per run, naming the files, when neither the command line, the config, a directive nor an
    image tag names their vllm-ascend release."""
    shown = _shown(paths)
    return Text(
        en=f"no vllm-ascend version given or found for {shown}; assuming {tag} (latest stable). Set it with "
        "--vllm-ascend-version, vllm-ascend = \"v0.23.0\" in [tool.qlint], a '# qlint: vllm-ascend=v0.23.0' "
        "comment, or a vllm-ascend image tag.",
        zh=f"{shown} 没有给出也没有找到 vllm-ascend 版本；假定为 {tag}（最新稳定版）。可用 --vllm-ascend-version、"
        "[tool.qlint] 中的 vllm-ascend = \"v0.23.0\"、注释 '# qlint: vllm-ascend=v0.23.0'，或 vllm-ascend 镜像标签来指定。",
    )


def note_label(lang: str) -> str:
    """``note: `` / ``注意：`` before a note on stderr."""
    return "注意：" if lang.startswith("zh") else "note: "
