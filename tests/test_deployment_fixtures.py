"""Deployment trees written for the cross-node checks (tests/fixtures/deployments): each layout lints clean
as written, and each one-field mutation of it (cases.toml) gives exactly the findings its verdict lists,
at the file and line to change; where the finding carries a fix, applying it gives a clean tree again."""

import tomllib

import pytest

from qlint.linter.deployment import lint_deployment
from qlint.linter.fixes import apply_edits
from qlint.rules.graph import Settings

from conftest import FIXTURES

ROOT = FIXTURES / "deployments"
CASES = tomllib.loads((ROOT / "cases.toml").read_text(encoding="utf-8"))["case"]
TREES = sorted(path.name for path in ROOT.iterdir() if path.is_dir())
RELEASES = (None, "v0.20.2rc1", "main")
"""The scripts' own release (v0.23.0), and two others the verdicts hold at (--vllm-ascend-version)."""


def tree(name: str, edits=()) -> dict[str, str]:
    files = {path.name: path.read_text(encoding="utf-8") for path in sorted((ROOT / name).glob("*.sh"))}
    for file, old, new in edits:
        assert files[file].count(old) == 1, (file, old)
        files[file] = files[file].replace(old, new)
    return files


def findings(files: dict[str, str], version: str | None = None):
    results = lint_deployment([(name, text.encode()) for name, text in files.items()], Settings(version=version))
    return [(result.path, f) for result in results for f in result.findings if f.level != "info"]


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("name", TREES)
def test_layout_as_written_lints_clean(name, version):
    found = findings(tree(name), version)
    assert not found, [(p, f.rule.id, f.message) for p, f in found]


def test_every_cross_node_rule_has_a_case():
    assert {rule for case in CASES for rule, *_ in case["expect"]} >= {"QL611", "QL612", "QL614", "QL615", "QL616",
                                                                       "QL617"}
    assert {case["tree"] for case in CASES} == set(TREES)


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_mutation_gives_exactly_its_verdict(case, version):
    files = tree(case["tree"], case["edits"])
    found = findings(files, version)
    got = sorted({(f.rule.id, path, f.span.line) for path, f in found})
    assert got == sorted((rule, file, line) for rule, file, line, _ in case["expect"]), \
        [(f.rule.id, path, f.span.line, f.message) for path, f in found]
    for rule, file, line, part in case["expect"]:
        assert any(part in f.message for path, f in found if (f.rule.id, path, f.span.line) == (rule, file, line))
    wanted = [f for path, f in found if f.rule.id == case["expect"][0][0]]
    if case["fix"] == "advice":
        assert all(f.fix is not None and not f.fix.edits for f in wanted)
        return
    edits: dict[str, dict] = {}
    for path, f in found:
        if f.rule.id == case["expect"][0][0]:
            assert f.fix is not None and f.fix.edits, f.message
            for edit in f.fix.edits:  # a template's ranks repeat the same edit: once
                span = edit.span
                edits.setdefault(path, {})[(span.line, span.column, span.end_line, span.end_column, edit.text)] = edit
    for path, chosen in edits.items():
        files[path] = apply_edits(files[path], list(chosen.values()))[0]
    assert not findings(files, version), [(p, f.rule.id, f.message) for p, f in findings(files, version)]
