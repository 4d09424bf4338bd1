"""Source citations as links on the generated pages.

A citation (``qlint.knowledge.text.CITATION``) is a pinned public URL, optionally followed by a
parenthesised reviewer's note. A page shows it as a link whose text says what it points at
(``vllm-ascend v0.23.0 vllm_ascend/platform.py L82``, ``vllm-ascend#7944``) and whose target is the
URL itself; the note is English only, so Chinese pages show the link alone.
"""

from __future__ import annotations

import re

from qlint.docgen.writer import code, escape
from qlint.knowledge.text import citation_note, citation_url

_BLOB = re.compile(
    r"^https://github\.com/(?P<owner>[\w.\-]+)/(?P<repo>[\w.\-]+)/(?:blob|tree)/(?P<ref>[^/]+)/(?P<path>[^?#]+)"
    r"(?:\?plain=1)?(?:#L(?P<start>\d+)(?:-L(?P<end>\d+))?)?$"
)
_ISSUE = re.compile(r"^https://github\.com/(?P<owner>[\w.\-]+)/(?P<repo>[\w.\-]+)/(?:issues|pull)/(?P<num>\d+)")
_COMMIT = re.compile(r"^https://github\.com/(?P<owner>[\w.\-]+)/(?P<repo>[\w.\-]+)/commit/(?P<sha>[0-9a-f]{40})")
_HEX40 = re.compile(r"^[0-9a-f]{40}$")


def _repo(owner: str, repo: str) -> str:
    return repo if owner == "vllm-project" else f"{owner}/{repo}"


def label(citation: str) -> str:
    """A short text for the link: repository, pin, path and lines; ``repo#N`` for issues and PRs."""
    url = citation_url(citation)
    match = _BLOB.match(url)
    if match:
        ref = match["ref"][:10] if _HEX40.match(match["ref"]) else match["ref"]
        text = f"{_repo(match['owner'], match['repo'])} {ref} {match['path']}"
        if match["start"]:
            text += f" L{match['start']}" + (f"-{match['end']}" if match["end"] else "")
        return text
    match = _ISSUE.match(url)
    if match:
        return f"{_repo(match['owner'], match['repo'])}#{match['num']}"
    match = _COMMIT.match(url)
    if match:
        return f"{_repo(match['owner'], match['repo'])}@{match['sha'][:10]}"
    return re.sub(r"^https://", "", url)


def split(citation: str) -> tuple[str, str]:
    """``"https://...#L5 (why)"`` -> ``("https://...#L5", "why")``."""
    return citation_url(citation), citation_note(citation)


def url(citation: str) -> str:
    """The web address of a citation (every citation is one)."""
    return citation_url(citation)


def render(citation: str, lang: str) -> str:
    """Markdown for one citation: the linked label, then (English pages only) the note."""
    address, note = split(citation)
    text = f"[{code(label(citation))}]({address})"
    if note and lang == "en":
        text += " (" + escape(note) + ")"
    return text
