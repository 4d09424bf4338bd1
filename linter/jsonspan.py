"""Parse a JSON argument and record where each key's value starts and ends.

Uses the standard library's own scanner (``json.decoder``); positions are
character offsets into the JSON text, which the caller maps to file spans.
"""

from __future__ import annotations

import json
from json.decoder import WHITESPACE, scanstring

_DECODER = json.JSONDecoder()


def _skip(text: str, index: int) -> int:
    return WHITESPACE.match(text, index).end()


def key_offsets(text: str) -> dict[str, tuple[int, int]]:
    """Map dotted key paths to (start, end) character offsets of their values.

    The text must already be valid JSON (call ``json.loads`` first).
    ``{"a": {"b": 1}}`` -> ``{"a": (6, 14), "a.b": (12, 13)}``.
    """
    offsets: dict[str, tuple[int, int]] = {}

    def value(index: int, path: str) -> int:
        index = _skip(text, index)
        if text.startswith("{", index):
            index = _skip(text, index + 1)
            if text.startswith("}", index):
                return index + 1
            while True:
                key, index = scanstring(text, index + 1)  # index is at the opening quote
                index = _skip(text, index)
                index = _skip(text, index + 1)  # past ':'
                child = f"{path}.{key}" if path else key
                start = index
                index = value(index, child)
                offsets[child] = (start, index)
                index = _skip(text, index)
                if text.startswith(",", index):
                    index = _skip(text, index + 1)
                    continue
                return index + 1  # past '}'
        _, end = _DECODER.raw_decode(text, index)
        return end

    value(0, "")
    return offsets
