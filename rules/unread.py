"""What the linter read but could not follow: said at its line, never taken as clean.

The shell reader follows wrappers, ``bash -c`` strings, heredocs fed to a
shell, functions, loops, arrays and sourced files of the repository
statically; what it cannot follow without running the script (``eval``, a
command whose name is only known at run time, a sourced file it cannot read)
is listed in ``plan.unread`` and reported here as an info, so that a report
with no finding is not mistaken for a clean launch.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules.base import Example, Finding, RuleMeta
from qlint.rules.graph import Scope, check

UNREAD = RuleMeta(
    id="QL109",
    name="not-read",
    severity="info",
    scope="script",
    groups=("script",),
    title=Text(en="A construct the linter cannot follow without running the script",
               zh="不运行脚本就无法跟踪的写法"),
    why=Text(
        en="qlint reads scripts statically and never runs them. A command assembled at run time "
        "(eval, a command name held in an unknown variable), a sourced file it cannot read, or a "
        "command string that does not parse may start an engine that nobody checked; the report "
        "says so instead of looking clean.",
        zh="qlint 只做静态读取，从不运行脚本。运行时才拼出的命令（eval、命令名来自未知变量）、"
        "无法读取的 source 文件、无法解析的命令字符串，都可能启动一个没有被检查过的推理引擎；"
        "报告会明确指出这一点，而不是显得一切正常。",
    ),
    sources=(
        "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_19 (eval)",
        "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_18 (dot: source a file)",
    ),
    examples=(
        Example(
            bad='CMD="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 16"\neval "$CMD"\n',
            good="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n",
        ),
    ),
)

_WHAT = {
    "eval": ("eval runs a command built at run time; qlint does not evaluate it",
             "eval 会运行在运行时拼出的命令；qlint 不会对其求值"),
    "dynamic-command": ("the command name {detail} is only known at run time; the command is not checked",
                        "命令名 {detail} 只有运行时才知道；该命令未被检查"),
    "source": ("{detail} is not a file of this repository qlint can read; what it sets is unknown",
               "{detail} 不是 qlint 能读取的本仓库文件；它设置的内容未知"),
    "source-cycle": ("{detail} is already being read (a source cycle); not read again",
                     "{detail} 正在被读取（source 循环）；不再重复读取"),
    "env-file": ("the env file {detail} cannot be read; the variables it sets are unknown",
                 "无法读取环境变量文件 {detail}；其中设置的变量未知"),
    "unparsable": ("this {detail} does not parse as a shell script; it is not checked",
                   "这段{detail_zh}无法按 shell 脚本解析；未被检查"),
    "too-deep": ("scripts nest too deeply here ({detail}); the inner ones are not checked",
                 "此处脚本嵌套过深（{detail}）；内层未被检查"),
    "recursive-function": ("function {detail} calls itself; the recursive call is not followed",
                           "函数 {detail} 调用了自身；递归调用不再跟踪"),
}
_ZH_WHAT = {"command string": "命令字符串", "standard input": "标准输入", "script": "脚本"}


@check(UNREAD, when=("plan:unread",))
def not_read(scope: Scope):
    for kind, detail, span in scope.plan.unread:
        en, zh = _WHAT.get(kind, ("{detail} is not read", "{detail} 未被读取"))
        short = detail if len(detail) <= 60 else detail[:57] + "..."
        yield Finding(
            UNREAD,
            Text(en=en.format(detail=short), zh=zh.format(detail=short, detail_zh=_ZH_WHAT.get(detail, short))),
            span,
        )
