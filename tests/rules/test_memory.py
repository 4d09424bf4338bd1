"""Model metadata facts and memory-fit rules (QL310-QL313), beyond their examples."""

import json
import tomllib
from dataclasses import dataclass, fields

import pytest

from conftest import FIXTURES, SHARED, lint, hits
from qlint.knowledge.base import load
from qlint.linter.lint import lint_text
from qlint.linter.model_dir import read_model_dir
from qlint.rules.graph import Scope, Settings
from qlint.rules.local_model import Arch
from qlint.rules.plan import ServeCommand

SEEDS = FIXTURES / "seeds"
SHARED_CASE_02 = SHARED / "cases" / "case-02.sh"


def facts(text, *names, hardware=None, version=None):
    """The named facts (Known or None) of the script's first serve command."""
    settings = Settings(hardware=hardware, version=version)
    plan = lint_text("s.sh", text, settings=settings).plan
    kb = load()
    parent = Scope(plan=plan, kb=kb, settings=settings)
    scope = Scope(plan=plan, kb=kb, settings=settings, serve=plan.serve_commands()[0], parent=parent)
    return {name: scope.known(name) for name in names}


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


# -- model metadata facts -------------------------------------------------------

def test_facts_from_knowledge_without_local_directory():
    got = facts("vllm serve Qwen/Qwen3.6-35B-A3B\n", "attention_heads", "kv_heads", "routed_experts",
                "model_max_len", "local_model", "model_label")
    assert got["local_model"].value is None
    assert (got["attention_heads"].value, got["kv_heads"].value, got["routed_experts"].value) == (16, 2, 256)
    assert got["model_max_len"].value == 262144 and got["model_label"].value == "Qwen3.6-35B-A3B"


def test_facts_unknown_for_unknown_model_without_directory():
    got = facts("vllm serve /models/MyOwnModel-7B\n", "attention_heads", "routed_experts", "model_max_len",
                "architecture", "weights_gb", "model_label")
    assert got["attention_heads"] is None and got["routed_experts"] is None and got["model_max_len"] is None
    assert got["architecture"] is None and got["weights_gb"] is None
    assert got["model_label"].value == "/models/MyOwnModel-7B"


