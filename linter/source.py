"""Script bytes and the mapping from byte offsets to line/column spans."""

from __future__ import annotations

from itertools import accumulate

from qlint.record import field, record
from qlint.rules.plan import Span

try:
    from _bisect import bisect_right  # bisect's C implementation: the bisect module only re-exports it
except ImportError:  # pragma: no cover - an interpreter without it
    from bisect import bisect_right

MAX_BYTES = 5 * 1024 * 1024
"""Scripts larger than this (5 MiB) are refused: no launch script is that big."""

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
YAML_SUFFIXES = (".yaml", ".yml")


def kind_of(path: str, data: bytes) -> str:
    """``markdown``, ``yaml`` or ``shell`` from the file name (content decides for YAML in folders).
    Only a Markdown or YAML file needs ``qlint.linter.documents``, which reads them."""
    lower = path.lower()
    if lower.endswith(MARKDOWN_SUFFIXES):
        return "markdown"
    if lower.endswith(YAML_SUFFIXES):
        return "yaml"
    return "shell"


def line_starts(data: bytes) -> list[int]:
    """The offset of each line's first byte: 0, then one past every ``\n`` (what ``re.finditer(b"\n")``
    gives, without compiling a pattern at start-up)."""
    return list(accumulate(map((1).__add__, map(len, data.split(b"\n")[:-1])), initial=0))  # (no Python loop)


class InputError(Exception):
    """The input cannot be linted (binary, too large, not UTF-8, unreadable).

    ``line``/``column`` locate the problem when there is one (1-based).
    """

    def __init__(self, message: str, line: int = 1, column: int = 1, zh: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.zh = zh  # the message in Chinese (None: English only)

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` (English when no Chinese was given)."""
        return self.zh if lang.startswith("zh") and self.zh else self.message


_TEXTS: dict[bytes, tuple[list[int], bool, dict[tuple[int, int], Span] | None]] = {}
"""Per text read last: its line starts, whether it is ASCII, and the spans asked of it so far (by byte range)
once it is read again. The deployment pass reads a DP template once per local rank, the same bytes each
time; spans are frozen. A text read once keeps no spans: its reading asks for a span twice in ~300 times."""
_TEXT_CACHE_SIZE = 8
_TEXT_CACHE_BYTES = 64 * 1024


@record
class SourceText:
    """The text of one script. ``data`` is UTF-8 bytes with line endings kept."""

    path: str
    data: bytes
    _line_starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        data = self.data
        kept = len(data) <= _TEXT_CACHE_BYTES
        known = _TEXTS.get(data) if kept else None
        if known is None:
            # with ASCII text a column is a byte count: no decoding per position
            known = (line_starts(data), data.isascii(), None)
            if kept:
                if len(_TEXTS) >= _TEXT_CACHE_SIZE:
                    _TEXTS.clear()
                _TEXTS[data] = known
        elif known[2] is None:  # read again: from now on its spans are kept
            known = _TEXTS[data] = (known[0], known[1], {})
        self._line_starts, self._ascii = known[0], known[1]
        self._again = known[2] is not None

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> "SourceText":
        """Check and wrap raw bytes.

        Raises InputError for files over MAX_BYTES, files with NUL bytes
        (binary) and invalid UTF-8 (with the line and column of the first bad byte).
        """
        if len(data) > MAX_BYTES:
            raise InputError(f"input is larger than {MAX_BYTES} bytes (5 MiB); qlint reads scripts up to that size",
                             zh=f"输入超过 {MAX_BYTES} 字节（5 MiB）；qlint 只读取不超过该大小的脚本")
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise InputError("UTF-16 text; qlint reads UTF-8 (convert it, e.g. iconv -f UTF-16 -t UTF-8)",
                             zh="UTF-16 文本；qlint 读取 UTF-8（请先转换，例如 iconv -f UTF-16 -t UTF-8）")
        nul = data.find(b"\x00")
        if nul >= 0:
            line = data.count(b"\n", 0, nul) + 1
            column = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
            raise InputError("binary file (contains a NUL byte); not a shell script", line, column,
                             zh="二进制文件（含 NUL 字节）；不是 shell 脚本")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            offset = error.start
            line = data.count(b"\n", 0, offset) + 1
            column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
            raise InputError(f"not valid UTF-8 (byte 0x{data[offset]:02x})", line, column,
                             zh=f"不是有效的 UTF-8（字节 0x{data[offset]:02x}）") from None
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        return cls(path=path, data=data)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column in characters) of a byte offset."""
        data = self.data
        if offset < 0:
            offset = 0
        elif offset > len(data):
            offset = len(data)
        starts = self._line_starts
        row = bisect_right(starts, offset) - 1
        start = starts[row]
        if self._ascii or data[start:offset].isascii():
            return row + 1, offset - start + 1
        return row + 1, len(data[start:offset].decode("utf-8", "replace")) + 1

    def span(self, start: int, end: int) -> Span:
        spans = None
        if self._again:  # a text read before (_TEXTS)
            known = _TEXTS.get(self.data)  # (looked up, not held: a text kept for a deployment keeps no table)
            spans = known[2] if known is not None else None
            if spans is not None:
                found = spans.get((start, end))
                if found is not None:
                    return found
        if not self._ascii:
            line, column = self.position(start)
            end_line, end_column = self.position(end)
            found = Span(line, column, end_line, end_column)
        else:  # ASCII: columns are byte counts; one search when both ends share a line
            size = len(self.data)
            first = 0 if start < 0 else size if start > size else start
            last = 0 if end < 0 else size if end > size else end
            starts = self._line_starts
            row = bisect_right(starts, first) - 1
            line_start = starts[row]
            if first <= last and (row + 1 == len(starts) or last < starts[row + 1]):
                found = Span(row + 1, first - line_start + 1, row + 1, last - line_start + 1)
            else:
                end_row = bisect_right(starts, last) - 1
                found = Span(row + 1, first - line_start + 1, end_row + 1, last - starts[end_row] + 1)
        if spans is not None:
            spans[(start, end)] = found
        return found

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its line ending."""
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self._line_starts[line] if line < len(self._line_starts) else len(self.data)
        return self.data[start:end].decode("utf-8", "replace").rstrip("\r\n")

    def offset_after_chars(self, start: int, chars: int) -> int:
        """Byte offset reached by moving ``chars`` characters forward from ``start``."""
        if self._ascii and chars >= 0:
            return start + max(0, min(chars, len(self.data) - start))
        text = self.data[start:].decode("utf-8", "replace")
        return start + len(text[:chars].encode("utf-8"))
