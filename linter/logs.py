"""Explain a vLLM / vllm-ascend server log: match known error signatures to rules and FAQ entries.

``explain_log(text, kb)`` (or ``explain_lines`` / ``explain_stream`` for files and
stdin) reads a log line by line and returns one :class:`LogMatch` per distinct
message it recognises (``knowledge/data/log_signatures.toml``), with the cause and
the fix rendered in both languages from the numbers the message carries.
``render_explanations(matches, lang, script_result)`` prints them; given the lint
result of the launch script it also lists the script's findings of the matched
rules and shows the corrected lines as a unified diff.

Logs are untrusted input: only the head and tail of a line over ``MAX_LINE_CHARS`` are
read, ``\\r``-separated progress-bar segments are searched one by one, at most
``max_matches`` distinct matches are collected, bytes are decoded with
``errors="replace"``, and ANSI colour codes and ``(EngineCore_DP0 pid=...)``
prefixes are removed before matching. Nothing here raises on odd input.
"""

from __future__ import annotations

import difflib
import io
import re
from dataclasses import dataclass, field
from functools import lru_cache

from qlint.knowledge.text import Text, at_release

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any, AnyStr, Iterable, Iterator

    from qlint.knowledge.base import KnowledgeBase, Record
    from qlint.linter.lint import LintResult

MAX_LINE_CHARS = 16384
"""Characters of a log line that are searched: a longer line is searched in its first and
last ``MAX_LINE_CHARS / 2`` characters only."""
_LINE_LIMIT = MAX_LINE_CHARS
MAX_MATCHES = 50
"""Distinct matches after which reading stops."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_PREFIX = re.compile(r"^\s*(?:\([\w.\-]+ pid=\d+(?:, ip=[0-9A-Fa-f.:]+)?\)\s*)+")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)\}")
_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_]\w*>")
# After these the API server is up: an error from here on happened while serving requests.
_SERVING = re.compile(r'Application startup complete|Starting vLLM server on|"(?:POST|GET) /v1/')
# A new server start in the same file (logs appended across restarts).
_RESTART = re.compile(r"vLLM server version \S+, serving model|vLLM API server version")
# vLLM / uvicorn level prefixes of lines that never carry a signature.
_QUIET_LEVELS = ("INFO ", "INFO:", "DEBUG ", "DEBUG:")


@dataclass
class LogMatch:
    """One recognised message: where it first appeared and what it means.

    ``line`` is 1-based; ``groups`` holds the named groups that matched (numbers as
    strings); ``text`` is the cleaned log line; ``count`` how many lines carried the
    same message with the same numbers (e.g. one per TP rank); ``phase`` is
    ``starting`` or ``serving`` (before / after the API server came up).
    """

    line: int
    signature: Record
    groups: dict[str, str]
    text: str
    cause: Text
    fix: Text
    faq_url: str | None = None
    phase: str = "starting"
    count: int = 1

    @property
    def id(self) -> str:
        return self.signature.id

    @property
    def rules(self) -> list[str]:
        return list(self.signature.rules)

    @property
    def faq(self) -> str | None:
        return self.signature.faq

    @property
    def stage(self) -> str:
        return self.signature.stage

    def as_dict(self, lang: str = "en") -> dict[str, Any]:
        """A JSON-ready view (texts in ``lang``)."""
        return {
            "line": self.line,
            "signature": self.id,
            "stage": self.stage,
            "phase": self.phase,
            "rules": self.rules,
            "faq": self.faq_url,
            "groups": dict(self.groups),
            "count": self.count,
            "text": self.text,
            "cause": self.cause.get(lang),
            "fix": self.fix.get(lang),
            "sources": at_release(self.signature.sources),
        }


# -- matching ------------------------------------------------------------------


@dataclass
class _Compiled:
    signature: Record
    regex: re.Pattern[str]


@dataclass
class _Matcher:
    signatures: list[_Compiled]
    prefilter: re.Pattern[str] | None
    faq_urls: dict[str, str] = field(default_factory=dict)


@lru_cache(maxsize=8)
def _compile(patterns: tuple[str, ...]) -> tuple[list[re.Pattern[str]], re.Pattern[str] | None]:
    compiled = [re.compile(pattern) for pattern in patterns]
    if not patterns:
        return compiled, None
    # One pass per line: the union of all patterns with their groups unnamed.
    union = "|".join(f"(?:{_NAMED_GROUP.sub('(?:', pattern)})" for pattern in patterns)
    try:
        return compiled, re.compile(union)
    except re.error:  # e.g. an inline flag that is only valid at a pattern's start: no prefilter
        return compiled, re.compile("")


_DEFECT_RULES = {"error": "QL560", "warning": "QL561", "info": "QL562"}


def defect_signatures(kb: KnowledgeBase) -> list[Record]:
    """A log signature for every log pattern of a known defect (``defects.toml``).

    Its id is ``defect-<entry id>``; cause and fix are the entry's symptom and workaround,
    prefixed with the releases it affects; ``defect`` names the entry so that ``--script``
    shows only that entry's finding.
    """
    from qlint.knowledge.base import Record

    out = []
    for entry in getattr(kb, "defects", []) or []:
        if not entry.log_patterns:
            continue
        end = entry.until or f"< {entry.fixed_in}"
        start = entry.since or "..."
        where_en = f"known defect {entry.id} (vllm-ascend {start} .. {end}): "
        where_zh = f"已知缺陷 {entry.id}（vllm-ascend {start} .. {end}）："
        for pattern in entry.log_patterns:
            out.append(Record(
                id=f"defect-{entry.id}", pattern=pattern, stage="runtime", phase="any",
                rules=[_DEFECT_RULES[entry.severity]], faq=None,
                cause=Text(en=where_en + entry.symptom.en, zh=where_zh + entry.symptom.zh),
                fix=entry.workaround, sources=list(entry.sources), disagreement=None, defect=entry.id,
            ))
    return out


def _matcher(kb: KnowledgeBase) -> _Matcher:
    signatures = list(getattr(kb, "log_signatures", []) or []) + defect_signatures(kb)
    regexes, prefilter = _compile(tuple(s.pattern for s in signatures))
    urls = {faq.id: faq.url for faq in kb.faqs}
    return _Matcher([_Compiled(s, r) for s, r in zip(signatures, regexes)], prefilter, urls)


def clean_line(line: str) -> str:
    """A log line without ANSI escapes, ``\\r``/``\\n`` and leading ``(Name pid=N)`` prefixes."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    line = line.rstrip("\r\n")
    if line[:1] == "(" or line[:1].isspace():
        line = _PREFIX.sub("", line, count=1)
    return line


