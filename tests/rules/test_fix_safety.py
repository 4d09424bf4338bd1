"""Each rule's declared fix safety (``RuleMeta.fix``) is the safety of the fixes it emits.

Checked on every rule's own examples and on its data cases (tests/fixtures/rules): a rule
declared ``none`` emits no fix with edits (advice only); a rule declared ``safe`` or
``unsafe`` emits only fixes of that safety, so ``--fix`` applies exactly what the rule page
says it applies.
"""

from __future__ import annotations

import pytest

from qlint.rules.graph import default_graph

from conftest import rule_findings
from test_rule_fixtures import CASES as DATA_CASES

RULES = sorted((r.meta for r in default_graph().order()), key=lambda m: m.id)


def _scripts(meta):
    """(label, script, hardware, release, peers) of the rule's failing examples and data cases."""
    for index, example in enumerate(meta.examples):
        yield f"example {index}", example.bad, example.hardware, example.version, example.peers
    for rule_id, case in DATA_CASES:
        if rule_id == meta.id and case.get("expect") == "fail":
            yield f"case {case['name']}", case["script"], case.get("hardware"), case.get("release"), \
                tuple(case.get("peers", ()))


def emitted(meta) -> list[tuple[str, str, bool]]:
    """(where, safety, has edits) of every fix the rule emits on its examples and cases."""
    out = []
    for label, script, hardware, release, peers in _scripts(meta):
        for finding in rule_findings(meta, script, hardware, release, peers):
            if finding.rule.id == meta.id and finding.fix is not None:
                out.append((label, finding.fix.safety, bool(finding.fix.edits)))
    return out


@pytest.mark.parametrize("meta", RULES, ids=lambda m: m.id)
def test_declared_fix_safety_matches_the_fixes_emitted(meta):
    fixes = emitted(meta)
    if meta.fix == "none":
        with_edits = [where for where, _, edits in fixes if edits]
        assert not with_edits, f"{meta.id} declares no fix but edits the script in {with_edits}"
    else:
        other = [(where, safety) for where, safety, _ in fixes if safety != meta.fix]
        assert not other, f"{meta.id} declares {meta.fix} fixes but emits {other}"


def test_the_check_would_see_a_mismatch():
    """A rule that declares safe fixes and emits an unsafe one is caught (the check can fail)."""
    from qlint.record import replace

    declared = next(m for m in RULES if m.id == "QL205")  # its resize fix is unsafe
    assert any(safety == "unsafe" for _, safety, _ in emitted(declared))
    assert any(safety != "safe" for _, safety, _ in emitted(replace(declared, fix="safe")))
