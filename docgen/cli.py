"""The ``qdoc`` command line: build the bilingual site, or check that its sources are current.

``qdoc build`` renders the MyST sources of both languages from the knowledge,
lints every shell block of the guides (any finding at warning level or above
stops the build), writes the sources to ``docs/_generated/<lang>`` and runs
Sphinx on each tree (warnings are errors) into ``docs/_build/html/<lang>``.
``--format markdown`` writes plain Markdown for MkDocs instead. ``qdoc check``
exits 1 when the committed sources differ from what the knowledge gives now.
Exit codes: 0 success, 1 lint findings / stale sources / Sphinx failure,
2 bad usage.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from qlint import __version__
from qlint.docgen.i18n import LANGS

if TYPE_CHECKING:
    from qlint.docgen.writer import Flavor

LANG_CHOICE = click.Choice([*LANGS, "all"])


def project_root() -> Path:
    """The repository that holds ``docs/`` (an editable install), else the current directory."""
    here = Path(__file__).resolve().parent.parent
    if (here / "pyproject.toml").is_file() and (here / "docs").is_dir():
        return here
    return Path.cwd()


def default_source() -> Path:
    return project_root() / "docs" / "_generated"


def default_out(output_format: str) -> Path:
    return project_root() / "docs" / "_build" / ("html" if output_format == "html" else "markdown")


def _langs(choice: str) -> tuple[str, ...]:
    return LANGS if choice == "all" else (choice,)


def _load():
    from qlint.knowledge.base import KnowledgeError, load

    try:
        return load()
    except KnowledgeError as error:
        click.echo(f"qdoc: knowledge base is broken: {error}", err=True)
        sys.exit(1)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="qdoc")
def main() -> None:
    """Build qlint's bilingual documentation (guides, rules, FAQ) from its knowledge base."""


def _require_docs_extra() -> None:
    """Exit 2 with the install line when the Sphinx toolchain (the ``docs`` extra) is missing."""
    import importlib.util

    missing = [name for name in ("sphinx", "myst_parser", "sphinx_click") if importlib.util.find_spec(name) is None]
    if missing:
        from qlint.install_hint import extra_install

        click.echo(f"qdoc: the HTML site needs the docs extra ({', '.join(missing)} not installed): "
                   f"{extra_install('docs')}  (or write Markdown without it: qdoc build --format markdown)",
                   err=True)
        sys.exit(2)


@main.command("build")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output directory [default: docs/_build/html, or docs/_build/markdown with --format markdown].")
@click.option("--lang", "lang", type=LANG_CHOICE, default="all", show_default=True, help="Language(s) to build.")
@click.option("--format", "output_format", type=click.Choice(["html", "markdown"]), default="html", show_default=True,
              help="html: the Sphinx site; markdown: plain Markdown for vllm-ascend's MkDocs tree.")
@click.option("--source", "source", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the generated MyST sources go [default: docs/_generated].")
def build_command(out, lang, output_format, source):
    """Render the sources, lint every shell block of the guides, and build the site."""
    from qlint.docgen.build import SphinxError, lint_guides, redirect_page, sphinx_build_all, write_tree
    from qlint.docgen.site import render_site

    started = time.monotonic()
    if output_format == "html":
        _require_docs_extra()
    kb = _load()
    langs = _langs(lang)
    flavor: Flavor = "myst" if output_format == "html" else "markdown"
    trees = render_site(kb, langs, flavor)
    report = lint_guides(list(trees.values()), kb=kb)
    for problem in report.problems:
        click.echo(str(problem), err=True)
    if report.problems:
        click.echo(f"qdoc: {len(report.problems)} finding(s) at warning level or above in the guides; "
                   "nothing written", err=True)
        sys.exit(1)
    click.echo(f"qdoc: linted {report.blocks} shell blocks in {sum(len(t.guide_pages) for t in trees.values())} "
               "guide pages: clean")
    if output_format == "html" and "zh_CN" in langs:
        from qlint.docgen.cli_zh import untranslated
        from qlint.docgen.pages import CLI_COMMANDS

        missing = untranslated(CLI_COMMANDS)
        if missing:
            click.echo("qdoc: note: CLI help without a Chinese translation (English kept; add it to "
                       f"qlint/docgen/cli_zh.py): {', '.join(missing)}", err=True)
    out = out or default_out(output_format)
    if output_format == "markdown":
        for code, tree in trees.items():
            write_tree(tree, out / code)
            click.echo(f"qdoc: {code}: {len(tree.pages)} Markdown pages in {out / code}")
        click.echo(f"qdoc: done in {time.monotonic() - started:.1f} s")
        return
    source = source or default_source()
    for code, tree in trees.items():
        changed = write_tree(tree, source / code)
        if changed:
            click.echo(f"qdoc: {code}: updated {len(changed)} source file(s) in {source / code}")
    try:
        sphinx_build_all([(source / code, out / code, out / ".doctrees" / code) for code in trees])
    except SphinxError as error:
        click.echo(f"qdoc: sphinx failed (warnings are errors):\n{error}", err=True)
        sys.exit(1)
    for code, tree in trees.items():
        click.echo(f"qdoc: {code}: {len(tree.pages)} pages -> {out / code / 'index.html'}")
    (out / "index.html").write_text(redirect_page(langs[0]), encoding="utf-8")
    click.echo(f"qdoc: site in {out} (open {out / 'index.html'}); done in {time.monotonic() - started:.1f} s")


@main.command("generate")
@click.option("--source", "source", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the generated MyST sources go [default: docs/_generated].")
def generate_command(source):
    """Write the MyST sources only (no lint, no Sphinx)."""
    from qlint.docgen.build import write_tree
    from qlint.docgen.site import render_site

    source = source or default_source()
    for code, tree in render_site(_load()).items():
        changed = write_tree(tree, source / code)
        click.echo(f"qdoc: {code}: {len(changed)} file(s) updated in {source / code}")


@main.command("check")
@click.option("--source", "source", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The committed MyST sources [default: docs/_generated].")
def check_command(source):
    """Exit 1 when the committed generated sources differ from the knowledge."""
    from qlint.docgen.build import stale_files
    from qlint.docgen.site import render_site

    source = source or default_source()
    stale = []
    for code, tree in render_site(_load()).items():
        stale += [f"{source / code}/{item}" for item in stale_files(tree, source / code)]
    if stale:
        for item in stale:
            click.echo(f"stale: {item}", err=True)
        click.echo(f"qdoc: {len(stale)} generated file(s) are stale; run `qdoc build` (or `qdoc generate`) "
                   "and commit docs/_generated", err=True)
        sys.exit(1)
    click.echo("qdoc: generated sources are up to date")


if __name__ == "__main__":  # pragma: no cover
    main()