def _fill(template: str, groups: dict[str, str], names: Iterable[str]) -> str:
    known = set(names)

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in known:
            return match.group(0)
        value = groups.get(name)
        return value if value is not None else "?"

    return _PLACEHOLDER.sub(replace, template)


def _segments(line: str) -> list[str]:
    """The parts of a (bounded) line that are searched: its ``\\r``-separated segments
    (progress bars redraw themselves with ``\\r``)."""
    if "\r" in line:
        return [part for part in line.split("\r") if part] or [""]
    return [line]


def explain_lines(
    lines: Iterable[str | bytes], kb: KnowledgeBase | None = None, *, max_matches: int = MAX_MATCHES
) -> list[LogMatch]:
    """Match log lines (str, or bytes decoded as UTF-8 with replacement) against the signatures.

    Returns the distinct matches in order of first appearance; the same message
    with the same numbers on later lines only raises ``count``. Stops after
    ``max_matches`` distinct matches.
    """
    if kb is None:
        from qlint.knowledge.base import load

        kb = load()
    matcher = _matcher(kb)
    if matcher.prefilter is None or max_matches <= 0:
        return []
    found: dict[tuple, LogMatch] = {}
    serving = False
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, (bytes, bytearray)):
            line = _bound(bytes(raw)).decode("utf-8", errors="replace")
        elif isinstance(raw, str):
            line = _bound(raw)
        else:
            continue
        for segment in _segments(line):
            text = clean_line(segment)
            if not text:
                continue
            if _SERVING.search(text):
                serving = True
            elif serving and _RESTART.search(text):
                serving = False
            if text.startswith(_QUIET_LEVELS) or not matcher.prefilter.search(text):
                continue  # the signatures are errors and warnings; INFO/DEBUG lines are most of a log
            phase = "serving" if serving else "starting"
            for compiled in matcher.signatures:
                signature = compiled.signature
                if signature.phase not in ("any", phase):
                    continue
                match = compiled.regex.search(text)
                if match is None:
                    continue
                groups = {k: v for k, v in match.groupdict().items() if v is not None}
                key = (signature.id, tuple(sorted(groups.items())))
                if key in found:
                    found[key].count += 1
                    continue
                names = compiled.regex.groupindex
                found[key] = LogMatch(
                    line=number,
                    signature=signature,
                    groups=groups,
                    text=text.strip(),
                    cause=Text(
                        en=_fill(signature.cause.en, groups, names), zh=_fill(signature.cause.zh, groups, names)
                    ),
                    fix=Text(en=_fill(signature.fix.en, groups, names), zh=_fill(signature.fix.zh, groups, names)),
                    faq_url=matcher.faq_urls.get(signature.faq) if signature.faq else None,
                    phase=phase,
                )
                if len(found) >= max_matches:
                    return list(found.values())
    return list(found.values())


