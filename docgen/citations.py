"""Source citations as links: split a knowledge citation into its locator and its note.

Citation forms are those of ``qlint.knowledge.models``. A source path at a
release becomes a GitHub link to the file (and lines); an issue becomes an
issue link; seed sections, handed cases and the reference notes stay plain
code. The free-text note after the locator is English only, so Chinese pages
show the locator alone.
"""

from __future__ import annotations

import re

from qlint.docgen.writer import code, escape

_LOCATOR = re.compile(
    r"^(?P<loc>"
    r"\d{3}_[0-9a-f]{16}\.txt section \S+"
    r"|(?P<repo>vllm-ascend|vllm)@(?P<ref>[\w.\-]+):(?P<path>[\w./\-]+)(?: L(?P<start>\d+)(?:-(?P<end>\d+))?)?"
    r"|(?P<issue_repo>vllm-ascend|vllm)#(?P<issue>\d+)"
    r"|case-\d\d"
    r"|vllm_ascend_facts\.md section [\d.]*\d"
    r")(?P<note>.*)$"
)

REPOSITORY = {"vllm-ascend": "vllm-project/vllm-ascend", "vllm": "vllm-project/vllm"}


def split(citation: str) -> tuple[str, str]:
    """``"vllm@v0.23.0:vllm/x.py L5 (why)"`` -> ``("vllm@v0.23.0:vllm/x.py L5", "(why)")``."""
    match = _LOCATOR.match(citation)
    if match is None:
        return citation, ""
    return match.group("loc"), match.group("note").strip()


def url(citation: str) -> str | None:
    """A web address for the citation's locator, or None (seeds, cases, notes)."""
    match = _LOCATOR.match(citation)
    if match is None:
        return None
    if match.group("repo"):
        address = f"https://github.com/{REPOSITORY[match.group('repo')]}/blob/{match.group('ref')}/{match.group('path')}"
        if match.group("start"):
            address += f"#L{match.group('start')}"
            if match.group("end"):
                address += f"-L{match.group('end')}"
        return address
    if match.group("issue"):
        return f"https://github.com/{REPOSITORY[match.group('issue_repo')]}/issues/{match.group('issue')}"
    return None


def render(citation: str, lang: str) -> str:
    """Markdown for one citation: linked locator, then (English pages only) the note."""
    locator, note = split(citation)
    address = url(citation)
    text = f"[{code(locator)}]({address})" if address else code(locator)
    if note and lang == "en":
        text += " " + escape(note)
    return text
