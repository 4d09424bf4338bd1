"""Parse a JSON argument and record where each key's value starts and ends.

Uses the standard library's own scanner (json's C ``scanstring`` and scanner, through
``qlint.jsonfast``); positions are
character offsets into the JSON text, which the caller maps to file spans.
``layout`` also records what an edit needs to keep the author's layout: where
each entry (``"key": value`` plus one separator) starts and ends, where a new
entry goes in each object, and the separators the author wrote.
"""

from __future__ import annotations

from qlint.jsonfast import JSONDecoder, scanstring
from qlint.record import field, record

_DECODER = JSONDecoder()


def _skip(text: str, index: int) -> int:
    end = len(text)
    while index < end and text[index] in _BLANKS:
        index += 1
    return index


_BLANKS = frozenset(" \t\n\r")
"""What ``json.decoder.WHITESPACE`` matches (``[ \t\n\r]*``), one character at a time."""


@record
class Layout:
    """Offsets into one JSON object text (all ``(start, end)``, end exclusive).

    ``values``: dotted key -> its value. ``entries``: dotted key -> the text that removing the
    key removes (the entry and the separator before it, or after it for a first entry).
    ``objects``: dotted path of each object (``""`` for the top level) -> (offset where a new
    entry goes, True when the object is empty). ``item_separator`` / ``key_separator``: the
    ``,`` / ``:`` separators written, with the blanks that follow them, when the author wrote
    every one the same way (None when they differ or there is none).
    """

    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    entries: dict[str, tuple[int, int]] = field(default_factory=dict)
    objects: dict[str, tuple[int, bool]] = field(default_factory=dict)
    item_separator: str | None = None
    key_separator: str | None = None

    def __init__(self, values: dict[str, tuple[int, int]] | None = None,
                 entries: dict[str, tuple[int, int]] | None = None, objects: dict[str, tuple[int, bool]] | None = None,
                 item_separator: str | None = None, key_separator: str | None = None) -> None:
        self.values = {} if values is None else values
        self.entries = {} if entries is None else entries
        self.objects = {} if objects is None else objects
        self.item_separator, self.key_separator = item_separator, key_separator


def layout(text: str) -> Layout:
    """The layout of a JSON text that is already known to be valid (call ``json.loads`` first).

    ``{"a": {"b": 1}}`` -> values ``{"a": (6, 14), "a.b": (12, 13)}``, objects
    ``{"": (14, False), "a": (13, False)}``, separators ``None`` / ``": "``.
    """
    found = Layout()

    seen: dict[str, set[str]] = {",": set(), ":": set()}

    def separator(start: int, end: int, kind: str) -> None:
        seen[kind].add(text[start:end])

    def value(index: int, path: str) -> int:
        index = _skip(text, index)
        if text.startswith("{", index):
            opened = index + 1
            index = _skip(text, opened)
            if text.startswith("}", index):
                found.objects[path] = (opened, True)
                return index + 1
            previous_end: int | None = None  # end of the previous entry's value
            while True:
                key_start = index
                key, index = scanstring(text, index + 1)  # index is at the opening quote
                colon = _skip(text, index)
                index = _skip(text, colon + 1)  # past ':'
                separator(colon, index, ":")
                child = f"{path}.{key}" if path else key
                start = index
                index = value(index, child)
                found.values[child] = (start, index)
                end = index
                index = _skip(text, index)
                if text.startswith(",", index):
                    after = _skip(text, index + 1)
                    separator(index, after, ",")
                    if previous_end is None:  # first entry: remove it with the separator after it
                        found.entries[child] = (key_start, after)
                    else:
                        found.entries[child] = (previous_end, end)
                    previous_end = end
                    index = after
                    continue
                found.entries[child] = (key_start, end) if previous_end is None else (previous_end, end)
                found.objects[path] = (end, False)
                return index + 1  # past '}'
        _, end = _DECODER.raw_decode(text, index)
        return end

    try:
        value(0, "")
    finally:
        value = None  # type: ignore[assignment]  # the function and its own cell: a cycle only the collector frees
    items, keys = seen[","], seen[":"]
    found.item_separator = next(iter(items)) if len(items) == 1 else None
    found.key_separator = next(iter(keys)) if len(keys) == 1 else None
    return found


def key_offsets(text: str) -> dict[str, tuple[int, int]]:
    """Map dotted key paths to (start, end) character offsets of their values.

    The text must already be valid JSON (call ``json.loads`` first).
    ``{"a": {"b": 1}}`` -> ``{"a": (6, 14), "a.b": (12, 13)}``.
    """
    return layout(text).values
