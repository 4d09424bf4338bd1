"""Bilingual text and source citations: the light part of the knowledge vocabulary.

Kept free of pydantic so that rule modules (which import it at start-up) stay
cheap to import; ``qlint.knowledge.models`` uses the same types for validation.
"""

from __future__ import annotations

from qlint.record import SlottedRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The patterns, compiled on first use (``_compiled``): compiling them all costs a lint that needs few of them.
_SOURCES = {
    # A citation: a public https URL, optionally followed by a space and a parenthesised note for reviewers.
    "CITATION": r"^(?P<url>https://[^\s()]+)(?: \((?P<note>[^\n]+)\))?$",
    "_HEX40": r"^[0-9a-f]{40}$",
    # A release tag: v0.23.0, v0.25.1rc1, 0.6.0, bash-5.2, v6.6 ... ; never a branch such as main or releases/x.
    "_TAG": r"^(?:[A-Za-z][\w]*-)?v?\d+(?:\.\d+)+[\w.+\-]*$|^v\d+$",
    "_GITHUB": (
        r"^https://github\.com/(?P<owner>[\w.\-]+)/(?P<repo>[\w.\-]+)"
        r"(?:/(?P<kind>blob|tree)/(?P<ref>[^/?#]+)/[^?#\s]*(?:\?plain=1)?(?:#L\d+(?:-L\d+)?|#[\w\-]+)?"
        r"|/(?:issues|pull)/\d+(?:#[\w\-]+)?"
        r"|/commit/(?P<commit>[0-9a-f]{40})(?:#[\w\-]+)?"
        r"|/releases/tag/(?P<release>[^/?#\s]+))$"
    ),
    "_VLLM_DOCS": r"^https://docs\.vllm\.ai/(?:projects/ascend/)?(?:en|zh-cn)/v\d+\.\d+[\w.\-]*/\S*$",
    "_POSIX": r"^https://pubs\.opengroup\.org/onlinepubs/\d{10}/\S+$",
    "_PINNED_AT": r"^https://github\.com/vllm-project/(vllm-ascend|vllm)/(?:blob|tree)/([^/]+)/",
}
_COMPILED: dict[str, Any] = {}


def _compiled(name: str) -> Any:
    """The compiled pattern ``name`` of ``_SOURCES``."""
    found = _COMPILED.get(name)
    if found is None:
        import re

        found = _COMPILED[name] = re.compile(_SOURCES[name])
    return found


