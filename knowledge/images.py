"""vllm-ascend container image references.

Images are ``quay.io/ascend/vllm-ascend:<tag>[-a3|-310p][-openeuler]``; the
suffix selects the hardware build (none: Atlas A2). Sources:
the installation guide's image table and the tutorials' Docker sections (``hardware.toml``).
"""

from __future__ import annotations

_IMAGE = r"vllm-ascend:(?P<tag>v\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+)?|main)(?P<suffix>-a3|-310p)?(?:-openeuler|-ubuntu[\w.]*)?$"
"""What an image reference ends with, searched for in the stripped reference: read by :func:`parse_image`
with string operations (a test checks they agree), so that no pattern is compiled at start-up."""
_MARK = "vllm-ascend:"


def parse_image(reference: str) -> tuple[str, str | None] | None:
    """``quay.io/ascend/vllm-ascend:v0.23.0rc1-a3`` -> ``("v0.23.0rc1", "-a3")``.

    Returns None when the text is not a vllm-ascend image reference.
    """
    if _MARK not in reference:
        return None
    text = reference.strip()  # (no final newline is left for ``$`` to stop before)
    start = text.find(_MARK)
    while start >= 0:  # re.search: the first place the rest matches from
        found = _tail(text, start + len(_MARK))
        if found is not None:
            return found
        start = text.find(_MARK, start + 1)
    return None


def _decimals(text: str, start: int) -> int:
    """The end of the run of decimal digits (``\\d``) at ``start`` (``start``: none)."""
    end = start
    while end < len(text) and text[end].isdecimal():
        end += 1
    return end


def _number(text: str, start: int, lead: str) -> int:
    """The end of ``lead`` and one or more decimal digits at ``start``, or -1."""
    if not text.startswith(lead, start):
        return -1
    end = _decimals(text, start + len(lead))
    return end if end > start + len(lead) else -1


def _tail(text: str, start: int) -> tuple[str, str | None] | None:
    """The tag and the hardware suffix when ``text[start:]`` matches the part of ``_IMAGE`` after its mark.

    Each optional part either matches where it can or cannot be skipped (what follows never starts like
    it), so reading greedily from the left is what the pattern's backtracking finds."""
    if text.startswith("main", start):
        end = start + 4
    else:
        end = _number(text, start, "v")
        for _ in range(2):
            end = _number(text, end, ".") if end >= 0 else -1
        if end < 0:
            return None
        end = max(end, _number(text, end, "."))
        end = max(end, _number(text, end, "rc"), _number(text, end, ".post"))
    tag = text[start:end]
    suffix = next((item for item in ("-a3", "-310p") if text.startswith(item, end)), None)
    rest = text[end + len(suffix or ""):]
    if rest in ("", "-openeuler"):
        return tag, suffix
    if rest.startswith("-ubuntu"):
        word = rest[7:].replace("_", "").replace(".", "")  # [\w.]*
        if word == "" or word.isalnum():
            return tag, suffix
    return None
