"""Model metadata facts, the KV and state arithmetic, and memory-fit rules (QL310-QL313) on local model
directories, case-02, context parallel and the seeds (edge cases: tests/fixtures/rules/QL310-QL313.toml)."""

import json
import tomllib

import pytest

from conftest import FIXTURES, SHARED, hits, lint, serve_facts
from qlint.knowledge.base import load
from qlint.rules.local_model import Arch

SEEDS = FIXTURES / "seeds"
SHARED_CASE_02 = SHARED / "cases" / "case-02.sh"


@pytest.fixture
def wired():
    """The planner attaches read_model_dir(model argument) to every serve command."""
    return None


def model_dir(tmp_path, name, config, weights_gb=None):
    path = tmp_path / name
    path.mkdir()
    (path / "config.json").write_text(config if isinstance(config, str) else json.dumps(config))
    if weights_gb:
        with open(path / "model.safetensors", "wb") as handle:
            handle.truncate(int(weights_gb * 1e9))  # sparse file: no disk used
    return str(path)


HYBRID_TEXT = {
    "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 12, "num_key_value_heads": 4,
    "head_dim": 256, "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
    "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
    "max_position_embeddings": 262144,
}
HYBRID = {"model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"], "text_config": HYBRID_TEXT}


def test_facts_from_knowledge_without_local_directory():
    got = serve_facts("vllm serve Qwen/Qwen3.6-35B-A3B\n", "attention_heads", "kv_heads", "routed_experts",
                "model_max_len", "local_model", "model_label")
    assert got["local_model"].value is None
    assert (got["attention_heads"].value, got["kv_heads"].value, got["routed_experts"].value) == (16, 2, 256)
    assert got["model_max_len"].value == 262144 and got["model_label"].value == "Qwen3.6-35B-A3B"


def test_facts_unknown_for_unknown_model_without_directory():
    got = serve_facts("vllm serve /models/MyOwnModel-7B\n", "attention_heads", "routed_experts", "model_max_len",
                "architecture", "weights_gb", "model_label")
    assert got["attention_heads"] is None and got["routed_experts"] is None and got["model_max_len"] is None
    assert got["architecture"] is None and got["weights_gb"] is None
    assert got["model_label"].value == "/models/MyOwnModel-7B"


def test_facts_from_local_config_for_unknown_model(tmp_path, wired):
    path = model_dir(tmp_path, "MyHybrid-9B", HYBRID, weights_gb=18)
    got = serve_facts(f"vllm serve {path}\n", "attention_heads", "kv_heads", "routed_experts", "model_max_len",
                "hybrid", "architecture", "weights_gb", "model_label")
    assert (got["attention_heads"].value, got["kv_heads"].value, got["model_max_len"].value) == (12, 4, 262144)
    assert got["routed_experts"] is None  # the config names no experts: not guessed
    assert got["hybrid"].value is True and got["model_label"].value == "MyHybrid-9B"
    assert got["architecture"].value.full_layers == 8 and got["architecture"].value.linear_layers == 24
    assert got["weights_gb"].value == pytest.approx(18.0)
    assert "config.json" in got["attention_heads"].origin


def test_local_config_wins_over_knowledge(tmp_path, wired):
    config = dict(HYBRID_TEXT, num_attention_heads=40, num_experts=64)
    path = model_dir(tmp_path, "Qwen3.6-27B-w8a8", config)
    got = serve_facts(f"vllm serve {path}\n", "attention_heads", "routed_experts", "model_label")
    assert got["attention_heads"].value == 40 and got["routed_experts"].value == 64
    assert got["model_label"].value == "Qwen3.6-27B"  # still named by the knowledge match


def test_broken_local_config_falls_back_to_knowledge(tmp_path, wired):
    path = model_dir(tmp_path, "Qwen3.6-27B-w8a8", '{"num_attention_heads": ')
    got = serve_facts(f"vllm serve {path}\n", "attention_heads", "local_model")
    assert got["local_model"].value.error.startswith("config.json: invalid JSON")
    assert got["attention_heads"].value == 24


def test_ql310_310p_larger_card_is_a_warning():
    findings = lint((SHARED_CASE_02).read_text(), path="case-02.sh")
    [finding] = hits(findings, "QL310")
    assert finding.level == "warning"
    assert "30.5 GB per NPU" in finding.message and "21.6 GB usable" in finding.message
    assert "48 GB-per-chip" in finding.message


def test_ql310_local_unknown_model_uses_weight_files(tmp_path, wired):
    path = model_dir(tmp_path, "MyHybrid-90B", HYBRID, weights_gb=180)
    [finding] = hits(lint(f"vllm serve {path} --tensor-parallel-size 2\n", "a2", "v0.23.0"), "QL310")
    assert "MyHybrid-90B" in finding.message and "180.0 GB / TP 2" in finding.message


