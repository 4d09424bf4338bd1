"""Extract the `vllm serve` launch blocks of vllm-ascend's tutorials into .sh files.

Usage:
    python tests/corpus/extract_tutorial_blocks.py MIRROR REF OUT_DIR

MIRROR is a (bare) git clone of vllm-project/vllm-ascend, REF a tag or branch
(v0.23.0, main). Every Markdown file under docs/source/tutorials at REF is read
with ``git show REF:path`` and parsed with markdown-it-py; every fenced shell
block whose text contains ``vllm serve`` is written whole (its exports and any
other commands of the same block included) to OUT_DIR/<tutorial>_<n>.sh, n
counting the kept blocks of that tutorial from 1.

The docs have two syntaxes for nesting, both parsed as Markdown structure:

* v0.23.0 and older (Sphinx + MyST): ``:::{tab-item} Title`` colon fences and
  ```` ```{note} ```` directive fences, whose bodies are Markdown again (parsed
  recursively); ```` ```{code-block} bash ```` is a code block whose leading
  ``:option:`` lines are directive options, not code.
* main (mkdocs-material): pymdownx ``=== "Title"`` content tabs and ``!!! note``
  admonitions, whose bodies are indented by four columns. A markdown-it block
  rule below (modelled on mdit_py_plugins.admon) turns them into
  container tokens, so the fences inside are seen as fences, not as an indented
  code block.

Each output file starts with a header (after the block's own shebang, if any):

    # source: vllm-project/vllm-ascend docs/source/tutorials/models/X.md, ref v0.23.0 (5cb98ca), line 233
    # context: 5 Online Service Deployment > ... > Qwen3.5-27B-w8a8
    # qlint: hardware=a3 vllm-ascend=v0.23.0

The ``# qlint:`` directive carries what the tutorial implies: ``hardware`` when the
enclosing headings and tabs name exactly one of A2 / A3 / 300I (310P), and
``vllm-ascend`` (the ref, or ``main``) only when the block has no vllm-ascend
image tag of its own (qlint reads the tag then). Documentation substitutions
(``|vllm_ascend_version|`` in MyST, ``{{ vllm_ascend_version }}`` in mkdocs) are
replaced with the values the ref's docs configuration gives them.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

TUTORIALS = "docs/source/tutorials"
SHELL_LANGUAGES = {"", "bash", "sh", "shell", "console", "zsh", "shell-session"}
CODE_DIRECTIVES = {"{code-block}", "{code}", "{sourcecode}"}
REPO = "vllm-project/vllm-ascend"

# -- markdown-it rules for the syntaxes CommonMark does not know -----------------------------

_INDENTED_MARKERS = ("===+", "===!", "===", "!!!", "???+", "???")


def _indented_container(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """pymdownx tabs (``=== "Title"``) and admonitions (``!!! note "Title"``): body indented by 4."""
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    start = state.bMarks[start_line] + state.tShift[start_line]
    maximum = state.eMarks[start_line]
    line = state.src[start:maximum]
    marker = next((m for m in _INDENTED_MARKERS if line.startswith(m)), None)
    if marker is None:
        return False
    params = line[len(marker):]
    if params and not params.startswith(" "):
        return False
    if marker.startswith("=") and not params.strip().startswith('"'):
        return False  # a tab always has a quoted title
    if silent:
        return True

    old_parent, old_line_max, old_indent = state.parentType, state.lineMax, state.blkIndent
    state.parentType = "container"  # type: ignore[assignment]
    state.blkIndent = state.sCount[start_line] + 4

    next_line = start_line
    while True:
        next_line += 1
        if next_line >= end_line:
            break
        pos = state.bMarks[next_line] + state.tShift[next_line]
        if pos < state.eMarks[next_line] and state.sCount[next_line] < state.blkIndent:
            break  # a non-blank line indented less than the body ends the container
    # trailing blank lines belong to what follows
    last = next_line
    while last - 1 > start_line and state.bMarks[last - 1] + state.tShift[last - 1] >= state.eMarks[last - 1]:
        last -= 1
    state.lineMax = next_line

    kind = "tab" if marker.startswith("=") else "admonition"
    title = params.strip()
    if kind == "tab":
        title = title.strip('"')
    else:
        head, _, quoted = title.partition(" ")
        title = quoted.strip().strip('"') or head

    token = state.push(f"{kind}_open", "div", 1)
    token.markup, token.info, token.block, token.map = marker, title, True, [start_line, last]
    state.md.block.tokenize(state, start_line + 1, next_line)
    token = state.push(f"{kind}_close", "div", -1)
    token.markup, token.block = marker, True

    state.parentType, state.lineMax, state.blkIndent = old_parent, old_line_max, old_indent
    state.line = next_line
    return True


def _colon_fence(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """MyST ``:::{directive} args`` ... ``:::`` (3+ colons); the body is kept raw and parsed again."""
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    start = state.bMarks[start_line] + state.tShift[start_line]
    maximum = state.eMarks[start_line]
    line = state.src[start:maximum]
    count = len(line) - len(line.lstrip(":"))
    if count < 3:
        return False
    info = line[count:].strip()
    if not info.startswith("{"):
        return False
    if silent:
        return True
    next_line = start_line
    closed = False
    while True:
        next_line += 1
        if next_line >= end_line:
            break
        pos = state.bMarks[next_line] + state.tShift[next_line]
        text = state.src[pos:state.eMarks[next_line]]
        if state.sCount[next_line] - state.blkIndent < 4 and text.startswith(":" * count) and not text[count:].strip():
            closed = True
            break
    body = state.getLines(start_line + 1, next_line, state.sCount[start_line], False)
    token = state.push("colon_fence", "div", 0)
    token.info, token.content, token.markup, token.block = info, body, ":" * count, True
    token.map = [start_line, next_line + (1 if closed else 0)]
    state.line = next_line + (1 if closed else 0)
    return True


def parser() -> MarkdownIt:
    md = MarkdownIt("commonmark")
    md.block.ruler.before("fence", "colon_fence", _colon_fence, {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.block.ruler.before(
        "fence", "indented_container", _indented_container, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    return md


# -- walking the token stream ------------------------------------------------------------------


@dataclass
class Block:
    line: int  # 1-based line of the first code line in the Markdown file
    text: str
    context: list[str]


def _directive_body(content: str) -> tuple[str, int]:
    """Drop a MyST directive's leading ``:option: value`` lines; return (code, lines dropped)."""
    lines = content.splitlines(keepends=True)
    dropped = 0
    while dropped < len(lines) and lines[dropped].strip().startswith(":") and not lines[dropped].strip().startswith("::"):
        dropped += 1
    if dropped < len(lines) and dropped and not lines[dropped].strip():
        dropped += 1
    return "".join(lines[dropped:]), dropped


