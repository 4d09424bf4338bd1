"""Launches kept outside shell scripts: Markdown guides, Kubernetes manifests, compose files,
vllm-ascend's e2e configs. The faulty command (TP 16 on an 8-NPU A2 node, --max-model-len above
the model's maximum) must be reported at the line of the file that holds the faulty value."""

from __future__ import annotations

import textwrap

import pytest

from qlint.linter.lint import lint_bytes
from qlint.rules.graph import Settings

MODEL = "Eco-Tech/Qwen3.6-27B-w8a8"

POD_SPEC = """\
    containers:
      - name: engine
        image: quay.io/ascend/vllm-ascend:v0.23.0
        env:
          - name: OMP_NUM_THREADS
            value: "1"
          - name: POD_IP
            valueFrom: {fieldRef: {fieldPath: status.podIP}}
        command: ["vllm", "serve", "%s"]
        args: ["--tensor-parallel-size", "16", "--max-model-len=999999"]
""" % MODEL


def _pod(spaces: int) -> str:
    return textwrap.indent(textwrap.dedent(POD_SPEC), " " * spaces)


MANIFESTS = {
    "pod": "apiVersion: v1\nkind: Pod\nmetadata: {name: vllm}\nspec:\n" + _pod(2),
    "deployment": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  replicas: 1\n"
                  "  template:\n    metadata: {labels: {app: vllm}}\n    spec:\n" + _pod(6),
    "statefulset": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: vllm}\nspec:\n  serviceName: vllm\n"
                   "  template:\n    spec:\n" + _pod(6),
    "job": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: vllm}\nspec:\n  template:\n    spec:\n"
           "      restartPolicy: Never\n" + _pod(6),
    "leaderworkerset": "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: vllm}\n"
                       "spec:\n  leaderWorkerTemplate:\n    size: 2\n    leaderTemplate:\n      spec:\n" + _pod(8),
}

BASH_C_MANIFEST = """\
# qlint: hardware=a2
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
        - name: engine
          image: quay.io/ascend/vllm-ascend:v0.23.0
          command: ["/bin/bash", "-c"]
          args:
            - |
              export OMP_NUM_THREADS=1
              vllm serve %s \\
                --port 8000 \\
                --tensor-parallel-size 16 \\
                --max-model-len 999999
""" % MODEL

COMPOSE = """\
# qlint: hardware=a2
services:
  engine:
    image: quay.io/ascend/vllm-ascend:v0.23.0
    devices:
      - /dev/davinci0
      - /dev/davinci1:/dev/davinci1
    environment:
      OMP_NUM_THREADS: "1"
    command: >
      vllm serve %s
      --tensor-parallel-size 16
      --max-model-len 999999
  client:
    image: curlimages/curl
    command: ["curl", "http://engine:8000/v1/models"]
""" % MODEL

E2E = """\
# qlint: hardware=a2 vllm-ascend=v0.23.0
_envs: &envs
  OMP_NUM_THREADS: "10"
  SERVER_PORT: "DEFAULT_PORT"

_server_cmd: &server_cmd
  - "--port"
  - "$SERVER_PORT"
  - "--tensor-parallel-size"
  - "16"
  - "--max-model-len"
  - "999999"

test_cases:
  - name: "qwen3.6-27b"
    model: "%s"
    envs:
      <<: *envs
    server_cmd: *server_cmd
    server_cmd_extra:
      - "--enforce-eager"
""" % MODEL

GUIDE = """\
# Qwen3.6-27B on one A2 node

<!-- qlint: hardware=a2 vllm-ascend=v0.23.0 -->

Set the environment, then start the server (`vllm serve` also appears inline).

```bash
export OMP_NUM_THREADS=1
```

1. Start it:

   ```bash
   vllm serve %s \\
     --port 8000 \\
     --tensor-parallel-size 16 \\
     --max-model-len 999999
   ```

```console
$ curl http://localhost:8000/v1/models
{"data": []}
```

```python
print("not shell")
```
""" % MODEL


def _lint(name: str, text: str, **settings):
    result = lint_bytes(name, text.encode(), settings=Settings(**settings))
    assert result.error is None, result.error.message
    return result


def _line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.split("\n"), 1) if needle in line)


def _assert_faulty_at_lines(result, text: str, tp_needle: str, len_needle: str) -> None:
    rules = {}
    for finding in result.findings:
        rules.setdefault(finding.rule.id, []).append(finding)
    assert "QL203" in rules and "QL301" in rules, [(f.rule.id, f.message) for f in result.findings]
    assert {f.span.line for f in rules["QL203"]} == {_line_of(text, tp_needle)}
    assert {f.span.line for f in rules["QL301"]} == {_line_of(text, len_needle)}


@pytest.mark.parametrize("kind", sorted(MANIFESTS))
def test_kubernetes_workloads_are_read_per_container(kind):
    text = "# qlint: hardware=a2\n" + MANIFESTS[kind]
    result = _lint(f"{kind}.yaml", text)
    assert result.plan.kind == "kubernetes"
    _assert_faulty_at_lines(result, text, '"--tensor-parallel-size"', "999999")
    serve = result.plan.serve_commands()[0]
    assert serve.env["OMP_NUM_THREADS"].value.text == "1"
    assert serve.env["POD_IP"].value.text is None  # valueFrom: known only at run time
    assert any(tag.text == "quay.io/ascend/vllm-ascend:v0.23.0" for tag in result.plan.image_tags)


