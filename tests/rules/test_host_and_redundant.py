"""QL108 host tuning in a launch script; QL513 settings that repeat a release default."""

from conftest import FIXTURES, lint, hits


def test_host_tuning_only_in_scripts_that_serve():
    tuning = "sysctl -w vm.swappiness=0\necho performance | tee /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor\n"
    assert hits(lint(tuning), "QL108") == []  # a host-side tuning script is fine
    found = hits(lint(tuning + "vllm serve /models/Qwen3-32B\n"), "QL108")
    assert [f.span.line for f in found] == [1, 2]
    assert "sysctl vm.swappiness=0" in found[0].message


def test_reading_sysctl_is_not_tuning():
    assert hits(lint("sysctl vm.swappiness\nvllm serve /models/Qwen3-32B\n"), "QL108") == []


def test_seed_000_tuning_lines_are_reported():
    text = (FIXTURES / "seeds" / "s000_a3_w8a8_single_node.sh").read_text()
    assert len(hits(lint(text, "a3", "v0.22.1rc1"), "QL108")) == 4


def test_async_scheduling_redundant_only_from_v0_23_0():
    script = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --async-scheduling\n"
    assert hits(lint(script, version="v0.22.1rc1"), "QL513") == []
    found = hits(lint(script, version="v0.23.0"), "QL513")
    assert found and "v0.23.0" in found[0].message and found[0].fix.edits


def test_no_prefix_caching_redundant_only_for_hybrid_models():
    flag = " --no-enable-prefix-caching\n"
    assert hits(lint("vllm serve Eco-Tech/Qwen3.6-27B-w8a8" + flag, version="v0.23.0"), "QL513")
    assert hits(lint("vllm serve /models/Qwen3-32B" + flag, version="v0.23.0"), "QL513") == []
    assert hits(lint("vllm serve /models/Unknown-Model" + flag, version="v0.23.0"), "QL513") == []


def test_cpu_binding_redundant_from_v0_18_0rc1():
    script = "vllm serve /models/Qwen3-32B --additional-config '{\"enable_cpu_binding\": true}'\n"
    assert hits(lint(script, version="v0.17.0rc1"), "QL513") == []
    found = hits(lint(script, version="v0.18.0rc1"), "QL513")
    assert found and found[0].span.column == 74  # the value true
    off = "vllm serve /models/Qwen3-32B --additional-config '{\"enable_cpu_binding\": false}'\n"
    assert hits(lint(off, version="v0.23.0"), "QL513") == []
