"""``json.loads`` / ``json.dumps`` / ``json.JSONDecoder`` for the check path, from the standard library's
own C accelerator (``_json``), without importing :mod:`json`.

Importing json costs a cold ``qlint FILE`` about 5 M instructions of its ~160 M: four modules, and six
regular expressions compiled at import that only its pure-Python fallbacks use. The C scanner and encoder
are what json itself runs for these calls; this module sets them up with json's defaults and hands anything
else to json (imported then): an error of any kind (json raises it, with its message), bytes, a byte order
mark, an ``indent`` or any other option. So every value, text and error is json's own
(``tests/test_jsonfast.py`` compares them). An interpreter built without ``_json`` gets json's own
functions instead (json then runs its pure-Python code, as it would itself).
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # (no C accelerator in this interpreter: json's pure-Python code, below)
    _json = None  # type: ignore[assignment]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
_BLANKS = " \t\n\r"
"""What json's ``WHITESPACE`` pattern matches around a value (``[ \t\n\r]*``)."""


class _Settings:
    """What ``_json.make_scanner`` reads from a decoder: ``json.JSONDecoder()``'s defaults."""

    def __init__(self, object_hook: Callable[[dict], Any] | None) -> None:
        self.strict = True
        self.object_hook = object_hook
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = _CONSTANTS.__getitem__


class JSONDecoder:
    """``json.JSONDecoder(object_hook=...)``: ``scan_once``, ``raw_decode`` and ``decode``."""

    def __init__(self, object_hook: Callable[[dict], Any] | None = None) -> None:
        self.object_hook = object_hook
        self.scan_once = _json.make_scanner(_Settings(object_hook))  # type: ignore[arg-type]  # (it reads attributes)

    def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
        try:
            return self.scan_once(s, idx)
        except Exception:  # (StopIteration: no value there) json raises its error
            return self._json().raw_decode(s, idx)

    def decode(self, s: str) -> Any:
        try:
            value, end = self.scan_once(s, len(s) - len(s.lstrip(_BLANKS)))
            if end == len(s) or not s[end:].strip(_BLANKS):
                return value
        except Exception:
            pass
        return self._json().decode(s)  # the value json reads, or its error (Extra data, Expecting value...)

    def _json(self) -> Any:
        import json

        return json.JSONDecoder(object_hook=self.object_hook)


def loads(s: Any) -> Any:
    """``json.loads(s)``."""
    if type(s) is str and not s.startswith("\ufeff"):
        return _DECODER.decode(s)
    if type(s) is bytes and s[:1] not in (b"\xef", b"\xfe", b"\xff") and b"\x00" not in s[:4]:
        try:  # what json.loads decodes bytes with when no byte order mark nor NUL says otherwise
            text = s.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            pass
        else:
            return _DECODER.decode(text)
    import json

    return json.loads(s)


def dumps(obj: Any, *, ensure_ascii: bool = True, separators: tuple[str, str] | None = None,
          sort_keys: bool = False, **options: Any) -> str:
    """``json.dumps(obj, ensure_ascii=..., separators=..., sort_keys=...)``; any other option goes to json."""
    if not options:
        try:
            if isinstance(obj, str):  # (as JSONEncoder.encode)
                return (_json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring)(obj)
            item, key = (", ", ": ") if separators is None else separators
            encoder = _json.make_encoder({}, _unencodable, _json.encode_basestring_ascii if ensure_ascii
                                         else _json.encode_basestring, None, key, item, sort_keys, False, True)
            return "".join(encoder(obj, 0))
        except Exception:
            pass  # json raises it (not serializable, a circular reference, a key it refuses...)
    import json

    return json.dumps(obj, ensure_ascii=ensure_ascii, separators=separators, sort_keys=sort_keys, **options)


def _unencodable(value: Any) -> Any:
    raise TypeError(value)  # (dumps then asks json, which says why)


def __getattr__(name: str) -> Any:
    """``JSONDecodeError`` (json's, so that ``except jsonfast.JSONDecodeError`` catches what json raises):
    json is imported when an ``except`` clause asks for it, that is after an error."""
    if name == "JSONDecodeError":
        import json

        return json.JSONDecodeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if _json is not None:
    scanstring = _json.scanstring
    """``json.decoder.scanstring`` (the C one json uses)."""
    _DECODER = JSONDecoder()
else:  # json's own (pure-Python) functions, with the same names and behaviour
    from json import JSONDecoder, dumps, loads  # noqa: F811
    from json.decoder import scanstring  # type: ignore[attr-defined,no-redef]  # noqa: F811
