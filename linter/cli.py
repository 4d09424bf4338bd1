"""The ``qlint`` command line.

``qlint [OPTIONS] PATH...`` lints files, directories (``*.sh``/``*.bash`` and
files with a shell shebang) or ``-`` (stdin). ``qlint rules`` lists the rules,
``qlint explain QLnnn`` documents one. Exit codes: 0 no finding at or above the
fail level, 1 findings, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from qlint import __version__

HARDWARE = click.Choice(["a2", "a3", "310p"], case_sensitive=False)
FORMATS = click.Choice(["text", "json"])
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
    files: list[str] = []
    for raw in paths:
        if raw == "-":
            files.append("-")
            continue
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and (child.suffix in SHELL_SUFFIXES or _has_shell_shebang(child)):
                    files.append(str(child))
        else:
            files.append(raw)
    return files


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


@main.command("check")
@click.argument("paths", nargs=-1, required=True)
@click.option("--hardware", type=HARDWARE, help="Target hardware (default: from the script's image tag or directive).")
@click.option("--vllm-ascend-version", "version", metavar="TAG", help="vllm-ascend release, e.g. v0.23.0.")
@click.option("--format", "output_format", type=FORMATS, default="text", show_default=True)
@click.option("--fail-level", type=LEVELS, default="warning", show_default=True,
              help="Exit 1 when a finding is at or above this severity.")
def check_command(paths, hardware, version, output_format, fail_level):
    """Lint launch scripts (files, directories, or - for stdin)."""
    from qlint.knowledge.base import KnowledgeError, load, parse_version
    from qlint.linter.lint import at_or_above, lint_bytes
    from qlint.linter.reporters import render_json, render_text, summary
    from qlint.rules.graph import Settings

    try:
        kb = load()
    except KnowledgeError as error:
        click.echo(f"qlint: knowledge base is broken: {error}", err=True)
        sys.exit(2)
    if version is not None:
        try:
            parse_version(version)
        except Exception:
            raise click.BadParameter(f"{version!r} is not a release tag like v0.23.0", param_hint="--vllm-ascend-version")
    settings = Settings(hardware=hardware.lower() if hardware else None, version=version)
    results = []
    failed_input = False
    for path in _collect(paths):
        display = "<stdin>" if path == "-" else path
        try:
            data = _read(path)
        except OSError as error:
            click.echo(f"{display}:1:1: error: cannot read file: {error.strerror or error}", err=True)
            failed_input = True
            continue
        result = lint_bytes(display, data, settings=settings, kb=kb)
        if result.error is not None:
            click.echo(f"{display}:{result.error.line}:{result.error.column}: error: {result.error.message}", err=True)
            failed_input = True
            continue
        results.append(result)
    assumed = sorted({r.assumed_version for r in results if r.assumed_version})
    if assumed and output_format == "text":  # machine formats keep stderr clean
        click.echo(f"note: no vllm-ascend version given or found in the script; assuming {assumed[0]} "
                   "(latest stable)", err=True)
    if output_format == "json":
        click.echo(render_json(results, kb))
    else:
        text = render_text(results, kb, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ)
        if text:
            click.echo(text)
        click.echo(summary(results))
    if failed_input:
        sys.exit(2)
    findings = [f for r in results for f in r.findings]
    sys.exit(1 if at_or_above(findings, fail_level) else 0)


@main.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
def rules_command(output_format):
    """List every rule: id, name, severity, title."""
    import json

    from qlint.rules.graph import default_graph

    rules = sorted((r.meta for r in default_graph().order()), key=lambda m: m.id)
    if output_format == "json":
        click.echo(json.dumps([
            {"id": m.id, "name": m.name, "severity": m.severity, "title": m.title.en, "fix": m.fix}
            for m in rules
        ], indent=2))
        return
    for meta in rules:
        click.echo(f"{meta.id}  {meta.name:<40} {meta.severity:<8} {meta.title.en}")


@main.command("explain")
@click.argument("rule")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en")
def explain_command(rule, lang):
    """Explain a rule (by id or name): what it checks, why, examples, sources, FAQ."""
    from qlint.knowledge.base import load
    from qlint.linter.reporters import faq_url
    from qlint.rules.graph import default_graph

    wanted = rule.upper() if rule.upper().startswith("QL") else rule
    metas = [r.meta for r in default_graph().order()]
    found = [m for m in metas if m.id == wanted or m.name == rule]
    if not found:
        click.echo(f"qlint: no rule {rule!r}; see `qlint rules`", err=True)
        sys.exit(2)
    meta = found[0]
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


if __name__ == "__main__":  # pragma: no cover
    main()
