"""Where the served model's name is read: a Hugging Face cache snapshot path, ModelScope's cache
spelling, and --served-model-name when the path names no model (exact model ids only)."""

from __future__ import annotations

import pytest

from conftest import lint, serve_facts
from qlint.knowledge.base import load


@pytest.mark.parametrize("reference, model_id", [
    ("/root/.cache/huggingface/hub/models--Qwen--Qwen3-235B-A22B/snapshots/b51c4308ed84804fa6722b20722cd91e3cd17808",
     "Qwen3-235B-A22B"),
    ("~/.cache/huggingface/hub/models--Eco-Tech--Qwen3.6-27B-w8a8/snapshots/0123abcd/", "Qwen3.6-27B"),
    ("/root/.cache/modelscope/hub/models/Qwen/Qwen3___5-27B", "Qwen3.5-27B"),
])
def test_cache_layouts_name_the_model(reference, model_id):
    match = load().match_model(reference)
    assert match is not None and match.model.id == model_id


def test_a_cache_snapshot_keeps_the_weight_format_of_its_name():
    match = load().match_model("/hf/models--Eco-Tech--Qwen3.6-27B-w8a8/snapshots/0123abcd")
    assert match is not None and match.variant is not None and match.variant.quantization == "w8a8"


def test_a_snapshot_folder_elsewhere_is_not_a_model():
    assert load().match_model("/data/snapshots/b51c4308ed84804fa6722b20722cd91e3cd17808") is None


def test_the_served_name_names_the_model_when_the_path_does_not():
    text = "vllm serve /model --served-model-name Qwen3.5-27B --tensor-parallel-size 8\n"
    facts = serve_facts(text, "model", hardware="a2", version="v0.17.0rc1")
    assert facts["model"].value.model.id == "Qwen3.5-27B"
    assert "--served-model-name" in facts["model"].origin
    # and the rules use it: the TP 8 defect of that release is reported
    assert any(f.rule.id == "QL560" for f in lint(text, "a2", "v0.17.0rc1"))


@pytest.mark.parametrize("served", ["qwen", "Qwen3.5", "qwen3.5-27b-chat", "Qwen3.5-27B,other"])
def test_only_an_exact_model_id_is_taken_from_the_served_name(served):
    text = f"vllm serve /model --served-model-name {served}\n"
    assert serve_facts(text, "model", hardware="a2")["model"] is None
    assert any(f.rule.id == "QL314" for f in lint(text, "a2"))


def test_a_path_that_names_a_model_wins_over_the_served_name():
    text = "vllm serve /models/Qwen3.6-27B --served-model-name Qwen3.5-27B\n"
    assert serve_facts(text, "model", hardware="a2")["model"].value.model.id == "Qwen3.6-27B"
