"""The knowledge base loads, validates, cites, and fails loudly on bad data."""

import pytest

from qlint.knowledge import base
from qlint.knowledge.base import KnowledgeError, parse_version, version_in
from qlint.knowledge.models import Model, Text


def test_loads_and_every_record_cites(kb):
    groups = [kb.hardware, kb.models, kb.releases, kb.flags, kb.sub_configs, kb.env_vars, kb.faqs, kb.recipes]
    assert all(groups)
    for group in groups:
        for record in group:
            assert record.sources


def test_required_models_and_hardware(kb):
    ids = {m.id for m in kb.models}
    assert {"Qwen3.5-27B", "Qwen3.6-27B", "Qwen3.6-35B-A3B", "Qwen3.5-397B-A17B"} <= ids
    assert kb.hardware_by_id("a2").npus_per_node == 8
    assert kb.hardware_by_id("a3").npus_per_node == 16
    assert "float16" in kb.hardware_by_id("310p").dtypes and "bfloat16" not in kb.hardware_by_id("310p").dtypes


@pytest.mark.parametrize("reference,model,quant", [
    ("Eco-Tech/Qwen3.5-27B-w8a8-mtp", "Qwen3.5-27B", "w8a8"),
    ("/root/.cache/Qwen3.6-27B-w8a8", "Qwen3.6-27B", "w8a8"),
    ("Qwen/Qwen3.6-27B", "Qwen3.6-27B", "bf16"),
    ("Eco-Tech/Qwen3.6-35B-A3B-w8a8", "Qwen3.6-35B-A3B", "w8a8"),
    ("Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp", "Qwen3.5-397B-A17B", "w8a8"),
])
def test_model_aliases(kb, reference, model, quant):
    match = kb.match_model(reference)
    assert match is not None and match.model.id == model
    assert match.variant is not None and match.variant.quantization == quant


def test_unknown_model_is_none(kb):
    assert kb.match_model("/models/Llama-3-8B") is None


def test_versions_compare_with_packaging():
    assert parse_version("v0.23.0rc1") < parse_version("v0.23.0") < parse_version("main")
    assert version_in("v0.22.1rc1", until="v0.23.0")
    assert not version_in("v0.23.0", until="v0.23.0")


def test_latest_stable_is_a_stable_release(kb):
    assert kb.latest_stable.stable and "rc" not in kb.latest_stable.tag


def test_flags_use_dashes_and_cover_seed_flags(kb):
    for name in ["--tensor-parallel-size", "--data-parallel-size-local", "--speculative-config",
                 "--kv-transfer-config", "--additional-config", "--compilation-config",
                 "--enable-prefix-caching", "--mamba-ssm-cache-dtype", "--headless", "--api-server-count"]:
        assert name in kb.flag_index, name
    assert all("_" not in f.name for f in kb.flags)


def test_bad_citation_is_rejected():
    with pytest.raises(ValueError):
        Model(id="x", family="x", moe=False, hybrid=False, max_model_len=1, sources=["my memory"])


def test_broken_data_file_names_file_and_field(monkeypatch, tmp_path):
    import shutil
    from importlib import resources

    data = resources.files("qlint.knowledge.data")
    for item in data.iterdir():
        if item.name.endswith(".toml"):
            shutil.copy(str(item), tmp_path / item.name)
    broken = (tmp_path / "hardware.toml").read_text().replace("npus_per_node = 8", "npus_per_node = -8", 1)
    (tmp_path / "hardware.toml").write_text(broken)

    class Files:
        def __init__(self, root):
            self.root = root

        def joinpath(self, name):
            return self.root / name

    monkeypatch.setattr(base.resources, "files", lambda package: Files(tmp_path))
    base.load.cache_clear()
    try:
        with pytest.raises(KnowledgeError) as error:
            base.load()
        assert "hardware.toml: hardware[" in str(error.value) and "npus_per_node" in str(error.value)
    finally:
        base.load.cache_clear()


def test_text_needs_both_languages():
    with pytest.raises(ValueError):
        Text(en="only English", zh="")
