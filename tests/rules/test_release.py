"""Release rules QL510-QL512: behaviour beyond the rule examples."""

import pytest


from conftest import FIXTURES, hits, fixed


# -- QL510 --------------------------------------------------------------------

@pytest.mark.parametrize("stated,image,expected", [
    ("a3", "quay.io/ascend/vllm-ascend:v0.23.0", "quay.io/ascend/vllm-ascend:v0.23.0-a3"),
    ("a2", "quay.io/ascend/vllm-ascend:v0.22.1rc1-a3", "quay.io/ascend/vllm-ascend:v0.22.1rc1"),
    ("310p", "quay.io/ascend/vllm-ascend:v0.23.0-a3-openeuler", "quay.io/ascend/vllm-ascend:v0.23.0-310p-openeuler"),
    ("a3", "m.daocloud.io/quay.io/ascend/vllm-ascend:v0.22.1rc1-310p", "m.daocloud.io/quay.io/ascend/vllm-ascend:v0.22.1rc1-a3"),
])
def test_ql510_directive_disagrees_with_image(stated, image, expected):
    text = f"# qlint: hardware={stated}\nexport IMAGE={image}\n"
    found = hits(text, "QL510")
    assert [f.level for f in found] == ["error"]
    assert f"targets {stated.upper()}" in found[0].message
    assert found[0].fix.safety == "unsafe"
    assert fixed(text, found) == f"# qlint: hardware={stated}\nexport IMAGE={expected}\n"


def test_ql510_cli_hardware_wins_over_the_image():
    text = "export IMAGE=quay.io/ascend/vllm-ascend:v0.23.0-a3\n"
    assert hits(text, "QL510", hardware="310p")
    assert not hits(text, "QL510", hardware="a3")
    assert not hits(text, "QL510")  # nothing stated: the image decides the hardware


def test_ql510_image_in_a_header_comment():
    text = "# Image: quay.io/ascend/vllm-ascend:v0.18.0rc1\nvllm serve Qwen/Qwen3.6-27B\n"
    assert hits(text, "QL510", hardware="a3")


DOCKER = "docker run --rm {devices} -it quay.io/ascend/vllm-ascend:{tag} bash\n"


def _devices(count):
    return " ".join(f"--device /dev/davinci{i}" for i in range(count))


def test_ql510_a2_image_with_sixteen_devices():
    found = hits(DOCKER.format(devices=_devices(16), tag="v0.23.0"), "QL510")
    assert len(found) == 1
    assert "/dev/davinci15" in found[0].message and "A2 image" in found[0].message
    assert "vllm-ascend:v0.23.0-a3" in found[0].fix.description


@pytest.mark.parametrize("devices,tag", [(8, "v0.23.0"), (16, "v0.23.0-a3"), (8, "v0.23.0-310p")])
def test_ql510_devices_that_fit(devices, tag):
    assert not hits(DOCKER.format(devices=_devices(devices), tag=tag), "QL510")


@pytest.mark.parametrize("name", ["s001_docker_310p.sh", "s001_docker_a2.sh", "s001_docker_a3.sh", "s003_docker.sh"])
def test_seed_docker_blocks(name):
    text = (FIXTURES / "seeds" / name).read_text()
    from qlint.linter.lint import lint_text

    result = lint_text(name, text)
    if result.error is not None:
        pytest.skip(f"{name} does not parse yet: {result.error.message}")
    assert not [f for f in result.findings if f.rule.id == "QL510"]


# -- QL511 --------------------------------------------------------------------

def test_ql511_model_newer_than_release():
    found = hits("vllm serve Eco-Tech/Qwen3.6-27B-w8a8\n", "QL511", "a3", "v0.17.0rc1")
    assert [f.level for f in found] == ["error"]
    assert "Qwen3.6-27B is supported from vllm-ascend v0.18.0rc1" in found[0].message
    assert "runs vllm-ascend v0.17.0rc1" in found[0].message


@pytest.mark.parametrize("version", ["v0.18.0rc1", "v0.23.0", "main"])
def test_ql511_supported_releases(version):
    assert not hits("vllm serve Eco-Tech/Qwen3.6-27B-w8a8\n", "QL511", "a3", version)


