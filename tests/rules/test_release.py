"""Release rules QL510-QL512 on the seed tutorials (edge cases: tests/fixtures/rules/QL510-QL512.toml)."""

import pytest

from conftest import FIXTURES, hits


@pytest.mark.parametrize("name", ["s001_docker_310p.sh", "s001_docker_a2.sh", "s001_docker_a3.sh", "s003_docker.sh"])
def test_seed_docker_blocks(name):
    text = (FIXTURES / "seeds" / name).read_text()
    from qlint.linter.lint import lint_text

    result = lint_text(name, text)
    if result.error is not None:
        pytest.skip(f"{name} does not parse yet: {result.error.message}")
    assert not [f for f in result.findings if f.rule.id == "QL510"]


def test_ql512_seed_003_stale_exports():
    text = (FIXTURES / "seeds" / "s003_pd_run_p.sh").read_text()
    found = hits(text, "QL512", "a3", "v0.20.2rc1")
    names = {f.message.split()[0]: f.level for f in found}
    assert names["VLLM_USE_V1"] == "warning"
    assert names["VLLM_TORCH_PROFILER_WITH_STACK"] == "warning"
