"""The compiled knowledge: validated records as JSON, which cannot execute code when read.

``knowledge/data/*.toml`` stay the source of truth. Validating them with pydantic costs
a few hundred milliseconds, so the validated records are kept in a compiled form:
shipped in the package (``knowledge/data/compiled.json``, written by
``python -m qlint.knowledge.compiled``) and, when that is missing or stale, in the user's
cache directory. Both carry a digest of the data files they were built from and are used
only when it matches; the shipped one also records each data file's size and CRC-32, so that a
run checks it is current without hashing the data files. JSON rather than pickle: a planted or damaged file can at worst be
ignored, never run code.

Encoding: a record is ``{"\\u0000r": {field: value}}``, a tuple ``{"\\u0000t": [...]}``, a
bilingual Text ``{"\\u0000x": [en, zh]}``;
lists, dicts, strings, numbers, booleans and null are themselves.
"""

from __future__ import annotations

import json
import os

from qlint.knowledge.text import Text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

FORMAT = 1
_RECORD = "\x00r"
_TUPLE = "\x00t"
_TEXT = "\x00x"


def encode(value: Any, record_type: type) -> Any:
    """``value`` as plain JSON data (see the module docstring). Raises TypeError on other types."""
    if isinstance(value, record_type):
        return {_RECORD: {name: encode(item, record_type) for name, item in vars(value).items()}}
    if isinstance(value, Text):
        return {_TEXT: [value.en, value.zh]}
    if isinstance(value, tuple):
        return {_TUPLE: [encode(item, record_type) for item in value]}
    if isinstance(value, list):
        return [encode(item, record_type) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("compiled knowledge: dict keys must be strings")
        return {key: encode(item, record_type) for key, item in value.items()}
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError(f"compiled knowledge cannot hold a {type(value).__name__}")


def dumps(digest: str, fields: dict[str, list[Any]], record_type: type,
          stamps: dict[str, list[int]] | None = None, version: str | None = None) -> bytes:
    """The compiled form of ``fields`` (KnowledgeBase field -> records) built from data with ``digest``;
    ``stamps`` (data file -> [size, CRC-32]) and the qlint ``version`` let a run check that the form is
    current without hashing the data files (see ``qlint.knowledge.base.load``)."""
    body: dict[str, Any] = {"format": FORMAT, "digest": digest,
                            "fields": {name: encode(records, record_type) for name, records in fields.items()}}
    if stamps is not None:
        body["stamps"] = stamps
        body["version"] = version
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def decode(data: bytes, record_type: type) -> dict[str, Any] | None:
    """The body of a compiled blob (``format``, ``digest``, ``fields``, maybe ``stamps`` and ``version``),
    records rebuilt; None when it is damaged or of another format."""

    def hook(obj: dict[str, Any]) -> Any:
        if len(obj) == 1:
            if _RECORD in obj:
                return record_type(**obj[_RECORD])
            if _TUPLE in obj:
                return tuple(obj[_TUPLE])
            if _TEXT in obj:
                return Text(*obj[_TEXT])
        return obj

    try:
        body = json.loads(data, object_hook=hook)
    except (ValueError, TypeError, RecursionError):
        return None
    if not isinstance(body, dict) or body.get("format") != FORMAT or not isinstance(body.get("fields"), dict):
        return None
    return body


def loads(data: bytes, digest: str, record_type: type) -> dict[str, list[Any]] | None:
    """The fields of a compiled blob built from data with ``digest``; None when it is stale or damaged."""
    body = decode(data, record_type)
    return body["fields"] if body is not None and body.get("digest") == digest else None


def trusted_cache_file(path: Path) -> bool:
    """A cache file qlint may read: a regular file owned by this user, writable by no one else."""
    try:
        info = path.lstat()
    except OSError:
        return False
    import stat

    if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o022:
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid == getuid()


def main() -> None:  # pragma: no cover - exercised by tests through write_shipped()
    from qlint.knowledge.base import write_shipped

    for path in write_shipped():
        print(f"wrote {path}")


if __name__ == "__main__":  # python -m qlint.knowledge.compiled
    main()
