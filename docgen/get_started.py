"""The Get started page: install, first run, reading the output, fixes, pre-commit, GitHub
Actions with SARIF, configuration. The sample output is qlint's own on a sample script (rendered
when the site is built), so the page cannot drift from what the linter prints."""

from __future__ import annotations

from typing import Any

import re

from qlint.docgen.i18n import pick
from qlint.docgen.writer import Flavor, Page, code

_FLAG = re.compile(r"(?<![\w`/-])(--[a-z][a-z0-9-]*|\[tool\.qlint\]|\.qlint\.toml|pyproject\.toml|files:)")
_COMMENTS_ZH = {
    "# only to build this site with qdoc": "# 仅在用 qdoc 构建本站点时需要",
    "# messages in Chinese": "# 中文输出",
    "# where you host qlint": "# qlint 所在的仓库",
    "# lint, with the rest of each deployment (--with-deployment)": "# 检查，并连同部署中的其他脚本（--with-deployment）",
    "# or: apply safe fixes first, then lint": "# 或：先应用安全修复，再检查",
    "# to upload SARIF": "# 上传 SARIF 所需",
    "# annotations on the changed lines": "# 在修改过的行上输出注解",
}


def _localized(block: str, lang: str) -> str:
    """A code block with its comments in ``lang`` (the commands stay as they are)."""
    if lang == "en":
        return block
    for english, chinese in _COMMENTS_ZH.items():
        block = block.replace(english, chinese)
    return block

SAMPLE = "#!/bin/bash\n# qlint: hardware=a3\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3\n"

