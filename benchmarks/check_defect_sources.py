"""Check the sources of every known-defect entry (knowledge/data/defects.toml) against a git mirror
of vllm-ascend (not a test; run by hand when entries are added).

    python benchmarks/check_defect_sources.py [--mirror DIR] [--show]

For each release-notes link (``.../blob/<pin>/docs/source/user_guide/release_notes.md#L<n>``) it reads the
file at that pin and reports the line when it is not inside a Known Issues section (``### Known Issue(s)``,
``Knowissue``) or is past the end of the file. ``--show`` prints every cited line with the release section
it belongs to, for review by eye. An entry of origin ``release-notes`` must cite such a line; an entry of
origin ``issue`` must cite an issue or pull request. Exit status 1 when anything is wrong. Reads public
sources only; never imports vllm or vllm-ascend.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTES = re.compile(
    r"^https://github\.com/vllm-project/vllm-ascend/blob/(?P<pin>[^/]+)/docs/source/user_guide/release_notes\.md"
    r"#L(?P<line>\d+)$"
)
REPORT = re.compile(r"^https://github\.com/vllm-project/(vllm-ascend|vllm)/(issues|pull)/\d+$")
KNOWN = re.compile(r"known\s*issue|knowissue", re.IGNORECASE)


@lru_cache(maxsize=None)
def notes_at(mirror: str, pin: str) -> tuple[str, ...]:
    result = subprocess.run(["git", "-C", mirror, "show", f"{pin}:docs/source/user_guide/release_notes.md"],
                            capture_output=True, text=True)
    return tuple(result.stdout.split("\n")) if result.returncode == 0 else ()


def enclosing(lines: tuple[str, ...], number: int, prefix: str) -> str:
    """The nearest heading above line ``number`` (1-based) that starts with ``prefix``."""
    for index in range(number - 1, -1, -1):
        if lines[index].startswith(prefix):
            return lines[index]
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", default="/work/.mirror/vllm-project+vllm-ascend/repo")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    entries = tomllib.loads((ROOT / "knowledge" / "data" / "defects.toml").read_text())["defect"]
    problems = 0
    for entry in entries:
        notes_links = [NOTES.match(s) for s in entry["sources"]]
        if entry["origin"] == "release-notes" and not any(notes_links):
            print(f"origin   {entry['id']}: no release-notes line cited")
            problems += 1
        if entry["origin"] == "issue" and not any(REPORT.match(s) for s in entry["sources"]):
            print(f"origin   {entry['id']}: no issue or pull request cited")
            problems += 1
        for match in filter(None, notes_links):
            lines = notes_at(args.mirror, match["pin"])
            number = int(match["line"])
            if not lines or number > len(lines):
                print(f"range    {entry['id']}: {match.group(0)}")
                problems += 1
                continue
            heading = enclosing(lines, number, "#")
            if not KNOWN.search(heading):
                print(f"section  {entry['id']}: L{number} at {match['pin']} is under {heading!r}")
                problems += 1
            if args.show:
                release = enclosing(lines, number, "## ")
                print(f"{entry['id']:42} {match['pin'][:12]:12} L{number:<5} {release[:24]:24} | {lines[number - 1][:90]}")
    print(f"entries {len(entries)}, problems {problems}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