def _blocks(md: MarkdownIt, text: str, offset: int, context: list[str]) -> list[Block]:
    found: list[Block] = []
    tokens = md.parse(text)
    headings: list[tuple[int, str]] = []
    containers: list[str] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            level = int(token.tag[1:])
            title = tokens[index + 1].content.split("{:")[0].strip()
            headings = [h for h in headings if h[0] < level] + [(level, title)]
        elif token.type in ("tab_open", "admonition_open"):
            containers.append(token.info)
        elif token.type in ("tab_close", "admonition_close"):
            containers.pop()
        here = context + [h[1] for h in headings if h[0] > 1] + containers
        if token.type == "colon_fence" and token.map is not None:
            name, _, argument = token.info.partition("}")
            if name + "}" in CODE_DIRECTIVES:
                language = argument.strip().split(maxsplit=1)[0].lower() if argument.strip() else ""
                code, dropped = _directive_body(token.content)
                if language in SHELL_LANGUAGES:
                    found.append(Block(offset + token.map[0] + 2 + dropped, code, here))
            else:
                title = argument.strip()
                found += _blocks(md, token.content, offset + token.map[0] + 1, here + ([title] if title else []))
        elif token.type == "fence" and token.map is not None:
            info = token.info.strip()
            first, _, rest = info.partition(" ")
            if first.startswith("{") and first not in CODE_DIRECTIVES:
                title = rest.strip()
                found += _blocks(md, token.content, offset + token.map[0] + 1, here + ([title] if title else []))
                continue
            code, dropped = token.content, 0
            language = first.lower()
            if first in CODE_DIRECTIVES:
                language = rest.strip().split(maxsplit=1)[0].lower() if rest.strip() else ""
                code, dropped = _directive_body(token.content)
            if language in SHELL_LANGUAGES:
                found.append(Block(offset + token.map[0] + 2 + dropped, code, here))
    return found


