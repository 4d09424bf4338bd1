"""Lint every block of the docs corpus at every ref it occurs at; list the error-level findings.

Usage:
    python tests/corpus/review_corpus.py FIXTURE_DIR [--json OUT] [--rule QL106]
    python tests/corpus/review_corpus.py FIXTURE_DIR --annotate tests/corpus/verdicts.toml

Each fixture (written by ``extract_tutorial_blocks.py MIRROR corpus DIR``) names the refs it
occurs at (``# refs:``). A block is linted at each of them (the ref is the release unless the
block names a vllm-ascend image tag, which qlint then reads) and on the hardware its page
states (``# qlint: hardware=``; none: qlint's default). The output groups the error-level
findings by rule with the fixture, ref and message, for the review against the source at that
tag; verdicts go into the fixture header as ``# qlint-expect: QLnnn -- real: reason``.

``--annotate VERDICTS`` matches every error-level finding with a verdict of the reviewed table
(rule + message text -> reason) and rewrites each fixture's header: ``# qlint-expect: QLnnn @ref --
real: reason`` (the newest ref it fires at) and ``# qlint-unreadable: message`` for a block qlint
refuses to read (exit 2). Findings no verdict matches are printed as unreviewed; exit 1 then.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings


def header(text: str, key: str) -> list[str]:
    prefix = f"# {key}:"
    return [line[len(prefix):].strip() for line in text.splitlines() if line.startswith(prefix)]


def refs_of(text: str) -> list[str]:
    values = header(text, "refs")
    return values[0].split() if values else []


def lint_at(path: Path, text: str, ref: str):
    has_image = "vllm-ascend:" in text
    settings = Settings(version=None if has_image else ref)
    return lint_text(str(path), text, settings=settings)


def review(folder: Path, rule: str | None = None) -> list[dict]:
    rows = []
    for path in sorted(folder.glob("*.sh")):
        text = path.read_text(encoding="utf-8")
        for ref in refs_of(text):
            result = lint_at(path, text, ref)
            if result.error is not None:
                rows.append({"file": path.name, "ref": ref, "rule": "input-error", "line": result.error.line,
                             "message": result.error.message})
                continue
            for finding in result.findings:
                if finding.level != "error" or (rule and finding.rule.id != rule):
                    continue
                rows.append({"file": path.name, "ref": ref, "rule": finding.rule.id, "line": finding.span.line,
                             "message": finding.message})
    return rows


_OWN = ("# qlint-expect:", "# qlint-unreadable:")


def annotate(folder: Path, verdicts_path: Path) -> list[dict]:
    import tomllib

    verdicts = tomllib.loads(verdicts_path.read_text(encoding="utf-8"))["verdict"]
    unreviewed = []
    for path in sorted(folder.glob("*.sh")):
        text = path.read_text(encoding="utf-8")
        clean = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(_OWN))
        expects: dict[tuple[str, str], str] = {}  # (rule, reason) -> newest ref
        unreadable = None
        for ref in refs_of(clean):
            result = lint_at(path, clean, ref)
            if result.error is not None:
                unreadable = f"{result.error.message} (line {result.error.line})"
                continue
            for finding in result.findings:
                if finding.level != "error":
                    continue
                verdict = next((v for v in verdicts if v["rule"] == finding.rule.id and v["match"] in finding.message), None)
                if verdict is None:
                    unreviewed.append({"file": path.name, "ref": ref, "rule": finding.rule.id, "message": finding.message})
                    continue
                expects[(finding.rule.id, verdict["reason"])] = ref
        lines = clean.splitlines(keepends=True)
        at = 1 if lines and lines[0].startswith("#!") else 0
        while at < len(lines) and lines[at].startswith(("# source:", "# refs:", "# context:", "# qlint: ")):
            at += 1
        added = [f"# qlint-expect: {rule} @{ref} -- real: {reason}\n" for (rule, reason), ref in sorted(expects.items())]
        if unreadable:
            added.append(f"# qlint-unreadable: {unreadable}\n")
        path.write_text("".join(lines[:at] + added + lines[at:]), encoding="utf-8")
    return unreviewed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--rule")
    parser.add_argument("--annotate", type=Path, help="a verdicts TOML: write the verdicts into the fixtures")
    options = parser.parse_args(argv)
    if options.annotate:
        unreviewed = annotate(options.folder, options.annotate)
        for row in unreviewed:
            print(f"unreviewed: {row['file']} @{row['ref']} {row['rule']}: {row['message']}")
        print(f"{len(unreviewed)} unreviewed error-level findings", file=sys.stderr)
        return 1 if unreviewed else 0
    rows = review(options.folder, options.rule)
    if options.json:
        options.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    counts = Counter(row["rule"] for row in rows)
    print(f"{len(rows)} error-level findings; by rule: {dict(counts.most_common())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
