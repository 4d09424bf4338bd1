"""The reference pages: rules (ruff's rule-page shape), FAQ, support matrix, disagreements, CLI, index.

Each ``render_*`` returns the Markdown of one page for one language and
flavour; ``qlint.docgen.site`` puts them together.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import click

from qlint.docgen import citations
from qlint.docgen.commands import multiline
from qlint.docgen.guides import Guide, first_release, guides, refusal
from qlint.docgen.i18n import (
    FIX_SAFETY,
    RECORD_KIND,
    SCOPE,
    SEVERITY,
    colon,
    hardware_name,
    pick,
    say,
    scenario_name,
    text_of,
)
from qlint.docgen.writer import Flavor, Page, code, escape
from qlint.knowledge.base import KnowledgeBase, parse_version, version_in
from qlint.linter.generate import GenerationError, generate
from qlint.record import fields as record_fields
from qlint.rules.base import RuleMeta
from qlint.rules.kit.release import describe_range
from qlint.rules.groups import GROUPS

if TYPE_CHECKING:
    from qlint.knowledge.models import Cited

CONTRADICTION = re.compile(
    r"disagree|contradict|the rule follows|rule follows the|follows the (code|guide|docs|dockerfile)"
    r"|qlint follows|sources (say|differ)|says .{0,80}, but",
    re.IGNORECASE,
)
"""How a rule's rationale signals that it settles a conflict between sources."""


def settles_conflict(meta: RuleMeta) -> bool:
    """True when the rule's ``why`` text says which of two disagreeing sources it follows."""
    return CONTRADICTION.search(meta.why.en) is not None


# -- rules -----------------------------------------------------------------------------------

def rule_docname(meta: RuleMeta) -> str:
    return f"rules/{meta.id}"


def render_rule(meta: RuleMeta, kb: KnowledgeBase, lang: str, flavor: Flavor) -> str:
    """One rule page: What it does / Why is this bad? / Example / Use instead / Fix safety / References."""
    page = Page(rule_docname(meta), flavor)
    page.heading(1, f"{meta.id} {meta.name}")
    page.para(say(lang, "rule.meta", severity=pick(SEVERITY[meta.severity], lang), scope=pick(SCOPE[meta.scope], lang),
                  fix=say(lang, f"rule.fix.{meta.fix}")))
    page.para(say(lang, "rule.groups", groups=say(lang, "rule.ctx.sep").join(code(g) for g in meta.groups)))
    _render_releases(page, meta, kb, lang)

    page.heading(2, say(lang, "rule.what"))
    title = escape(text_of(meta.title, lang))
    page.para(title if title.endswith((".", "。", "?", "？")) else title + ("." if lang == "en" else "。"))
    facts = [*meta.requires, *meta.optional]
    if facts:
        separator = ", " if lang == "en" else "、"
        page.para(say(lang, "rule.facts", facts=separator.join(code(f) for f in facts)))

    page.heading(2, say(lang, "rule.why"))
    page.para(escape(text_of(meta.why, lang)))
    if settles_conflict(meta):
        page.admonition("warning", say(lang, "rule.disagree"), [say(lang, "rule.disagree.text")])

    examples = list(meta.examples)
    if not examples:
        page.heading(2, say(lang, "rule.example"))
        page.para(say(lang, "rule.noexample"))
    for number, example in enumerate(examples, start=1):
        title = say(lang, "rule.example") if len(examples) == 1 else say(lang, "rule.example.n", n=number)
        page.heading(2, title)
        context = []
        if example.hardware:
            context.append(say(lang, "rule.ctx.hardware", hardware=code(example.hardware)))
        if example.version:
            context.append(say(lang, "rule.ctx.version", version=code(example.version)))
        if context:
            page.para(say(lang, "rule.context", context=say(lang, "rule.ctx.sep").join(context)))
        page.code_block("bash", multiline(example.bad))
        if example.peers:
            page.para(say(lang, "rule.peers"))
            for peer in example.peers:
                page.code_block("bash", multiline(peer))
        page.heading(3 if len(examples) > 1 else 2, say(lang, "rule.instead"))
        page.code_block("bash", multiline(example.good))
        if example.fixed is not None and example.fixed != example.good:
            page.para(say(lang, "rule.fixed"))
            page.code_block("bash", multiline(example.fixed))

    page.heading(2, say(lang, "rule.safety"))
    page.para(pick(FIX_SAFETY[meta.fix], lang))

    page.heading(2, say(lang, "rule.references"))
    items = [citations.render(source, lang) for source in meta.sources]
    if meta.faq and meta.faq in kb.faq_index:
        entry = kb.faq_index[meta.faq]
        items.append(say(lang, "rule.faq", link=page.link(text_of(entry.title, lang), "faq", entry.id)))
    page.bullets(items)
    return page.render()


