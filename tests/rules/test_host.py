"""QL108 host tuning in a launch script, on a seed tutorial (the edge cases are in
tests/fixtures/rules/QL108.toml)."""

from conftest import FIXTURES, hits


def test_seed_000_tuning_lines_are_reported():
    text = (FIXTURES / "seeds" / "s000_a3_w8a8_single_node.sh").read_text()
    assert len(hits(text, "QL108", "a3", "v0.22.1rc1")) == 4
