"""Numbers at the edges in every integer-valued option and JSON key: no traceback, no hang (issue 13).

Each of these once escaped as ZeroDivisionError / OverflowError / ValueError or looped for minutes:
TP or PP 0, an integer of 4,400 digits, 1e309, a divisor list of 10^9+1, a 310P capture limit of 10^9,
max-num-seqs 10^9 off the capture grid, a launcher asking for 10^8 ranks.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from qlint.knowledge.base import load
from qlint.linter.deployment import MAX_LOCAL_RANKS, Launcher
from qlint.linter.lint import lint_bytes
from qlint.rules.kit import divisors

KB = load()
INT_FLAGS = sorted(flag.name for flag in KB.flags if flag.type == "int")
INT_KEYS = sorted((sub.flag, key.key) for sub in KB.sub_configs for key in sub.keys if key.type == "int")
EXTREMES = st.one_of(
    st.sampled_from(["0", "-1", "1000000001", "1e309", "9" * 4400, "2147483648", "-0", "300k", "nan", "1.5"]),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)
HEADERS = ("# qlint: hardware=a2 vllm-ascend=v0.23.0\n", "# qlint: hardware=310p vllm-ascend=v0.23.0\n",
           "# qlint: hardware=a3 vllm-ascend=v0.18.0rc1\n")
MODEL = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}' "


def _lints(script: str) -> None:
    result = lint_bytes("edge.sh", script.encode())
    assert result.error is None or result.error.line >= 1
    for finding in result.findings:
        assert finding.span.line >= 1 and finding.text("en") and finding.text("zh")


@settings(max_examples=150, deadline=None)
@given(flag=st.sampled_from(INT_FLAGS), value=EXTREMES, header=st.sampled_from(HEADERS))
def test_integer_options_at_the_edges(flag, value, header):
    _lints(f"{header}{MODEL}{flag} {value}\n")


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(INT_KEYS), value=EXTREMES, header=st.sampled_from(HEADERS))
def test_integer_json_keys_at_the_edges(key, value, header):
    flag, dotted = key
    body = value
    for part in reversed(dotted.split(".")):
        body = "{" + json.dumps(part) + ": " + body + "}"
    _lints(f"{header}vllm serve Eco-Tech/Qwen3.6-27B-w8a8 {flag} '{body}'\n")


def test_the_named_extremes():
    for script in (
        "# qlint: hardware=a2\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 0 --pipeline-parallel-size 0\n",
        "# qlint: hardware=a2\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size " + "9" * 4000 + "\n",
        "# qlint: hardware=310p\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --dtype float16 "
        "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": -1}'\n",
        "# qlint: hardware=310p\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --dtype float16 "
        "--compilation-config '{\"max_cudagraph_capture_size\": 1000000000}'\n",
        "# qlint: hardware=a2\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --max-num-seqs 1000000000 --max-num-batched-tokens 1000000000 "
        "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}' "
        "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", "
        "\"kv_role\": \"kv_consumer\", \"kv_connector_extra_config\": {\"prefill\": {\"tp_size\": 1000000007}, "
        "\"decode\": {\"tp_size\": 2}}}'\n",
        "export VLLM_ASCEND_ENABLE_FLASHCOMM1=" + "1" * 5000 + "\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8\n",
        "python launch_online_dp.py --dp-size 100000000 --tp-size 100000000 --dp-size-local 100000000 "
        "--dp-address 10.0.0.1\n",
    ):
        _lints(script)


def test_tp_zero_is_unknown_not_a_division():
    result = lint_bytes("tp0.sh", b"# qlint: hardware=a2\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 0\n")
    assert result.error is None
    assert not [f for f in result.findings if f.rule.id in ("QL203", "QL205", "QL206", "QL310")]


def test_launcher_expansion_is_bounded():
    launcher = Launcher(dp_size=100_000_000, tp_size=100_000_000, dp_size_local=100_000_000, dp_address="10.0.0.1")
    bindings = launcher.rank_bindings()
    assert len(bindings) == MAX_LOCAL_RANKS and all("1" not in binding for binding in bindings)
    small = Launcher(dp_size=4, tp_size=2, dp_address="10.0.0.1").rank_bindings()
    assert [b["1"] for b in small] == ["0,1", "2,3", "4,5", "6,7"] and [b["4"] for b in small] == ["0", "1", "2", "3"]


@given(st.integers(min_value=1, max_value=10**6))
def test_divisors_are_exactly_the_divisors(number):
    found = divisors(number)
    assert found == sorted(found) and all(number % d == 0 for d in found)
    assert found[0] == 1 and found[-1] == number
    assert len(found) == sum(1 for d in range(1, int(number**0.5) + 1) if number % d == 0) * 2 - (
        1 if int(number**0.5) ** 2 == number else 0)


def test_divisors_of_a_large_prime_take_no_time():
    assert divisors(1_000_000_007) == [1, 1_000_000_007]