def _vllm_range(record, lang: str) -> str:
    """``, vLLM 0.21.0 and later`` for behaviours with vLLM bounds, else ``""``."""
    since, until = record.vllm_since, record.vllm_until
    if since is None and until is None:
        return ""
    if until is None:
        words = say(lang, "rule.behaviour.since", since=since)
    elif since is None:
        words = say(lang, "rule.behaviour.until", until=until)
    else:
        words = say(lang, "rule.behaviour.between", since=since, until=until)
    return say(lang, "rule.behaviour.vllm", range=words)


def _render_releases(page: Page, meta: RuleMeta, kb: KnowledgeBase, lang: str) -> None:
    """The releases a rule applies to (from its ``applies`` behaviour) and every release
    behaviour it asks, with its range and sources (knowledge/data/behaviours.toml)."""
    page.heading(2, say(lang, "rule.releases"))
    if meta.applies is not None:
        page.para(say(lang, "rule.releases.applies", range=describe_range(kb, meta.applies, lang), name=code(meta.applies)))
    else:
        page.para(say(lang, "rule.releases.all" if meta.behaviours else "rule.releases.none"))
    items = []
    for name in meta.behaviours:
        record = kb.behaviour(name)
        item = say(lang, "rule.behaviour", name=code(name), range=describe_range(kb, name, lang),
                   vllm=_vllm_range(record, lang), what=escape(text_of(record.what, lang)))
        if record.disagreement is not None:
            item += " " + say(lang, "rule.behaviour.follows", text=escape(text_of(record.disagreement, lang)))
        links = say(lang, "rule.ctx.sep").join(citations.render(source, lang) for source in record.sources)
        items.append(f"{item} {links}")
    if items:
        page.bullets(items)


def render_rules_index(rules: list[RuleMeta], lang: str, flavor: Flavor) -> str:
    page = Page("rules/index", flavor)
    page.heading(1, say(lang, "rules.title"))
    page.para(say(lang, "rules.intro"))
    page.table(
        [say(lang, f"rules.col.{c}") for c in ("rule", "name", "severity", "fix", "title")],
        [[page.link(m.id, rule_docname(m)), code(m.name), pick(SEVERITY[m.severity], lang),
          say(lang, f"rule.fix.{m.fix}"), escape(text_of(m.title, lang))] for m in rules],
    )
    page.heading(2, say(lang, "rules.groups"))
    page.para(say(lang, "rules.groups.intro"))
    page.table(
        [say(lang, f"rules.col.{c}") for c in ("group", "about", "members")],
        [[code(group), escape(text_of(about, lang)),
          " ".join(page.link(m.id, rule_docname(m)) for m in rules if group in m.groups)]
         for group, about in GROUPS.items()],
    )
    page.toctree([(rule_docname(m), m.id) for m in rules], hidden=True)
    return page.render()


# -- FAQ ---------------------------------------------------------------------------------------

def render_faq(kb: KnowledgeBase, rules: list[RuleMeta], lang: str, flavor: Flavor) -> str:
    """The FAQ page; each entry's anchor is its id in faq.toml (findings link to it)."""
    page = Page("faq", flavor)
    page.heading(1, say(lang, "faq.title"))
    page.para(say(lang, "faq.intro"))
    for entry in kb.faqs:
        page.heading(2, escape(text_of(entry.title, lang)), anchor=entry.id)
        page.para(escape(text_of(entry.answer, lang)))
        items = [say(lang, "faq.answer", link=f"[{say(lang, 'faq.upstream')}]({entry.url})"),
                 say(lang, "faq.anchor", anchor=code("#" + entry.id))]
        linking = [m for m in rules if m.faq == entry.id]
        if linking:
            items.append(say(lang, "faq.rules", rules=", ".join(page.link(m.id, rule_docname(m)) for m in linking)))
        items.append(say(lang, "faq.sources", sources="; ".join(citations.render(s, lang) for s in entry.sources)))
        page.bullets(items)
        if entry.disagreement is not None:
            page.admonition("warning", say(lang, "rule.disagree"), [escape(text_of(entry.disagreement, lang))])
    return page.render()


