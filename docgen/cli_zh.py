"""Chinese text for the CLI reference (sphinx-click renders the commands' English ``--help``).

Keyed by command path (``"qlint check"``) for descriptions and by option name
(``"--hardware"``) for option help; a command-specific entry
(``"qlint rules --format"``) wins over the shared one. Anything without a
translation keeps its English text and is listed by ``qdoc build`` as a note,
so a new option never breaks the build but does not go unnoticed either.
"""

from __future__ import annotations

COMMANDS = {
    "qlint": "检查在 vLLM-Ascend 上部署 Qwen3.5 / Qwen3.6 的启动脚本。",
    "qlint check": "检查启动脚本（文件、目录，或用 - 表示标准输入）。",
    "qlint config": "显示适用于 PATH 的配置（默认为当前目录）。",
    "qlint rules": "列出全部规则：ID、名称、级别和标题。",
    "qlint explain": "解释一条规则（按 ID 或名称）：检查什么、原因、示例、来源和常见问题。",
    "qlint generate": "根据知识库生成一份可通过检查的单节点启动脚本。",
    "qdoc": "从 qlint 知识库生成中英文部署指南、规则参考和常见问题，并用 Sphinx 构建站点。",
    "qdoc build": "生成 MyST 源文件，检查其中每个 shell 代码块，再构建 HTML 站点（或输出纯 Markdown）。",
    "qdoc check": "已提交的生成源文件与知识库不一致时以非零状态退出。",
    "qdoc generate": "只写出 MyST 源文件，不运行 Sphinx。",
}

OPTIONS = {
    "--version": "显示版本并退出。",
    "--help": "显示帮助并退出。",
    "--hardware": "目标硬件（默认取脚本中的指令或镜像标签，其次取配置文件）。",
    "--vllm-ascend-version": "vllm-ascend 版本，例如 v0.23.0。",
    "--select": "只启用这些规则（ID、名称或 QL2 这样的 ID 前缀，逗号分隔），替换配置文件中的 select。",
    "--ignore": "跳过这些规则（追加到配置文件中的 ignore）。",
    "--fail-level": "出现该级别或更高级别的问题时以 1 退出［默认：warning］。",
    "--config": "使用指定的 .qlint.toml / pyproject.toml，而不是向上逐级查找。",
    "--format": "输出格式［默认：text；设置 GITHUB_ACTIONS=true 时为 github］。",
    "qlint rules --format": "输出格式：text 或 json。",
    "qdoc build --format": "html 构建站点；markdown 输出可放入 vllm-ascend MkDocs 目录的纯 Markdown。",
    "--exit-zero": "即使发现问题也以 0 退出（输入无法读取时仍为 2）。",
    "--fix": "就地对文件应用安全修复，然后报告剩余问题。",
    "--no-inline-suppressions": "忽略所有 '# qlint: disable' 注释。",
    "--show-suppressed": "文本格式下同时列出被抑制的问题及其理由。",
    "--quiet": "只输出问题本身：不输出汇总和附注。",
    "--statistics": "按规则统计问题数量，而不逐条列出。",
    "--color": "为级别着色（auto：在终端中着色，除非设置了 NO_COLOR）。",
    "--show": "打印生效的配置以及每个取值的来源。",
    "--launcher": "运行 DP 模板脚本的 launch_online_dp.py 命令，例如 'python launch_online_dp.py --dp-size 8 --tp-size 2 --dp-address 10.0.0.1'。",
    "--lang": "说明文字的语言。",
    "--out": "输出目录（HTML 站点或 Markdown 树）。",
    "--source": "生成的 MyST 源文件所在目录。",
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


def untranslated(commands: tuple[tuple[str, str], ...]) -> list[str]:
    """Command paths and options of the given CLIs (``(prog, "module:attr")``) without Chinese text."""
    import importlib

    import click

    missing: list[str] = []

    def walk(command: click.Command, path: str) -> None:
        if command.hidden:
            return
        if (command.help or command.short_help) and path not in COMMANDS:
            missing.append(path)
        for param in command.params:
            if isinstance(param, click.Option) and param.help and not param.hidden:
                name = next((o for o in param.opts if o.startswith("--")), param.opts[0])
                if f"{path} {name}" not in OPTIONS and name not in OPTIONS:
                    missing.append(f"{path} {name}")
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                walk(command.commands[name], f"{path} {name}")

    for prog, target in commands:
        module, _, attribute = target.partition(":")
        walk(getattr(importlib.import_module(module), attribute), prog)
    return missing
