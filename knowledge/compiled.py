"""The compiled knowledge: validated records as JSON, which cannot execute code when read.

``knowledge/data/*.toml`` stay the source of truth. Validating them with pydantic costs
a few hundred milliseconds, so the validated records are kept in a compiled form:
shipped in the package (``knowledge/data/compiled.json``, written by
``python -m qlint.knowledge.compiled``) and, when that is missing or stale, in the user's
cache directory. Both carry a digest of the data files they were built from and are used
only when it matches; the shipped one also records each data file's size and CRC-32, so that a
run checks it is current without hashing the data files. JSON rather than pickle: a planted or damaged file can at worst be
ignored, never run code.

Layout (one JSON document, read in parts): the first line is ``{"head":HEAD,`` where HEAD holds
``format``, ``digest``, maybe ``stamps`` and ``version``, the length of the rest of the file (``size``) and
where each field's records and each bilingual text are in it (``fields``: name -> [start, end], byte
offsets counted from the start of the second line), and of some fields where a table of their records is
(``keys``: name -> [start, end, attribute]), and of plain tables (``tables``). The rest is
``"fields":{name:[records],...},"keys":{name:{key:[start,end,position]},...},"tables":{...},"texts":[...]}``:
a field is decoded when it is first used (:meth:`Compiled.field`), a record of a field with a table when
it is looked up by name (:meth:`Compiled.record`), and a bilingual Text when its ``en`` or ``zh`` is (a
lint reports few of them), so a lint reads a small part of the file. The record segments
are ASCII (their JSON scans faster); the texts, one a line, are UTF-8.

Encoding: a record is a JSON object, its fields sorted; a Text ``{"\\u0000y": [start, end]}`` (where its
``[en, zh]`` is); a tuple ``{"\\u0000t": [...]}`` and a dict ``{"\\u0000d": {...}}``; lists, strings, numbers,
booleans and null are themselves.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)
import os

from qlint.knowledge.text import Text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable

FORMAT = 2
_TEXT = "\x00y"
_TUPLE = "\x00t"
_DICT = "\x00d"
_HEAD = b'{"head":'


class Damaged(ValueError):
    """A part of a compiled form does not decode to what was written."""


_PLAIN = json.JSONDecoder()


def read_json(data: bytes | str, decoder: json.JSONDecoder | None = None) -> Any:
    """``json.loads(data)`` (with ``decoder``: ``decoder.decode(data)``, data a str), what the parts of a
    compiled form and of a release data file are read with: the decoder's scanner alone reads a text that
    is one JSON value from its first character on (each part is; a file may end with whitespace), without
    the checks json.loads adds around it (~14 K instructions a call; a run reads ~100 parts); anything else
    (whitespace before the value, more than one, none, a byte order mark or bytes that are not UTF-8) is
    given to json.loads, so the value or the error is always json.loads's."""
    try:
        text = data if isinstance(data, str) else data.decode("utf-8")
        value, end = (decoder or _PLAIN).scan_once(text, 0)
        if end == len(text) or not text[end:].strip(" \t\n\r"):  # (a file ends with a newline)
            return value
    except (ValueError, StopIteration, RecursionError):  # UnicodeDecodeError, JSONDecodeError are ValueErrors
        pass
    return json.loads(data) if decoder is None else decoder.decode(data)  # type: ignore[arg-type]