# -- support matrix --------------------------------------------------------------------------------

def _mark(model, hardware, tag: str) -> str:
    """✓ / ✗ for a release; ``?`` when no first release is recorded for A2/A3 (310P: none means unsupported)."""
    first = first_release(model, hardware)
    if first is None:
        return "✗" if hardware.id == "310p" else "?"
    return "✓" if version_in(tag, since=first) else "✗"


def render_matrix(kb: KnowledgeBase, lang: str, flavor: Flavor, version: str) -> str:
    page = Page("support-matrix", flavor)
    page.heading(1, say(lang, "matrix.title"))
    page.para(say(lang, "matrix.intro"))
    releases = sorted(kb.releases, key=lambda r: parse_version(r.tag))

    page.heading(2, say(lang, "matrix.releases"))
    page.table(
        [say(lang, f"matrix.col.{c}") for c in ("release", "date", "vllm", "stable")],
        [[code(r.tag), r.date, code(r.vllm), "✓" if r.stable else ""] for r in releases],
    )
    for release in releases:
        if release.disagreement is not None:
            page.admonition("warning", f"{say(lang, 'rule.disagree')}{colon(lang)}{release.tag}",
                            [escape(text_of(release.disagreement, lang))])

    page.heading(2, say(lang, "matrix.models"))
    page.para(say(lang, "matrix.legend"))
    models = [m for m in kb.models if m.in_scope]
    for model in models:
        page.heading(3, model.id)
        header = [say(lang, "matrix.col.release")] + [hardware_name(h.id, lang) for h in kb.hardware]
        rows = [[code(r.tag)] + [_mark(model, h, r.tag) for h in kb.hardware] for r in releases]
        page.table(header, rows)
        notes = []
        for hardware in kb.hardware:
            first = first_release(model, hardware)
            if first:
                notes.append(f"{hardware_name(hardware.id, lang)}{colon(lang)}{say(lang, 'matrix.first', first=code(first))}")
        page.bullets(notes)

    page.heading(2, say(lang, "matrix.single", version=version))
    page.para(say(lang, "matrix.single.text"))
    rows = []
    for model in models:
        cells = [model.id]
        for hardware in kb.hardware:
            try:
                deployment = generate(kb, model.id, hardware.id, "high-throughput", True, version)
            except GenerationError as error:
                cells.append(say(lang, "guide.refused", reason=refusal(kb, error, lang)))
                continue
            cell = f"TP {deployment.tp} x DP {deployment.dp}"
            guide = Guide(model, hardware)
            cells.append(page.link(cell, guide.docname))
        rows.append(cells)
    page.table([say(lang, "guides.col.model")] + [hardware_name(h.id, lang) for h in kb.hardware], rows)
    return page.render()


# -- disagreements ------------------------------------------------------------------------------------

_NAME_FIELDS = ("id", "name", "tag", "flag", "key", "setting", "model")


def _record_name(record) -> str:
    for attribute in _NAME_FIELDS:
        value = getattr(record, attribute, None)
        if isinstance(value, str):
            return value
    return "?"