def __getattr__(name: str) -> Any:
    """``CITATION`` (the compiled citation pattern), compiled when first asked for.

    A citation: a public https URL, optionally followed by a space and a parenthesised note for reviewers.
    The URL must be pinned (see :func:`pin_problem`); the note is English prose shown on English doc
    pages only and never replaces the URL.
    """
    if name == "CITATION":
        return _compiled(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pin_problem(url: str) -> str | None:
    """Why ``url`` is not a pinned public citation, or None when it is.

    Accepted: GitHub blob/tree links at a release tag or a 40-hex commit (``?plain=1`` and ``#Lx`` /
    ``#Lx-Ly`` line anchors or a heading anchor allowed), GitHub issues, pull requests, commits and release pages,
    docs.vllm.ai pages under a version path (``/en/v0.23.0/...``), and POSIX at a dated edition
    (``pubs.opengroup.org/onlinepubs/9699919799/...``).
    """
    match = _compiled("_GITHUB").match(url)
    if match:
        ref = match.group("ref") or match.group("release")
        if match.group("kind") and not (_compiled("_HEX40").match(ref) or _compiled("_TAG").match(ref)):
            return f"{ref!r} is a branch, not a release tag or a 40-hex commit"
        return None
    if _compiled("_VLLM_DOCS").match(url) or _compiled("_POSIX").match(url):
        return None
    if url.startswith("https://docs.vllm.ai/"):
        return "a docs.vllm.ai page needs a version path such as /en/v0.23.0/"
    return "not a pinned GitHub, docs.vllm.ai or POSIX address"


def _citation(citation: str) -> tuple[str, str | None] | None:
    """``(url, note or None)`` as the CITATION pattern reads a citation (None: no match), with string
    operations: the URL runs to the first whitespace or parenthesis (``[^\\s()]+``: ``str.split``'s
    whitespace is ``\\s``'s), then nothing, or `` (note)`` to the end (``$``: or before a final newline)."""
    if not citation.startswith("https://"):
        return None
    url = citation.split(None, 1)[0]
    for paren in "()":
        url = url.partition(paren)[0]
    if len(url) == 8:
        return None
    rest = citation[len(url):]
    if rest in ("", "\n"):
        return url, None
    if not rest.startswith(" ("):
        return None
    note = rest[2:-2] if rest.endswith(")\n") else rest[2:-1] if rest.endswith(")") else ""
    return (url, note) if note and "\n" not in note else None


def citation_url(citation: str) -> str:
    """The URL of a citation (its note dropped)."""
    parts = _citation(citation)
    return parts[0] if parts else citation


def citation_note(citation: str) -> str:
    """The reviewer's note of a citation, or ``""``."""
    parts = _citation(citation)
    return (parts[1] or "") if parts else ""


MAIN_COMMIT = "182b75ea84ff13ece27b57391331ef8935410aea"
"""The vllm-ascend main commit qlint's knowledge was read at (``main`` is cited at this commit)."""

def pinned_ref(url: str) -> tuple[str, str] | None:
    """``("vllm-ascend" | "vllm", ref)`` of a GitHub source link of either project, else None (what the
    ``_PINNED_AT`` pattern matches, told with string operations)."""
    if not url.startswith("https://github.com/vllm-project/"):
        return None
    project, _, rest = url[32:].partition("/")
    if project not in ("vllm-ascend", "vllm") or rest[:5] not in ("blob/", "tree/"):
        return None
    ref, slash, _ = rest[5:].partition("/")
    return (project, ref) if ref and slash else None


def at_release(sources, release: str | None = None, vllm: str | None = None, first=()) -> list[str]:
    """The URLs of ``first`` then ``sources`` (notes dropped, duplicates removed); of ``sources``, those
    pinned at the vllm-ascend ``release`` (``main``: at MAIN_COMMIT) or at its paired ``vllm`` version
    come first. ``first`` are a finding's own citations at the linted release and keep their place.

    The order is what users see: the first URL is a finding's ``see:`` link, so a finding checked at
    v0.25.1rc1 cites the v0.25.1rc1 / vLLM v0.25.1 source where the rule or the per-release data has one.
    """
    own = list(dict.fromkeys(citation_url(s) for s in first))
    urls = [u for u in dict.fromkeys(citation_url(s) for s in sources) if u not in own]
    if not release and not vllm:
        return own + urls
    wanted = set()
    if release:
        wanted.add(("vllm-ascend", MAIN_COMMIT if release == "main" else release))
    if vllm:
        wanted.add(("vllm", vllm if vllm.startswith("v") else f"v{vllm}"))
    head = [u for u in urls if pinned_ref(u) in wanted]
    return own + head + [u for u in urls if u not in head]


_HEX = "0123456789abcdef"


_DROP = {extra: str.maketrans("", "", "_-" + extra) for extra in ("", ".", ".+")}


def _word(text: str, extra: str = "") -> bool:
    """``text`` is one or more of ``[A-Za-z0-9_-]`` and ``extra`` (ASCII ``text`` only)."""
    rest = text.translate(_DROP[extra])
    return rest == "" or rest.isalnum()


def _plainly_pinned(citation: str) -> bool:
    """True only for a citation :func:`check_sources` accepts, told with string operations (the patterns
    are compiled for anything else): a GitHub blob/tree link at a ``v1.2.3``-like tag or a 40-hex commit
    (``?plain=1``, an anchor), a GitHub issue or pull request, or POSIX at a dated edition; ASCII, with an
    optional note. Every rule cites a few, each time the rules are imported. False means "ask the patterns"."""
    url, spaced, note = citation.partition(" (")
    if spaced and (not note.endswith(")") or len(note) < 2 or "\n" in note):
        return False
    if not url.isascii() or not url.isprintable() or " " in url or "(" in url or ")" in url:
        return False  # (printable ASCII: no whitespace but the space)
    if url.startswith("https://pubs.opengroup.org/onlinepubs/"):
        edition, slash, page = url[38:].partition("/")
        return len(edition) == 10 and edition.isdigit() and bool(slash) and page != ""
    if not url.startswith("https://github.com/"):
        return False
    parts = url[19:].split("/", 4)
    if len(parts) < 4 or not (parts[0] == "vllm-project" and parts[1] in ("vllm", "vllm-ascend")
                              or all(part and _word(part, ".") for part in parts[:2])):
        return False
    if parts[2] in ("issues", "pull"):
        number, hashed, anchor = parts[3].partition("#")
        return len(parts) == 4 and number.isdigit() and (not hashed or (anchor != "" and _word(anchor)))
    if parts[2] not in ("blob", "tree") or len(parts) != 5:
        return False
    ref, rest = parts[3], parts[4]
    if not ref or "?" in ref or "#" in ref:
        return False
    path, asked, query = rest.partition("?")
    if asked:
        if "#" in path or not query.startswith("plain=1"):
            return False
        anchor = query[7:]
    else:
        path, hashed, anchor = rest.partition("#")
        anchor = hashed + anchor
    if anchor and not (anchor.startswith("#L") and anchor[2:].replace("-L", "").isdigit()) \
            and (not anchor.startswith("#") or anchor == "#" or not _word(anchor[1:])):
        return False  # (#L12 and #L12-L14 told at once: L, - and digits are all of [A-Za-z0-9_-])
    if len(ref) == 40 and not ref.strip(_HEX):
        return True
    head, dot, tail = (ref[1:] if ref.startswith("v") else ref).partition(".")
    digits = len(tail) - len(tail.lstrip("0123456789"))
    return head.isdigit() and bool(dot) and digits > 0 and _word(tail[digits:], ".+")


def check_sources(sources) -> list[str]:
    """Validate citations; raise ValueError naming the first one that is not a pinned public URL."""
    sources = list(sources)
    if not sources:
        raise ValueError("at least one source citation is required")
    for citation in sources:
        if isinstance(citation, str) and _plainly_pinned(citation):
            continue
        match = _compiled("CITATION").match(citation) if isinstance(citation, str) else None
        if match is None:
            raise ValueError(
                f"citation {citation!r} is not a public https URL (optionally followed by a space and a "
                "parenthesised note)"
            )
        problem = pin_problem(match.group("url"))
        if problem:
            raise ValueError(f"citation {citation!r} is not pinned: {problem}")
    return sources


class _Deferrable:
    """The slot where a Text read from the compiled knowledge keeps where its sentences are, until first
    used (``qlint.knowledge.compiled``: a lint shows few of the knowledge's texts)."""

    __slots__ = ("_deferred",)


class Text(_Deferrable, metaclass=SlottedRecord, frozen=True):
    """A sentence in both languages. Both are required and must be non-empty."""

    en: str
    zh: str

    def __init__(self, en: str, zh: str) -> None:
        if not isinstance(en, str) or not isinstance(zh, str) or not en or not zh:
            raise ValueError("Text needs a non-empty English (en) and Chinese (zh) string")
        object.__setattr__(self, "en", en)  # frozen
        object.__setattr__(self, "zh", zh)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """How the knowledge models (pydantic) read a Text: a table with exactly ``en`` and ``zh``
        strings (``note = { en = "...", zh = "..." }``), or a Text. Called by pydantic only, when the
        data files are validated; linting never imports pydantic."""
        from pydantic_core import core_schema

        table = core_schema.typed_dict_schema(
            {lang: core_schema.typed_dict_field(core_schema.str_schema()) for lang in ("en", "zh")},
            extra_behavior="forbid",
        )
        from_table = core_schema.no_info_after_validator_function(lambda value: cls(**value), table)
        return core_schema.no_info_before_validator_function(
            lambda value: {"en": value.en, "zh": value.zh} if isinstance(value, cls) else value, from_table)

    def __getattr__(self, name: str) -> str:
        """``en`` or ``zh`` of a Text read lazily from the compiled knowledge: both decoded on first use."""
        if name == "en" or name == "zh":
            try:
                source, where = object.__getattribute__(self, "_deferred")
            except AttributeError:
                pass
            else:
                en, zh = source.resolve(self, where)
                object.__setattr__(self, "en", en)
                object.__setattr__(self, "zh", zh)
                object.__delattr__(self, "_deferred")
                return en if name == "en" else zh
        raise AttributeError(f"'Text' object has no attribute {name!r}")

    def get(self, lang: str) -> str:
        """The text in ``lang`` (``zh``/``zh_CN`` -> Chinese, anything else -> English)."""
        return self.zh if lang.lower().startswith("zh") else self.en
