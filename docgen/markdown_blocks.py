"""Find the shell code blocks of a Markdown / MyST file and lint them in place.

``shell_blocks(text)`` uses markdown-it-py (CommonMark) to find fenced code
blocks whose info string names a shell (```` ```bash ````, ```` ```sh ````,
```` ```shell ````, ```` ```console ````...). ``lint_markdown(path, text)``
lints each block with qlint and reports findings at their line and column in
the Markdown file, so ``qlint guide.md`` and ``qdoc build`` point at the
same place an editor shows. Indented code blocks are not linted: they carry
no language.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

from qlint.knowledge.base import KnowledgeBase
from qlint.linter.lint import LintResult, Policy, lint_text
from qlint.linter.source import InputError
from qlint.record import field, record, replace
from qlint.rules.base import Edit, Finding, Fix
from qlint.rules.graph import Settings
from qlint.rules.plan import Span

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console", "zsh", "ksh", "shell-session"})
"""Info-string languages read as shell (the first word of the info string, any case)."""


@record(frozen=True)
class CodeBlock:
    """A fenced code block.

    ``line`` is the 1-based line in the Markdown file of the block's first
    content line (the line after the opening fence); ``indent`` is the number of
    columns markdown-it stripped from each content line (fences nested in list
    items); ``text`` is the content with a final newline.
    """

    language: str
    info: str
    text: str
    line: int
    indent: int = 0

    @property
    def is_shell(self) -> bool:
        return self.language in SHELL_LANGUAGES

    @property
    def end_line(self) -> int:
        """The 1-based line of the block's last content line."""
        return self.line + max(self.text.count("\n"), 1) - 1


def code_blocks(text: str) -> list[CodeBlock]:
    """Every fenced code block of a Markdown text, in document order."""
    parser = MarkdownIt("commonmark")
    lines = text.splitlines()
    blocks = []
    for token in parser.parse(text):
        if token.type != "fence" or token.map is None:
            continue
        info = token.info.strip()
        language = info.split(maxsplit=1)[0].strip("{}").lower() if info else ""
        fence_line = lines[token.map[0]] if token.map[0] < len(lines) else ""
        indent = len(fence_line) - len(fence_line.lstrip(" "))
        blocks.append(CodeBlock(language=language, info=info, text=token.content, line=token.map[0] + 2, indent=indent))
    return blocks


def shell_blocks(text: str) -> list[CodeBlock]:
    """The fenced blocks whose language is a shell (see ``SHELL_LANGUAGES``)."""
    return [block for block in code_blocks(text) if block.is_shell]


@record
class BlockResult:
    """The lint result of one block, with spans already moved into the Markdown file."""

    block: CodeBlock
    result: LintResult


@record
class MarkdownResult:
    """Findings of every shell block of one Markdown file."""

    path: str
    blocks: list[BlockResult] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [finding for block in self.blocks for finding in block.result.findings]

    @property
    def errors(self) -> list[tuple[CodeBlock, InputError]]:
        return [(block.block, block.result.error) for block in self.blocks if block.result.error is not None]


def shift_span(span: Span, block: CodeBlock) -> Span:
    """A block-relative span moved to the Markdown file's lines and columns."""
    return Span(
        line=span.line + block.line - 1,
        column=span.column + block.indent,
        end_line=span.end_line + block.line - 1,
        end_column=span.end_column + block.indent,
    )


def _shift_finding(finding: Finding, block: CodeBlock, path: str) -> Finding:
    fix = finding.fix
    if fix is not None:
        fix = Fix(fix.description, [Edit(shift_span(edit.span, block), edit.text) for edit in fix.edits], fix.safety)
    return replace(finding, span=shift_span(finding.span, block), fix=fix, path=path)


def lint_block(
    path: str,
    block: CodeBlock,
    settings: Settings | None = None,
    kb: KnowledgeBase | None = None,
    policy: Policy | None = None,
    prefix: str = "",
) -> LintResult:
    """Lint one block and move its findings into the Markdown file.

    ``prefix`` is script text linted in front of the block (e.g. the launch
    script a ``curl`` block talks to); findings inside the prefix are dropped,
    the others are reported at their place in the block.
    """
    offset = prefix.count("\n")
    result = lint_text(path, prefix + block.text, settings=settings, kb=kb, policy=policy, kind="shell")
    if result.error is not None:
        line = max(result.error.line - offset, 1)
        error = InputError(result.error.message, line + block.line - 1, result.error.column + block.indent)
        return replace(result, error=error)
    kept = []
    for finding in result.findings:
        if finding.span.line <= offset:
            continue
        moved = Span(finding.span.line - offset, finding.span.column, finding.span.end_line - offset,
                     finding.span.end_column)
        kept.append(_shift_finding(replace(finding, span=moved), block, path))
    return replace(result, findings=kept)


def lint_markdown(
    path: str,
    text: str,
    settings: Settings | None = None,
    kb: KnowledgeBase | None = None,
    policy: Policy | None = None,
) -> MarkdownResult:
    """Lint every shell block of a Markdown text; each block is linted as its own script."""
    outcome = MarkdownResult(path=path)
    for block in shell_blocks(text):
        outcome.blocks.append(BlockResult(block, lint_block(path, block, settings=settings, kb=kb, policy=policy)))
    return outcome
