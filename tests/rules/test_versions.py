"""Release rules QL550-QL552: cited data and quiet seeds (edge cases: tests/fixtures/rules/QL550-QL552.toml)."""

import tomllib

import pytest

from conftest import FIXTURES, lint


def test_ql550_data_is_cited():
    data = tomllib.loads((FIXTURES.parent.parent / "knowledge/data/serve_flags.toml").read_text())
    dated = [f for f in data["flag"] if f.get("added_in") or f.get("removed_in")]
    assert len(dated) >= 40
    for flag in dated:
        assert any(s.startswith("https://github.com/vllm-project/vllm/blob/v") for s in flag["sources"]), flag["name"]


@pytest.mark.parametrize("seed", ["s000_a3_w8a8_single_node.sh", "s003_a3_w8a8_single_node.sh",
                                  "s001_a2a3_qwen35_27b_w8a8.sh"])
def test_versions_quiet_on_seeds(seed):
    manifest = tomllib.loads((FIXTURES / "seeds" / "manifest.toml").read_text())[seed]
    findings = lint((FIXTURES / "seeds" / seed).read_text(), manifest.get("hardware"), manifest.get("version"))
    assert not [f for f in findings if f.rule.id in ("QL550", "QL551", "QL552")]
