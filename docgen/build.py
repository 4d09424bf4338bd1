"""Write, check, lint and build the generated trees.

* ``lint_guides(trees)``: every shell block of every guide page, linted with
  qlint; client blocks (curl, lm_eval, vllm bench) are also linted after the
  page's first launch script, so a wrong model name is caught. Returns the
  problems at warning level or above (empty: clean).
* ``write_tree`` / ``stale_files``: keep ``docs/_generated/<lang>`` equal to
  what ``render_tree`` produces (``qdoc check`` reports the difference).
* ``sphinx_build``: one language tree to HTML with warnings as errors.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from qlint.docgen.markdown_blocks import CodeBlock, lint_block, shell_blocks
from qlint.docgen.site import Tree
from qlint.knowledge.base import KnowledgeBase
from qlint.linter.lint import at_or_above

CLIENT_WORDS = ("curl ", "lm_eval", "vllm bench")
MANAGED_SUFFIXES = (".md", ".py", ".html", ".css")
"""File types qdoc writes into a generated tree; others found there are left alone."""


@dataclass(frozen=True)
class Problem:
    """A finding (or an unreadable block) in a generated page, at its place in the page."""

    path: str
    line: int
    column: int
    severity: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.severity} {self.rule} {self.message}"


@dataclass
class LintReport:
    blocks: int
    problems: list[Problem]


def lint_guides(trees: list[Tree], kb: KnowledgeBase | None = None, level: str = "warning") -> LintReport:
    """Lint every shell block of every guide page of ``trees``.

    Identical blocks are linted once (the two languages share most commands).
    """
    cache: dict[tuple[str, str], list[tuple[int, int, str, str, str]]] = {}
    problems: list[Problem] = []
    count = 0
    for tree in trees:
        for page in tree.guide_pages:
            text = tree.files[page]
            blocks = shell_blocks(text)
            servers = [b for b in blocks if "vllm serve " in b.text]
            prefix = servers[0].text if servers else ""
            for block in blocks:
                count += 1
                runs = [""]
                if prefix and block is not servers[0] and any(word in block.text for word in CLIENT_WORDS):
                    runs.append(prefix)
                for run_prefix in runs:
                    for line, column, severity, rule, message in _lint_cached(cache, block, run_prefix, kb, level):
                        problems.append(Problem(f"{tree.lang}/{page}", line, column, severity, rule, message))
    return LintReport(blocks=count, problems=sorted(set(problems), key=lambda p: (p.path, p.line, p.column, p.rule)))


def _lint_cached(cache, block: CodeBlock, prefix: str, kb, level: str):
    key = (block.text, prefix)
    if key not in cache:
        relative = CodeBlock(block.language, block.info, block.text, line=1, indent=0)
        result = lint_block("block.sh", relative, kb=kb, prefix=prefix)
        if result.error is not None:
            cache[key] = [(result.error.line, result.error.column, "error", "input", result.error.message)]
        else:
            cache[key] = [(f.span.line, f.span.column, f.level, f.rule.id, f.message)
                          for f in at_or_above(result.findings, level)]
    return [(line + block.line - 1, column + block.indent, severity, rule, message)
            for line, column, severity, rule, message in cache[key]]


# -- generated sources -------------------------------------------------------------------------

def _managed(root: Path) -> dict[str, Path]:
    if not root.is_dir():
        return {}
    return {
        path.relative_to(root).as_posix(): path
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.suffix in MANAGED_SUFFIXES and "__pycache__" not in path.parts
    }


def stale_files(tree: Tree, root: Path) -> list[str]:
    """Paths under ``root`` that differ from the tree: missing, changed or no longer generated."""
    present = _managed(root)
    out = []
    for path, text in tree.files.items():
        file = present.get(path)
        if file is None:
            out.append(f"{path} (missing)")
        elif file.read_bytes() != text.encode("utf-8"):
            out.append(f"{path} (out of date)")
    out += [f"{path} (no longer generated)" for path in present if path not in tree.files]
    return out


def write_tree(tree: Tree, root: Path) -> list[str]:
    """Make ``root`` hold exactly the tree's files; returns the paths written or removed."""
    changed = []
    for path, text in tree.files.items():
        target = root / path
        data = text.encode("utf-8")
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        changed.append(path)
    for path, file in _managed(root).items():
        if path not in tree.files:
            file.unlink()
            changed.append(path)
    return changed


# -- Sphinx ---------------------------------------------------------------------------------------

class SphinxError(Exception):
    """Sphinx failed or warned (warnings are errors); the message carries its output."""


def sphinx_build(source: Path, out: Path, doctrees: Path, builder: str = "html") -> None:
    """Build one tree with warnings as errors. Raises SphinxError with Sphinx's messages.

    A tree whose sources, qdoc code, Sphinx version and builder are those of the last clean build into
    ``out`` (the stamp in ``doctrees``) is not built again: its output is current. Anything else is
    built from nothing (Sphinx's own incremental mode once dropped the index entries from the search
    index), and the stamp is written only after a clean build, so a warning is never lost."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    stamp_file = doctrees / "qdoc-build-stamp"
    stamp = _build_stamp(source, builder)
    if stamp_file.is_file() and stamp_file.read_text(encoding="utf-8") == stamp and (out / "index.html").is_file():
        return
    stamp_file.unlink(missing_ok=True)
    status, warnings = io.StringIO(), io.StringIO()
    try:
        with patch_docutils(source), docutils_namespace():
            app = Sphinx(str(source), str(source), str(out), str(doctrees), builder, status=status, warning=warnings,
                         freshenv=True, warningiserror=True, keep_going=True, verbosity=0)
            app.build(force_all=True)
    except Exception as error:  # Sphinx raises its own errors for a warning under -W
        raise SphinxError(f"{error}\n{warnings.getvalue()}".strip()) from None
    if app.statuscode or warnings.getvalue().strip():
        raise SphinxError(warnings.getvalue().strip() or f"sphinx exited with status {app.statuscode}")
    stamp_file.write_text(stamp, encoding="utf-8")


def _build_stamp(source: Path, builder: str) -> str:
    """What a build's output depends on: every file of the source tree, qdoc's own code (its Sphinx
    extension and settings render the pages), qlint's and Sphinx's versions and the builder."""
    import hashlib

    import sphinx

    from qlint import __version__

    digest = hashlib.sha256(f"{__version__}\0{sphinx.__version__}\0{builder}\0".encode())
    code = Path(__file__).parent
    for root, files in ((code, sorted(code.glob("*.py"))), (source, sorted(p for p in source.rglob("*") if p.is_file()))):
        for path in files:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def sphinx_build_all(jobs: list[tuple[Path, Path, Path]]) -> None:
    """Build several trees, in parallel processes when there is more than one.

    ``jobs`` are (source, out, doctrees) triples. Raises SphinxError for the first failing tree.
    """
    if len(jobs) == 1:
        sphinx_build(*jobs[0])
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=len(jobs)) as pool:
        futures = [pool.submit(sphinx_build, *job) for job in jobs]
        errors = [future.exception() for future in futures]
    failed = [(job, error) for job, error in zip(jobs, errors) if error is not None]
    if failed:
        (source, _, _), error = failed[0]
        raise SphinxError(f"{source.name}: {error}")


def redirect_page(lang: str) -> str:
    """The site root: send the browser to the language tree."""
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"refresh\" content=\"0; url={lang}/index.html\">"
        f"<title>qlint</title></head><body><a href=\"{lang}/index.html\">{lang}/index.html</a></body></html>\n"
    )