def shell_blocks(text: str) -> list[Block]:
    """Every fenced shell block of a tutorial, with its 1-based line and heading/tab context."""
    return _blocks(parser(), text, 0, [])


# -- substitutions, hardware, output -----------------------------------------------------------


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), *args], check=True, capture_output=True, text=True).stdout


def substitutions(mirror: Path, ref: str) -> dict[str, str]:
    """The string values the ref's docs configuration substitutes (conf.py, else mkdocs.yml)."""
    values: dict[str, str] = {}
    try:
        conf = _git(mirror, "show", f"{ref}:docs/source/conf.py")
    except subprocess.CalledProcessError:
        conf = ""
    for node in ast.walk(ast.parse(conf)) if conf else []:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "myst_substitutions" for t in node.targets):
            if isinstance(node.value, ast.Dict):
                for key, value in zip(node.value.keys, node.value.values):
                    if isinstance(key, ast.Constant) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                        values[key.value] = value.value
    if not values:
        try:
            import yaml

            loader = type("Loader", (yaml.SafeLoader,), {})
            for prefix in ("!", "tag:yaml.org,2002:python/"):
                loader.add_multi_constructor(prefix, lambda _loader, _suffix, _node: None)
            config = yaml.load(_git(mirror, "show", f"{ref}:mkdocs.yml"), Loader=loader) or {}
            values = {k: v for k, v in (config.get("extra") or {}).items() if isinstance(v, str)}
        except (ImportError, subprocess.CalledProcessError):
            pass
    return values


