"""QL108 host tuning in a launch script, on a seed tutorial (the edge cases are in
tests/fixtures/rules/QL108.toml)."""

import pytest

from conftest import FIXTURES, hits, lint


def test_seed_000_tuning_lines_are_reported():
    text = (FIXTURES / "seeds" / "s000_a3_w8a8_single_node.sh").read_text()
    assert len(hits(text, "QL108", "a3", "v0.22.1rc1")) == 4


# -- QL108 and --privileged: say what the tuning changes -----------------------------------------
DOCKER = ("docker run --rm {flags}--device /dev/davinci0 quay.io/ascend/vllm-ascend:v0.23.0-a3 "
          "bash -c \"sysctl -w vm.swappiness=0 && vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\"\n")


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_ql108_in_a_privileged_container_changes_the_host(version):
    [finding] = [f for f in lint(DOCKER.format(flags="--privileged "), "a3", version) if f.rule.id == "QL108"]
    assert "--privileged container" in finding.message and "changes the host kernel" in finding.message
    assert "no effect" not in finding.message and "fails" not in finding.message
    assert "宿主机" in finding.text("zh")


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_ql108_in_an_unprivileged_container_fails(version):
    [finding] = [f for f in lint(DOCKER.format(flags=""), "a3", version) if f.rule.id == "QL108"]
    assert "without --privileged" in finding.message and "fails" in finding.message