def disputed_records(kb: KnowledgeBase, lang: str) -> list[tuple[str, str, Cited]]:
    """(kind label, record name, record) for every knowledge record with a ``disagreement``.

    Walks every list the knowledge base holds (and records nested in them:
    checkpoints, sub-config keys), so a new data file is covered without a change here.
    """
    out: list[tuple[str, str, Cited]] = []
    kinds = {"models": "model", "variants": "variant", "releases": "release", "flags": "flag",
             "sub_configs": "sub_config", "keys": "sub_config_key", "env_vars": "env", "faqs": "faq",
             "recipes": "recipe", "hardware": "hardware", "redundant": "redundant", "architectures": "architecture",
             "defects": "defect", "behaviours": "behaviour"}

    def name_of(field: str, record, parent) -> str:
        if field == "hardware":
            return hardware_name(record.id, lang)
        if field == "recipes":
            return (f"{record.model} / {hardware_name(record.hardware, lang)} / "
                    f"{scenario_name(record.scenario, lang)} / {record.quantization.upper()}")
        if field == "keys" and parent is not None:
            return f"{parent.flag} {record.key}"
        return _record_name(record)

    def visit(field: str, records, parent=None) -> None:
        for record in records:
            if getattr(record, "disagreement", None) is not None:
                kind = RECORD_KIND.get(kinds.get(field, ""))
                label = pick(kind, lang) if kind else field
                out.append((label, name_of(field, record, parent), record))
            for child in ("variants", "keys"):
                nested = getattr(record, child, None)
                if isinstance(nested, list):
                    visit(child, nested, record)

    for item in record_fields(kb):  # the data lists only, not cached lookups built from them
        value = getattr(kb, item.name)
        if not item.name.startswith("_") and isinstance(value, list):
            visit(item.name, value)
    return out


def render_disagreements(kb: KnowledgeBase, rules: list[RuleMeta], lang: str, flavor: Flavor) -> str:
    page = Page("disagreements", flavor)
    page.heading(1, say(lang, "disagree.title"))
    page.para(say(lang, "disagree.intro"))
    page.heading(2, say(lang, "disagree.records"))
    readable = {pick(RECORD_KIND[k], lang) for k in ("hardware", "recipe")}
    for kind, name, record in disputed_records(kb, lang):
        page.heading(3, f"{kind}{colon(lang)}{escape(name) if kind in readable else code(name)}")
        page.para(escape(text_of(record.disagreement, lang)))
        page.bullets([citations.render(s, lang) for s in record.sources])
    page.heading(2, say(lang, "disagree.rules"))
    page.para(say(lang, "disagree.rules.text"))
    page.bullets([f"{page.link(m.id, rule_docname(m))} {code(m.name)}{colon(lang)}{escape(text_of(m.title, lang))}"
                  for m in rules if settles_conflict(m)])
    return page.render()


# -- known defects ----------------------------------------------------------------------------------

def _defect_releases(entry, lang: str) -> str:
    start = entry.since or "…"
    end = entry.until or ""
    span = f"{start} – {end}" if end and end != start else (start if end else f"{start} –")
    if entry.fixed_in:
        span += f" (fixed in {entry.fixed_in})" if lang == "en" else f"（{entry.fixed_in} 修复）"
    return span


def _quoted_as_code(text: str) -> str:
    """Prose with the messages it quotes verbatim (“...” or '...') as code spans, the rest escaped."""
    parts = re.split(r"“([^”]+)”|(?<![\w])'([^']+)'(?![\w])", text)
    parts = [part for part in parts if part is not None]
    return "".join(code(part) if index % 2 else escape(part) for index, part in enumerate(parts))


def render_known_defects(kb: KnowledgeBase, lang: str, flavor: Flavor) -> str:
    """One section per known-defect entry (defects.toml): releases, hardware, models, the
    conditions it matches, the rule that reports it, symptom, workaround and sources."""
    from qlint.rules.known_defects import META_BY_SEVERITY, matched_text

    page = Page("known-defects", flavor)
    page.heading(1, say(lang, "defects.title"))
    page.para(say(lang, "defects.intro"))
    entries = list(getattr(kb, "defects", []))
    notes = sum(1 for e in entries if e.origin == "release-notes")
    page.para(say(lang, "defects.counts", total=len(entries), notes=notes, issues=len(entries) - notes))
    anyone = say(lang, "defects.any")
    for entry in sorted(entries, key=lambda e: (parse_version(e.since or e.until or e.fixed_in), e.id), reverse=True):
        meta = META_BY_SEVERITY[entry.severity]
        page.heading(2, code(entry.id), anchor=f"defect-{entry.id}")
        page.para(_quoted_as_code(text_of(entry.symptom, lang)))
        hardware = ", ".join(hardware_name(h, lang) for h in entry.hardware) if entry.hardware != ["any"] else anyone
        models = ", ".join(code(m) for m in entry.models) if entry.models != ["any"] else anyone
        page.bullets([
            f"{say(lang, 'defects.releases')}{colon(lang)}{escape(_defect_releases(entry, lang))}",
            f"{say(lang, 'defects.hardware')}{colon(lang)}{hardware}",
            f"{say(lang, 'defects.models')}{colon(lang)}{models}",
            f"{say(lang, 'defects.matched')}{colon(lang)}{code(matched_text(entry))}",
            f"{say(lang, 'defects.rule')}{colon(lang)}{page.link(meta.id, rule_docname(meta))} {code(meta.name)}",
            f"{say(lang, 'defects.workaround')}{colon(lang)}{_quoted_as_code(text_of(entry.workaround, lang))}",
        ])
        page.bullets([citations.render(s, lang) for s in entry.sources])
    return page.render()


