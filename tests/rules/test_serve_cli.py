"""vllm serve command-line rules (QL541-QL545) on the seed tutorials (edge cases: tests/fixtures/rules)."""

import tomllib

from conftest import FIXTURES, lint


def test_ql541_to_ql544_seed_003_multi_node_decode_is_quiet():
    manifest = tomllib.loads((FIXTURES / "seeds" / "manifest.toml").read_text())
    for name in ("s003_pd_run_d0.sh", "s003_pd_run_d1.sh"):
        text = (FIXTURES / "seeds" / name).read_text()
        assert not [f for f in lint(text, manifest[name].get("hardware"), manifest[name].get("version"))
                    if f.rule.id in ("QL541", "QL542", "QL543", "QL544")]
