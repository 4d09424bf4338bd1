"""The ``qlint`` command line.

``qlint [OPTIONS] PATH...`` lints files, directories (``*.sh``/``*.bash`` and
files with a shell shebang) or ``-`` (stdin). ``qlint rules`` lists the rules,
``qlint explain QLnnn`` documents one, ``qlint config --show`` prints the
effective configuration. Exit codes: 0 no finding at or above the fail level,
1 findings, 2 bad usage, bad configuration or unreadable input.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from dataclasses import dataclass

from qlint import __version__

HARDWARE = click.Choice(["a2", "a3", "310p"], case_sensitive=False)
FORMATS = click.Choice(["text", "json", "sarif", "github"])
LEVELS = click.Choice(["error", "warning", "info"])
SHELL_SUFFIXES = (".sh", ".bash")


class DefaultGroup(click.Group):
    """A group whose default command is ``check``: ``qlint run.sh`` == ``qlint check run.sh``."""

    def resolve_command(self, ctx, args):
        if args and args[0] in self.commands:
            return super().resolve_command(ctx, args)
        return "check", self.commands["check"], args

    def parse_args(self, ctx, args):
        if args and args[0] in ("--help", "-h", "--version"):
            return super().parse_args(ctx, args)
        if not args or args[0] not in self.commands:
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="qlint")
def main() -> None:
    """Lint vLLM-Ascend launch scripts for Qwen3.5 / Qwen3.6 deployments."""


def _collect(paths: tuple[str, ...]) -> list[str]:
    return [path for group in _deployments(paths) for path in group]


def _deployments(paths: tuple[str, ...]) -> list[list[str]]:
    """Group the inputs into deployments: the files named on the command line form one;
    inside a directory argument, the scripts of each folder form one."""
    named: list[str] = []
    folders: dict[str, list[str]] = {}
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and (child.suffix in SHELL_SUFFIXES or _has_shell_shebang(child)):
                    folders.setdefault(str(child.parent), []).append(str(child))
        else:
            named.append(raw)
    groups = [named] if named else []
    return groups + [folders[key] for key in sorted(folders)]


def _has_shell_shebang(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return False
    return head.startswith(b"#!") and (b"sh" in head.split(b"\n", 1)[0])


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def _selection_options(function):
    """Options shared by ``check`` and ``config``: what to lint for and which rules."""
    decorators = [
        click.option("--hardware", type=HARDWARE, help="Target hardware (default: from the script's directive "
                     "or image tag, else the configuration)."),
        click.option("--vllm-ascend-version", "version", metavar="TAG", help="vllm-ascend release, e.g. v0.23.0."),
        click.option("--select", multiple=True, metavar="RULES",
                     help="Only these rules (ids, names or id prefixes such as QL2; comma-separated). "
                     "Replaces the configuration's select."),
        click.option("--ignore", multiple=True, metavar="RULES", help="Skip these rules (adds to the configuration's ignore)."),
        click.option("--fail-level", type=LEVELS, default=None,
                     help="Exit 1 when a finding is at or above this severity [default: warning]."),
        click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
                     help="Use this .qlint.toml / pyproject.toml instead of searching upwards."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _fail(message: str) -> None:
    click.echo(message, err=True)
    sys.exit(2)


def _overrides(hardware, version, select, ignore, fail_level):
    from qlint.knowledge.base import parse_version
    from qlint.linter.config import ConfigError, Overrides, check_selectors

    if version is not None:
        try:
            parse_version(version)
        except Exception:
            raise click.BadParameter(f"{version!r} is not a release tag like v0.23.0", param_hint="--vllm-ascend-version")
    try:
        return Overrides(
            select=check_selectors(list(select), "--select") if select else None,
            ignore=check_selectors(list(ignore), "--ignore"),
            fail_level=fail_level,
            hardware=hardware.lower() if hardware else None,
            vllm_ascend=version,
        )
    except ConfigError as error:
        _fail(f"qlint: {error.message}")


def _config_cache(config_path):
    from qlint.linter.config import ConfigCache, ConfigError

    try:
        return ConfigCache(Path(config_path) if config_path else None)
    except ConfigError as error:
        _fail(str(error))


def _choose_format(output_format, statistics):
    if output_format is None:
        if statistics:
            return "text"
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    if statistics and output_format != "text":
        raise click.UsageError("--statistics prints a text table; drop --format or use --format text")
    return output_format


def _use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@main.command("check")
@click.argument("paths", nargs=-1, required=True)
@_selection_options
@click.option("--format", "output_format", type=FORMATS, default=None,
              help="Output format [default: text; github when GITHUB_ACTIONS=true].")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (2 still means bad input).")
@click.option("--fix", is_flag=True, help="Apply safe fixes to the files in place, then report what is left.")
@click.option("--unsafe-fixes", is_flag=True,
              help="Also apply fixes that change behaviour beyond the finding (TP/DP, lengths); with --fix or --diff.")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the fixes as a unified diff, write nothing, and report what the fixes would leave (exit 1 when a file would change).")
@click.option("--no-inline-suppressions", is_flag=True, help="Ignore every '# qlint: disable' comment.")
@click.option("--show-suppressed", is_flag=True, help="Text format: also list suppressed findings with their reasons.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary, no notes.")
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of the findings.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour severities (auto: on a terminal, unless NO_COLOR is set).")
@click.option("--lang", type=click.Choice(["en", "zh"]), default=None,
              help="Language of messages and fixes (default: from the locale).")
@click.option("--launcher", metavar="COMMAND",
              help="The launch_online_dp.py command that runs the DP template(s), e.g. "
                   "'python launch_online_dp.py --dp-size 8 --tp-size 2 --dp-address 10.0.0.1'.")
def check_command(paths, hardware, version, select, ignore, fail_level, config_path, output_format, exit_zero,
                  fix, unsafe_fixes, show_diff, no_inline_suppressions, show_suppressed, quiet, statistics, color,
                  lang, launcher):
    """Lint launch scripts (files, directories, or - for stdin)."""
    from qlint.knowledge.base import KnowledgeError, load
    from qlint.linter.config import ConfigError, resolve
    from qlint.linter.lint import Policy, lint_bytes
    from qlint.rules.graph import Settings

    DIFFS.clear()
    output_format = _choose_format(output_format, statistics)
    overrides = _overrides(hardware, version, select, ignore, fail_level)
    groups = _deployments(paths)
    if unsafe_fixes and not (fix or show_diff):
        raise click.UsageError("--unsafe-fixes goes with --fix or --diff")
    if fix and show_diff:
        raise click.UsageError("--diff shows the fixes without writing; drop --fix")
    if fix and any("-" in group for group in groups):
        raise click.UsageError("--fix rewrites files; it cannot be used with - (stdin)")
    mode = FixMode(write=fix, diff=show_diff, unsafe=unsafe_fixes)
    cache = _config_cache(config_path)
    try:
        kb = load()
    except KnowledgeError as error:
        _fail(f"qlint: knowledge base is broken: {error}")
    chosen_launcher = None
    if launcher is not None:
        from qlint.linter.deployment import parse_launcher

        try:
            chosen_launcher = parse_launcher(launcher, kb)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--launcher")
    settings = Settings(hardware=overrides.hardware, version=overrides.vllm_ascend)
    checked = []  # (LintResult, Effective)
    notices = []  # sarif.Notice of each input error
    for group in groups:
        checked += _lint_group(group, cache, overrides, settings, kb, chosen_launcher, mode, quiet, notices,
                               inline=not no_inline_suppressions)
    results = [result for result, _ in checked]
    _report(results, kb, output_format, notices, quiet=quiet, statistics=statistics,
            show_suppressed=show_suppressed, color=_use_color(color), lang=lang or _default_lang())
    if notices:
        sys.exit(2)
    if show_diff:  # like ruff --diff: exit 1 when a file would change
        sys.exit(1 if DIFFS and not exit_zero else 0)
    failing = any(effective.is_failure(f.level) for result, effective in checked for f in result.findings)
    sys.exit(1 if failing and not exit_zero else 0)


def _lint_group(group, cache, overrides, settings, kb, launcher, mode, quiet, notices, *, inline):
    """Lint one deployment: per-file policies, optional fixes, then the deployment pass."""
    from qlint.linter.config import ConfigError, resolve
    from qlint.linter.deployment import lint_deployment
    from qlint.linter.lint import Policy, lint_bytes

    inputs, policies, effectives, first = [], {}, {}, []
    for path in group:
        display = "<stdin>" if path == "-" else path
        try:
            effective = resolve(cache.for_path(path), overrides)
        except ConfigError as error:
            _fail(str(error))
        policy = Policy(enabled=effective.enabled_ids(), severity=effective.severity,
                        inline_suppressions=inline, hardware=effective.hardware, version=effective.vllm_ascend)

        def lint(content: bytes, display=display, policy=policy):
            return lint_bytes(display, content, settings=settings, kb=kb, policy=policy)

        result = _lint_path(path, display, lint, mode, quiet, notices)
        if result is None:
            continue
        inputs.append((display, result.source.data))
        first.append(result)
        policies[display] = policy
        effectives[display] = effective
    results = lint_deployment(inputs, settings, kb, launcher, policies, first) if inputs else []
    return [(result, effectives[result.path]) for result in results]


DIFFS: list[str] = []
"""Files for which --diff printed a change (this process)."""


@dataclass(frozen=True)
class FixMode:
    """What to do with fixes: ``write`` (--fix), ``diff`` (--diff), ``unsafe`` (--unsafe-fixes)."""

    write: bool = False
    diff: bool = False
    unsafe: bool = False


def _lint_path(path, display, lint, mode, quiet, notices):
    """Read, lint (and with fixes asked for, repair or diff) one path; None after an input error."""

    def failed(line, column, message):
        from qlint.linter.sarif import Notice

        notices.append(Notice(display, line, column, message))
        click.echo(f"{display}:{line}:{column}: error: {message}", err=True)

    try:
        data = _read(path)
    except OSError as error:
        return failed(1, 1, f"cannot read file: {error.strerror or error}")
    if not (mode.write or mode.diff):
        result = lint(data)
    else:
        from qlint.linter.fixer import fix_bytes, unified_diff, write_atomic  # tempfile: only when fixing

        outcome = fix_bytes(display, data, lint, unsafe=mode.unsafe)
        result = outcome.result
        if outcome.data is not None and mode.diff:
            click.echo(unified_diff(display, data, outcome.data), nl=False)
            DIFFS.append(display)
            result = outcome.result  # what would be left after the fixes
        elif outcome.data is not None:
            try:
                write_atomic(path, outcome.data)
            except OSError as error:
                return failed(1, 1, f"cannot write the fixed file: {error.strerror or error}")
            if not quiet:
                click.echo(f"{display}: fixed {outcome.applied} problem(s)", err=True)
        elif outcome.rolled_back:
            click.echo(f"{display}: fixes would leave a script bash cannot parse; file left unchanged", err=True)
    if result.error is not None:
        return failed(result.error.line, result.error.column, result.error.message)
    return result


def _report(results, kb, output_format, notices, *, quiet, statistics, show_suppressed, color, lang="en"):
    from qlint.linter.reporters import render_json, render_text, summary
    from qlint.linter.reporters import statistics as count_per_rule

    assumed = sorted({r.assumed_version for r in results if r.assumed_version})
    if assumed and not quiet and output_format in ("text", "github"):
        click.echo(f"note: no vllm-ascend version given or found in the script; assuming {assumed[0]} "
                   "(latest stable)", err=True)
    if output_format == "json":
        click.echo(render_json(results, kb, lang))
        return
    if output_format == "sarif":
        from qlint.linter.sarif import render_sarif

        click.echo(render_sarif(results, notices, lang))
        return
    if output_format == "github":
        from qlint.linter.github import render_github

        text = render_github(results, lang)
    elif statistics:
        text = count_per_rule(results)
    else:
        text = render_text(results, kb, color=color, show_suppressed=show_suppressed, lang=lang)
    if text:
        click.echo(text, color=color or None)
    if not quiet:
        line = summary(results)
        if notices:
            line += f"; {len(notices)} input(s) could not be read (see the errors above)"
        click.echo(line)


@main.command("config")
@click.argument("path", required=False, default=".")
@click.option("--show", is_flag=True, help="Print the effective configuration and where each value comes from.")
@_selection_options
def config_command(path, show, hardware, version, select, ignore, fail_level, config_path):
    """Show the configuration that applies to PATH (default: the current folder)."""
    from qlint.linter.config import ConfigError, describe, resolve

    if not show:
        raise click.UsageError("say what to do: qlint config --show [PATH]")
    overrides = _overrides(hardware, version, select, ignore, fail_level)
    cache = _config_cache(config_path)
    target = Path(path)
    probe = str(target / "_") if target.is_dir() else path
    try:
        effective = resolve(cache.for_path(probe), overrides)
    except ConfigError as error:
        _fail(str(error))
    click.echo(describe(effective, path))


@main.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
def rules_command(output_format):
    """List every rule: id, name, severity, title."""
    import json

    from qlint.linter.catalog import all_rules

    rules = all_rules()
    if output_format == "json":
        click.echo(json.dumps([
            {"id": m.id, "name": m.name, "severity": m.severity, "title": m.title.en, "fix": m.fix}
            for m in rules
        ], indent=2))
        return
    for meta in rules:
        click.echo(f"{meta.id}  {meta.name:<40} {meta.severity:<8} {meta.title.en}")


def _default_lang() -> str:
    """``zh`` when the locale is Chinese (LC_ALL, LC_MESSAGES, LANG), else ``en``."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