def _split_text(text: str) -> Iterator[str]:
    """Lines of a big string without copying it whole; an over-long line keeps its head and tail."""
    start, size, half = 0, len(text), _LINE_LIMIT // 2
    while start < size:
        end = text.find("\n", start)
        if end == -1:
            end = size
        if end - start > _LINE_LIMIT:
            yield text[start : start + half] + "\r" + text[end - half : end]
        else:
            yield text[start:end]
        start = end + 1


def _bound(line: AnyStr) -> AnyStr:
    """Head and tail of an over-long line, joined by a segment break."""
    if len(line) <= _LINE_LIMIT:
        return line
    half = _LINE_LIMIT // 2
    if isinstance(line, str):
        return line[:half] + "\r" + line[-half:]
    return line[:half] + b"\r" + line[-half:]


def explain_log(
    text: str | bytes, kb: KnowledgeBase | None = None, *, max_matches: int = MAX_MATCHES
) -> list[LogMatch]:
    """Explain a whole log given as text (bytes are decoded with ``errors="replace"``)."""
    if isinstance(text, (bytes, bytearray)):
        return explain_stream(io.BytesIO(bytes(text)), kb, max_matches=max_matches)
    if not isinstance(text, str):
        return []
    return explain_lines(_split_text(text), kb, max_matches=max_matches)


def _stream_lines(stream: IO[Any]) -> Iterator[str | bytes]:
    """Lines of a binary or text stream, read in bounded pieces: of an over-long line only
    the head and the tail are kept (the middle is never held in memory)."""
    half = _LINE_LIMIT // 2
    while True:
        try:
            chunk = stream.readline(_LINE_LIMIT)
        except (UnicodeDecodeError, ValueError, OSError):
            return
        if not chunk:
            return
        newline = b"\n" if isinstance(chunk, (bytes, bytearray)) else "\n"
        if len(chunk) >= _LINE_LIMIT and not chunk.endswith(newline):
            head, tail = chunk[:half], chunk[-half:]
            while True:  # skip the middle of a long line, keep its last piece
                try:
                    rest = stream.readline(_LINE_LIMIT)
                except (UnicodeDecodeError, ValueError, OSError):
                    return
                if not rest:
                    break
                tail = (tail + rest)[-half:]
                if rest.endswith(newline):
                    break
            chunk = head + (b"\r" if newline == b"\n" else "\r") + tail
        yield chunk


def explain_stream(
    stream: IO[Any], kb: KnowledgeBase | None = None, *, max_matches: int = MAX_MATCHES
) -> list[LogMatch]:
    """Explain a log read from an open file or stdin (binary preferred: ``sys.stdin.buffer``)."""
    return explain_lines(_stream_lines(stream), kb, max_matches=max_matches)


# -- rendering -----------------------------------------------------------------

_LABELS = {
    "en": {
        "rules": "rules",
        "no_rule": "no qlint rule",
        "cause": "cause",
        "fix": "fix",
        "see": "see",
        "repeated": "same message on {n} more lines",
        "none": "no known vLLM / vllm-ascend error signature found",
        "no_finding": "{path}: no {rules} finding in this script; the cause may be in another script of the "
        "deployment, in a value qlint could not resolve, or outside the script",
        "cannot_lint": "{path}: not linted: {message}",
        "shown": "(shown above)",
        "unsafe": " (unsafe: changes more than the fault)",
        "corrected": "corrected command:",
    },
    "zh": {
        "rules": "规则",
        "no_rule": "无对应 qlint 规则",
        "cause": "原因",
        "fix": "修复",
        "see": "参见",
        "repeated": "另有 {n} 行为相同消息",
        "none": "未发现已知的 vLLM / vllm-ascend 错误特征",
        "no_finding": "{path}：该脚本中没有 {rules} 的检查结果；原因可能在部署中的另一个脚本里、在 qlint "
        "无法解析的值里，或在脚本之外",
        "cannot_lint": "{path}：无法检查：{message}",
        "shown": "（见上文）",
        "unsafe": "（不安全：改动超出问题本身）",
        "corrected": "修正后的命令：",
    },
}


