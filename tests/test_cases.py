"""The handed cases from users' public bug reports (copied to tests/fixtures/cases):
each is reported with the right rule, severity and a fix."""

import pytest

from conftest import FIXTURES, lint

CASES = FIXTURES / "cases"

# case -> the rule(s) that must report it (the .expect file says what and why)
EXPECTED = {
    "case-01": ["QL507"],
    "case-02": ["QL506"],
    "case-06": ["QL206", "QL207"],
    "case-07": ["QL201"],
    "case-10": ["QL304"],
    "case-13": ["QL303"],
    "case-14": ["QL701"],
    "case-17": ["QL601"],
}


def test_every_case_has_an_expectation():
    assert sorted(p.stem for p in CASES.glob("case-*.sh")) == sorted(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_case_is_caught_with_fix(case):
    expect = (CASES / f"{case}.expect").read_text()
    severity = expect.split(":", 1)[0].strip()
    findings = lint((CASES / f"{case}.sh").read_text(), path=f"{case}.sh")
    for rule in EXPECTED[case]:
        hits = [f for f in findings if f.rule.id == rule and f.level == severity]
        assert hits, f"{case}: {rule} at {severity} not reported; got {[(f.rule.id, f.level, f.message) for f in findings]}"
        assert all(f.fix is not None for f in hits), f"{case}: {rule} has no fix"
