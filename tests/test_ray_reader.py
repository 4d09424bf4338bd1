"""Reading Ray multi-node scripts: ``ray start`` commands, the cluster they form, the serve on it."""

from __future__ import annotations

import pytest

from qlint.linter.lint import lint_bytes
from qlint.linter.ray_cluster import clusters, ray_backend, split_address
from qlint.rules.plan import RayStartCommand, Span, Value


def plan(text: str, path: str = "run.sh"):
    result = lint_bytes(path, text.encode())
    assert result.error is None, result.error
    return result.plan


def starts(text: str) -> list[RayStartCommand]:
    return [c for c in plan(text).commands if isinstance(c, RayStartCommand)]


def test_head_and_worker_options_in_every_spelling():
    head, worker, other = starts(
        "ray start --head --port=6380 --num-gpus 8 --block\n"
        "ray start --address \"$HEAD_IP:6380\" --node-ip-address=$LOCAL_IP --resources='{\"NPU\": 4}'\n"
        "ray start --node_ip_address 10.0.0.3 --address=10.0.0.1:6381\n"
    )
    assert head.head and not worker.head and not other.head
    assert head.value("--port").text == "6380" and head.value("--num-gpus").text == "8"
    assert head.options["--block"] == []
    assert worker.value("--address").text is None and worker.value("--resources").text == '{"NPU": 4}'
    assert split_address(worker.value("--address")) == ("$HEAD_IP", 6380, True)
    assert other.value("--node-ip-address").text == "10.0.0.3"
    # the port digits of a literal address have their own span (what QL620's fix rewrites)
    assert other.address_port.text == "6381" and other.address_port.span == Span(3, 57, 3, 61)


def test_ray_start_under_wrappers_and_in_functions():
    found = starts(
        "start_ray() { ray start --head --port \"$1\"; }\nstart_ray 6390\n"
        "docker exec -it vllm bash -c 'ray start --address=10.0.0.1:6390'\n"
    )
    assert [s.head for s in found] == [True, False]
    assert found[0].value("--port").text == "6390"
    assert split_address(found[1].value("--address")) == ("10.0.0.1", 6390, True)


def test_environment_at_ray_start_is_what_was_exported_before_it():
    head, = starts("export HCCL_IF_IP=10.0.0.1\nray start --head\nexport GLOO_SOCKET_IFNAME=eth0\n")
    assert "HCCL_IF_IP" in head.env and "GLOO_SOCKET_IFNAME" not in head.env


def test_other_ray_subcommands_are_not_nodes():
    assert starts("ray status\nray stop\nray list nodes\n") == []


def test_backend_spellings():
    serve = plan('vllm serve m --distributed_executor_backend "ray"\n').serve_commands()[0]
    assert ray_backend(serve)
    assert not ray_backend(plan("vllm serve m --distributed-executor-backend mp\n").serve_commands()[0])
    assert ray_backend(plan("python -m vllm.entrypoints.openai.api_server --model m "
                            "--distributed-executor-backend=ray\n").serve_commands()[0])


def test_cluster_joins_workers_to_the_head_and_places_the_engine():
    head = plan("ray start --head\nvllm serve m --distributed-executor-backend ray -tp 8 -pp 2\n", "node0.sh")
    worker = plan("export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\nray start --address=10.0.0.1:6379\n", "node1.sh")
    cluster, = clusters([head, worker])
    assert cluster.head.name == "node0.sh" and [w.name for w in cluster.workers] == ["node1.sh"]
    assert cluster.head.port == 6379 and cluster.workers[0].offered_npus() == 4
    assert [s.node.name for s in cluster.serves] == ["node0.sh"]


def test_two_heads_split_workers_by_port():
    a = plan("ray start --head --port 6379\n", "a.sh")
    b = plan("ray start --head --port 6380\n", "b.sh")
    w = plan("ray start --address=h:6380\n", "w.sh")
    found = clusters([a, b, w])
    assert [(c.head.name, [x.name for x in c.workers]) for c in found] == [("a.sh", []), ("b.sh", ["w.sh"])]


def test_a_guide_with_both_nodes_runs_the_engine_on_the_head():
    guide = plan("ray start --head\nray start --address='{head_node_ip}:6379'\n"
                 "vllm serve m --distributed-executor-backend ray -tp 16\n", "ray.md.sh")
    cluster, = clusters([guide])
    assert cluster.serves[0].node.head


def test_no_ray_no_cluster():
    assert clusters([plan("vllm serve m -tp 8\n")]) == []


def test_split_address_shapes():
    span = Span(1, 1, 1, 2)
    assert split_address(Value("10.0.0.1", span, raw="10.0.0.1")) == ("10.0.0.1", None, False)
    assert split_address(Value("{h}:{port_num}", span, raw="x")) == ("{h}", None, True)
    assert split_address(None) == (None, None, False)


from hypothesis import given, strategies as st

_WORDS = st.sampled_from(["--head", "--block", "--port", "--port=6379", "--address", "--address=10.0.0.1:6379",
                          "--address=:", "--address='{h}:{p}'", "--node-ip-address", "$LOCAL_IP", "\"$HEAD_IP:6380\"",
                          "--resources", "'{\"NPU\": 8}'", "'{\"NPU\": 1e999}'", "'{bad'", "--num-gpus=8", "6379",
                          "99999999999999999999999", "-x", "''"])


@given(st.lists(st.lists(_WORDS, max_size=6), min_size=1, max_size=4), st.sampled_from(["a2", "a3", None]))
def test_any_ray_start_words_read_and_lint_without_error(nodes, hardware):
    """Arbitrary ray start option words over several scripts: read, grouped and linted, never an exception."""
    from qlint.linter.deployment import lint_deployment
    from qlint.rules.graph import Settings

    files = [(f"n{i}.sh", ("ray start " + " ".join(words) + "\n"
                           + ("vllm serve Eco-Tech/Qwen3.5-397B-A17B-w8a8 --distributed-executor-backend ray -tp 16\n"
                              if i == 0 else "")).encode()) for i, words in enumerate(nodes)]
    results = lint_deployment(files, Settings(hardware=hardware, version="v0.23.0"))
    assert len(results) == len(files)
    plans = [r.plan for r in results if r.plan is not None]
    for cluster in clusters(plans):
        for node in cluster.nodes:
            node.offered_npus(), node.target(), node.port


@pytest.mark.parametrize("line", [
    'ray start --address="${NODE0_IP:?set NODE0_IP to the address of node node0}:6390" --block',
    'ray start --address "$HEAD:6390"',
    'ray start --address=$HEAD:6390',
    "bash -c 'ray start --address=\"$HEAD:6390\"'",
    'ray start --address="$HEAD":6390',
    'ray start --address=10.0.0.1:6390',
    'ray start --address="${HEAD_IP:?设置 HEAD_IP}:6390"',
])
def test_the_port_of_an_address_has_its_own_span_when_the_host_is_a_variable(line):
    start, = starts(line + "\n")
    port = start.address_port
    assert port is not None and port.text == "6390"
    assert line[port.span.column - 1:port.span.end_column - 1] == "6390"


def test_a_port_that_is_not_written_literally_has_no_span():
    start, = starts('ray start --address="$HEAD:$PORT"\n')
    assert start.address_port is None