class _Writer:
    """Encodes records (see the module docstring), collecting the texts they hold."""

    def __init__(self, record_type: type, found: dict[int, Text] | None = None) -> None:
        self.record_type = record_type
        self.texts: list[bytes] = []
        self.offset = 0  # of the next text, from the start of the texts segment's first text
        self.found = found  # when given: start -> Text, each text where this writer places it

    def encode(self, value: Any) -> Any:
        if isinstance(value, self.record_type):
            return {name: self.encode(item) for name, item in sorted(vars(value).items())}
        if isinstance(value, Text):
            text = json.dumps([value.en, value.zh], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            self.texts.append(text)
            start, self.offset = self.offset, self.offset + len(text) + 2  # each text followed by ",\n"
            if self.found is not None:
                self.found[start] = value
            return {_TEXT: [start, start + len(text)]}
        if isinstance(value, tuple):
            return {_TUPLE: [self.encode(item) for item in value]}
        if isinstance(value, list):
            return [self.encode(item) for item in value]
        if isinstance(value, dict):
            if not all(isinstance(key, str) for key in value):
                raise TypeError("compiled knowledge: dict keys must be strings")
            return {_DICT: {key: self.encode(item) for key, item in value.items()}}
        if value is None or isinstance(value, (str, bool, int, float)):
            return value
        raise TypeError(f"compiled knowledge cannot hold a {type(value).__name__}")


def encode(value: Any, record_type: type) -> Any:
    """``value`` as plain JSON data (see the module docstring; Texts are placed in a table of their own,
    dropped here). Raises TypeError on other types."""
    return _Writer(record_type).encode(value)


def _compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("ascii")


def dumps(digest: str, fields: dict[str, list[Any]], record_type: type,
          stamps: dict[str, list[int]] | None = None, version: str | None = None,
          keyed: dict[str, str] | None = None, tables: dict[str, Any] | None = None) -> bytes:
    """The compiled form of ``fields`` (KnowledgeBase field -> records) built from data with ``digest``;
    ``stamps`` (data file -> [size, CRC-32]) and the qlint ``version`` let a run check that the form is
    current without hashing the data files (see ``qlint.knowledge.base.load``). For a field of ``keyed``
    (field -> the attribute that names a record), a table of where each record is lets a run decode one
    record alone (:meth:`Compiled.record`); a name held twice is the last record's, as in a dict.
    ``tables`` (name -> plain JSON data) are written as they are, each read on its own (:meth:`Compiled.table`)."""
    writer, keyed = _Writer(record_type), keyed or {}
    segments: dict[str, bytes] = {}
    key_tables: dict[str, bytes] = {}
    for name in sorted(fields):
        parts = [_compact(writer.encode(item)) for item in fields[name]]
        segments[name] = b"[" + b",".join(parts) + b"]"  # what json.dumps of the list writes
        if name in keyed:
            where: dict[str, list[int]] = {}
            at = 1
            for position, (item, part) in enumerate(zip(fields[name], parts)):
                where[getattr(item, keyed[name])] = [at, at + len(part), position]
                at += len(part) + 1
            key_tables[name] = _compact(where)
    body = bytearray(b'"fields":{')
    layout: dict[str, list[int]] = {}
    keys: dict[str, list[Any]] = {}
    for index, (name, segment) in enumerate(segments.items()):
        body += b'\n"' + name.encode("ascii") + b'":'
        layout[name] = [len(body), len(body) + len(segment)]
        body += segment + (b"," if index < len(segments) - 1 else b"")
    body += b'},\n"keys":{'
    for index, (name, table) in enumerate(key_tables.items()):
        body += b'\n"' + name.encode("ascii") + b'":'
        keys[name] = [len(body), len(body) + len(table), keyed[name]]
        body += table + (b"," if index < len(key_tables) - 1 else b"")
    body += b'},\n"tables":{'
    placed: dict[str, list[int]] = {}
    for index, (name, value) in enumerate(sorted((tables or {}).items())):
        encoded = _compact(value)
        body += b'\n"' + name.encode("ascii") + b'":'
        placed[name] = [len(body), len(body) + len(encoded)]
        body += encoded + (b"," if index < len(tables or {}) - 1 else b"")
    body += b'},\n"texts":[\n'
    first = len(body)
    for text in writer.texts:
        body += text + b",\n"
    if writer.texts:
        del body[-2]  # no comma after the last text
    body += b"]}"
    head: dict[str, Any] = {"format": FORMAT, "digest": digest, "fields": layout, "keys": keys,
                            "size": len(body), "tables": placed, "texts": first}
    if stamps is not None:
        head["stamps"] = stamps
        head["version"] = version
    line = json.dumps(head, separators=(",", ":"), sort_keys=True).encode("ascii")
    return _HEAD + line + b",\n" + bytes(body)


class Compiled:
    """A compiled form, read in parts (see the module docstring): ``digest``, ``version`` and ``stamps``
    from its head; the records of a field on :meth:`field`, those of all on :meth:`fields`."""

    def __init__(self, data: bytes, start: int, head: dict[str, Any], record_type: type) -> None:
        self.data, self.start, self.record_type = data, start, record_type
        self.digest = head.get("digest")
        self.version = head.get("version")
        self.stamps = head.get("stamps")
        self.layout: dict[str, Any] = head["fields"]
        self.keys: dict[str, Any] = head.get("keys") or {}
        self.tables: dict[str, Any] = head.get("tables") or {}
        self._read_tables: dict[str, Any] = {}
        self._tables: dict[str, tuple[dict[str, Any], str]] = {}
        self.texts_at: int = head["texts"]
        self.fallback: Callable[[], dict[str, list[Any]]] | None = None
        """Where the records come from when a part is damaged (set by ``qlint.knowledge.base``): the
        validated data files, which this form was built from."""
        self._fallback_texts: dict[int, Text] | None = None
        lazy = self._lazy_text

        def hook(obj: dict[str, Any]) -> Any:
            if len(obj) == 1:
                if _TEXT in obj:
                    return lazy(obj[_TEXT])
                if _TUPLE in obj:
                    return tuple(obj[_TUPLE])
                if _DICT in obj:
                    return obj[_DICT]
            return record_type(**obj)

        self._decoder = json.JSONDecoder(object_hook=hook)
        self.eager = False

    def _lazy_text(self, where: Any) -> Text:
        if self.eager:
            return Text(*self.text(where))
        text = object.__new__(Text)
        object.__setattr__(text, "_deferred", (self, where))
        return text

    def field(self, name: str) -> list[Any]:
        """The records of field ``name``; Damaged when its part does not decode to a list of records."""
        where = self.layout.get(name)
        if not isinstance(where, list) or len(where) != 2:
            raise Damaged(f"compiled knowledge: no field {name!r}")
        begin, end = where
        if not isinstance(begin, int) or not isinstance(end, int):
            raise Damaged(f"compiled knowledge: field {name!r}")
        try:
            value = read_json(self.data[self.start + begin:self.start + end].decode("ascii"), self._decoder)
        except (ValueError, TypeError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
            raise Damaged(f"compiled knowledge: field {name!r}: {error}") from None
        if not isinstance(value, list) or not all(isinstance(item, self.record_type) for item in value):
            raise Damaged(f"compiled knowledge: field {name!r} is not a list of records")
        return value

    def record(self, name: str, key: str) -> tuple[int, Any] | None:
        """``(position, record)`` of the record of field ``name`` named ``key`` (see ``dumps``), decoded
        alone; None when no record is named so. Damaged when the field has no table of where its records
        are, or a part does not decode to what the table says."""
        table, attribute = self._key_table(name)
        where = table.get(key) if isinstance(key, str) else None
        if where is None:
            return None
        try:
            begin, end, position = where
            at = self.start + self.layout[name][0]
            value = read_json(self.data[at + begin:at + end].decode("ascii"), self._decoder)
        except (ValueError, TypeError, KeyError, IndexError, RecursionError) as error:
            raise Damaged(f"compiled knowledge: record {key!r} of field {name!r}: {error}") from None
        if not isinstance(value, self.record_type) or getattr(value, attribute, None) != key \
                or not isinstance(position, int):
            raise Damaged(f"compiled knowledge: record {key!r} of field {name!r} is not where its table says")
        return position, value

    def _key_table(self, name: str) -> tuple[dict[str, Any], str]:
        """The table of where the records of field ``name`` are (see ``dumps``), and the attribute that
        names a record; Damaged when the field has none or it does not decode to one."""
        found = self._tables.get(name)
        if found is None:
            where = self.keys.get(name)
            try:
                begin, end, attribute = where  # type: ignore[misc]
                table = read_json(self.data[self.start + begin:self.start + end])
            except (ValueError, TypeError, RecursionError) as error:
                raise Damaged(f"compiled knowledge: the table of field {name!r}: {error}") from None
            if not isinstance(table, dict) or not isinstance(attribute, str):
                raise Damaged(f"compiled knowledge: the table of field {name!r}")
            found = self._tables[name] = (table, attribute)
        return found

    def record_table(self, name: str) -> dict[str, Any]:
        """The table of where the records of field ``name`` are (key -> [start, end, position], see
        ``dumps``); Damaged when the field has none or it is damaged."""
        return self._key_table(name)[0]

    def names(self, name: str, ordered: bool = False) -> list[str]:
        """The names of the records of field ``name`` (each once), sorted (``ordered``: in the order of their
        records), from its table of where they are (see ``dumps``); Damaged when it has none or it is damaged."""
        table = self._key_table(name)[0]
        if not ordered:
            return sorted(table)
        try:
            return sorted(table, key=lambda key: table[key][2])
        except (TypeError, IndexError) as error:
            raise Damaged(f"compiled knowledge: the table of field {name!r}: {error}") from None

    def table(self, name: str) -> Any:
        """The table ``name`` (see ``dumps``), decoded on first use; Damaged when there is none or it does
        not decode."""
        if name not in self._read_tables:
            try:
                begin, end = self.tables[name]
                self._read_tables[name] = read_json(self.data[self.start + begin:self.start + end])
            except (ValueError, TypeError, KeyError, RecursionError) as error:
                raise Damaged(f"compiled knowledge: table {name!r}: {error}") from None
        return self._read_tables[name]

    def fields(self) -> dict[str, list[Any]]:
        """The records of every field, texts decoded; Damaged when a part is."""
        self.eager = True
        try:
            return {name: self.field(name) for name in self.layout}
        finally:
            self.eager = False

    def text(self, where: Any) -> tuple[str, str]:
        """``(en, zh)`` of the text at ``where`` (``[start, end]`` in the texts segment); Damaged when it
        does not decode to two non-empty strings."""
        try:
            begin, end = where
            at = self.start + self.texts_at
            value = read_json(self.data[at + begin:at + end])
            en, zh = value
        except (ValueError, TypeError, RecursionError) as error:
            raise Damaged(f"compiled knowledge: text at {where!r}: {error}") from None
        if not isinstance(en, str) or not isinstance(zh, str) or not en or not zh:
            raise Damaged(f"compiled knowledge: text at {where!r} is not two non-empty strings")
        return en, zh

    def resolve(self, text: Text, where: Any) -> tuple[str, str]:
        """``(en, zh)`` of a lazily read Text, from the validated data files when its part is damaged."""
        try:
            return self.text(where)
        except Damaged:
            if self.fallback is None:
                raise
        if self._fallback_texts is None:  # the validated records' texts, placed as dumps() places them
            found: dict[int, Text] = {}
            writer, validated = _Writer(self.record_type, found), self.fallback()
            for name in sorted(validated):
                writer.encode(validated[name])
            self._fallback_texts = found
        try:
            replacement = self._fallback_texts[where[0]]
        except (KeyError, TypeError, IndexError):
            raise Damaged(f"compiled knowledge: no text at {where!r} in the data files") from None
        return replacement.en, replacement.zh


def open_compiled(data: bytes, record_type: type) -> Compiled | None:
    """The compiled form ``data`` with its head read (nothing else yet); None when the head is damaged,
    the length it records is not the file's, or it is of another format."""
    if not data.startswith(_HEAD):
        return None
    line = data.find(b"\n")
    if line < 0 or data[line - 1:line] != b",":
        return None
    try:
        head = read_json(data[len(_HEAD):line - 1])
    except (ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or head.get("format") != FORMAT or not isinstance(head.get("fields"), dict) \
            or not isinstance(head.get("texts"), int):
        return None
    size = len(data) - line - 1 - data.endswith(b"\n")
    if head.get("size") != size:
        return None
    return Compiled(data, line + 1, head, record_type)


def loads(data: bytes, digest: str, record_type: type) -> dict[str, list[Any]] | None:
    """The fields of a compiled blob built from data with ``digest``, every part decoded; None when it is
    stale or damaged."""
    found = open_compiled(data, record_type)
    if found is None or found.digest != digest:
        return None
    try:
        return found.fields()
    except Damaged:
        return None


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
