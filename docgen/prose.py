"""Find English prose left in a Chinese page.

A Chinese page may quote commands, flags, identifiers and product names, but
its sentences must be Chinese. ``english_passages(markdown)`` returns the text
blocks (paragraphs, headings, list items, table cells) whose plain words are
mostly English: after dropping code spans, fenced code, link targets and MyST
syntax, a block is reported when it has at least ``min_words`` purely
alphabetic ASCII words and those words hold more letters than the block has
CJK characters. Words with digits, dots, dashes or underscores count as
identifiers and are ignored, as are the ``allowed`` proper nouns and technical
loanwords, and quoted messages (an error text cited verbatim).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

PROPER_NOUNS = frozenset({
    "atlas", "duo", "ascend", "docker", "modelscope", "hugging", "face", "mooncake", "sphinx", "mkdocs",
    "vllm", "qlint", "qdoc", "gated", "deltanet", "json", "http", "curl", "npu", "npus", "hbm", "mtp", "moe",
    "gdn", "kv", "tp", "dp", "ep", "pd", "faq", "cann", "hccl", "ttft", "tpot", "gsm", "bf", "fp", "cpu",
    "zmq", "github", "yarn", "aiv", "rdma", "atb", "lccl", "numa", "swap", "sarif", "english", "flashcomm",
    # technical loanwords Chinese engineering prose keeps in English
    "prefill", "decode", "token", "tokens", "batch", "rank", "ranks", "worker", "proxy", "shell", "shebang",
    "layerwise", "profiling", "scale", "checkpoint", "wontfix", "piecewise", "eager", "offload",
})
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|「[^」]*」")
_WORD = re.compile(r"^[A-Za-z]{2,}$")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_MKDOCS_ADMONITION = re.compile(r'^!!! \w+ "(?P<title>.*)"\s*$')
_MYST_LINE = re.compile(r"^\s*(%.*|\([\w\-.]+\)=)\s*$")


def _plain_text(token) -> str:
    parts = []
    for child in token.children or []:
        if child.type == "text":
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    text = " ".join(parts)
    return re.sub(r"\{\w+\}", " ", text)  # MyST role names such as {ref}


def english_words(text: str, allowed: frozenset[str] = PROPER_NOUNS) -> list[str]:
    """Plain English words of ``text``; quoted messages (“...”) count as quotations, not prose."""
    words = []
    for raw in _QUOTED.sub(" ", text).split():
        word = raw.strip(".,;:!?()[]\"'“”‘’（），。；：、")
        if _WORD.match(word) and word.lower() not in allowed:
            words.append(word)
    return words


def is_english(text: str, min_words: int = 2, allowed: frozenset[str] = PROPER_NOUNS) -> bool:
    """True when ``text`` reads as English prose rather than Chinese with identifiers."""
    words = english_words(text, allowed)
    if len(words) < min_words:
        return False
    letters = sum(len(word) for word in words)
    return letters > len(_CJK.findall(text))


def _unwrap_admonitions(markdown: str) -> str:
    """MkDocs ``!!! kind "Title"`` blocks as plain paragraphs (their body is indented)."""
    out, inside = [], False
    for line in markdown.splitlines():
        match = _MKDOCS_ADMONITION.match(line)
        if match:
            out.append(match.group("title"))
            inside = True
        elif inside and (line.startswith("    ") or not line.strip()):
            out.append(line[4:])
        else:
            inside = False
            out.append(line)
    return "\n".join(out)


def english_passages(markdown: str, min_words: int = 2, allowed: frozenset[str] = PROPER_NOUNS) -> list[str]:
    """Text blocks of a Markdown/MyST page that read as English (see the module docstring).

    The bodies and titles of admonitions (MyST ```` ```{admonition} ```` and
    MkDocs ``!!!``) are prose too and are checked; other fenced blocks are code.
    """
    kept = "\n".join("" if _MYST_LINE.match(line) else line for line in _unwrap_admonitions(markdown).splitlines())
    parser = MarkdownIt("commonmark").enable("table")
    found = []
    for token in parser.parse(kept):
        if token.type == "fence" and token.info.startswith("{admonition}"):
            title = token.info.removeprefix("{admonition}")
            body = "\n".join(line for line in token.content.splitlines() if not line.startswith(":"))
            found += [title.strip()] if is_english(title, min_words, allowed) else []
            found += english_passages(body, min_words, allowed)
            continue
        if token.type != "inline":
            continue
        text = _plain_text(token)
        if is_english(text, min_words, allowed):
            found.append(text.strip())
    return found