def test_facts_from_local_config_for_unknown_model(tmp_path, wired):
    path = model_dir(tmp_path, "MyHybrid-9B", HYBRID, weights_gb=18)
    got = facts(f"vllm serve {path}\n", "attention_heads", "kv_heads", "routed_experts", "model_max_len",
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
    got = facts(f"vllm serve {path}\n", "attention_heads", "routed_experts", "model_label")
    assert got["attention_heads"].value == 40 and got["routed_experts"].value == 64
    assert got["model_label"].value == "Qwen3.6-27B"  # still named by the knowledge match


def test_broken_local_config_falls_back_to_knowledge(tmp_path, wired):
    path = model_dir(tmp_path, "Qwen3.6-27B-w8a8", '{"num_attention_heads": ')
    got = facts(f"vllm serve {path}\n", "attention_heads", "local_model")
    assert got["local_model"].value.error.startswith("config.json: invalid JSON")
    assert got["attention_heads"].value == 24


# -- QL310 weights-exceed-hbm -----------------------------------------------------

def test_ql310_numbers_units_and_faq():
    text = "vllm serve Qwen/Qwen3.5-397B-A17B --tensor-parallel-size 8\n"
    [finding] = hits(lint(text, "a2", "v0.23.0"), "QL310")
    assert finding.level == "error" and finding.rule.faq == "oom"
    for part in ("99.2 GB per NPU", "794.0 GB / TP 8", "58.9 GB usable", "64 GB HBM", "0.92", "GB = 10^9 bytes"):
        assert part in finding.message
    assert "at least 14 NPUs" in finding.fix.description


@pytest.mark.parametrize("version,usable", [("v0.22.1rc1", "57.6 GB usable"), ("v0.23.0", "58.9 GB usable")])
def test_ql310_default_utilization_by_release(version, usable):
    [finding] = hits(lint("vllm serve Qwen/Qwen3-32B\n", "a2", version), "QL310")
    assert usable in finding.message and "65.6 GB / TP 1" in finding.message


def test_ql310_explicit_utilization():
    [finding] = hits(lint("vllm serve Qwen/Qwen3-32B --gpu-memory-utilization 0.95\n", "a3"), "QL310")
    assert "60.8 GB usable" in finding.message and "0.95" in finding.message


def test_ql310_expert_parallel_splits_experts_by_ep():
    pd_prefill = ("vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8-mtp --tensor-parallel-size 2 "
                  "--data-parallel-size 8 --enable-expert-parallel\n")
    assert not hits(lint(pd_prefill, "a3", "v0.23.0"), "QL310")
    without_ep = pd_prefill.replace(" --enable-expert-parallel", "")
    [finding] = hits(lint(without_ep, "a3", "v0.23.0"), "QL310")
    assert "218.5 GB per NPU" in finding.message


def test_ql310_310p_larger_card_is_a_warning():
    findings = lint((SHARED_CASE_02).read_text(), path="case-02.sh")
    [finding] = hits(findings, "QL310")
    assert finding.level == "warning"
    assert "30.5 GB per NPU" in finding.message and "21.6 GB usable" in finding.message
    assert "48 GB-per-chip" in finding.message


def test_ql310_310p_too_big_for_any_card_is_an_error():
    text = "# qlint: hardware=310p\nvllm serve Qwen/Qwen3-32B --tensor-parallel-size 1 --dtype float16\n"
    [finding] = hits(lint(text, version="v0.23.0rc1"), "QL310")
    assert finding.level == "error"


def test_ql310_local_unknown_model_uses_weight_files(tmp_path, wired):
    path = model_dir(tmp_path, "MyHybrid-90B", HYBRID, weights_gb=180)
    [finding] = hits(lint(f"vllm serve {path} --tensor-parallel-size 2\n", "a2", "v0.23.0"), "QL310")
    assert "MyHybrid-90B" in finding.message and "180.0 GB / TP 2" in finding.message


def test_ql310_local_moe_without_expert_fraction_uses_lower_bound(tmp_path, wired):
    config = {"num_attention_heads": 32, "hidden_size": 4096, "num_hidden_layers": 32, "num_local_experts": 8}
    path = model_dir(tmp_path, "MyMoE", config, weights_gb=1000)
    [finding] = hits(lint(f"vllm serve {path} -tp 8 --enable-expert-parallel\n", "a2", "v0.23.0"), "QL310")
    assert "at least 1000.0 GB / EP 8" in finding.message


# -- QL311 little-hbm-headroom ------------------------------------------------------

def test_ql311_not_with_ql312_for_the_same_shortage():
    findings = lint("vllm serve Qwen/Qwen3.6-27B --max-model-len 262144\n", "a2", "v0.23.0")
    assert hits(findings, "QL312") and not hits(findings, "QL311")


def test_ql311_quiet_with_enough_room():
    assert not hits(lint("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-model-len 4096\n", "a2"), "QL311")


# -- QL312 kv-cannot-hold-one-sequence ---------------------------------------------

def test_ql312_message_and_fix():
    [finding] = hits(lint("vllm serve Qwen/Qwen3.6-27B --max-model-len 262144 --max-num-seqs 4\n",
                          "a2", "v0.23.0"), "QL312")
    for part in ("262144-token", "17.2 GB KV cache", "GDN state", "4.9 GB", "54.0 GB of weights", "69 GB"):
        assert part in finding.message
    assert "72704 tokens" in finding.fix.description


def test_ql312_mla_kv_is_not_split_by_tp():
    text = ("vllm serve vllm-ascend/DeepSeek-R1-W8A8 --tensor-parallel-size 16 --enable-expert-parallel "
            "--max-model-len 163840 --gpu-memory-utilization 0.9\n")
    [finding] = hits(lint(text, "a3", "v0.23.0"), "QL312")
    assert "11.5 GB KV cache" in finding.message
    int8 = text.replace("--max-model-len", "--kv-cache-dtype int8 --max-model-len")
    assert not hits(lint(int8, "a3", "v0.23.0"), "QL312")


def test_ql312_uses_model_maximum_without_max_model_len():
    [finding] = hits(lint("vllm serve Qwen/Qwen3.6-27B\n", "a2", "v0.23.0"), "QL312")
    assert "262144-token" in finding.message


def test_ql312_quiet_when_tp_shards_the_cache():
    assert not hits(lint("vllm serve Qwen/Qwen3.6-27B -tp 4 --max-model-len 262144\n", "a2", "v0.23.0"), "QL312")


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


# -- QL313 hybrid-long-context-default-max-num-seqs --------------------------------

BAD_313 = "vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --max-model-len 262144\n"


def test_ql313_warning_with_estimate():
    [finding] = hits(lint(BAD_313, "a2", "v0.23.0"), "QL313")
    assert finding.level == "warning"
    assert "max_num_seqs (256) exceeds available Mamba cache blocks" in finding.message
    assert "about 949 blocks" in finding.message


@pytest.mark.parametrize("change", [
    " --max-num-seqs 64",
    " --enforce-eager",
    " --compilation-config '{\"cudagraph_mode\": \"PIECEWISE\"}'",
])
def test_ql313_quiet(change):
    assert not hits(lint(BAD_313.rstrip("\n") + change + "\n", "a2", "v0.23.0"), "QL313")


def test_ql313_short_context_and_dense_models_are_quiet():
    assert not hits(lint(BAD_313.replace("262144", "65536"), "a2"), "QL313")
    assert not hits(lint("vllm serve Qwen/Qwen3-30B-A3B-Instruct-2507 --max-model-len 262144\n", "a3"), "QL313")


def test_ql313_is_info_when_the_pool_is_large():
    text = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --max-model-len 262144\n"
    [finding] = hits(lint(text, "a3", "v0.23.0"), "QL313")
    assert finding.level == "info"


def test_ql313_local_hybrid_model(tmp_path, wired):
    path = model_dir(tmp_path, "MyHybrid-9B", HYBRID)
    [finding] = hits(lint(f"vllm serve {path} --max-model-len 131072\n", "a2", "v0.23.0"), "QL313")
    assert "MyHybrid-9B" in finding.message and "estimated" not in finding.message  # no weights: no estimate
    assert finding.level == "warning"


def test_ql313_symbolic_length_is_skipped():
    assert not hits(lint("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --max-model-len $1\n", "a2"), "QL313")


# -- seeds: no memory finding where the tutorials are right -------------------------

@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.sh")))
def test_seeds_fit(name):
    context = tomllib.loads((SEEDS / "manifest.toml").read_text())[name]
    findings = lint((SEEDS / name).read_text(), context.get("hardware"), context.get("version"), path=name)
    assert not [f for f in findings if f.rule.id in ("QL310", "QL311", "QL312", "QL313")]

