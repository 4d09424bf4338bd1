"""A small Markdown writer with two flavours: MyST (for Sphinx) and plain Markdown (for MkDocs).

Pages are written once against this API; the flavour decides how anchors,
cross-references, admonitions and tables of contents are spelled:

=============  ==============================  ===================================
construct      MyST (``myst``)                 plain Markdown (``markdown``)
=============  ==============================  ===================================
anchor         ``(faq-id)=`` before a heading  ``<a id="faq-id"></a>``
link to anchor ``{ref}`text <faq-id>```        ``[text](../faq.md#faq-id)``
admonition     ```` ```{note} ````             ``!!! note "Title"`` (MkDocs admonition)
toc            ```` ```{toctree} ````          a bullet list of links
=============  ==============================  ===================================

Output is deterministic: no timestamps, no set iteration.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Literal

Flavor = Literal["myst", "markdown"]

_ESCAPE = re.compile(r"([\\`*\[\]<>|])")


def escape(text: str) -> str:
    """Escape Markdown syntax in prose taken from the knowledge (``<ip>``, ``*``, ``|``...)."""
    return _ESCAPE.sub(r"\\\1", text)


def code(text: str) -> str:
    """An inline code span that survives backticks inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def relative(from_doc: str, to_doc: str) -> str:
    """Relative path from one page (``guides/x``) to another page's ``.md`` file."""
    base = posixpath.dirname(from_doc)
    return posixpath.relpath(to_doc, base or ".") + ".md"


@dataclass
class Page:
    """One page being written: ``docname`` is its path without ``.md`` (``rules/QL201``)."""

    docname: str
    flavor: Flavor
    lines: list[str] = field(default_factory=list)

    # -- blocks ----------------------------------------------------------
    def heading(self, level: int, text: str, anchor: str | None = None) -> None:
        if anchor:
            self.anchor(anchor)
        self.lines += ["#" * level + " " + text, ""]

    def anchor(self, name: str) -> None:
        if self.flavor == "myst":
            self.lines += [f"({name})=", ""]
        else:
            self.lines += [f'<a id="{name}"></a>', ""]

    def para(self, text: str) -> None:
        if text:
            self.lines += [text, ""]

    def bullets(self, items: list[str]) -> None:
        if items:
            self.lines += [f"- {item}" for item in items] + [""]

    def code_block(self, language: str, text: str) -> None:
        body = text.rstrip("\n")
        longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=0)
        fence = "`" * max(3, longest + 1)
        self.lines += [f"{fence}{language}", *body.split("\n"), fence, ""]

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        def row(cells: list[str]) -> str:
            return "| " + " | ".join(cell.replace("\n", " ") or " " for cell in cells) + " |"

        self.lines += [row(header), "| " + " | ".join("---" for _ in header) + " |"]
        self.lines += [row(cells) for cells in rows] + [""]

    def admonition(self, kind: Literal["note", "warning", "tip"], title: str, body: list[str]) -> None:
        """A boxed note; ``body`` is a list of paragraphs (already Markdown)."""
        if self.flavor == "myst":
            self.lines += [f"```{{admonition}} {title}", f":class: {kind}", ""]
            for paragraph in body:
                self.lines += [paragraph, ""]
            self.lines[-1:] = ["```", ""]
        else:
            self.lines += [f'!!! {kind} "{title}"', ""]
            for paragraph in body:
                self.lines += ["    " + paragraph, ""]

    def toctree(self, entries: list[tuple[str, str]], caption: str | None = None, maxdepth: int = 1,
                hidden: bool = False) -> None:
        """Child pages: ``entries`` are (docname, title) pairs. ``hidden``: MyST only (the
        page lists the children itself); plain Markdown then writes nothing."""
        if self.flavor == "myst":
            self.lines += ["```{toctree}", f":maxdepth: {maxdepth}"]
            if caption:
                self.lines.append(f":caption: {caption}")
            if hidden:
                self.lines.append(":hidden:")
            self.lines += ["", *[posixpath.relpath(doc, posixpath.dirname(self.docname) or ".")
                                 for doc, _ in entries], "```", ""]
        elif not hidden:
            if caption:
                self.lines += [f"**{caption}**", ""]
            self.bullets([self.link(title, doc) for doc, title in entries])

    # -- inline ----------------------------------------------------------
    def link(self, text: str, docname: str, anchor: str | None = None) -> str:
        """A link to another page, or to an explicit anchor on it."""
        if anchor and self.flavor == "myst":
            return "{ref}" + code(f"{text} <{anchor}>")
        target = relative(self.docname, docname)
        return f"[{text}]({target}{'#' + anchor if anchor else ''})"

    def render(self) -> str:
        text = "\n".join(self.lines).rstrip("\n") + "\n"
        return re.sub(r"\n{3,}", "\n\n", text)