T: dict[str, Any] = {
    "title": ("Get started", "快速上手"),
    "intro": (
        "qlint reads vLLM-Ascend launch scripts without running them and reports settings that fail at startup, "
        "waste NPUs or run slower than they need to. Each finding cites the source it relies on. This page takes "
        "you from installing qlint to running it in pre-commit and in CI.",
        "qlint 在不执行脚本的前提下读取 vLLM-Ascend 启动脚本，指出会导致启动失败、浪费 NPU 或性能不必要地变差的设置。"
        "每条检查结果都附有所依据的来源。本页从安装开始，一直介绍到在 pre-commit 和 CI 中运行 qlint。",
    ),
    "install": ("Install", "安装"),
    "install.text": (
        "qlint needs Python 3.10 or later. The package on PyPI is called qlint-ascend; it installs the commands "
        "qlint and qdoc. The docs extra adds what qdoc needs to build the HTML site.",
        "qlint 需要 Python 3.10 或更高版本。PyPI 上的包名是 qlint-ascend，安装后提供 qlint 和 qdoc 两个命令。"
        "docs 附加依赖提供 qdoc 构建 HTML 站点所需的软件包。",
    ),
    "first": ("First run", "第一次运行"),
    "first.text": (
        "Give qlint a script, several scripts or a folder. State the hardware and the vllm-ascend release when the "
        "script does not: with the options below, a comment in the script, or the image tag it runs "
        "(quay.io/ascend/vllm-ascend:v0.23.0-a3 says both). Without a release qlint assumes the latest stable one "
        "and says so once.",
        "把一个脚本、多个脚本或一个目录交给 qlint。脚本本身没有说明硬件和 vllm-ascend 版本时，请用下面的选项、脚本中的注释，"
        "或脚本运行的镜像标签来说明（quay.io/ascend/vllm-ascend:v0.23.0-a3 同时给出了两者）。没有版本时，qlint 假定为"
        "最新稳定版，并在运行时提示一次。",
    ),
    "first.exit": (
        "The exit code is 0 when nothing at or above the fail level was found, 1 when something was, and 2 when an "
        "input or an option could not be used.",
        "没有达到失败级别的检查结果时退出码为 0，有则为 1；输入或选项无法使用时为 2。",
    ),
    "read": ("Reading the output", "读懂输出"),
    "read.text": ("For this script:", "对于下面这个脚本："),
    "read.out": ("qlint prints:", "qlint 的输出是："),
    "read.items": (
        [
            "The first line is the place (file, line and column), the severity, the rule code, the rule name and "
            "what is wrong, with the numbers the check used.",
            "The quoted line and the caret show the exact words the finding is about.",
            "A line that starts with fix is a change that --fix (safe) or --unsafe-fixes applies for you. A line "
            "that starts with advice is what to change by hand: qlint cannot pick the value for you.",
            "The see line links the source the rule relies on, or the FAQ entry that explains it.",
            "The last line counts the files checked and the findings by severity.",
        ],
        [
            "第一行给出位置（文件、行、列）、严重级别、规则代码、规则名称，以及问题所在和检查用到的数值。",
            "引用的源代码行和下方的插入符标出该结果针对的具体内容。",
            "以“修复”开头的行是 --fix（安全修复）或 --unsafe-fixes 可以自动完成的修改；以“建议”开头的行需要你手工修改，"
            "因为 qlint 无法替你选定取值。",
            "“参见”一行链接规则所依据的来源，或解释该问题的常见问题条目。",
            "最后一行统计检查的文件数，并按严重级别统计检查结果。",
        ],
    ),
    "read.explain": (
        "To read a rule's full page in the terminal, run qlint explain with its code. When a server has already "
        "failed, qlint explain --log reads its log and names the cause, and with --script the fix in your script.",
        "要在终端查看某条规则的完整说明，运行 qlint explain 加规则代码。服务已经启动失败时，qlint explain --log 会读取日志并"
        "指出原因；加上 --script 还会给出脚本中对应的修复。",
    ),
    "fix": ("Fixing", "修复"),
    "fix.text": (
        "--diff shows what the fixes would change without writing anything. --fix writes the safe fixes back to the "
        "file, whole or not at all. --unsafe-fixes adds the fixes that change how the server runs (for example a "
        "different TP and DP layout); review them with --diff first.",
        "--diff 只显示修复会做的修改，不写入文件。--fix 把安全修复写回文件，每个修复要么完整应用，要么不应用。"
        "--unsafe-fixes 还会应用改变服务运行方式的修复（例如换一种 TP 与 DP 布局）；请先用 --diff 检查。",
    ),
    "precommit": ("pre-commit", "pre-commit"),
    "precommit.text": (
        "The hooks check every shell script a commit touches. They run qlint --with-deployment: when one script of "
        "a deployment changes (the prefill node of a PD pair, one node of a multi-node launch), the other scripts of "
        "that deployment are read too, so a change on one side that breaks the other is caught. Narrow the files "
        "with files: and put options in the configuration file, which the hooks read.",
        "这些钩子会检查一次提交涉及的每个 shell 脚本。它们运行 qlint --with-deployment：部署中的一个脚本（PD 组合中的预填充节点、"
        "多节点启动中的某个节点）发生变化时，也会读取同一部署的其他脚本，从而发现改动一端却破坏另一端的问题。"
        "可以用 files: 缩小范围，并把选项写进钩子也会读取的配置文件。",
    ),
    "ci": ("GitHub Actions and code scanning", "GitHub Actions 与代码扫描"),
    "ci.text": (
        "In a workflow, qlint prints GitHub annotations on the changed lines by itself. To see the findings in the "
        "repository's code scanning view, write SARIF and upload it; --exit-zero lets the upload step run even when "
        "findings were reported.",
        "在工作流中，qlint 会自动在修改过的行上输出 GitHub 注解。如果要在仓库的代码扫描页面中查看结果，请输出 SARIF 并上传；"
        "--exit-zero 保证即使有检查结果，上传步骤也会执行。",
    ),
    "config": ("Configuration", "配置"),
    "config.text": (
        "Put settings in [tool.qlint] of pyproject.toml or in a .qlint.toml; qlint uses the nearest one above each "
        "script. Options on the command line win over the file. For one script, a comment or its image tag wins over "
        "the file too.",
        "把设置写在 pyproject.toml 的 [tool.qlint] 中，或写在 .qlint.toml 中；qlint 对每个脚本使用其上层最近的配置文件。"
        "命令行选项优先于配置文件；对单个脚本而言，脚本中的注释或镜像标签也优先于配置文件。",
    ),
    "config.show": (
        "qlint config --show with a script prints the settings in force for that script and where each one comes "
        "from: the command line, a comment in the script, its image tag, the configuration file or the default. "
        "To silence one finding, write a comment with its rule code and a reason on the line above it.",
        "qlint config --show 加上脚本路径，会打印对该脚本生效的设置及每项设置的来源：命令行、脚本中的注释、镜像标签、"
        "配置文件或默认值。要屏蔽某一条检查结果，在其上一行写一条带规则代码和原因的注释。",
    ),
    "next": ("Next", "下一步"),
    "next.text": (
        "The deployment guides give checked launch scripts per model and hardware; the rule pages explain every "
        "check; the FAQ answers the questions that come up most.",
        "部署指南按模型和硬件给出经过检查的启动脚本；规则页面解释每一项检查；常见问题解答最常见的疑问。",
    ),
}