LANGS = click.Choice(["en", "zh"])


@main.command("explain")
@click.argument("rule", required=False)
@click.option("--log", "log_path", metavar="FILE", help="Explain the failure in a server log (- for stdin).")
@click.option("--script", "script_path", metavar="FILE", help="With --log: the launch script, to show its corrected command.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@click.option("--lang", type=LANGS, default=None, help="en or zh (default: from the locale).")
def explain_command(rule, log_path, script_path, output_format, lang):
    """Explain a rule (by id or name), or a server log's failure (--log)."""
    lang = lang or _default_lang()
    if log_path is not None:
        _explain_log(log_path, script_path, output_format, lang)
        return
    if rule is None:
        raise click.UsageError("name a rule (qlint explain QL201) or a log (qlint explain --log server.log)")
    from qlint.knowledge.base import load
    from qlint.linter.catalog import find_rule
    from qlint.linter.reporters import faq_url

    meta = find_rule(rule)
    if meta is None:
        _fail(f"qlint: no rule {rule!r}; see `qlint rules`")
    heading = {"en": ("What it checks", "Why", "Example", "Use instead", "Fix safety", "Sources", "FAQ"),
               "zh": ("检查内容", "原因", "示例", "推荐写法", "修复安全性", "来源", "常见问题")}[lang]
    click.echo(f"{meta.id} {meta.name} ({meta.severity})")
    click.echo(f"\n{heading[0]}: {getattr(meta.title, lang)}")
    click.echo(f"\n{heading[1]}: {getattr(meta.why, lang)}")
    for example in meta.examples[:1]:
        click.echo(f"\n{heading[2]}:\n{example.bad.rstrip()}")
        click.echo(f"\n{heading[3]}:\n{example.good.rstrip()}")
    click.echo(f"\n{heading[4]}: {meta.fix}")
    click.echo(f"\n{heading[5]}:")
    for source in meta.sources:
        click.echo(f"  - {source}")
    url = faq_url(load(), meta.faq)
    if url:
        click.echo(f"\n{heading[6]}: {url}")


def _explain_log(log_path, script_path, output_format, lang):
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
        _fail(f"{log_path}:1:1: error: cannot read log: {error.strerror or error}")
    script_result = None
    if script_path is not None:
        try:
            data = _read(script_path)
        except OSError as error:
            _fail(f"{script_path}:1:1: error: cannot read file: {error.strerror or error}")
        script_result = lint_bytes(script_path, data, kb=kb)
        if script_result.error is not None:
            _fail(f"{script_path}:{script_result.error.line}:{script_result.error.column}: error: "
                  f"{script_result.error.message}")
    if output_format == "json":
        click.echo(json.dumps([m.as_dict(lang) for m in matches], indent=2, ensure_ascii=False))
    else:
        click.echo(render_explanations(matches, lang, script_result, path="<stdin>" if log_path == "-" else log_path))
    sys.exit(1 if matches else 0)


@main.command("generate")
@click.option("--model", "model_id", required=True, help="Model id or checkpoint name, e.g. Qwen3.6-27B.")
@click.option("--hardware", type=HARDWARE, required=True)
@click.option("--scenario", type=click.Choice(["high-throughput", "low-latency", "long-context"]),
              default="high-throughput", show_default=True)
@click.option("--quantized/--bf16", default=True, show_default=True, help="W8A8 checkpoint (default) or BF16.")
@click.option("--vllm-ascend-version", "version", metavar="TAG", help="Release to target (default: latest stable).")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@click.option("--pd", type=click.Choice(["1P1D"]), default=None,
              help="Generate a prefill/decode disaggregated deployment (P and D scripts and the proxy).")
@click.option("-o", "--output", type=click.Path(writable=True),
              help="Write the script here (with --pd: a folder for run_p.sh, run_d.sh and proxy.sh).")
def generate_command(model_id, hardware, scenario, quantized, version, port, output_format, pd, output):
    """Write a complete, commented launch script from the knowledge (it lints clean)."""
    from qlint.knowledge.base import load, parse_version
    from qlint.linter.generate import GenerationError, generate

    if version is not None:
        try:
            parse_version(version)
        except Exception:
            raise click.BadParameter(f"{version!r} is not a release tag like v0.23.0", param_hint="--vllm-ascend-version")
    if pd is not None:
        _generate_pd(model_id, hardware.lower(), quantized, version, output_format, output)
        return
    try:
        deployment = generate(load(), model_id, hardware.lower(), scenario, quantized, version, port=port)
    except GenerationError as error:
        _fail(f"qlint generate: not supported: {error}")
    text = deployment.to_json() if output_format == "json" else deployment.script
    if output:
        from qlint.linter.fixer import write_atomic

        Path(output).touch(exist_ok=True)
        write_atomic(output, text.encode("utf-8"))
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=not text.endswith("\n"))


def _generate_pd(model_id, hardware, quantized, version, output_format, output):
    from qlint.knowledge.base import load
    from qlint.linter.fixer import write_atomic
    from qlint.linter.generate import GenerationError, generate_pd

    try:
        deployment = generate_pd(load(), model_id, hardware, quantized, version)
    except GenerationError as error:
        _fail(f"qlint generate: not supported: {error}")
    files = {"run_p.sh": deployment.prefill.script, "run_d.sh": deployment.decode.script, "proxy.sh": deployment.proxy}
    if output_format == "json":
        click.echo(deployment.to_json())
        return
    if output:
        folder = Path(output)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            target = folder / name
            target.touch(exist_ok=True)
            write_atomic(str(target), text.encode("utf-8"))
        click.echo(f"wrote {', '.join(str(folder / n) for n in files)}", err=True)
        return
    for name, text in files.items():
        click.echo(f"# ===== {name} =====")
        click.echo(text, nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
