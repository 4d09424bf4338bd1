"""Command line of the extraction pipeline (see the package docstring and README, Development)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from qlint.knowledge.extract.ascend import extract_ascend
from qlint.knowledge.extract.vllm_release import extract_vllm

DATA = Path(__file__).resolve().parent.parent / "data"
FIRST = "v0.9.0rc1"
MAIN_COMMIT = "182b75ea84ff13ece27b57391331ef8935410aea"


def _version(tag: str):
    from packaging.version import Version

    return Version(tag.removeprefix("v"))


def release_tags(repo: str, first: str = FIRST) -> list[str]:
    import subprocess

    tags = subprocess.run(["git", "-C", repo, "tag"], check=True, capture_output=True, text=True).stdout.split()
    tags = [t for t in tags if re.fullmatch(r"v\d+\.\d+\.\d+(?:\.post\d+)?(?:rc\d+)?", t)]
    return sorted((t for t in tags if _version(t) >= _version(first)), key=_version)


def sdist_versions(folder: str) -> dict[str, str]:
    found = {}
    for name in os.listdir(folder):
        match = re.fullmatch(r"vllm-(\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+)?)\.tar\.gz", name)
        if match:
            found[match.group(1)] = os.path.join(folder, name)
    return found


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _nearest_sdist(wanted: str, available: dict[str, str]) -> str | None:
    """The sdist for a paired vLLM tag: the same version, else the newest older one (reported)."""
    version = wanted.removeprefix("v")
    if version in available:
        return version
    base = _version(version).base_version  # v0.11.0rc3 -> the 0.11.0 release it became
    if base in available:
        return base
    older = [v for v in available if _version(v) <= _version(version)]
    return max(older, key=_version) if older else None


def _summary(name: str, data: dict) -> str:
    if data["project"] == "vllm":
        counts = f"{len(data['options'])} options, {sum(len(s['keys']) for s in data['sub_configs'])} sub-config keys, " \
                 f"{len(data['env_vars'])} env vars, {len(data['validations'])} validations"
    else:
        counts = f"vLLM {data['vllm']} (data {data.get('vllm_data')}), {len(data['additional_config']['keys'])} " \
                 f"additional-config keys, {len(data['env_vars'])} env vars, {len(data['validations'])} validations"
    unread = f"; could not read {len(data['unread'])}: " + "; ".join(data["unread"][:6]) if data["unread"] else ""
    return f"{name}: {counts}{unread}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m qlint.knowledge.extract", description=__doc__)
    parser.add_argument("--vllm-sdist", action="append", default=[], help="a vllm-X.Y.Z.tar.gz (repeatable)")
    parser.add_argument("--sdists", help="a folder of vllm-X.Y.Z.tar.gz (with --all)")
    parser.add_argument("--vllm-ascend-repo", help="a git clone or mirror of vllm-ascend with its tags")
    parser.add_argument("--tag", action="append", default=[], help="a vllm-ascend tag, or main (repeatable)")
    parser.add_argument("--main-commit", default=MAIN_COMMIT, help="the commit main is read at (URLs pin to it)")
    parser.add_argument("--all", action="store_true", help=f"every vllm-ascend tag from {FIRST}, main, and every sdist")
    parser.add_argument("--out", default=str(DATA), help="the knowledge data folder (default: the package's)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    sdists = {}
    if args.sdists:
        sdists.update(sdist_versions(args.sdists))
    for archive in args.vllm_sdist:
        match = re.search(r"vllm-([\d.]+(?:rc\d+)?)\.tar\.gz$", archive)
        if not match:
            parser.error(f"{archive}: not a vllm-X.Y.Z.tar.gz")
        sdists[match.group(1).rstrip(".")] = archive
    tags = list(args.tag)
    if args.all:
        if not args.vllm_ascend_repo or not args.sdists:
            parser.error("--all needs --vllm-ascend-repo and --sdists")
        tags = release_tags(args.vllm_ascend_repo) + ["main"]
    if tags and not args.vllm_ascend_repo:
        parser.error("--tag needs --vllm-ascend-repo")
    for version, archive in sorted(sdists.items(), key=lambda item: _version(item[0])):
        data = extract_vllm(archive, version)
        _write(out / "vllm" / f"{version}.json", data)
        print(_summary(f"vllm {version}", data))
    known = {p.stem for p in (out / "vllm").glob("*.json")}
    for tag in tags:
        rev = args.main_commit if tag == "main" else tag
        data = extract_ascend(args.vllm_ascend_repo, rev)
        if tag == "main":
            data["release"] = "main"
        paired = data["vllm"]
        chosen = _nearest_sdist(paired, {v: v for v in known}) if paired else None
        data["vllm_data"] = chosen
        if chosen and paired and chosen != paired.removeprefix("v"):
            data["unread"].append(f"no sdist of vLLM {paired}: checked against vLLM {chosen}, the nearest one")
        elif chosen is None:
            data["unread"].append(f"no sdist for vLLM {paired}")
        _write(out / "ascend" / f"{data['release']}.json", data)
        print(_summary(f"vllm-ascend {data['release']}", data))
    _write_index(out)
    return 0


def _write_index(out: Path) -> None:
    """index.json: every release with data, oldest first, and the vLLM data file it uses."""
    releases = []
    for path in (out / "ascend").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        releases.append({"release": data["release"], "commit": data["commit"], "vllm": data["vllm"],
                         "vllm_data": data.get("vllm_data"), "vllm_source": data["vllm_source"]})
    releases.sort(key=lambda r: _version(r["release"]) if r["release"] != "main" else _version("9999"))
    vllm = sorted((p.stem for p in (out / "vllm").glob("*.json")), key=_version)
    options: dict[str, list[str]] = {}
    for version in vllm:
        data = json.loads((out / "vllm" / f"{version}.json").read_text(encoding="utf-8"))
        for option in data["options"]:
            options.setdefault(option["name"], []).append(version)
    _write(out / "release_index.json", {"schema": 1, "releases": releases, "vllm": vllm,
                                        "options": dict(sorted(options.items()))})


if __name__ == "__main__":
    sys.exit(main())
