"""Check every citation of every rule and knowledge record against the sources it names (not a test).

    python benchmarks/check_citations.py [--mirror DIR] [--sdists DIR] [--show]

For each https://github.com/vllm-project/vllm-ascend/blob/<pin>/<path>#Lx-Ly it reads <path> at <pin>
from a git mirror of vllm-ascend; for https://github.com/vllm-project/vllm/blob/vX.Y.Z/<path>#Lx it
reads vllm-X.Y.Z/<path> from the vLLM sdist (never installed, never imported). It reports:

* missing   - the file does not exist at that pin,
* range     - the line anchor is past the end of the file,
* key       - the record names a flag, key or variable that does not occur in the cited lines
              (+-3 lines), a hint that the anchor points at the wrong place,
* unchecked - citations of other repositories or sites (counted, not read).

``--show`` prints the first cited line of every anchored citation, for review by eye.
Exit status 1 when anything is missing or out of range. Reads public sources only.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import subprocess
import sys
import tarfile
from collections import Counter
from functools import lru_cache
from pathlib import Path

GITHUB_BLOB = re.compile(
    r"^https://github\.com/vllm-project/(?P<repo>vllm-ascend|vllm)/(?P<kind>blob|tree)/(?P<ref>[^/]+)/"
    r"(?P<path>[^?#\s]+)(?:\?plain=1)?(?:#L(?P<start>\d+)(?:-L(?P<end>\d+))?)?$"
)


def citations():
    """(owner, key, url) for every rule and every knowledge record."""
    import qlint.rules as rules_pkg
    from qlint.knowledge import base
    from qlint.knowledge.text import citation_url
    from qlint.rules.base import RuleMeta

    seen = set()
    for info in pkgutil.iter_modules(rules_pkg.__path__):
        module = importlib.import_module(f"qlint.rules.{info.name}")
        for value in vars(module).values():
            if isinstance(value, RuleMeta) and value.id not in seen:
                seen.add(value.id)
                for source in value.sources:
                    yield value.id, None, citation_url(source)
    from qlint.linter import suppressions

    for value in vars(suppressions).values():
        if isinstance(value, RuleMeta) and value.id not in seen:
            seen.add(value.id)
            for source in value.sources:
                yield value.id, None, citation_url(source)

    kb = base.load()

    def walk(owner, record):
        if isinstance(record, list):
            for item in record:
                yield from walk(owner, item)
            return
        if not hasattr(record, "__dict__"):
            return
        fields = vars(record)
        label = next((fields[k] for k in ("name", "key", "flag", "id", "model", "tag", "setting") if k in fields), "?")
        key = fields.get("name") or fields.get("key") or fields.get("flag")
        for source in fields.get("sources") or ():
            yield f"{owner}:{label}", key, citation_url(source)
        for value in fields.values():
            if isinstance(value, (list,)) or hasattr(value, "__dict__"):
                yield from walk(f"{owner}:{label}", value)

    for field_name, *_ in base.DATA_FILES:
        yield from walk(field_name, getattr(kb, field_name))

    # the per-release data written by ``python -m qlint.knowledge.extract``
    import json

    data = Path(base.__file__).parent / "data"
    for path in sorted((data / "vllm").glob("*.json")) + sorted((data / "ascend").glob("*.json")):
        yield from _json_sources(path.stem, None, json.loads(path.read_text()))


def _json_sources(owner, key, value):
    if isinstance(value, dict):
        key = value.get("name") or value.get("key") or key
        for field_name, item in value.items():
            if field_name == "source" or field_name.endswith(("_source", "_sources")):
                for url in [item] if isinstance(item, str) else (item or []):
                    if isinstance(url, str):
                        yield owner, (key if field_name in ("source", "field_source") else None), url
            else:
                yield from _json_sources(owner, key, item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_sources(owner, key, item)


class Sources:
    def __init__(self, mirror: Path, sdists: Path) -> None:
        self.mirror, self.sdists = mirror, sdists
        self._tars: dict[str, tarfile.TarFile | None] = {}

    @lru_cache(maxsize=None)
    def lines(self, repo: str, ref: str, path: str):
        """The file's lines, "tree" for a directory, None when absent."""
        if repo == "vllm-ascend":
            kind = subprocess.run(["git", "-C", str(self.mirror), "cat-file", "-t", f"{ref}:{path}"],
                                  capture_output=True, text=True)
            if kind.returncode:
                return None
            if kind.stdout.strip() == "tree":
                return "tree"
            blob = subprocess.run(["git", "-C", str(self.mirror), "show", f"{ref}:{path}"], capture_output=True)
            return blob.stdout.decode("utf-8", "replace").splitlines()
        version = ref.removeprefix("v")
        if version not in self._tars:
            archive = self.sdists / f"vllm-{version}.tar.gz"
            self._tars[version] = tarfile.open(archive) if archive.exists() else None
        tar = self._tars[version]
        if tar is None:
            return None
        name = f"vllm-{version}/{path}"
        try:
            member = tar.getmember(name)
        except KeyError:
            return "tree" if any(n.startswith(name + "/") for n in tar.getnames()) else None
        if member.isdir():
            return "tree"
        return tar.extractfile(member).read().decode("utf-8", "replace").splitlines()


def _spellings(key: str) -> list[str]:
    bare = key.lstrip("-").rsplit(".", 1)[-1]
    return sorted({key, bare, bare.replace("-", "_"), bare.replace("_", "-")})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror/vllm-project+vllm-ascend/repo"))
    parser.add_argument("--sdists", type=Path, default=Path("/work/sdists"))
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    sources = Sources(args.mirror, args.sdists)
    counts: Counter[str] = Counter()
    bad = 0
    for owner, key, url in citations():
        counts["citations"] += 1
        match = GITHUB_BLOB.match(url)
        if not match:
            counts["unchecked"] += 1
            continue
        content = sources.lines(match["repo"], match["ref"], match["path"])
        if content is None:
            print(f"missing  {owner}: {url}")
            bad += 1
            continue
        if content == "tree" or not match["start"]:
            counts["file"] += 1
            continue
        start, end = int(match["start"]), int(match["end"] or match["start"])
        if end > len(content) or start > end:
            print(f"range    {owner}: {url} (file has {len(content)} lines)")
            bad += 1
            continue
        counts["lines"] += 1
        window = "\n".join(content[max(0, start - 4): end + 3])
        if key and not any(s in window for s in _spellings(key)):
            counts["key"] += 1
            print(f"key      {owner}: {key!r} not near {url}\n         L{start}: {content[start - 1].strip()[:110]}")
        if args.show:
            print(f"show     {owner}: {url}\n         L{start}: {content[start - 1].strip()[:110]}")
    print(", ".join(f"{k} {v}" for k, v in counts.items()), f"problems {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
