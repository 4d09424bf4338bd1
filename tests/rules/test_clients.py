"""Client model-name rule (QL801) on the seed tutorials' clients; edge cases in tests/fixtures/rules/QL801.toml."""


from conftest import FIXTURES, lint, hits_at, fixed

hits = hits_at(rule="QL801")

SEEDS = FIXTURES / "seeds"
LM_EVAL = (SEEDS / "s001_lm_eval.sh").read_text()
SERVE_BLOCK = LM_EVAL.split("# Run lm_eval")[0]  # seed 001 section 7's vllm serve ... --served-model-name qwen3.5


def test_seed_001_bench_against_served_name_is_a_real_instance():
    """Seed 001 section 8 benchmarks with --model <path> against a server named qwen3.5."""
    text = SERVE_BLOCK + (SEEDS / "s001_bench.sh").read_text()
    found = hits(lint(text, "a3", "v0.22.1rc1"))
    assert len(found) == 2
    assert all(f.level == "error" for f in found)
    assert "'Eco-Tech/Qwen3.5-27B-w8a8-mtp'" in found[0].message and "'qwen3.5'" in found[0].message
    assert 'does not exist' in found[0].message
    assert found[0].fix.description == "add --served-model-name qwen3.5 (keep --model for the tokenizer)"
    repaired = fixed(text, found)
    assert ("vllm bench serve --model Eco-Tech/Qwen3.5-27B-w8a8-mtp --served-model-name qwen3.5 "
            "--dataset-name random") in repaired
    assert not hits(lint(repaired, "a3", "v0.22.1rc1"))


def test_seed_001_lm_eval_and_curl_are_right():
    assert not hits(lint(LM_EVAL, "a3", "v0.22.1rc1"))
    assert not hits(lint(SERVE_BLOCK + (SEEDS / "s001_clients.sh").read_text(), "a3", "v0.22.1rc1"))


def test_no_serve_command_no_finding():
    for name in ("s001_bench.sh", "s001_clients.sh", "s003_bench.sh"):
        assert not hits(lint((SEEDS / name).read_text()))


def test_lm_eval_wrong_name_is_fixed_in_place():
    text = LM_EVAL.replace("model=qwen3.5,", "model=qwen3.6,")
    found = hits(lint(text))
    assert found and "lm_eval model_args asks for model 'qwen3.6'" in found[0].message
    assert fixed(text, found) == LM_EVAL


def test_curl_wrong_name_is_fixed_in_place():
    good = SERVE_BLOCK + (SEEDS / "s001_clients.sh").read_text()
    text = good.replace('"model": "qwen3.5"', '"model": "Eco-Tech/Qwen3.5-27B-w8a8-mtp"')
    found = hits(lint(text))
    assert len(found) == 2
    assert fixed(text, found) == good


def test_bench_with_wrong_served_model_name_is_renamed():
    text = SERVE_BLOCK + "vllm bench serve --model Eco-Tech/Qwen3.5-27B-w8a8-mtp --served-model-name qwen35\n"
    found = hits(lint(text))
    assert found and found[0].fix.description == "set --served-model-name to qwen3.5"
    assert fixed(text, found).endswith("--served-model-name qwen3.5\n")


def test_several_served_names_give_advice_only():
    text = ("vllm serve /models/Qwen3.6-27B --served-model-name qwen3.6 --port 8000\n"
            "vllm serve /models/Qwen3.5-27B --served-model-name qwen3.5 --port 8001\n"
            "curl localhost:8000/v1/completions -d '{\"model\": \"qwen\"}'\n")
    found = hits(lint(text))
    assert found and not found[0].fix.edits and "'qwen3.6', 'qwen3.5'" in found[0].fix.description
    assert not hits(lint(text.replace('"qwen"', '"qwen3.5"')))