def test_ql511_310p_has_its_own_first_release():
    text = "vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --dtype float16\n"
    found = hits(text, "QL511", "310p", "v0.22.1rc1")
    assert "on Atlas inference products (310P) from vllm-ascend v0.23.0rc1" in found[0].message
    assert not hits(text, "QL511", "310p", "v0.23.0rc1")
    assert not hits(text, "QL511", "a2", "v0.22.1rc1")


def test_ql511_image_tag_gives_the_version():
    text = "# Image: quay.io/ascend/vllm-ascend:v0.22.1rc1-310p\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --dtype float16\n"
    found = hits(text, "QL511")
    assert "v0.23.0rc1" in found[0].message and "v0.22.1rc1" in found[0].message


def test_ql511_unknown_first_release_is_not_guessed():
    # Qwen3.5-397B-A17B states no 310P release: fall back to its general first release
    assert not hits("vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp\n", "QL511", "310p", "v0.22.1rc1")
    # Qwen3-30B-A3B-Instruct-2507 states no first release at all
    assert not hits("vllm serve /models/Qwen3-30B-A3B-Instruct-2507\n", "QL511", "a2", "v0.11.0rc1")


# -- QL512 --------------------------------------------------------------------

SERVE = "vllm serve Qwen/Qwen3.6-27B\n"


@pytest.mark.parametrize("name,version,level", [
    ("VLLM_USE_V1", "v0.23.0", "warning"),
    ("VLLM_USE_V1", "v0.11.0rc1", None),  # pairs with vLLM 0.11.0, before the removal in 0.11.1
    ("VLLM_TORCH_PROFILER_WITH_STACK", "v0.13.0", "info"),
    ("VLLM_TORCH_PROFILER_WITH_STACK", "v0.18.0rc1", "warning"),
    ("VLLM_ASCEND_ENABLE_PREFETCH_MLP", "v0.17.0rc1", None),
    ("VLLM_ASCEND_ENABLE_PREFETCH_MLP", "v0.18.0rc1", "warning"),
    ("VLLM_ASCEND_ENABLE_FLASHCOMM1", "v0.19.1rc1", None),
    ("VLLM_ASCEND_ENABLE_FLASHCOMM1", "v0.23.0", "info"),
    ("VLLM_ASCEND_ENABLE_FLASHCOMM1", "main", "warning"),
    ("VLLM_USE_MODELSCOPE", "main", None),
])
def test_ql512_version_boundaries(name, version, level):
    found = hits(f"export {name}=1\n{SERVE}", "QL512", version=version)
    assert [f.level for f in found] == ([level] if level else [])
    if level:
        assert name in found[0].message and f"vllm-ascend {version}" in found[0].message
        assert (found[0].span.line, found[0].span.column) == (1, 8)


def test_ql512_message_names_the_paired_vllm_and_replacement():
    found = hits(f"export VLLM_TORCH_PROFILER_WITH_STACK=1\n{SERVE}", "QL512", version="v0.23.0")
    assert "removed in vLLM v0.16.0" in found[0].message and "(vLLM 0.23.0)" in found[0].message
    assert "--profiler-config.torch_profiler_with_stack" in found[0].message


def test_ql512_one_finding_per_export_and_prefix_assignments_count():
    text = f"export VLLM_USE_V1=1\n{SERVE}{SERVE}VLLM_ASCEND_ENABLE_PREFETCH_MLP=1 {SERVE}"
    found = hits(text, "QL512", version="v0.23.0")
    assert sorted(f.span.line for f in found) == [1, 4]


def test_ql512_plain_assignment_is_not_exported():
    assert not hits(f"VLLM_USE_V1=1\n{SERVE}", "QL512", version="v0.23.0")


def test_ql512_seed_003_stale_exports():
    text = (FIXTURES / "seeds" / "s003_pd_run_p.sh").read_text()
    found = hits(text, "QL512", "a3", "v0.20.2rc1")
    names = {f.message.split()[0]: f.level for f in found}
    assert names["VLLM_USE_V1"] == "warning"
    assert names["VLLM_TORCH_PROFILER_WITH_STACK"] == "warning"
