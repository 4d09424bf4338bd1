"""Context parallel shards the KV cache (kv_shards, QL312) and a C8 checkpoint stores it in int8."""

import pytest

from conftest import lint
from test_memory import facts

BASE = "vllm serve Qwen/Qwen3.6-27B --max-model-len 131072 --max-num-seqs 4"


def ql312(text, version):
    return [f for f in lint(text, "a2", version) if f.rule.id == "QL312"]


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_prefill_context_parallel_divides_the_kv_cache(version):
    # 54 GB BF16 on one 64 GB A2 NPU leaves ~4.9 GB; 131072 tokens of KV take ~8.6 GB, half with PCP 2
    found = ql312(f"{BASE}\n", version)
    assert len(found) == 1 and "context-parallel" not in found[0].message
    assert not ql312(f"{BASE} --prefill-context-parallel-size 2\n", version)


def test_kv_shards_multiply_decode_and_prefill_sizes():
    text = f"{BASE} --tensor-parallel-size 2 --decode-context-parallel-size 2 --prefill-context-parallel-size 2\n"
    known = facts(text, "kv_shards", "kv_need", hardware="a2", version="v0.23.0")
    plain = facts(f"{BASE} --tensor-parallel-size 2\n", "kv_need", hardware="a2", version="v0.23.0")
    assert known["kv_shards"].value == 4
    assert known["kv_need"].value[2] == pytest.approx(plain["kv_need"].value[2] / 4)
    assert known["kv_need"].value[1] == 131072  # the message still names the whole sequence


def test_cp_message_and_fix_count_all_ranks():
    text = "vllm serve Qwen/Qwen3.6-27B --max-model-len 262144 --max-num-seqs 4 --prefill-context-parallel-size 2\n"
    found = ql312(text, "v0.23.0")
    assert len(found) == 1 and "split over 2 context-parallel ranks" in found[0].message
    # ~4.8 GB left holds ~73k tokens per rank, so about twice that over two ranks
    assert "lower --max-model-len to about 14" in found[0].fix.description


def test_c8_checkpoint_halves_the_kv_bytes():
    plain = facts("vllm serve vllm-ascend/Qwen3-32B-W8A8 --tensor-parallel-size 4\n", "kv_need",
                  hardware="a3", version="main")["kv_need"].value
    c8 = facts("vllm serve vllm-ascend/Qwen3-32B-W8A8C8 --tensor-parallel-size 4\n", "kv_need",
               hardware="a3", version="main")["kv_need"].value
    assert c8[2] == pytest.approx(plain[2] / 2)
