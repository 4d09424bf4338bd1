"""Output formats: text (actionlint/ruff style), statistics and the JSON contract.

SARIF and GitHub workflow commands live in ``sarif.py`` and ``github.py``.

JSON contract (other tools depend on it): an array with one object per finding:
``path, line, column, end_line, end_column`` (1-based), ``rule``, ``name``,
``severity``, ``message``, ``fix`` (null or ``{"description", "replacement", "applicable", "safety"}``:
``applicable`` false means advice that ``--fix``/``--unsafe-fixes`` cannot apply; ``safety`` is
``safe`` (``--fix``) or ``unsafe`` (``--unsafe-fixes``), null for advice),
``sources`` (list of str: public https URLs pinned to a tag or a commit, those at the release the
finding was checked at first), ``faq`` (null or URL). ``[]`` when clean.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.knowledge.base import KnowledgeBase
from qlint.knowledge.text import MAIN_COMMIT, at_release, citation_url, pinned_ref
from qlint.rules.base import Finding

from qlint.linter.lint import LintResult


def faq_url(kb: KnowledgeBase, faq_id: str | None) -> str | None:
    """The public URL of a FAQ id, or None."""
    if faq_id is None:
        return None
    entry = kb.faq(faq_id)
    return entry.url if entry is not None else None


def paired_vllm(kb: KnowledgeBase, release: str | None) -> str | None:
    """The vLLM version a vllm-ascend release ships with (``v0.23.0``), or None when not recorded."""
    if not release:
        return None
    if release == "main":
        return MAIN_VLLM
    record = kb.release_record(release)
    return record.vllm if record is not None else None


MAIN_VLLM = "v0.27.1"
"""The vLLM version vllm-ascend main (MAIN_COMMIT) ships (its Dockerfile's VLLM_TAG)."""


def finding_sources(finding: Finding, kb: KnowledgeBase) -> list[str]:
    """The URLs a finding cites (``Finding.citations``: its own sources, e.g. a known defect's links or the
    per-release data's lines, else the rule's), those pinned at the release it was checked at (or at the
    vLLM version that release ships) first. Worked out once per knowledge base, citations and release
    (a batch reports the same few thousand times)."""
    citations, release = finding.citations, finding.release
    held = _SOURCES.get(id(kb))
    if held is None or held[0] is not kb:  # the entry holds the knowledge base: no id reuse
        held = _SOURCES[id(kb)] = (kb, {})
    try:
        urls = held[1].get((citations, release))
    except TypeError:  # citations given as a list: not kept
        return at_release(citations, release, paired_vllm(kb, release))
    if urls is None:
        urls = held[1][(citations, release)] = tuple(at_release(citations, release, paired_vllm(kb, release)))
    return list(urls)


_SOURCES: dict[int, tuple[KnowledgeBase, dict[tuple, tuple[str, ...]]]] = {}


def first_source(finding: Finding, kb: KnowledgeBase) -> str | None:
    """The first URL of ``finding_sources`` (the text report's ``see:`` link), found without building the
    list: the first citation pinned at the finding's release or its vLLM version, else the first citation
    (``at_release``'s order; tests/test_reporters.py checks it against ``finding_sources``)."""
    citations = finding.citations
    if not citations:
        return None
    return pinned_source(finding, kb) or citation_url(citations[0])


def pinned_source(finding: Finding, kb: KnowledgeBase) -> str | None:
    """The first of the finding's citations pinned at the release it was checked at or at the vLLM version
    that release ships, or None. Worked out once per knowledge base, citations and release, as
    ``finding_sources``."""
    citations, release = finding.citations, finding.release
    if not citations or not release:
        return None
    held = _PINNED.get(id(kb))
    if held is None or held[0] is not kb:  # the entry holds the knowledge base: no id reuse
        held = _PINNED[id(kb)] = (kb, {})
    try:
        return held[1][(citations, release)]
    except KeyError:
        url = held[1][(citations, release)] = _pinned(citations, release, kb)
        return url
    except TypeError:  # citations given as a list: not kept
        return _pinned(citations, release, kb)


_PINNED: dict[int, tuple[KnowledgeBase, dict[tuple, str | None]]] = {}


def _pinned(citations, release: str, kb: KnowledgeBase) -> str | None:
    """``pinned_source`` of these citations at ``release`` (not kept)."""
    vllm = paired_vllm(kb, release)
    wanted = {("vllm-ascend", MAIN_COMMIT if release == "main" else release)}
    if vllm:
        wanted.add(("vllm", vllm if vllm.startswith("v") else f"v{vllm}"))
    for citation in citations:
        url = citation_url(citation)
        if pinned_ref(url) in wanted:
            return url
    return None


_FAQ_PAGES = "https://docs.vllm.ai/projects/ascend/en/"


def see_link(finding: Finding, kb: KnowledgeBase) -> str | None:
    """The text report's ``see:`` link: the rule's FAQ entry when it is an issue or the docs page of the release the
    finding was checked at, else a citation pinned at that release (or its vLLM version) when there is one, else the FAQ
    page (of another release); without a FAQ entry, the first citation. A script at v0.18.0 is not sent to
    v0.23.0's FAQ when the rule cites v0.18.0's own code."""
    faq = faq_url(kb, finding.rule.faq)
    if faq is None:
        return first_source(finding, kb)
    page = "latest" if finding.release == "main" else finding.release
    if not faq.startswith(_FAQ_PAGES) or faq.startswith(f"{_FAQ_PAGES}{page}/"):
        return faq  # (an issue or a page of no release is the same page at every release)
    return pinned_source(finding, kb) or faq


def finding_dict(finding: Finding, kb: KnowledgeBase, lang: str = "en") -> dict:
    """One finding as the JSON contract's object."""
    fix = None
    if finding.fix is not None:
        fix = {"description": finding.fix.describe(lang), "replacement": finding.fix.replacement,
               "applicable": finding.fix.applicable,
               # advice no --fix applies has no fix safety to state
               "safety": finding.fix.safety if finding.fix.applicable else None}
    return {
        "path": finding.path,
        "line": finding.span.line,
        "column": finding.span.column,
        "end_line": finding.span.end_line,
        "end_column": finding.span.end_column,
        "rule": finding.rule.id,
        "name": finding.rule.name,
        "severity": finding.level,
        "message": finding.text(lang),
        "fix": fix,
        "sources": finding_sources(finding, kb),
        "faq": faq_url(kb, finding.rule.faq),
    }


def render_json(results: list[LintResult], kb: KnowledgeBase, lang: str = "en", notices=()) -> str:
    """The JSON contract: an array of ``finding_dict`` objects (suppressed findings excluded),
    then one object per input that could not be read (``rule`` null, ``name`` "input-error")."""
    items = [finding_dict(f, kb, lang) for r in results for f in r.findings]
    items += [input_error_dict(notice) for notice in notices]
    return json.dumps(items, indent=2, ensure_ascii=False)


def input_error_dict(notice) -> dict:
    """An input error (``sarif.Notice``) in the shape of a finding, so JSON readers see it."""
    return {"path": notice.path, "line": notice.line, "column": notice.column, "end_line": notice.line,
            "end_column": notice.column + 1, "rule": None, "name": "input-error", "severity": "error",
            "message": notice.message, "fix": None, "sources": [], "faq": None}


_COLORS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
ZH_LEVELS = {"error": "错误", "warning": "警告", "info": "提示"}
"""Severity words in Chinese (the text report, qlint rules, qlint explain; the zh summary counts them so)."""
_RESET = "\033[0m"


def render_text(results: list[LintResult], kb: KnowledgeBase, color: bool = False, lang: str = 'en',
                show_suppressed: bool = False) -> str:
    """``path:line:col: severity QLnnn [name] message``, the line with a caret, fix and link.

    With ``show_suppressed`` the suppressed findings follow each file's own,
    marked ``(suppressed: reason)``.
    """
    lines: list[str] = []
    zh = lang.startswith("zh")
    sources = {r.path: r.source for r in results if r.source is not None}
    line_cache: dict[tuple[str, int], str] = {}  # each source line is read once, however many findings it has
    for result in results:
        shown_findings: list[tuple[Finding, str | None]] = [(f, None) for f in result.findings]
        if show_suppressed:
            shown_findings += [(s.finding, s.reason or ("未给出理由" if zh else "no reason given"))
                               for s in result.suppressed]
            shown_findings.sort(key=lambda item: (item[0].path != result.path, item[0].span.line,
                                                  item[0].span.column, item[0].rule.id))
        for finding, reason in shown_findings:
            level = finding.level
            word = ZH_LEVELS[level] if zh else level
            shown = f"{_COLORS[level]}{word}{_RESET}" if color else word
            note = (f"（已屏蔽：{reason}）" if zh else f" (suppressed: {reason})") if reason else ""
            lines.append(
                f"{finding.path}:{finding.span.line}:{finding.span.column}: {shown} "
                f"{finding.rule.id} [{finding.rule.name}] {finding.text(lang)}{note}"
            )
            source = sources.get(finding.path or "")
            if source is not None:
                key = (finding.path or "", finding.span.line)
                if key not in line_cache:
                    line_cache[key] = source.line_text(finding.span.line)
                lines += excerpt(line_cache[key], finding.span)
            if finding.fix is not None:
                colon = "：" if zh else ": "
                lines.append(f"  {finding.fix.label(lang)}{colon}{finding.fix.describe(lang)}")
            link = see_link(finding, kb)
            if link:
                lines.append(f"  {'参见：' if zh else 'see: '}{link}")
    return "\n".join(lines)


WINDOW = 100
"""Characters of a long source line shown around a finding's span (the rest is elided with "...")."""


def excerpt(text: str, span) -> list[str]:
    """The source line under a finding and its caret, as ``  | ...`` lines; [] for a blank line.

    A line longer than WINDOW characters is cut to a window around the span (at most WINDOW plus the
    span, itself capped at WINDOW), so a report's size grows with the number of findings, not with
    findings x line length (3,000 findings on one 68 KB line once printed 312 MB)."""
    if not text.strip():
        return []
    start = span.column - 1
    width = max(1, (span.end_column - span.column) if span.end_line == span.line else len(text) - start)
    width = min(width, WINDOW)
    if len(text) <= WINDOW:
        shown, offset = text, start
    else:
        left = max(0, min(start - WINDOW // 2, len(text) - WINDOW))
        right = min(len(text), max(left + WINDOW, start + width))
        shown = ("..." if left else "") + text[left:right] + ("..." if right < len(text) else "")
        offset = start - left + (3 if left else 0)
    return [f"  | {shown}", "  | " + " " * offset + "^" + "~" * (width - 1)]


def summary(results: list[LintResult], lang: str = "en") -> str:
    """One closing line: files checked and problems by severity (and suppressed, if any), in ``lang``."""
    counts = {"error": 0, "warning": 0, "info": 0}
    for result in results:
        for finding in result.findings:
            counts[finding.level] += 1
    total = sum(counts.values())
    files = len(results)
    hidden = sum(len(r.suppressed) for r in results)
    if lang.startswith("zh"):
        tail = f"，{hidden} 个已屏蔽" if hidden else ""
        if total == 0:
            return f"检查了 {files} 个文件，没有发现问题{tail}"
        return (f"检查了 {files} 个文件：发现 {total} 个问题"
                f"（错误 {counts['error']} 个，警告 {counts['warning']} 个，提示 {counts['info']} 个{tail}）")
    tail = f", {hidden} suppressed" if hidden else ""
    if total == 0:
        return f"{files} file(s) checked, no problems{tail}"
    return (f"{files} file(s) checked: {total} problem(s) "
            f"({counts['error']} error, {counts['warning']} warning, {counts['info']} info{tail})")


def statistics(results: list[LintResult]) -> str:
    """Count per rule, most frequent first: ``count  QLnnn  [name]  severity``."""
    counts: dict[str, list] = {}
    for result in results:
        for finding in result.findings:
            entry = counts.setdefault(finding.rule.id, [0, finding.rule.name, set()])
            entry[0] += 1
            entry[2].add(finding.level)
    rows = sorted(counts.items(), key=lambda item: (-item[1][0], item[0]))
    return "\n".join(
        f"{count:>5}  {rule_id}  [{name}]  {'/'.join(sorted(levels))}" for rule_id, (count, name, levels) in rows
    )
