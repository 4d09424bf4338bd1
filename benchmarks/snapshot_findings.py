"""A canonical snapshot of every finding qlint reports on a fixed corpus (for refactors; not a test).

    python benchmarks/snapshot_findings.py -o /tmp/before.json       # record
    python benchmarks/snapshot_findings.py --check /tmp/before.json  # record again and compare
    python benchmarks/snapshot_findings.py --only examples --check /tmp/before.json  # a part only

The corpus:

* every fixture under tests/fixtures (cases, seeds, tutorials), alone, and the PD fixtures of one
  tutorial together as one deployment;
* every rule example (bad, good, fixed; deployment-scope examples with their peers);
* every launch script ``qlint generate`` accepts over the model x hardware x scenario x weights x
  release matrix (``qlint.testing.all_configs``), and the 1P1D PD deployments ``generate_pd`` builds.

Each file is linted in its own context (what the script and the manifest say) and then at every
release in knowledge/data/releases.toml (``Settings(version=...)``, with the file's hardware, or each
of a2 / a3 / 310p when the file names none). A record is (file, context, rule, span, severity,
message in English and Chinese, fix description, safety, edits and the hash of the text the fix
alone produces). The fixtures are also fixed with
``fix_bytes`` (unsafe fixes included) in their own context; the fixed text's hash is recorded.

The JSON is canonical (sorted records, sorted keys), so two snapshots of the same behaviour are equal
byte for byte; ``--check`` prints the records that differ (``--by-result``: fixes compared by the
text they produce, so an edit rewritten with the same outcome is not a difference).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
HARDWARE = ("a2", "a3", "310p")


def _header(text: str, key: str) -> list[str]:
    prefix = f"# {key}:"
    return [line[len(prefix):].strip() for line in text.splitlines() if line.startswith(prefix)]


def _finding_record(name: str, context: str, finding, texts: dict[str, str]) -> dict:
    fix = None
    if finding.fix is not None:
        from qlint.linter.fixes import apply_edits

        text = texts.get(finding.path or name)
        result = None
        if finding.fix.edits and text is not None:
            result = hashlib.sha256(apply_edits(text, list(finding.fix.edits))[0].encode("utf-8")).hexdigest()[:16]
        fix = {
            "result": result,
            "description": finding.fix.description,
            "description_zh": finding.fix.description_zh,
            "safety": finding.fix.safety,
            "edits": [
                [e.span.line, e.span.column, e.span.end_line, e.span.end_column, e.text] for e in finding.fix.edits
            ],
        }
    span = finding.span
    return {
        "file": name,
        "path": finding.path if finding.path != name else None,
        "context": context,
        "rule": finding.rule.id,
        "span": [span.line, span.column, span.end_line, span.end_column],
        "severity": finding.level,
        "message": finding.message,
        "message_zh": finding.message_zh,
        "fix": fix,
    }


class Snapshot:
    def __init__(self) -> None:
        from qlint.knowledge.base import load

        self.kb = load()
        self.releases = sorted({release.tag for release in self.kb.releases})
        self.records: list[dict] = []
        self.fixed: dict[str, str] = {}
        self.lints = 0

    def contexts(self, hardware: str | None, version: str | None):
        """(label, Settings) pairs: the file's own context, then every release."""
        from qlint.rules.graph import Settings

        yield f"own:{hardware}:{version}", Settings(hardware=hardware, version=version)
        for release in self.releases:
            for chosen in (hardware,) if hardware else HARDWARE:
                yield f"{chosen}@{release}", Settings(hardware=chosen, version=release)

    def lint_one(self, name: str, text: str, hardware: str | None = None, version: str | None = None) -> None:
        from qlint.linter.lint import lint_bytes

        data = text.encode("utf-8")
        for label, settings in self.contexts(hardware, version):
            result = lint_bytes(name, data, settings=settings, kb=self.kb)
            self.lints += 1
            if result.error is not None:
                self.records.append({"file": name, "context": label, "error": [
                    result.error.message, result.error.line, result.error.column]})
                continue
            self.records.extend(_finding_record(name, label, f, {name: text}) for f in result.findings)

    def lint_group(self, names: list[str], texts: list[str], hardware: str | None = None,
                   version: str | None = None) -> None:
        from qlint.linter.deployment import lint_deployment

        group = "+".join(names)
        inputs = [(name, text.encode("utf-8")) for name, text in zip(names, texts)]
        by_path = dict(zip(names, texts))
        for label, settings in self.contexts(hardware, version):
            results = lint_deployment(inputs, settings, kb=self.kb)
            self.lints += len(inputs)
            for name, result in zip(names, results):
                if result.error is not None:
                    self.records.append({"file": f"{group}:{name}", "context": label, "error": [
                        result.error.message, result.error.line, result.error.column]})
                    continue
                self.records.extend(_finding_record(f"{group}:{name}", label, f, by_path) for f in result.findings)

    def fix_one(self, name: str, text: str, hardware: str | None, version: str | None) -> None:
        from qlint.linter.fixer import fix_bytes
        from qlint.linter.lint import lint_bytes
        from qlint.rules.graph import Settings

        settings = Settings(hardware=hardware, version=version)
        outcome = fix_bytes(name, text.encode("utf-8"),
                            lambda data: lint_bytes(name, data, settings=settings, kb=self.kb), unsafe=True)
        data = outcome.data
        self.fixed[name] = "unchanged" if data is None else hashlib.sha256(data).hexdigest()

    # -- the corpus -------------------------------------------------------------------

    def fixtures(self) -> None:
        for path in sorted((FIXTURES / "cases").glob("*.sh")):
            text = path.read_text(encoding="utf-8")
            name = f"cases/{path.name}"
            self.lint_one(name, text)
            self.fix_one(name, text, None, None)
        manifest = tomllib.loads((FIXTURES / "seeds" / "manifest.toml").read_text())
        for path in sorted((FIXTURES / "seeds").glob("*.sh")):
            context = manifest.get(path.name, {})
            text = path.read_text(encoding="utf-8")
            name = f"seeds/{path.name}"
            self.lint_one(name, text, context.get("hardware"), context.get("version"))
            self.fix_one(name, text, context.get("hardware"), context.get("version"))
        for prefix in ("s001_pd_", "s003_pd_"):
            paths = sorted((FIXTURES / "seeds").glob(prefix + "*.sh"))
            context = manifest.get(paths[0].name, {})
            self.lint_group([f"seeds/{p.name}" for p in paths], [p.read_text(encoding="utf-8") for p in paths],
                            context.get("hardware"), context.get("version"))
        pd_tutorials = []
        for path in sorted((FIXTURES / "tutorials").glob("*/*.sh")):
            text = path.read_text(encoding="utf-8")
            name = f"tutorials/{path.parent.name}/{path.name}"
            listed = _header(text, "qlint-test-hardware")
            for hardware in listed[0].split() if listed else [None]:
                self.lint_one(name + (f"@{hardware}" if hardware else ""), text, hardware)
            self.fix_one(name, text, None, None)
            if path.name.startswith("pd_"):
                pd_tutorials.append((name, text))
        if pd_tutorials:
            self.lint_group([n for n, _ in pd_tutorials], [t for _, t in pd_tutorials])

    def examples(self) -> None:
        from qlint.rules.graph import default_graph

        for rule in sorted(default_graph().order(), key=lambda r: r.meta.id):
            meta = rule.meta
            for index, example in enumerate(meta.examples):
                for kind in ("bad", "good", "fixed"):
                    text = getattr(example, kind)
                    if text is None:
                        continue
                    name = f"examples/{meta.id}-{index}-{kind}.sh"
                    if meta.scope == "deployment":
                        peers = [f"examples/{meta.id}-{index}-peer{i}.sh" for i in range(len(example.peers))]
                        self.lint_group([name] + peers, [text, *example.peers], example.hardware, example.version)
                    else:
                        self.lint_one(name, text, example.hardware, example.version)

    def generated(self) -> None:
        import qlint.testing as qt
        from qlint.linter.generate import GenerationError
        from qlint.linter.generate_nodes import generate_pd

        for config in qt.all_configs():
            deployment = qt.render(config)
            name = f"generated/{config.model}-{config.hardware}-{config.scenario}-" \
                   f"{'w8a8' if config.quantized else 'bf16'}-{config.version}.sh"
            self.lint_one(name, deployment.script, config.hardware)
        seen = set()
        for config in qt.all_configs():
            key = (config.model, config.hardware, config.quantized, config.version)
            if key in seen:
                continue
            seen.add(key)
            try:
                pd = generate_pd(self.kb, config.model, config.hardware, config.quantized, config.version)
            except GenerationError:
                continue
            stem = f"generated-pd/{config.model}-{config.hardware}-{'w8a8' if config.quantized else 'bf16'}-" \
                   f"{config.version}"
            scripts = pd.scripts_in_order
            self.lint_group([f"{stem}/{name}" for name, _ in scripts], [text for _, text in scripts], config.hardware)

    def document(self) -> dict:
        records = sorted(self.records, key=lambda r: json.dumps(r, sort_keys=True, ensure_ascii=False))
        return {"records": records, "fixed": dict(sorted(self.fixed.items()))}


