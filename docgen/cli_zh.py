"""Chinese text for the CLI reference (sphinx-click renders the commands' English ``--help``).

``MESSAGES`` maps an English help text (a command's docstring after
``inspect.cleandoc``, or an option's ``help``) to its Chinese text, like a
gettext catalogue keyed by the message itself: when the English changes, the
old translation no longer matches and the text shows up in ``untranslated``
instead of silently describing something else. Untranslated text keeps its
English in the site; ``qdoc build`` names it in a note and
``tests/test_docgen_sphinx.py`` asks for the translation.
"""

from __future__ import annotations

import importlib
import inspect

import click

MESSAGES = {
    'A prefill/decode disaggregated deployment, e.g. 1P1D: one script per node, the proxy, a README.':
        '生成 prefill/decode 分离部署（例如 1P1D）：每个节点一个脚本、代理命令和一份 README。',
    'One instance over N nodes: one script per node and a README.':
        '一个实例跨 N 个节点：每个节点一个脚本和一份 README。',
    'How --nodes spreads the instance: mp (one engine per node, DP over the nodes) or ray (a Ray cluster: the head runs one engine with TP over every node\'s NPUs).':
        '--nodes 如何分布实例：mp（每个节点一个引擎，DP 跨节点）或 ray（Ray 集群：主节点运行一个引擎，TP 覆盖所有节点的 NPU）。',
    'Nodes per prefill instance (--pd).':
        '每个 prefill 实例的节点数（配合 --pd）。',
    'Nodes per decode instance (--pd).':
        '每个 decode 实例的节点数（配合 --pd）。',
    'Write the script here (with --pd or --nodes: a folder for the scripts and the README).':
        '把脚本写到这里（配合 --pd 或 --nodes 时为目录，写入各脚本和 README）。',
    "Print the fixes as a unified diff, write nothing, and report what the fixes would leave (exit 1 when a file would change).":
        "以统一 diff 格式打印修复内容，不写入文件，并报告修复后仍会剩下的问题（有文件会被修改时退出码为 1）。",
    "Generate a prefill/decode disaggregated deployment (P and D scripts and the proxy).":
        "生成 prefill/decode 分离部署（P 节点脚本、D 节点脚本和代理命令）。",
    "Write the script here (with --pd: a folder for run_p.sh, run_d.sh and proxy.sh).":
        "把脚本写到这里（配合 --pd 时为目录，写入 run_p.sh、run_d.sh 和 proxy.sh）。",
    # qlint
    "Lint vLLM-Ascend launch scripts for Qwen3.5 / Qwen3.6 deployments.":
        "检查在 vLLM-Ascend 上部署 Qwen3.5 / Qwen3.6 的启动脚本。",
    'Lint vLLM-Ascend launch scripts for Qwen3.5 / Qwen3.6 deployments.\n\n\x08\nqlint FILE...  is short for  qlint check FILE...  (also with options: qlint --fix run.sh).\nqlint check --help lists the options of a lint run.':
        '检查在 vLLM-Ascend 上部署 Qwen3.5 / Qwen3.6 的启动脚本。\n\n\x08\nqlint FILE...  是  qlint check FILE...  的简写（带选项时同样适用：qlint --fix run.sh）。\nqlint check --help 列出一次检查可用的全部选项。',
    "Show the version and exit.": "显示版本并退出。",
    "Lint launch scripts (files, directories, or - for stdin).\n\n"
    "A batch of 200 files or more is analysed in worker processes, one per idle core; QLINT_WORKERS=N sets\n"
    "the number of processes (QLINT_WORKERS=1: one process). The output is the same either way.":
        "检查启动脚本（文件、目录，或用 - 表示标准输入）。\n\n"
        "一次检查 200 个及以上文件时，按空闲的 CPU 核数启动工作进程并行分析；QLINT_WORKERS=N 指定进程数"
        "（QLINT_WORKERS=1：只用一个进程）。两种方式的输出完全相同。",
    "Target hardware (default: from the script's directive or image tag, else the configuration).":
        "目标硬件（默认取脚本中的指令或镜像标签，其次取配置文件）。",
    "vllm-ascend release, e.g. v0.23.0.": "vllm-ascend 版本，例如 v0.23.0。",
    "Only these rules (ids, names, groups such as memory, or id prefixes such as QL2; comma-separated). Replaces the configuration's select.":
        "只启用这些规则（ID、名称、memory 这样的分组，或 QL2 这样的 ID 前缀，逗号分隔），替换配置文件中的 select。",
    "Skip these rules (adds to the configuration's ignore).": "跳过这些规则（追加到配置文件中的 ignore）。",
    "Exit 1 when a finding is at or above this severity [default: warning].":
        "出现该级别或更高级别的问题时以 1 退出［默认：warning］。",
    "Use this .qlint.toml / pyproject.toml instead of searching upwards.":
        "使用指定的 .qlint.toml / pyproject.toml，而不是向上逐级查找。",
    "Output format [default: text; github when GITHUB_ACTIONS=true].":
        "输出格式［默认：text；设置 GITHUB_ACTIONS=true 时为 github］。",
    "Exit 0 even when there are findings (2 still means bad input).": "即使发现问题也以 0 退出（输入无法读取时仍为 2）。",
    "Apply safe fixes to the files in place, then report what is left.": "就地对文件应用安全修复，然后报告剩余问题。",
    "Also apply fixes that change behaviour beyond the finding (TP/DP, lengths); with --fix or --diff.":
        "同时应用会改变问题之外行为的修复（TP/DP、长度等）；需与 --fix 或 --diff 一起使用。",
    "Print the fixes as a unified diff and write nothing.": "以统一 diff 格式打印修复内容，不写入任何文件。",
    "Ignore every '# qlint: disable' comment.": "忽略所有 '# qlint: disable' 注释。",
    "Text format: also list suppressed findings with their reasons.": "文本格式下同时列出被抑制的问题及其理由。",
    "Print findings only: no summary, no notes.": "只输出问题本身：不输出汇总和附注。",
    "Print a count per rule instead of the findings.": "按规则统计问题数量，而不逐条列出。",
    "Colour severities (auto: on a terminal, unless NO_COLOR is set).": "为级别着色（auto：在终端中着色，除非设置了 NO_COLOR）。",
    "Language of messages and fixes (default: from the locale).": "问题说明与修复建议的语言（默认取系统区域设置）。",
    "Also read the rest of each named file's deployment (its folder, or its parent's folders); "
    "the pre-commit hooks use it so that a change to one side of a pair checks the pair.":
        "同时读取每个指定文件所属部署的其余文件（它所在的目录，或上一级目录下的各个目录）；"
        "pre-commit 钩子使用此选项，使只改动 PD 一侧时也会检查整对部署。",
    "The launch_online_dp.py command that runs the DP template(s), e.g. "
    "'python launch_online_dp.py --dp-size 8 --tp-size 2 --dp-address 10.0.0.1'.":
        "运行 DP 模板脚本的 launch_online_dp.py 命令，例如 "
        "'python launch_online_dp.py --dp-size 8 --tp-size 2 --dp-address 10.0.0.1'。",
    "Show the configuration that applies to PATH (default: the current folder).":
        "显示适用于 PATH 的配置（默认为当前目录）。",
    "Print the effective configuration and where each value comes from.": "打印生效的配置以及每个取值的来源。",
    "List the rules (every rule, or those RULES name: ids, names, groups, id prefixes): id, name, severity, groups, title.":
        "列出规则（全部规则，或 RULES 指定的规则：ID、名称、分组、ID 前缀）：ID、名称、级别、分组和标题。",
    "Explain a rule (by id or name), or a server log's failure (--log).":
        "解释一条规则（按 ID 或名称），或解释服务日志中的故障（--log）。",
    "Explain the failure in a server log (- for stdin).": "解释服务日志中的故障（用 - 表示标准输入）。",
    "With --log: the launch script, to show its corrected command.": "与 --log 一起使用：提供启动脚本，以便给出修正后的命令。",
    "en or zh (default: from the locale).": "en 或 zh（默认取系统区域设置）。",
    "Write a complete, commented launch script from the knowledge (it lints clean).":
        "根据知识库写出一份带注释的完整启动脚本（可通过检查）。",
    "Model id or checkpoint name, e.g. Qwen3.6-27B.": "模型 ID 或权重名称，例如 Qwen3.6-27B。",
    "W8A8 checkpoint (default) or BF16.": "使用 W8A8 权重（默认）或 BF16 权重。",
    "Release to target (default: latest stable).": "目标版本（默认：最新正式版本）。",
    "Write the script here.": "把脚本写到该文件。",
    # qdoc
    "Build qlint's bilingual documentation (guides, rules, FAQ) from its knowledge base.":
        "根据 qlint 的知识库构建中英文文档（部署指南、规则、常见问题）。",
    "Render the sources, lint every shell block of the guides, and build the site.":
        "生成源文件，检查部署指南中的每个 shell 代码块，然后构建站点。",
    "Output directory [default: docs/_build/html, or docs/_build/markdown with --format markdown].":
        "输出目录［默认：docs/_build/html；使用 --format markdown 时为 docs/_build/markdown］。",
    "Language(s) to build.": "要构建的语言。",
    "html: the Sphinx site; markdown: plain Markdown for vllm-ascend's MkDocs tree.":
        "html：构建 Sphinx 站点；markdown：输出可放入 vllm-ascend MkDocs 目录的纯 Markdown。",
    "Where the generated MyST sources go [default: docs/_generated].": "生成的 MyST 源文件存放位置［默认：docs/_generated］。",
    "Write the MyST sources only (no lint, no Sphinx).": "只写出 MyST 源文件（不检查、不运行 Sphinx）。",
    "Exit 1 when the committed generated sources differ from the knowledge.": "已提交的生成源文件与知识库不一致时以 1 退出。",
    "The committed MyST sources [default: docs/_generated].": "已提交的 MyST 源文件所在目录［默认：docs/_generated］。",
}