def test_ql310_local_moe_without_expert_fraction_uses_lower_bound(tmp_path, wired):
    config = {"num_attention_heads": 32, "hidden_size": 4096, "num_hidden_layers": 32, "num_local_experts": 8}
    path = model_dir(tmp_path, "MyMoE", config, weights_gb=1000)
    [finding] = hits(lint(f"vllm serve {path} -tp 8 --enable-expert-parallel\n", "a2", "v0.23.0"), "QL310")
    assert "at least 1000.0 GB / EP 8" in finding.message


def test_kv_heads_fewer_than_tp_are_replicated():
    arch = Arch(head_dim=256, kv_heads=2, full_layers=10)
    assert arch.kv_bytes_per_token(tp=1, pp=1, dtype_bytes=2) == 2 * 2 * 256 * 10 * 2
    assert arch.kv_bytes_per_token(tp=2, pp=1, dtype_bytes=2) == 2 * 1 * 256 * 10 * 2
    assert arch.kv_bytes_per_token(tp=8, pp=1, dtype_bytes=2) == 2 * 1 * 256 * 10 * 2


def test_gdn_state_per_sequence():
    kb = load()
    record = next(a for a in kb.architectures if a.model == "Qwen3.6-27B")
    arch = Arch(record.head_dim, record.num_key_value_heads, record.full_attention_layers,
                record.linear_attention_layers, record.linear_num_key_heads, record.linear_num_value_heads,
                record.linear_key_head_dim, record.linear_value_head_dim, record.linear_conv_kernel_dim)
    conv = 3 * (2 * 16 * 128 + 48 * 128)
    recurrent = 48 * 128 * 128
    assert arch.state_bytes_per_seq(tp=1, pp=1, dtype_bytes=2) == 48 * (conv + recurrent) * 2
    assert arch.state_bytes_per_seq(tp=2, pp=1, dtype_bytes=2) == 48 * (conv + recurrent) * 2 / 2




def test_ql313_local_hybrid_model(tmp_path, wired):
    path = model_dir(tmp_path, "MyHybrid-9B", HYBRID)
    [finding] = hits(lint(f"vllm serve {path} --max-model-len 131072\n", "a2", "v0.23.0"), "QL313")
    assert "MyHybrid-9B" in finding.message and "estimated" not in finding.message  # no weights: no estimate
    assert finding.level == "warning"


@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.sh")))
def test_seeds_fit(name):
    context = tomllib.loads((SEEDS / "manifest.toml").read_text())[name]
    findings = lint((SEEDS / name).read_text(), context.get("hardware"), context.get("version"), path=name)
    assert not [f for f in findings if f.rule.id in ("QL310", "QL311", "QL312", "QL313")]


# context parallel shards the KV cache (kv_shards, QL312); a C8 checkpoint stores it in int8

BASE = "vllm serve Qwen/Qwen3.6-27B --max-model-len 131072 --max-num-seqs 4"


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_prefill_context_parallel_divides_the_kv_cache(version):
    # 54 GB BF16 on one 64 GB A2 NPU leaves ~4.9 GB; 131072 tokens of KV take ~8.6 GB, half with PCP 2
    found = hits(f"{BASE}\n", "QL312", "a2", version)
    assert len(found) == 1 and "context-parallel" not in found[0].message
    assert not hits(f"{BASE} --prefill-context-parallel-size 2\n", "QL312", "a2", version)


def test_kv_shards_multiply_decode_and_prefill_sizes():
    text = f"{BASE} --tensor-parallel-size 2 --decode-context-parallel-size 2 --prefill-context-parallel-size 2\n"
    known = serve_facts(text, "kv_shards", "kv_need", hardware="a2", version="v0.23.0")
    plain = serve_facts(f"{BASE} --tensor-parallel-size 2\n", "kv_need", hardware="a2", version="v0.23.0")
    assert known["kv_shards"].value == 4
    assert known["kv_need"].value[2] == pytest.approx(plain["kv_need"].value[2] / 4)
    assert known["kv_need"].value[1] == 131072  # the message still names the whole sequence


def test_cp_message_and_fix_count_all_ranks():
    text = "vllm serve Qwen/Qwen3.6-27B --max-model-len 262144 --max-num-seqs 4 --prefill-context-parallel-size 2\n"
    found = hits(text, "QL312", "a2", "v0.23.0")
    assert len(found) == 1 and "split over 2 context-parallel ranks" in found[0].message
    # ~4.8 GB left holds ~73k tokens per rank, so about twice that over two ranks
    assert "lower --max-model-len to about 14" in found[0].fix.description


def test_c8_checkpoint_halves_the_kv_bytes():
    plain = serve_facts("vllm serve vllm-ascend/Qwen3-32B-W8A8 --tensor-parallel-size 4\n", "kv_need",
                  hardware="a3", version="main")["kv_need"].value
    c8 = serve_facts("vllm serve vllm-ascend/Qwen3-32B-W8A8C8 --tensor-parallel-size 4\n", "kv_need",
               hardware="a3", version="main")["kv_need"].value
    assert c8[2] == pytest.approx(plain[2] / 2)