def _labels(lang: str) -> dict[str, str]:
    return _LABELS["zh"] if lang.lower().startswith("zh") else _LABELS["en"]


def _diff(path: str, text: str, fix) -> list[str]:
    from qlint.linter.fixes import apply_fixes

    try:
        new_text, applied = apply_fixes(text, [fix])
    except (IndexError, ValueError):
        return []
    if not applied or new_text == text:
        return []
    return list(
        difflib.unified_diff(
            text.splitlines(), new_text.splitlines(), fromfile=path, tofile=f"{path} (fixed)", n=0, lineterm=""
        )
    )


def _script_section(match: LogMatch, result: LintResult, lang: str, shown: set[int]) -> list[str]:
    labels = _labels(lang)
    if result.error is not None:
        return [f"  {labels['cannot_lint'].format(path=result.path, message=result.error.message)}"]
    rules = set(match.rules)
    if not rules:
        return []
    findings = [f for f in result.findings if f.rule.id in rules]
    defect = getattr(match.signature, "defect", None)
    if defect is not None:  # a known defect: only that entry's finding
        findings = [f for f in findings if any(t.name == "defect" and t.value == defect for t in f.trace)]
    if not findings:
        return ["  " + labels["no_finding"].format(path=result.path, rules="/".join(match.rules))]
    out: list[str] = []
    for finding in findings:
        path = finding.path or result.path
        where = f"{path}:{finding.span.line}:{finding.span.column}"
        head = f"  {where}: {finding.level} {finding.rule.id} [{finding.rule.name}]"
        if id(finding) in shown:
            out.append(f"{head} {labels['shown']}")
            continue
        shown.add(id(finding))
        out.append(f"{head} {finding.text(lang)}")
        if finding.fix is None:
            continue
        colon = "：" if lang.lower().startswith("zh") else ": "
        out.append(f"    {finding.fix.label(lang.lower())}{colon}{finding.fix.describe(lang.lower())}")
        if finding.fix.edits and path == result.path and result.source is not None:
            diff = _diff(result.path, result.source.text, finding.fix)
            if diff:
                out.append(f"    {labels['corrected']}")
                out.extend(f"    {line}" for line in diff)
    return out


def _clause(text: str) -> str:
    """A sentence as a clause of the one-line report (no final full stop before the ';')."""
    return text.rstrip().rstrip(".。")


def render_explanations(
    matches: list[LogMatch],
    lang: str = "en",
    script_result: LintResult | None = None,
    *,
    path: str = "server.log",
) -> str:
    """Text report: ``server.log:LINE: <signature> -> rules QLnnn; cause: ...; fix: ...; see: <url>``.

    With ``script_result`` (``qlint.linter.lint.lint_bytes`` of the launch script)
    each match is followed by the script's findings of the matched rules, their
    fixes and, when a fix has edits, the corrected lines as a unified diff.
    Ends with a newline; says so when nothing matched.
    """
    labels = _labels(lang)
    if not matches:
        return f"{path}: {labels['none']}\n"
    out: list[str] = []
    shown: set[int] = set()
    for match in matches:
        rules = f"{labels['rules']} {', '.join(match.rules)}" if match.rules else labels["no_rule"]
        see = match.faq_url or next(iter(at_release(match.signature.sources)), "")
        out.append(
            f"{path}:{match.line}: {match.id} -> {rules}; {labels['cause']}: {_clause(match.cause.get(lang))}; "
            f"{labels['fix']}: {_clause(match.fix.get(lang))}; {labels['see']}: {see}"
        )
        if match.count > 1:
            out.append("  " + labels["repeated"].format(n=match.count - 1))
        if script_result is not None:
            out.extend(_script_section(match, script_result, lang, shown))
    return "\n".join(out) + "\n"