INSTALL = "pip install qlint-ascend\npip install 'qlint-ascend[docs]'   # only to build this site with qdoc\n"
FIRST = ("qlint run.sh\n"
         "qlint deploy/ --hardware a3 --vllm-ascend-version {version}\n"
         "qlint run.sh --lang zh            # messages in Chinese\n"
         "qlint explain QL206\n"
         "qlint explain --log server.log --script run.sh\n")
FIX = "qlint --diff run.sh\nqlint --fix run.sh\nqlint --fix --unsafe-fixes run.sh\n"
PRECOMMIT = """# .pre-commit-config.yaml
repos:
  - repo: https://github.com/<org>/qlint   # where you host qlint
    rev: <tag or commit>
    hooks:
      - id: qlint        # lint, with the rest of each deployment (--with-deployment)
      # - id: qlint-fix  # or: apply safe fixes first, then lint
        files: ^deploy/
"""
WORKFLOW = """# .github/workflows/qlint.yml
name: qlint
on: [push, pull_request]
permissions:
  contents: read
  security-events: write   # to upload SARIF
jobs:
  qlint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install qlint-ascend
      - run: qlint deploy/                      # annotations on the changed lines
      - run: qlint --format sarif --exit-zero deploy/ > qlint.sarif
        if: always()
      - uses: github/codeql-action/upload-sarif@v3
        if: always()
        with:
          sarif_file: qlint.sarif
"""
CONFIG = """# pyproject.toml
[tool.qlint]
hardware = "a3"
vllm-ascend = "{version}"
ignore = ["QL508"]
fail-level = "error"

[tool.qlint.severity]
QL205 = "info"
"""
DIRECTIVES = """# qlint: hardware=a2 vllm-ascend={version}
# qlint: disable=QL205 -- a 256K context needs TP 8
vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 8 --max-model-len 262144
"""
SHOW = "qlint config --show deploy/run.sh\n"


def sample_output(lang: str, version: str) -> str:
    """What ``qlint run.sh --vllm-ascend-version VERSION`` prints for ``SAMPLE`` (findings and summary)."""
    from qlint.linter.lint import lint_bytes
    from qlint.linter.reporters import render_text, summary
    from qlint.rules.graph import Settings

    result = lint_bytes("run.sh", SAMPLE.encode(), settings=Settings(version=version))
    from qlint.knowledge.base import load

    short = "zh" if lang.startswith("zh") else "en"
    return render_text([result], load(), lang=short) + "\n" + summary([result], short) + "\n"


def render_get_started(lang: str, flavor: Flavor, version: str) -> str:
    """The Get started page of one language."""
    page = Page("get-started", flavor)

    def text(key: str) -> str:
        """The paragraph in ``lang`` with flags and file names as code (never broken across lines)."""
        return _FLAG.sub(lambda found: code(found.group(1)), pick(T[key], lang))

    page.heading(1, text("title"))
    page.para(text("intro"))
    page.heading(2, text("install"))
    page.para(text("install.text"))
    page.code_block("bash", _localized(INSTALL, lang))
    page.heading(2, text("first"))
    page.para(text("first.text"))
    page.code_block("bash", _localized(FIRST.format(version=version), lang))
    page.para(text("first.exit"))
    page.heading(2, text("read"))
    page.para(text("read.text"))
    page.code_block("bash", SAMPLE)
    page.para(text("read.out"))
    page.code_block("text", sample_output(lang, version))
    page.bullets([_FLAG.sub(lambda found: code(found.group(1)), item) for item in pick(T["read.items"], lang)])
    page.para(text("read.explain"))
    page.heading(2, text("fix"))
    page.para(text("fix.text"))
    page.code_block("bash", FIX)
    page.heading(2, text("precommit"))
    page.para(text("precommit.text"))
    page.code_block("yaml", _localized(PRECOMMIT, lang))
    page.heading(2, text("ci"))
    page.para(text("ci.text"))
    page.code_block("yaml", _localized(WORKFLOW, lang))
    page.heading(2, text("config"))
    page.para(text("config.text"))
    page.code_block("toml", CONFIG.format(version=version))
    page.code_block("bash", DIRECTIVES.format(version=version))
    page.para(text("config.show"))
    page.code_block("bash", SHOW)
    page.heading(2, text("next"))
    page.para(text("next.text"))
    page.bullets([page.link(pick(("Deployment guides", "部署指南"), lang), "guides/index"),
                  page.link(pick(("Rules", "规则"), lang), "rules/index"),
                  page.link(pick(("FAQ", "常见问题"), lang), "faq")])
    return page.render()
