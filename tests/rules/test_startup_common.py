"""The startup-validation family (QL520-QL549) stays quiet where the seed tutorials are right
(each rule's edge cases: tests/fixtures/rules/QL5nn.toml)."""

import tomllib

import pytest

from conftest import FIXTURES, lint


@pytest.mark.parametrize("seed", sorted(p.name for p in (FIXTURES / "seeds").glob("*.sh")))
def test_startup_rules_raise_no_error_or_warning_on_seeds(seed):
    manifest = tomllib.loads((FIXTURES / "seeds" / "manifest.toml").read_text()).get(seed, {})
    findings = lint((FIXTURES / "seeds" / seed).read_text(), manifest.get("hardware"), manifest.get("version"))
    loud = [f for f in findings if 520 <= int(f.rule.id[2:]) <= 549 and f.level != "info"]
    assert not loud, [(f.rule.id, f.message) for f in loud]
