"""Sphinx extension for the qdoc trees: Chinese text for sphinx-click's CLI reference.

sphinx-click writes the commands' English ``--help`` text. In the ``zh_CN``
tree this extension swaps in the translations of ``qlint.docgen.cli_zh``
(descriptions, option help, argument notes, field and rubric names) through
sphinx-click's ``sphinx-click-process-*`` events. Untranslated strings keep
their English text and are collected in ``app.env.qdoc_untranslated`` (a sorted
list is logged at the end, as information, not as a warning).
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.util import logging

from qlint.docgen import cli_zh

logger = logging.getLogger(__name__)

_OPTION = re.compile(r"^\.\. option:: (?P<spec>.*)$")
_FIELDS = {":options:": ":可选值:", ":default:": ":默认值:", ":required:": ":必需:"}


def _chinese(app) -> bool:
    return (app.config.language or "").startswith("zh")


def _missing(app, key: str) -> None:
    found: set[str] = getattr(app.env, "qdoc_untranslated", set())
    found.add(key)
    app.env.qdoc_untranslated = found


def _description(app, ctx, lines: list[str]) -> None:
    if not _chinese(app) or not any(line.strip() for line in lines):
        return
    text = cli_zh.translate(cli_zh.command_help(ctx.command))
    if text is None:
        _missing(app, ctx.command_path)
        return
    lines[:] = [text, ""]


def _option(ctx, spec: str):
    """The click Option an ``.. option::`` line documents (matched on its spellings)."""
    names = set(re.findall(r"(?<![\w-])--?[\w-]+", spec))
    for param in ctx.command.params:
        if getattr(param, "opts", None) and names & set(param.opts) | names & set(param.secondary_opts):
            return param
    return None


def _options(app, ctx, lines: list[str]) -> None:
    if not _chinese(app):
        return
    out: list[str] = []
    index = 0
    while index < len(lines):
        match = _OPTION.match(lines[index])
        if match is None:
            out.append(lines[index])
            index += 1
            continue
        out.append(lines[index])
        index += 1
        body: list[str] = []
        while index < len(lines) and not _OPTION.match(lines[index]):
            body.append(lines[index])
            index += 1
        param = _option(ctx, match.group("spec"))
        text = cli_zh.translate(getattr(param, "help", None))
        fields = [line for line in body if line.strip().startswith(":")]
        prose = [line for line in body if line.strip() and not line.strip().startswith(":")]
        if prose and text is None:
            _missing(app, f"{ctx.command_path} {match.group('spec').split()[0]}")
        kept = ["", f"    {text}"] if text is not None else ([""] + prose if prose else [])
        for line in fields:
            for english, chinese in _FIELDS.items():
                line = line.replace(english, chinese, 1)
            kept += ["", line]
        out += kept + [""]
    lines[:] = out


def _arguments(app, ctx, lines: list[str]) -> None:
    if not _chinese(app):
        return
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped in cli_zh.ARGUMENTS:
            lines[index] = line.replace(stripped, cli_zh.ARGUMENTS[stripped])


def _rubrics(app, doctree) -> None:
    if not _chinese(app):
        return
    for rubric in doctree.findall(nodes.rubric):
        text = rubric.astext()
        if text in cli_zh.RUBRICS:
            rubric.children = [nodes.Text(cli_zh.RUBRICS[text])]


def _report(app, exception) -> None:
    missing = sorted(getattr(app.env, "qdoc_untranslated", set()) or [])
    if exception is None and missing:
        logger.info("qdoc: CLI help without a Chinese translation (English kept): %s", ", ".join(missing))


def _merge(app, env, docnames, other) -> None:
    env.qdoc_untranslated = getattr(env, "qdoc_untranslated", set()) | getattr(other, "qdoc_untranslated", set())


class _CachedStemmer:
    """A snowball stemmer that stems each word once per build. Sphinx stems every word of every page
    for the search index with the pure-Python Porter stemmer, about a fifth of a build; the answer for a
    word never changes, so the same index comes out."""

    def __init__(self, stemmer):
        self._stemmer = stemmer
        self._stems: dict[str, str] = {}

    def stemWord(self, word: str) -> str:  # noqa: N802 (snowballstemmer's name)
        stem = self._stems.get(word)
        if stem is None:
            stem = self._stems[word] = self._stemmer.stemWord(word)
        return stem


def _search_languages():
    """Sphinx's English and Chinese search languages, with the stemmer they call cached."""
    from sphinx.search.en import SearchEnglish
    from sphinx.search.zh import SearchChinese

    out = []
    for base in (SearchEnglish, SearchChinese):
        def __init__(self, options, _base=base):
            _base.__init__(self, options)
            self.stemmer = _CachedStemmer(self.stemmer)

        out.append(type(base.__name__, (base,), {"__init__": __init__, "__doc__": base.__doc__}))
    return out


def setup(app):
    for language in _search_languages():
        app.add_search_language(language)
    app.connect("sphinx-click-process-description", _description)
    app.connect("sphinx-click-process-options", _options)
    app.connect("sphinx-click-process-arguments", _arguments)
    app.connect("doctree-read", _rubrics)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _report)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
