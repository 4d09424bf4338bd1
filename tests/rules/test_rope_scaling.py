"""--hf-overrides RoPE scaling raises the context limit (rules/rope_scaling.py): the facts (QL301 cases:
tests/fixtures/rules/QL301.toml)."""

import json

from conftest import serve_facts


def overrides(data) -> str:
    return f"--hf-overrides '{json.dumps(data)}'"


QWEN3 = "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4"


def test_default_context_follows_the_scaled_limit():
    spec = {"rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}}
    found = serve_facts(f"{QWEN3} {overrides(spec)}\n", "context_limit", "model_len_limit", hardware="a2", version="v0.23.0")
    assert found["context_limit"].value == 131072 and found["model_len_limit"].value == 131072
