"""Rule cases as data, as sqlfluff keeps them: ``tests/fixtures/rules/QLnnn.toml`` holds the
edge cases of rule QLnnn, one ``[[case]]`` table each::

    [[case]]
    name = "tp-3-does-not-divide-24-heads"   # unique within the file
    hardware = "a3"                           # a2 | a3 | 310p; omitted: as the script says
    release = "v0.23.0"                       # vllm-ascend release; omitted: as the script says
    expect = "fail"                           # fail: the rule reports the script; pass: it does not
    script = '''
    vllm serve ...
    '''
    fixed = '''...'''                         # fail only: the script after the rule's fixes
    message = "TP 3"                          # fail only: text some finding's message contains (or a list)
    severity = "error"                        # fail only: the level of every finding of the rule
    fix_says = "set --dtype"                  # fail only: text the first finding's fix description contains
    safety = "unsafe"                         # fail only: the safety of the first finding's fix
    count = 1                                 # fail only: how many findings the rule reports
    lines = [2]                               # fail only: the lines of its findings (or at = ["2:61"])
    peers = ['''...''']                       # deployment rules: the other scripts of the deployment

One parametrised test runs every case; a coverage test (with the rules' own examples)
fails listing the rules that lack a failing case, a passing case, or their fix (for rules
without a fix: a failing case) checked at two releases or more.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

from qlint.linter.catalog import all_rules, find_rule

from conftest import FIXTURES, fixed, rule_findings

CASE_DIR = FIXTURES / "rules"
KEYS = {"name", "script", "hardware", "release", "expect", "fixed", "message", "severity", "fix_says", "safety", "count",
        "lines", "at", "peers"}
FAIL_ONLY = KEYS - {"name", "script", "hardware", "release", "expect", "peers"}


def load_cases(folder: Path = CASE_DIR) -> list[tuple[str, dict]]:
    """(rule id, case table) of every case file, in file and case order."""
    out = []
    for path in sorted(folder.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        out += [(path.stem, case) for case in data.get("case", [])]
    return out


CASES = load_cases()


def test_case_files_are_well_formed():
    assert CASES, f"no case in {CASE_DIR}"
    seen: set[tuple[str, str]] = set()
    for path in sorted(CASE_DIR.iterdir()):
        assert path.suffix == ".toml" and find_rule(path.stem) is not None, f"{path.name}: not QLnnn.toml of a rule"
    for rule, case in CASES:
        where = f"{rule}.toml case {case.get('name')!r}"
        assert set(case) <= KEYS, f"{where}: unknown keys {sorted(set(case) - KEYS)}"
        assert {"name", "script", "expect"} <= set(case), f"{where}: name, script and expect are required"
        assert case["expect"] in ("pass", "fail"), where
        assert case["expect"] == "fail" or not FAIL_ONLY & set(case), f"{where}: {sorted(FAIL_ONLY)} need fail"
        assert case.get("hardware") in (None, "a2", "a3", "310p"), where
        assert (rule, case["name"]) not in seen, f"{where}: duplicate name"
        seen.add((rule, case["name"]))


@pytest.mark.parametrize("rule,case", CASES, ids=[f"{rule}-{case['name']}" for rule, case in CASES])
def test_case(rule, case):
    meta = find_rule(rule)
    context = (case.get("hardware"), case.get("release"))
    found = rule_findings(meta, case["script"], *context, case.get("peers", ()))
    if case["expect"] == "pass":
        assert not found, f"{rule} reported a passing case: {[f.message for f in found]}"
        return
    assert found, f"{rule} did not report a failing case"
    if "message" in case:
        wanted = [case["message"]] if isinstance(case["message"], str) else case["message"]
        assert any(all(text in f.message for text in wanted) for f in found), [f.message for f in found]
    if "severity" in case:
        assert {f.level for f in found} == {case["severity"]}, [f.level for f in found]
    if "fix_says" in case:
        assert found[0].fix is not None and case["fix_says"] in found[0].fix.description, found[0].fix
    if "safety" in case:
        assert found[0].fix is not None and found[0].fix.safety == case["safety"], found[0].fix
    if "count" in case:
        assert len(found) == case["count"], [f.message for f in found]
    ordered = sorted(found, key=lambda f: (f.span.line, f.span.column))
    if "lines" in case:
        assert [f.span.line for f in ordered] == case["lines"]
    if "at" in case:
        assert [f"{f.span.line}:{f.span.column}" for f in ordered] == case["at"]
    if "fixed" in case:
        repaired = fixed(case["script"], found)
        assert repaired == case["fixed"]
        assert not rule_findings(meta, repaired, *context, case.get("peers", ())), f"{rule} still fires after its fix"


def _release(value: str | None) -> str:
    from qlint.knowledge.base import load

    return value or load().latest_stable.tag


@lru_cache(maxsize=1)
def rule_cases() -> dict[str, list[dict]]:
    """rule id -> every case of it: its own examples (a failing and a passing case each) and the fixtures."""
    table: dict[str, list[dict]] = {meta.id: [] for meta in all_rules()}
    for meta in all_rules():
        for example in meta.examples:
            common = {"hardware": example.hardware, "release": example.version, "peers": example.peers}
            table[meta.id].append({**common, "expect": "fail", "script": example.bad,
                                   **({"fixed": example.fixed} if example.fixed is not None else {})})
            table[meta.id].append({**common, "expect": "pass", "script": example.good})
    for rule, case in CASES:
        table[rule].append(case)
    return table


def edits_fix(meta, cases: list[dict]) -> bool:
    """Whether the rule's fix edits the script in any failing case (some fixes are advice only)."""
    for case in cases:
        if case["expect"] == "fail":
            found = rule_findings(meta, case["script"], case.get("hardware"), case.get("release"), case.get("peers", ()))
            if any(f.fix and f.fix.edits for f in found):
                return True
    return False


def lacking() -> list[str]:
    """One line per rule that lacks a failing case, a passing case, or checks at two releases: its fix
    (when the fix edits the script), else its failing case. A rule that fires at one release only
    counts as checked at two when the same script is a passing case at another release."""
    out = []
    for meta in all_rules():
        cases = rule_cases()[meta.id]
        gaps = [f"a {kind}ing case" for kind in ("fail", "pass") if not any(c["expect"] == kind for c in cases)]
        kind = "fixed" if edits_fix(meta, cases) else "fail"
        checked = [c for c in cases if c["expect"] == "fail" and (kind == "fail" or "fixed" in c)]
        releases = {_release(c.get("release")) for c in checked}
        gated = {_release(c.get("release")) for c in cases if c["expect"] == "pass"
                 and any(c["script"] == f["script"] for f in checked)} - releases
        if len(releases) < 2 and not (releases and gated):
            gaps.append(f"{kind} cases at two releases (has {', '.join(sorted(releases)) or 'none'})")
        if gaps:
            out.append(f"{meta.id} {meta.name}: needs {'; '.join(gaps)}")
    return out


def test_every_rule_has_failing_passing_and_fixed_cases_at_two_releases():
    missing = lacking()
    assert not missing, (f"{len(missing)} rule(s) lack cases; add them to tests/fixtures/rules/QLnnn.toml:\n"
                         + "\n".join(missing))