def test_a_bash_c_block_in_a_manifest_is_read_at_its_lines():
    result = _lint("deploy.yaml", BASH_C_MANIFEST)
    _assert_faulty_at_lines(result, BASH_C_MANIFEST, "--tensor-parallel-size 16", "999999")
    tp = next(f for f in result.findings if f.rule.id == "QL206")
    line = BASH_C_MANIFEST.split("\n")[tp.span.line - 1]
    assert line[tp.span.column - 1 : tp.span.end_column - 1] == "16"


def test_the_image_tag_of_a_manifest_gives_the_hardware():
    text = BASH_C_MANIFEST.replace("# qlint: hardware=a2\n", "").replace("v0.23.0", "v0.23.0-a3")
    result = _lint("deploy.yaml", text)
    assert "QL203" not in {f.rule.id for f in result.findings}  # 16 NPUs fit an A3 node


def test_compose_services_command_environment_and_devices():
    result = _lint("compose.yaml", COMPOSE)
    assert result.plan.kind == "compose"
    _assert_faulty_at_lines(result, COMPOSE, "--tensor-parallel-size 16", "999999")
    devices = next(f for f in result.findings if f.rule.id == "QL204")
    assert "the container maps 2" in devices.message
    assert devices.span.line == _line_of(COMPOSE, "davinci1")
    clients = [c for c in result.plan.commands if c.argv and c.argv[0].text == "curl"]
    assert clients  # the other service is read too


def test_e2e_config_server_cmd_with_envs():
    result = _lint("Qwen3.6-27B.yaml", E2E)
    assert result.plan.kind == "e2e-config"
    _assert_faulty_at_lines(result, E2E, '"--tensor-parallel-size"', '"999999"')
    serve = result.plan.serve_commands()[0]
    assert serve.model.text == MODEL
    assert serve.options["--port"].value.text is None  # $SERVER_PORT is DEFAULT_PORT: picked at run time
    assert serve.env["OMP_NUM_THREADS"].value.text == "10"  # through the << merge key
    assert "--enforce-eager" in serve.options


def test_markdown_shell_blocks_are_linted_at_the_md_line():
    result = _lint("guide.md", GUIDE)
    assert result.plan.kind == "markdown"
    _assert_faulty_at_lines(result, GUIDE, "--tensor-parallel-size 16", "999999")
    serve = result.plan.serve_commands()[0]
    assert serve.env["OMP_NUM_THREADS"].value.text == "1"  # an earlier block of the same guide
    assert [c.argv[0].text for c in result.plan.commands if c.kind == "client"] == ["curl"]


def test_markdown_block_that_does_not_parse_is_said_not_read():
    text = "# Guide\n\n```bash\nvllm serve 'unterminated\n```\n"
    result = _lint("guide.md", text)
    unread = [f for f in result.findings if f.rule.id == "QL109"]
    assert [f.span.line for f in unread] == [4]


def test_markdown_fix_edits_the_block_and_nothing_else():
    from qlint.linter.fixer import fix_bytes

    text = "# Guide \\\n\n```bash\nvllm serve Qwen/Qwen3.6-27B \\\n  --port 8000 \\\n\n```\n\nText after \\\n"
    outcome = fix_bytes("guide.md", text.encode(), lambda data: lint_bytes("guide.md", data))
    assert outcome.data is not None
    assert outcome.data.decode() == text.replace("--port 8000 \\\n", "--port 8000\n")


def test_yaml_that_does_not_parse_is_an_input_error_with_its_place():
    result = lint_bytes("bad.yaml", b"services:\n  engine:\n    command: [vllm, serve\n")
    assert result.error is not None and result.error.line >= 3


def test_yaml_without_launches_says_what_it_holds():
    result = _lint("values.yaml", "replicas: 2\nimage: x\n")
    assert result.found and not result.plan.serve_commands()


MULTI_NODE = """\
# qlint: hardware=a2 vllm-ascend=v0.23.0
model: "%s"
num_nodes: 2
env_common: &env_common
  OMP_NUM_THREADS: 1
  SERVER_PORT: 8080
deployment:
  -
    envs:
      <<: *env_common
    server_cmd: >
        vllm serve "%s"
        --port $SERVER_PORT
        --tensor-parallel-size 16
        --max-model-len 999999
""" % (MODEL, MODEL)


def test_multi_node_e2e_config_runs_each_server_cmd_with_its_envs():
    result = _lint("multi.yaml", MULTI_NODE)
    assert result.plan.kind == "e2e-config"
    _assert_faulty_at_lines(result, MULTI_NODE, "--tensor-parallel-size 16", "999999")
    serve = result.plan.serve_commands()[0]
    assert serve.options["--port"].value.text == "8080"  # $SERVER_PORT from the node's envs
