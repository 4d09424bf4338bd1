"""Script-level hygiene: shebang placement, dangling line continuations, unterminated heredocs,
Windows (CRLF) line endings.

Sources: the Qwen3.5-397B-A17B tutorial (its run_d0.sh/run_d1.sh put ``#!/bin/bash`` after
three ``unset`` lines, an earlier revision's proxy.sh writes ``#/bin/bash``, and its single-node
command ends in ``\\`` before the end of the block), POSIX and the kernel's ``#!`` check.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import Span

DANGLING = RuleMeta(
    id="QL103",
    name="trailing-backslash",
    groups=("script",),
    severity="warning",
    scope="script",
    fix="safe",
    title=Text(en="A command ends with a backslash before a blank line",
               zh="命令以反斜杠结尾，后面紧跟空行"),
    why=Text(
        en="A final backslash continues the command onto the next line. Before a blank line or the "
        "end of the file it does nothing yet, but the first line someone adds below is silently "
        "glued onto the vllm serve command as extra arguments.",
        zh="末尾的反斜杠会把命令延续到下一行。它后面是空行或文件结尾时暂时无害，"
        "但之后在下方新增的第一行会被悄悄拼接到 vllm serve 命令上，成为多余的参数。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L88-L149",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L129-L130",
        "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_01",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B \\\n  --port 8000 \\\n\n",
            good="vllm serve Qwen/Qwen3.6-27B \\\n  --port 8000\n\n",
            fixed="vllm serve Qwen/Qwen3.6-27B \\\n  --port 8000\n\n",
        ),
    ),
)

SHEBANG = RuleMeta(
    id="QL104",
    name="misplaced-shebang",
    groups=("script",),
    severity="warning",
    scope="script",
    fix="safe",
    title=Text(en="The shebang is not on line 1 or is malformed", zh="shebang 不在第一行或写法错误"),
    why=Text(
        en="The kernel reads the interpreter only from the first two bytes of the file being '#!'. "
        "A shebang on a later line, or written '#/bin/bash', is an ordinary comment, so "
        "./run.sh runs under /bin/sh and bash-only syntax ([[ ]], arrays) breaks.",
        zh="内核只在文件开头两个字节为 “#!” 时读取解释器。写在后面行的 shebang，或写成 “#/bin/bash”，"
        "都只是普通注释，./run.sh 会用 /bin/sh 执行，bash 专有语法（[[ ]]、数组）随之失效。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L520-L523",
        "https://github.com/vllm-project/vllm-ascend/blob/8cc7bcd4c35ab7a4fbd50b36c362b136df7c0d95/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L520-L523",
        "https://github.com/torvalds/linux/blob/1da177e4c3f41524e886b7f1b8a0c1fc7321cac2/fs/binfmt_script.c#L26-L27",
    ),
    examples=(
        Example(
            bad="unset http_proxy\n#!/bin/bash\nvllm serve Qwen/Qwen3.6-27B\n",
            good="#!/bin/bash\nunset http_proxy\nvllm serve Qwen/Qwen3.6-27B\n",
        ),
        Example(
            bad="#/bin/bash\nvllm serve Qwen/Qwen3.6-27B\n",
            good="#!/bin/bash\nvllm serve Qwen/Qwen3.6-27B\n",
            fixed="#!/bin/bash\nvllm serve Qwen/Qwen3.6-27B\n",
        ),
    ),
)


HEREDOC = RuleMeta(
    id="QL110",
    name="unterminated-heredoc",
    groups=("script",),
    severity="warning",
    scope="script",
    title=Text(en="A heredoc is never closed", zh="heredoc 没有结束标记"),
    why=Text(
        en="A heredoc runs until a line that holds only its delimiter. Without one, bash takes every "
        "line to the end of the file as the heredoc's text and only warns (here-document delimited by "
        "end-of-file): commands written after it are fed to the command as input instead of being run.",
        zh="heredoc 一直延续到只含其结束标记的那一行。缺少这一行时，bash 把直到文件末尾的所有行都当作 "
        "heredoc 的内容，只给出警告（here-document delimited by end-of-file）：写在它后面的命令会被当作"
        "输入交给该命令，而不会被执行。",
    ),
    sources=("https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_07_04",),
    examples=(
        Example(
            bad="docker exec -i vllm bash <<EOF\nvllm serve Qwen/Qwen3.6-27B --port 8000\n",
            good="docker exec -i vllm bash <<EOF\nvllm serve Qwen/Qwen3.6-27B --port 8000\nEOF\n",
        ),
    ),
)


CRLF = RuleMeta(
    id="QL111",
    name="crlf-line-endings",
    groups=("script",),
    severity="error",
    scope="script",
    fix="safe",
    title=Text(en="The script has Windows (CRLF) line endings", zh="脚本使用了 Windows（CRLF）换行符"),
    why=Text(
        en="bash ends a line at the line feed only. A script saved with CRLF endings keeps a carriage return "
        "at the end of every line: the last word of each line carries it ('--port 8000' passes '8000\\r', "
        "'export X=1' sets '1\\r'), and a backslash at the end of a line escapes that carriage return "
        "instead of continuing the command, so vllm serve starts without the options on the lines below "
        "and each of those lines runs as a command of its own. Save the file with LF endings "
        "(dos2unix, or the editor's line-ending setting).",
        zh="bash 只以换行符（LF）作为行尾。以 CRLF 保存的脚本每行末尾都多出一个回车符：每行最后一个词都带着它"
        "（'--port 8000' 传入的是 '8000\\r'，'export X=1' 设置的是 '1\\r'）；行末的反斜杠转义的是这个回车符，"
        "而不是把命令延续到下一行，于是 vllm serve 启动时缺少下面各行的参数，而那些行各自被当作独立的命令执行。"
        "请以 LF 换行符保存文件（dos2unix，或编辑器的换行符设置）。",
    ),
    sources=(
        "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_01",
        "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_03",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B \\\r\n  --port 8000\r\n",
            good="vllm serve Qwen/Qwen3.6-27B \\\n  --port 8000\n",
            fixed="vllm serve Qwen/Qwen3.6-27B \\\n  --port 8000\n",
        ),
    ),
)


@check(CRLF, when=("plan:crlf_endings",))
def crlf_line_endings(scope: Scope):
    plan = scope.plan
    endings = plan.crlf_endings
    if plan.kind != "shell" or not endings:  # a guide's or manifest's commands are pasted or passed as words,
        return  # not read by bash; no CRLF ending (its trigger fails: the rule runs all the same with QLINT_RULES=all)
    continued = [span for span, after_backslash in endings if after_backslash]
    count = len(endings)
    if continued:
        span = Span(continued[0].line, continued[0].column - 1, continued[0].line, continued[0].column)
        more = len(continued) - 1
        en = ("this backslash escapes a carriage return (the line ends in CRLF), not the line end: bash ends "
              "the command here and runs the next line as a command of its own")
        zh = "该反斜杠转义的是回车符（此行以 CRLF 结尾），而不是行尾：bash 在这里结束命令，并把下一行当作独立的命令执行"
        if more:
            en += f"; {more} more line(s) end the same way"
            zh += f"；另有 {more} 行同样如此"
    else:
        span = endings[0][0]
        en = (f"{count} line(s) end in CRLF (Windows line endings): bash keeps the carriage return in the last "
              "word of each line, so values such as '8000' arrive as '8000\\r'")
        zh = f"有 {count} 行以 CRLF（Windows 换行符）结尾：bash 会把回车符留在每行最后一个词中，例如 '8000' 变成 '8000\\r'"
    yield Finding(
        CRLF,
        Text(en=en, zh=zh),
        span,
        Fix(Text(en=f"convert the {count} CRLF line ending(s) to LF", zh=f"把 {count} 处 CRLF 换行符改为 LF"),
            [edit for cr, _ in endings for edit in kit.replace(cr, "")]),
    )


@check(HEREDOC, when=("plan:unterminated_heredocs",))
def unterminated_heredoc(scope: Scope):
    for span in scope.plan.unterminated_heredocs:
        yield Finding(
            HEREDOC,
            Text(
                en="this heredoc has no line with its delimiter: bash reads to the end of the file as its "
                "text, so any command below it is input, not a command",
                zh="此 heredoc 没有只含结束标记的行：bash 会把直到文件末尾的内容都当作它的文本，"
                "其下方的命令只是输入，不会被执行",
            ),
            span,
        )


@check(DANGLING, when=("plan:dangling_continuations",))
def dangling_continuation(scope: Scope):
    for span in scope.plan.dangling_continuations:
        # remove the backslash (and the blank before it stays harmless)
        yield Finding(
            DANGLING,
            Text(
                en="trailing backslash before a blank line or end of file: the next line added here joins the command",
                zh="反斜杠后面是空行或文件结尾：之后在此处新增的一行会被拼接到该命令上",
            ),
            span,
            Fix(Text(en="remove the trailing backslash", zh="删除末尾的反斜杠"), kit.replace(span, "")),
        )


@check(SHEBANG, when=("plan:odd_shebang",))
def misplaced_shebang(scope: Scope):
    if scope.plan.shebang is None:
        return
    text, span = scope.plan.shebang
    if text.startswith("#/"):
        fixed = "#!" + text[1:]
        yield Finding(
            SHEBANG,
            Text(
                en=f"'{text}' is missing the '!': it is a comment, not a shebang",
                zh=f"'{text}' 缺少 '!'：它只是注释，不是 shebang",
            ),
            span,
            Fix(Text(en=f"write {fixed}", zh=f"改写为 {fixed}"), kit.replace(span, fixed)),
        )
        return
    if span.line != 1 or span.column != 1:
        first = scope.plan.first_code_line
        after_code = first is not None and first < span.line
        where = f"after code on line {first}" if after_code else f"on line {span.line}"
        where_zh = f"位于第 {first} 行的代码之后" if after_code else f"位于第 {span.line} 行"
        yield Finding(
            SHEBANG,
            Text(
                en=f"shebang {text} is {where}; only a shebang on line 1, column 1 selects the interpreter",
                zh=f"shebang {text} {where_zh}；只有位于第 1 行第 1 列的 shebang 才能指定解释器",
            ),
            Span(span.line, span.column, span.end_line, span.end_column),
            Fix(Text(en="move the shebang to line 1", zh="把 shebang 移到第 1 行")),
        )


PLACEHOLDER = RuleMeta(
    id="QL107",
    name="placeholder-read-as-redirect",
    groups=("script",),
    severity="warning",
    scope="script",
    title=Text(en="A <placeholder> in a command is a shell redirection",
               zh="命令中的 <占位符> 会被 shell 当作重定向"),
    why=Text(
        en="Tutorials write URLs such as http://<server_ip>:<port>/v1/completions. Run as is, bash "
        "reads '<server_ip>' as 'take input from the file server_ip' and the command fails with "
        "'No such file or directory' before curl starts. Replace every placeholder with a real value.",
        zh="教程中常写 http://<server_ip>:<port>/v1/completions 这样的地址。原样执行时，bash 会把 "
        "“<server_ip>” 理解为“从文件 server_ip 读取输入”，curl 还没运行命令就以 "
        "“No such file or directory” 失败。请把每个占位符换成实际值。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L142-L157",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L548",
        "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_07_01",
    ),
    examples=(
        Example(
            bad="curl http://<server_ip>:8000/v1/models\n",
            good="curl http://127.0.0.1:8000/v1/models\n",
        ),
    ),
)


@check(PLACEHOLDER, when=("plan:glued_redirects",))
def placeholder_redirect(scope: Scope):
    for text, span in scope.plan.glued_redirects:
        yield Finding(
            PLACEHOLDER,
            Text(
                en=f"'{text}' is read by the shell as a redirection, not as text: replace the placeholder "
                "with a real value",
                zh=f"'{text}' 会被 shell 当作重定向，而不是普通文本：请把占位符换成实际值",
            ),
            span,
            Fix(Text(en="replace the placeholder with the real host, port or path",
                     zh="把占位符换成实际的主机、端口或路径")),
        )
