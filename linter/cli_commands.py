"""The informational subcommands: ``qlint config --show``, ``qlint rules`` and
``qlint explain`` (a rule, or a server log with ``--log``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from qlint.linter.cli_args import LANGS, config_cache, default_lang, fail, overrides, selection_options
from qlint.linter.cli_inputs import read


@click.command("config")
@click.argument("path", required=False, default=".")
@click.option("--show", is_flag=True, help="Print the effective configuration and where each value comes from.")
@click.option("--lang", type=LANGS, default=None, help="en or zh (default: from the locale).")
@selection_options
def config_command(path, show, lang, hardware, version, select, ignore, fail_level, config_path):
    """Show the configuration that applies to PATH (default: the current folder)."""
    from qlint.linter.config import ConfigError, describe, resolve

    if not show:
        raise click.UsageError("say what to do: qlint config --show [PATH]")
    chosen = overrides(hardware, version, select, ignore, fail_level)
    cache = config_cache(config_path)
    target = Path(path)
    probe = str(target / "_") if target.is_dir() else path
    try:
        effective = resolve(cache.for_path(probe), chosen)
    except ConfigError as error:
        fail(str(error))
    if target.is_file():  # what the script itself states wins over the configuration file
        from qlint.knowledge.base import load as load_knowledge
        from qlint.linter.config import for_script
        from qlint.linter.lint import lint_bytes

        result = lint_bytes(path, read(path))
        if result.error is not None:
            fail(f"{path}:{result.error.line}:{result.error.column}: error: {result.error.message}")
        effective = for_script(effective, result.plan, path, load_knowledge())
    click.echo(describe(effective, path, lang or default_lang()))


@click.command("rules")
@click.argument("selectors", nargs=-1, metavar="[RULES]...")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
def rules_command(selectors, output_format):
    """List the rules (every rule, or those RULES name: ids, names, groups, id prefixes): id, name, severity, groups, title."""
    import json

    from qlint.linter.catalog import match_entries, rule_entries
    from qlint.linter.config import ConfigError, check_selectors

    rules = rule_entries()  # (the rule index: no rule module is imported)
    if selectors:
        try:
            chosen = {m.id for value in check_selectors(list(selectors), "selector") for m in match_entries(value)}
        except ConfigError as error:
            fail(f"qlint: {error.message}")
        rules = tuple(m for m in rules if m.id in chosen)
    if output_format == "json":
        click.echo(json.dumps([
            {"id": m.id, "name": m.name, "severity": m.severity, "groups": list(m.groups), "title": m.title.en,
             "fix": m.fix}
            for m in rules
        ], indent=2))
        return
    for meta in rules:
        click.echo(f"{meta.id}  {meta.name:<40} {meta.severity:<8} {','.join(meta.groups):<27} {meta.title.en}")


@click.command("explain")
@click.argument("rule", required=False)
@click.option("--log", "log_path", metavar="FILE", help="Explain the failure in a server log (- for stdin).")
@click.option("--script", "script_path", metavar="FILE", help="With --log: the launch script, to show its corrected command.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@click.option("--lang", type=LANGS, default=None, help="en or zh (default: from the locale).")
def explain_command(rule, log_path, script_path, output_format, lang):
    """Explain a rule (by id or name), or a server log's failure (--log)."""
    lang = lang or default_lang()
    if log_path is not None:
        explain_log(log_path, script_path, output_format, lang)
        return
    if rule is None:
        raise click.UsageError("name a rule (qlint explain QL201) or a log (qlint explain --log server.log)")
    from qlint.knowledge.base import load
    from qlint.linter.catalog import find_rule
    from qlint.linter.reporters import faq_url

    meta = find_rule(rule)
    if meta is None:
        fail(f"qlint: no rule {rule!r}; see `qlint rules`")
    heading = {"en": ("What it checks", "Why", "Example", "Use instead", "Fix safety", "Sources", "FAQ"),
               "zh": ("检查内容", "原因", "示例", "推荐写法", "修复安全性", "来源", "常见问题")}[lang]
    colon = "：" if lang == "zh" else ": "
    severity = {"error": "错误", "warning": "警告", "info": "提示"}[meta.severity] if lang == "zh" else meta.severity
    click.echo(f"{meta.id} {meta.name} ({severity})")
    click.echo(f"\n{heading[0]}{colon}{getattr(meta.title, lang)}")
    click.echo(f"\n{heading[1]}{colon}{getattr(meta.why, lang)}")
    for example in meta.examples[:1]:
        click.echo(f"\n{heading[2]}{colon.rstrip()}\n{example.bad.rstrip()}")
        click.echo(f"\n{heading[3]}{colon.rstrip()}\n{example.good.rstrip()}")
    safety = {"en": {"none": "none (advice only)", "safe": "safe (--fix applies it)",
                     "unsafe": "unsafe (only with --unsafe-fixes)"},
              "zh": {"none": "无自动修复（仅建议）", "safe": "安全（--fix 会应用）", "unsafe": "不安全（仅在 --unsafe-fixes 时应用）"}}
    click.echo(f"\n{heading[4]}{colon}{safety[lang][meta.fix]}")
    click.echo(f"\n{heading[5]}{colon.rstrip()}")
    from qlint.knowledge.text import citation_note, citation_url

    for source in meta.sources:  # the note is English only
        note = citation_note(source) if lang == "en" else ""
        click.echo(f"  - {citation_url(source)}" + (f" ({note})" if note else ""))
    url = faq_url(load(), meta.faq)
    if url:
        click.echo(f"\n{heading[6]}{colon}{url}")


def explain_log(log_path, script_path, output_format, lang):
    """Match a server log against known vLLM / vllm-ascend error signatures (exit 1 when one matches)."""
    import json

    from qlint.knowledge.base import load
    from qlint.linter.lint import lint_bytes
    from qlint.linter.logs import explain_stream, render_explanations

    kb = load()
    try:
        if log_path == "-":
            matches = explain_stream(sys.stdin.buffer, kb)
        else:
            with open(log_path, "rb") as handle:
                matches = explain_stream(handle, kb)
    except OSError as error:
        fail(f"{log_path}:1:1: error: cannot read log: {error.strerror or error}")
    script_result = None
    if script_path is not None:
        try:
            data = read(script_path)
        except OSError as error:
            fail(f"{script_path}:1:1: error: cannot read file: {error.strerror or error}")
        script_result = lint_bytes(script_path, data, kb=kb)
        if script_result.error is not None:
            fail(f"{script_path}:{script_result.error.line}:{script_result.error.column}: error: "
                 f"{script_result.error.message}")
    if output_format == "json":
        click.echo(json.dumps([m.as_dict(lang) for m in matches], indent=2, ensure_ascii=False))
    else:
        click.echo(render_explanations(matches, lang, script_result, path="<stdin>" if log_path == "-" else log_path))
    sys.exit(1 if matches else 0)
