"""The informational subcommands: ``qlint config --show``, ``qlint rules`` and
``qlint explain`` (a rule, or a server log with ``--log``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from qlint.linter.reporters import ZH_LEVELS
from qlint.linter.cli_args import LANGS, config_cache, default_lang, fail, overrides, selection_options
from qlint.linter.cli_inputs import read
from qlint.linter.config import KEYS, Effective


@click.command("config")
@click.argument("path", required=False, default=".")
@click.option("--show", is_flag=True, help="Print the effective configuration and where each value comes from.")
@click.option("--lang", type=LANGS, default=None, help="en or zh (default: from the locale).")
@selection_options
def config_command(path, show, lang, hardware, version, select, ignore, fail_level, config_path):
    """Show the configuration that applies to PATH (default: the current folder)."""
    from qlint.linter.config import ConfigError, resolve

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
        from qlint.linter.lint import lint_bytes

        result = lint_bytes(path, read(path))
        if result.error is not None:
            fail(f"{path}:{result.error.line}:{result.error.column}: error: {result.error.message}")
        effective = for_script(effective, result.plan, path, load_knowledge())
    click.echo(describe(effective, path, lang or default_lang()))


@click.command("rules")
@click.argument("selectors", nargs=-1, metavar="[RULES]...")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@click.option("--lang", type=LANGS, default=None, help="en or zh (default: from the locale).")
def rules_command(selectors, output_format, lang):
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
    lang = lang or default_lang()
    if output_format == "json":  # the title in --lang; the other fields are names, the same in both languages
        click.echo(json.dumps([
            {"id": m.id, "name": m.name, "severity": m.severity, "groups": list(m.groups), "title": getattr(m.title, lang),
             "fix": m.fix}
            for m in rules
        ], indent=2, ensure_ascii=False))
        return
    for meta in rules:
        severity = ZH_LEVELS[meta.severity] if lang == "zh" else meta.severity
        width = 8 - (len(severity) if lang == "zh" else 0)  # a Chinese character takes two columns
        click.echo(f"{meta.id}  {meta.name:<40} {severity:<{width}} {','.join(meta.groups):<27} {getattr(meta.title, lang)}")


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
    severity = ZH_LEVELS[meta.severity] if lang == "zh" else meta.severity
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


# -- qlint config --show: the effective configuration as TOML, each value with its origin --------------

_UNSET = {
    "select": "every rule",
    "ignore": "nothing",
    "severity": "each rule's own",
    "hardware": "from the script (directive or image tag)",
    "vllm_ascend": "from the script (directive or image tag), else the latest stable release",
    "deployments": "each directory argument, and named files that reference each other",
}


def _toml(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(f'"{item}"' for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f'{key} = "{item}"' for key, item in sorted(value.items())) + " }"
    return f'"{value}"'


def for_script(effective: Effective, plan, display: str, kb=None) -> Effective:
    """The settings in force for one script: the command line wins, then the script's ``# qlint:``
    directive, then its vllm-ascend image tag (last one), then the configuration file (the order
    ``rules/facts.py`` reads hardware and release in). Returns a copy with values and origins
    replaced; ``plan`` is the script's LaunchPlan."""
    from qlint.record import replace as copy

    from qlint.knowledge.images import parse_image

    out = copy(effective, origins=dict(effective.origins))
    image = None
    for value in reversed(plan.image_tags):
        parsed = parse_image(value.text or "")
        if parsed is not None:
            image = (value, parsed)
            break
    suffixes = {"-a3": "a3", "-310p": "310p", None: "a2"}
    for name, key in (("hardware", "hardware"), ("vllm_ascend", "vllm-ascend")):
        if out.origins.get(name) == "command line":
            continue
        directive = next((d for d in plan.directives if key in d.settings), None)
        if directive is not None:
            out.__setattr__(name, directive.settings[key].lower() if name == "hardware" else directive.settings[key])
            out.origins[name] = f"directive '# qlint: {key}=' at {display}:{directive.span.line}"
        elif image is not None:
            value, (tag, suffix) = image
            out.__setattr__(name, suffixes[suffix] if name == "hardware" else tag)
            out.origins[name] = f"image tag {value.text} at {display}:{value.span.line}"
        elif getattr(out, name) is None and name == "vllm_ascend" and kb is not None:
            out.vllm_ascend = kb.latest_stable.tag
            out.origins[name] = "assumed: the latest stable release (nothing states one)"
    if out.vllm_ascend and kb is not None:
        try:
            tag, note = kb.resolve_release(out.vllm_ascend)
        except Exception:  # not a release tag: the lint run says so
            note = None
        else:
            if note is not None:
                out.origins["vllm_ascend"] += f"; checked as {tag}"
    return out


_UNSET_ZH = {
    "select": "全部规则",
    "ignore": "无",
    "severity": "各规则自身的级别",
    "hardware": "取自脚本（注释或镜像标签）",
    "vllm_ascend": "取自脚本（注释或镜像标签），否则为最新稳定版",
    "deployments": "每个目录参数，以及相互引用的指定文件",
}
_ORIGIN_ZH = (  # origin phrases, longest first
    ("assumed: the latest stable release (nothing states one)", "假定为最新稳定版（没有任何地方指定）"),
    ("command line", "命令行"), ("default", "默认"), ("image tag ", "镜像标签 "), ("directive ", "注释 "),
    ("; checked as ", "；按此版本检查："), (" at ", " 位于 "),
)


def _origin(origin: str, lang: str) -> str:
    if not lang.startswith("zh"):
        return origin
    for english, chinese in _ORIGIN_ZH:
        origin = origin.replace(english, chinese)
    return origin


def describe(effective: Effective, where: str, lang: str = "en") -> str:
    """``qlint config --show``: the effective values as TOML, each with its origin (comments in ``lang``).

    Unset values are comments saying what applies instead; the output can be
    saved as a ``.qlint.toml``.
    """
    zh = lang.startswith("zh")
    lines = [f"# 对 {where} 生效的 qlint 配置" if zh else f"# effective qlint configuration for {where}"]
    for name, key in KEYS.items():
        value = getattr(effective, name)
        origin = _origin(effective.origins[name], lang)
        if value in (None, [], {}):
            unset = _UNSET_ZH[name] if zh else _UNSET[name]
            lines.append(f"# {key}: {unset}（来源：{origin}）" if zh else f"# {key}: {unset}  (from: {origin})")
        else:
            lines.append(f"{key} = {_toml(value)}  # {'来源：' if zh else 'from: '}{origin}")
    return "\n".join(lines)
