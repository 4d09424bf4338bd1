"""Lint every block of the docs corpus at every ref it occurs at; list the error-level findings.

Usage:
    python tests/corpus/review_corpus.py FIXTURE_DIR [--json OUT] [--rule QL106]

Each fixture (written by ``extract_tutorial_blocks.py MIRROR corpus DIR``) names the refs it
occurs at (``# refs:``). A block is linted at each of them (the ref is the release unless the
block names a vllm-ascend image tag, which qlint then reads) and on the hardware its page
states (``# qlint: hardware=``; none: qlint's default). The output groups the error-level
findings by rule with the fixture, ref and message, for the review against the source at that
tag; verdicts go into the fixture header as ``# qlint-expect: QLnnn -- real: reason``.
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--rule")
    options = parser.parse_args(argv)
    rows = review(options.folder, options.rule)
    if options.json:
        options.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    counts = Counter(row["rule"] for row in rows)
    print(f"{len(rows)} error-level findings; by rule: {dict(counts.most_common())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