def _key(record: dict, by_result: bool = False) -> str:
    if by_result and record.get("fix"):
        record = {**record, "fix": {k: v for k, v in record["fix"].items() if k != "edits"}}
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def compare(before: dict, after: dict, limit: int = 6, by_result: bool = False) -> int:
    """Print what differs between two snapshots; return the number of differing items.

    ``by_result`` compares each fix by the text it produces rather than by its edits."""
    old = {_key(r, by_result) for r in before["records"]}
    new = {_key(r, by_result) for r in after["records"]}
    gone, came = sorted(old - new), sorted(new - old)
    fixed = sorted(k for k in set(before["fixed"]) | set(after["fixed"])
                   if before["fixed"].get(k) != after["fixed"].get(k))
    from collections import Counter

    for label, items in (("-", gone), ("+", came)):
        rules = Counter(json.loads(item).get("rule", "error") for item in items)
        if items:
            print(label, len(items), "records:", ", ".join(f"{rule} {count}" for rule, count in sorted(rules.items())))
    for label, items in (("-", gone), ("+", came)):
        for item in items[:limit]:
            print(label, item)
        if len(items) > limit:
            print(label, f"... {len(items) - limit} more")
    for name in fixed[:limit]:
        print("fixed differs:", name, before["fixed"].get(name), "->", after["fixed"].get(name))
    return len(gone) + len(came) + len(fixed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--output", help="write the snapshot here (JSON)")
    parser.add_argument("--check", help="compare with this snapshot; exit 1 when anything differs")
    parser.add_argument("--by-result", action="store_true",
                        help="with --check: compare fixes by the text they produce, not by their edits")
    parser.add_argument("--only", help="comma-separated parts: fixtures, examples, generated (default: all)")
    parser.add_argument("--skip-generated", action="store_true", help="leave out the generated matrix (faster)")
    args = parser.parse_args(argv)
    start = time.process_time()
    snapshot = Snapshot()
    parts = args.only.split(",") if args.only else ["fixtures", "examples"] + ([] if args.skip_generated else ["generated"])
    for part in parts:
        getattr(snapshot, part)()
    document = snapshot.document()
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, indent=0)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    print(f"{snapshot.lints} lints, {len(document['records'])} records, {len(document['fixed'])} fixed files, "
          f"sha256 {digest[:16]}, {time.process_time() - start:.1f} s CPU", file=sys.stderr)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    if args.check:
        before = json.loads(Path(args.check).read_text(encoding="utf-8"))
        if args.only:  # compare the same parts of an earlier, fuller snapshot
            prefixes = tuple(p for part in parts for p in ({"fixtures": ("cases/", "seeds/", "tutorials/"),
                                                            "examples": ("examples/",),
                                                            "generated": ("generated",)}[part]))
            before = {"records": [r for r in before["records"] if r["file"].startswith(prefixes)],
                      "fixed": {k: v for k, v in before["fixed"].items() if k.startswith(prefixes)}}
            document = {"records": document["records"], "fixed": {k: v for k, v in document["fixed"].items()
                                                                  if k.startswith(prefixes)}}
        differences = compare(before, document, by_result=args.by_result)
        print(f"{differences} differences" if differences else "identical", file=sys.stderr)
        return 1 if differences else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