# -- CLI ---------------------------------------------------------------------------------------------

CLI_COMMANDS = (("qlint", "qlint.linter.cli:main"), ("qdoc", "qlint.docgen.cli:main"))
HELP_WIDTH = 100


def _help_texts(prog: str, command: click.Command, parent: click.Context | None = None) -> list[tuple[str, str]]:
    context = click.Context(command, info_name=prog, parent=parent, terminal_width=HELP_WIDTH,
                            max_content_width=HELP_WIDTH)
    out = [(context.command_path, command.get_help(context))]
    if isinstance(command, click.Group):
        for name in sorted(command.commands):
            out += _help_texts(name, command.commands[name], context)
    return out


def _import(target: str):
    import importlib

    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def render_cli(lang: str, flavor: Flavor) -> str:
    page = Page("cli", flavor)
    page.heading(1, say(lang, "cli.title"))
    page.para(say(lang, "cli.intro"))
    for prog, target in CLI_COMMANDS:
        if flavor == "myst":
            # sphinx-click emits reStructuredText; inside MyST it must be parsed as such
            page.code_block("{eval-rst}", f".. click:: {target}\n   :prog: {prog}\n   :nested: full\n")
            continue
        page.heading(2, prog)
        page.para(say(lang, "cli.help"))
        for path, text in _help_texts(prog, _import(target)):
            if path != prog:
                page.heading(3, code(path))
            page.code_block("text", text)
    return page.render()


# -- index pages ---------------------------------------------------------------------------------------

def render_guides_index(kb: KnowledgeBase, lang: str, flavor: Flavor, version: str) -> str:
    from qlint.docgen.guides import deployments
    from qlint.linter.generate import Deployment

    page = Page("guides/index", flavor)
    page.heading(1, say(lang, "guides.title"))
    page.para(say(lang, "guides.intro"))
    rows = []
    all_guides = guides(kb)
    for guide in all_guides:
        outcomes = deployments(kb, guide, version)
        scenarios = []
        for (scenario, quantization), outcome in outcomes.items():
            if isinstance(outcome, Deployment) and scenario_name(scenario, lang) not in scenarios:
                scenarios.append(scenario_name(scenario, lang))
        title = say(lang, "guide.title", model=guide.model.id, hardware=hardware_name(guide.hardware.id, lang))
        rows.append([page.link(title, guide.docname), guide.model.id, hardware_name(guide.hardware.id, lang),
                     (", " if lang == "en" else "、").join(scenarios) or "✗"])
    page.table(["", say(lang, "guides.col.model"), say(lang, "guides.col.hardware"), say(lang, "guides.col.single")],
               rows)
    page.toctree([(g.docname, g.model.id) for g in all_guides], hidden=True)
    return page.render()


SECTIONS = ("get-started", "guides/index", "support-matrix", "rules/index", "faq", "known-defects", "disagreements", "cli")
SECTION_TITLE = {
    "get-started": "gs.title", "guides/index": "guides.title", "support-matrix": "matrix.title", "rules/index": "rules.title",
    "faq": "faq.title", "known-defects": "defects.title", "disagreements": "disagree.title", "cli": "cli.title",
}


def render_index(lang: str, flavor: Flavor, version: str) -> str:
    page = Page("index", flavor)
    page.heading(1, say(lang, "site.title"))
    page.para(say(lang, "index.intro"))
    page.para(say(lang, "index.promise"))
    page.para(say(lang, "index.version", version=code(version)))
    page.toctree([(doc, say(lang, SECTION_TITLE[doc])) for doc in SECTIONS], caption=say(lang, "index.sections"),
                 maxdepth=1)
    return page.render()