ARGUMENTS = {
    "Required argument": "必需参数",
    "Required argument(s)": "必需参数（可多个）",
    "Optional argument": "可选参数",
    "Optional argument(s)": "可选参数（可多个）",
}

RUBRICS = {
    "Usage": "用法",
    "Options": "选项",
    "Arguments": "参数",
    "Commands": "子命令",
    "Environment variables": "环境变量",
}


def command_help(command: click.Command) -> str | None:
    """The text sphinx-click shows as a command's description (its cleaned docstring)."""
    text = command.help or command.short_help
    return inspect.cleandoc(text) if text else None


def translate(text: str | None) -> str | None:
    """The Chinese text of an English help message, or None."""
    return MESSAGES.get(text) if text else None


def untranslated(commands: tuple[tuple[str, str], ...]) -> list[str]:
    """``"qlint check --diff"``-style names of help texts without Chinese text, for ``(prog, "module:attr")`` CLIs."""
    missing: list[str] = []

    def walk(command: click.Command, path: str) -> None:
        if command.hidden:
            return
        text = command_help(command)
        if text and translate(text) is None:
            missing.append(path)
        for param in command.params:
            if isinstance(param, click.Option) and param.help and not param.hidden:
                if translate(param.help) is None:
                    missing.append(f"{path} {max(param.opts, key=len)}")
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                walk(command.commands[name], f"{path} {name}")

    for prog, target in commands:
        module, _, attribute = target.partition(":")
        walk(getattr(importlib.import_module(module), attribute), prog)
    return missing