def substitute(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        for pattern in (f"|{key}|", f"{{{{ {key} }}}}", f"{{{{{key}}}}}"):
            text = text.replace(pattern, value)
    return text


def implied_hardware(context: list[str]) -> str | None:
    """The hardware the innermost heading/tab naming exactly one kind implies."""
    for title in reversed(context):
        words = title.replace("/", " ").replace(",", " ").replace("(", " ").replace(")", " ").upper().split()
        kinds = set()
        if "A3" in words or any(w.startswith("A3") and w[2:] in ("", "-SERIES") for w in words):
            kinds.add("a3")
        if "A2" in words:
            kinds.add("a2")
        if any(w.startswith(("300I", "310P")) for w in words):
            kinds.add("310p")
        if any(w.startswith("950") or w.startswith("ASCEND950") for w in words) or "A5" in words:
            kinds.add("a5")
        if len(kinds) == 1:
            kind = kinds.pop()
            return None if kind == "a5" else kind
        if kinds:
            return None
    return None


def ref_version(ref: str) -> str:
    return ref if ref.startswith("v") else "main"


def write_blocks(mirror: Path, ref: str, out: Path) -> list[Path]:
    commit = _git(mirror, "rev-parse", "--short", f"{ref}^{{commit}}").strip()
    values = substitutions(mirror, ref)
    names = [p for p in _git(mirror, "ls-tree", "-r", "--name-only", ref, TUTORIALS).splitlines() if p.endswith(".md")]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(names):
        text = _git(mirror, "show", f"{ref}:{path}")
        kept = [b for b in shell_blocks(text) if "vllm serve" in b.text]
        for number, block in enumerate(kept, 1):
            code = substitute(block.text, values)
            shebang = ""
            if code.startswith("#!"):
                shebang, _, code = code.partition("\n")
                shebang += "\n"
            header = [f"# source: {REPO} {path}, ref {ref} ({commit}), line {block.line}"]
            if block.context:
                header.append("# context: " + " > ".join(block.context))
            directive = []
            hardware = implied_hardware(block.context)
            if hardware:
                directive.append(f"hardware={hardware}")
            if "vllm-ascend:" not in code:
                directive.append(f"vllm-ascend={ref_version(ref)}")
            if directive:
                header.append("# qlint: " + " ".join(directive))
            target = out / f"{Path(path).stem}_{number}.sh"
            target.write_text(shebang + "\n".join(header) + "\n" + code.rstrip("\n") + "\n", encoding="utf-8")
            written.append(target)
    return written


# -- the precision corpus: every page of docs/source at every tag, deduplicated -----------------

DOCS = "docs/source"
MAIN_COMMIT = "182b75ea84ff13ece27b57391331ef8935410aea"
LAUNCH_MARKERS = ("vllm serve", "vllm.entrypoints.openai.api_server")


def corpus_refs(mirror: Path, first: str = "v0.11.0") -> list[str]:
    """Every release tag from ``first`` on (rc tags included, oldest first), then main."""
    from packaging.version import Version

    tags = [t for t in _git(mirror, "tag").split() if t.startswith("v")]
    picked = sorted((t for t in tags if Version(t[1:]) >= Version(first[1:])), key=lambda t: Version(t[1:]))
    return picked + ["main"]


def doc_pages(mirror: Path, ref: str) -> list[str]:
    """Markdown pages under docs/source at ``ref`` (translations under locale/ left out)."""
    names = _git(mirror, "ls-tree", "-r", "--name-only", ref, DOCS).splitlines()
    return sorted(p for p in names if p.endswith(".md") and "/locale/" not in p)


@dataclass
class Occurrence:
    ref: str
    commit: str
    path: str
    line: int
    context: list[str]


def collect_corpus(mirror: Path, refs: list[str]) -> dict[tuple[str, str | None], list[Occurrence]]:
    """(block text, implied hardware) -> where it occurs, over every page of every ref."""
    found: dict[tuple[str, str | None], list[Occurrence]] = {}
    for ref in refs:
        rev = MAIN_COMMIT if ref == "main" else ref
        commit = _git(mirror, "rev-parse", f"{rev}^{{commit}}").strip()
        values = substitutions(mirror, rev)
        for path in doc_pages(mirror, rev):
            text = _git(mirror, "show", f"{rev}:{path}")
            for block in shell_blocks(text):
                if not any(marker in block.text for marker in LAUNCH_MARKERS):
                    continue
                code = substitute(block.text, values).rstrip("\n") + "\n"
                key = (code, implied_hardware(block.context))
                found.setdefault(key, []).append(Occurrence(ref, commit, path, block.line, block.context))
    return found


def write_corpus(mirror: Path, refs: list[str], out: Path) -> list[Path]:
    """One fixture per distinct block: header names its first source, every ref it occurs at, the hardware."""
    import hashlib

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for (code, hardware), places in collect_corpus(mirror, refs).items():
        first = places[0]
        digest = hashlib.sha1(f"{hardware}\0{code}".encode()).hexdigest()[:8]
        shebang = ""
        if code.startswith("#!"):
            shebang, _, code = code.partition("\n")
            shebang += "\n"
        seen_refs = []
        for place in places:
            if place.ref not in seen_refs:
                seen_refs.append(place.ref)
        header = [f"# source: {REPO} {first.path}, ref {first.ref} ({first.commit[:10]}), line {first.line}",
                  "# refs: " + " ".join(seen_refs)]
        if first.context:
            header.append("# context: " + " > ".join(first.context))
        if hardware:
            header.append(f"# qlint: hardware={hardware}")
        target = out / f"{Path(first.path).stem}_{digest}.sh"
        target.write_text(shebang + "\n".join(header) + "\n" + code, encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("mirror", type=Path, help="git directory of a vllm-ascend clone (bare is fine)")
    args.add_argument("ref", help="tag or branch, e.g. v0.23.0 or main; 'corpus' = every tag from --since and main")
    args.add_argument("out", type=Path, help="output directory")
    args.add_argument("--since", default="v0.11.0", help="first tag of the corpus (with ref 'corpus')")
    options = args.parse_args(argv)
    if options.ref == "corpus":
        refs = corpus_refs(options.mirror, options.since)
        written = write_corpus(options.mirror, refs, options.out)
        print(f"{len(written)} distinct blocks from {len(refs)} refs -> {options.out}", file=sys.stderr)
        return 0
    written = write_blocks(options.mirror, options.ref, options.out)
    print(f"{len(written)} blocks from {options.ref} -> {options.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
