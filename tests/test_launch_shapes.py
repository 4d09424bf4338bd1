"""Every shape a launch hides in: wrappers, shell structure, the same findings as the bare command.

Each shape wraps the same faulty command (TP 16 on an 8-NPU A2 node, ``--max-model-len``
above the model's maximum): it must be reported at the line that holds the faulty value.
The property: wrapping any generated launch script (and any mutated one, which has a
finding) in each shape gives the same findings as the bare script, positions aside.
"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings, strategies as st

import qlint.testing as qt
from qlint.linter.lint import lint_bytes

FAULTY = """#!/bin/bash
# qlint: hardware=a2 vllm-ascend=v0.23.0
export OMP_NUM_THREADS=1
export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7

vllm serve Eco-Tech/Qwen3.6-27B-w8a8 \\
  --port 8000 \\
  --tensor-parallel-size 16 \\
  --max-model-len 999999
"""
IMAGES = {"a2": "quay.io/ascend/vllm-ascend:{tag}", "a3": "quay.io/ascend/vllm-ascend:{tag}-a3",
          "310p": "quay.io/ascend/vllm-ascend:{tag}-310p"}


# -- splitting a generated script into header, exports and the serve command -----------------

def _split(script: str) -> tuple[list[str], list[str], list[str]]:
    """(leading comment lines, the lines before ``vllm serve``, the serve command's lines)."""
    lines = script.rstrip("\n").split("\n")
    header = []
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        header.append(lines.pop(0))
    start = next(i for i, line in enumerate(lines) if line.startswith("vllm serve"))
    end = start
    while lines[end].endswith("\\"):
        end += 1
    assert end == len(lines) - 1 or not any(l.strip() for l in lines[end + 1:]), "one command at the end"
    return header, lines[:start], lines[start:end + 1]


def _settings(header: list[str]) -> dict[str, str]:
    for line in header:
        if line.startswith("# qlint:"):
            return dict(item.split("=", 1) for item in line[len("# qlint:"):].split() if "=" in item)
    return {}


def _image(header: list[str]) -> str:
    found = _settings(header)
    return IMAGES[found.get("hardware", "a2")].format(tag=found.get("vllm-ascend", "v0.23.0"))


def _exports(before: list[str]) -> list[tuple[str, str]]:
    out = []
    for line in before:
        if line.startswith("export "):
            name, _, value = line[len("export "):].partition("=")
            out.append((name, value))
        else:
            assert not line.strip(), f"unexpected line {line!r}"
    return out


def _join(*parts: list[str]) -> str:
    return "\n".join(line for part in parts for line in part) + "\n"


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _double_quoted(text: str) -> str:
    return '"' + text.replace("\\\n", "\0").replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") \
        .replace("`", "\\`").replace("\0", "\\\n") + '"'


def _prefix(wrapper: str):
    def shape(script: str, tmp_path) -> str:
        header, before, serve = _split(script)
        return _join(header, before, [wrapper + serve[0]], serve[1:])
    shape.__name__ = wrapper.strip().replace(" ", "_") or "bare"
    return shape


def _code(script: str) -> tuple[list[str], str]:
    header, before, serve = _split(script)
    return header, _join(before, serve)


def bash_c(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["bash -c " + _single_quoted(code)])


def sh_c_double(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["sh -c " + _double_quoted(code)])


def bash_lc_args(script, tmp_path):
    header, before, serve = _split(script)
    model = serve[0].split()[2]
    serve = [serve[0].replace(model, '"$1"', 1)] + serve[1:]
    return _join(header, ["bash -lc " + _single_quoted(_join(before, serve)) + f" launch {model}"])


def ssh_host(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["ssh -o StrictHostKeyChecking=no -p 22 node0 " + _single_quoted(code)])


def su_c(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["su - root -c " + _single_quoted(code)])


def heredoc_bash(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["bash <<'EOF'"]) + code + "EOF\n"


def heredoc_docker_exec(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["docker exec -i vllm-node bash -s <<'EOF'"]) + code + "EOF\n"


def heredoc_ssh(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["ssh node0 <<EOF"]) + code + "EOF\n"


def heredoc_ssh_bash(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["ssh -p 22 node0 bash <<'EOF'"]) + code + "EOF\n"


def heredoc_ssh_bash_s(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["ssh -T root@node0 'bash -s' <<'EOF'"]) + code + "EOF\n"


def heredoc_ssh_bash_l(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["ssh node0 bash -l <<EOF"]) + code + "EOF\n"


def ssh_options_after_host(script, tmp_path):
    """OpenSSH reads options after the destination too; ``--`` ends them."""
    header, code = _code(script)
    return _join(header, ["ssh node0 -o BatchMode=yes -T -- " + _single_quoted(code)])


def ssh_bash_c_words(script, tmp_path):
    """ssh joins its words with spaces; the remote shell parses ``bash -c '...'``."""
    header, code = _code(script)
    return _join(header, ["ssh node0 bash -c " + shlex.quote(_single_quoted(code))])


def cat_pipe_bash(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["cat <<'EOF' | bash"]) + code + "EOF\n"


def herestring(script, tmp_path):
    header, code = _code(script)
    return _join(header, ["bash <<< " + _single_quoted(code)])


def docker_run(script, tmp_path):
    header, before, serve = _split(script)
    hardware = _settings(header).get("hardware", "a2")
    npus = 16 if hardware == "a3" else 8
    options = ["docker run --rm -it --name vllm-node --net=host --shm-size=16g \\"]
    options += [f"  --device /dev/davinci{i} \\" for i in range(npus)]
    options += ["  --device=/dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc \\",
                "  -v /usr/local/Ascend/driver:/usr/local/Ascend/driver -v /root/.cache:/root/.cache \\"]
    options += [f"  -e {name}={value} \\" for name, value in _exports(before)]
    options += [f"  {_image(header)} \\"]
    return _join(header, options, serve)


def docker_run_bash_c(script, tmp_path):
    header, code = _code(script)
    return _join(header, [f"docker run --rm --net=host -v /m:/m {_image(header)} bash -c " + _single_quoted(code)])


def docker_exec_env(script, tmp_path):
    header, before, serve = _split(script)
    options = [f"docker run -d --name vllm-node --net=host {_image(header)} sleep infinity"]
    envs = " ".join(f"--env {name}={value}" for name, value in _exports(before))
    return _join(header, options, [f"docker exec -it {envs} vllm-node " + serve[0]], serve[1:])


def podman_env_file(script, tmp_path):
    header, before, serve = _split(script)
    (tmp_path / "engine.env").write_text("".join(f"{n}={v}\n" for n, v in _exports(before)))
    return _join(header, [f"podman run --rm --env-file engine.env {_image(header)} \\"], serve)


def function_call(script, tmp_path):
    header, before, serve = _split(script)
    model = serve[0].split()[2]
    serve = [serve[0].replace(model, '"$1"', 1)] + serve[1:]
    return _join(header, ["start_server() {"], before, serve, ["}", "", f"start_server {model}"])


def function_args(script, tmp_path):
    header, before, serve = _split(script)
    return _join(header, before, ["serve_model() {", '  vllm serve "$@"', "}", "",
                                  "serve_model " + serve[0][len("vllm serve "):]], serve[1:])


def array_args(script, tmp_path):
    header, before, serve = _split(script)
    model = serve[0].split()[2]
    elements = [line.strip().rstrip("\\").rstrip() for line in serve[1:]]
    return _join(header, before, ["ARGS=("], [f"  {e}" for e in elements], [")"],
                 [f'vllm serve {model} "${{ARGS[@]}}"'])


def loop_values(script, tmp_path):
    header, before, serve = _split(script)
    model = serve[0].split()[2]
    serve = [serve[0].replace(model, '"$m"', 1)] + serve[1:]
    return _join(header, before, [f"for m in {model}; do"], serve, ["done"])


def default_value(script, tmp_path):
    header, before, serve = _split(script)
    model = serve[0].split()[2]
    serve = [serve[0].replace(model, '"${MODEL:-' + model + '}"', 1)] + serve[1:]
    return _join(header, before, serve)


def assign_default(script, tmp_path):
    header, before, serve = _split(script)
    model = serve[0].split()[2]
    serve = [serve[0].replace(model, '"$MODEL"', 1)] + serve[1:]
    return _join(header, before, [f": ${{MODEL:={model}}}"], serve)


def sourced_env(script, tmp_path):
    header, before, serve = _split(script)
    (tmp_path / "env.sh").write_text(_join(before))
    return _join(header, ["source ./env.sh"], serve)


def api_server_module(script, tmp_path):
    header, before, serve = _split(script)
    model = serve[0].split()[2]
    first = serve[0].replace(f"vllm serve {model}", f"python3 -u -m vllm.entrypoints.openai.api_server --model {model}")
    return _join(header, before, [first], serve[1:])


def cli_main_module(script, tmp_path):
    header, before, serve = _split(script)
    first = serve[0].replace("vllm serve", "python -m vllm.entrypoints.cli.main serve", 1)
    return _join(header, before, [first], serve[1:])


PREFIXES = [
    "sudo -E ", "sudo --preserve-env -u root -H ", "env ", "env -u NO_SUCH_VAR ", "nohup ", "exec ", "time ",
    "time -p ", "timeout 3600 ", "timeout -s KILL --kill-after=10 2h ", "nice -n 5 ", "nice -5 ", "nice --adjustment=5 ",
    "ionice -c 2 -n 0 ", "ionice -c2 ", "chrt -f 10 ", "chrt --rr 5 ", "taskset -c 0-31 ", "taskset 0xff ",
    "numactl -N 0 -m 0 ", "numactl -N0 -m0 ", "numactl --cpunodebind=0 --membind=0 ", "numactl --cpunodebind 0 --localalloc ",
    "numactl -C 0-15 -l ", "numactl --interleave=all ", "stdbuf -oL -eL ", "stdbuf --output=L ", "setsid ", "setsid -f ",
    "command ", "command -p ", "sudo -E nice -n 5 stdbuf -oL numactl -N 0 ",
]
SHAPES = [_prefix(p) for p in PREFIXES] + [
    bash_c, sh_c_double, bash_lc_args, ssh_host, su_c, heredoc_bash, heredoc_docker_exec, heredoc_ssh, heredoc_ssh_bash,
    heredoc_ssh_bash_s, heredoc_ssh_bash_l, ssh_bash_c_words, ssh_options_after_host, cat_pipe_bash,
    herestring, docker_run, docker_run_bash_c, docker_exec_env, podman_env_file, function_call, function_args,
    array_args, loop_values, default_value, assign_default, sourced_env, api_server_module, cli_main_module,
]


def _lint(path, text: str):
    result = lint_bytes(str(path), text.encode("utf-8"))
    assert result.error is None, (result.error.message, text)
    return result


def _key(findings) -> list[tuple[str, str]]:
    return sorted((f.rule.id, f.message) for f in findings)


def _line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.split("\n"), 1) if needle in line)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
def test_the_faulty_command_is_reported_at_its_line_in_every_shape(shape, tmp_path):
    text = shape(FAULTY, tmp_path)
    path = tmp_path / "run.sh"
    path.write_text(text)
    findings = _lint(path, text).findings
    by_rule = {f.rule.id: f for f in findings}
    assert "QL203" in by_rule, (text, _key(findings))  # TP x DP = 16 NPUs on an 8-NPU A2 node
    assert "QL301" in by_rule, (text, _key(findings))  # --max-model-len above the model's maximum
    assert by_rule["QL203"].span.line == _line_of(text, "--tensor-parallel-size 16")
    assert by_rule["QL301"].span.line == _line_of(text, "999999")
    assert by_rule["QL301"].path == str(path)
    bare = _lint(tmp_path / "bare.sh", FAULTY).findings
    assert _key(findings) == _key(bare)


def _serve(text: str, path: str = "run.sh"):
    result = lint_bytes(path, text.encode())
    assert result.error is None
    [serve] = result.plan.serve_commands()
    return result, serve


def test_container_devices_are_the_npus_the_engine_sees():
    text = ("# qlint: hardware=a2\ndocker run --rm --device=/dev/davinci0 --device /dev/davinci1 \\\n"
            "  --device /dev/davinci_manager quay.io/ascend/vllm-ascend:v0.23.0 \\\n"
            "  vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4\n")
    result, serve = _serve(text)
    assert [d.text for d in serve.devices] == ["/dev/davinci0", "/dev/davinci1"]
    [finding] = [f for f in result.findings if f.rule.id == "QL204"]
    assert "the container maps 2" in finding.message and finding.span.line == 2
    assert serve.wrappers == ["docker"]


def test_container_environment_is_what_docker_passes():
    text = ("export OMP_NUM_THREADS=1\nexport HCCL_BUFFSIZE=512\nDEV=0,1\n"
            "docker run -e HCCL_BUFFSIZE -e ASCEND_RT_VISIBLE_DEVICES=$DEV --env=TASK_QUEUE_ENABLE=2 \\\n"
            "  quay.io/ascend/vllm-ascend:v0.23.0 vllm serve Qwen/Qwen3.6-27B\n")
    _, serve = _serve(text)
    assert "OMP_NUM_THREADS" not in serve.env  # a container does not inherit the host's environment
    assert serve.env["HCCL_BUFFSIZE"].value.text == "512"  # -e NAME passes the host's value
    assert serve.env["ASCEND_RT_VISIBLE_DEVICES"].value.text == "0,1"
    assert serve.env["TASK_QUEUE_ENABLE"].value.text == "2"


@pytest.mark.parametrize("wrapper, inherited", [
    ("sudo", False), ("sudo -E", True), ("sudo --preserve-env=OMP_NUM_THREADS", True), ("env -i", False),
    ("env", True), ("ssh node1", False), ("nice -n 5", True),
])
def test_which_wrappers_pass_the_environment_on(wrapper, inherited):
    _, serve = _serve(f"export OMP_NUM_THREADS=1\n{wrapper} vllm serve Qwen/Qwen3.6-27B\n")
    assert ("OMP_NUM_THREADS" in serve.env) is inherited


def test_docker_exec_runs_in_the_container_started_earlier():
    text = ("docker run -d --name engine -e ASCEND_RT_VISIBLE_DEVICES=0,1 --device /dev/davinci0 "
            "quay.io/ascend/vllm-ascend:v0.23.0-a3 sleep infinity\n"
            "docker exec -it engine vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n")
    result, serve = _serve(text)
    assert serve.env["ASCEND_RT_VISIBLE_DEVICES"].value.text == "0,1"
    assert any(tag.text.endswith("-a3") for tag in result.plan.image_tags)


def test_a_function_never_called_is_still_read():
    text = "# qlint: hardware=a2\nstart() {\n  vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 16 --port $1\n}\n"
    result, serve = _serve(text)
    assert serve.options["--port"].value.text is None  # $1 unknown: no guess
    assert [f.span.line for f in result.findings if f.rule.id == "QL203"] == [3]


def test_a_loop_reads_its_body_once_per_value():
    text = "# qlint: hardware=a2\nfor tp in 2 16; do\n  vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size $tp &\ndone\n"
    result = lint_bytes("run.sh", text.encode())
    assert [s.options["--tensor-parallel-size"].value.text for s in result.plan.serve_commands()] == ["2", "16"]
    assert len([f for f in result.findings if f.rule.id == "QL203"]) == 1


def test_wrappers_that_run_nothing_are_not_engines():
    for text in ("command -v vllm\n", "docker ps\n", "taskset -p 0xff 1234\n", "numactl --show\n"):
        assert lint_bytes("run.sh", text.encode()).plan.serve_commands() == []


# QL103 (a trailing backslash) and QL104 (shebang placement) are about the file's own layout,
# which a wrapper changes by design; every other mutation is about the launch itself.
LAYOUT_RULES = {"QL103", "QL104"}
scripts = st.one_of(
    qt.launch_scripts(),
    qt.violations().filter(lambda violation: violation.rule not in LAYOUT_RULES).map(lambda violation: violation.script),
)


@settings(max_examples=int(__import__("os").environ.get("SHAPE_EXAMPLES", "25")))
@given(scripts, st.sampled_from(SHAPES))
def test_wrapping_a_generated_script_keeps_its_findings(tmp_path_factory, script, shape):
    folder = tmp_path_factory.mktemp("shape")
    bare = _lint(folder / "bare.sh", script).findings
    text = shape(script, folder)
    wrapped = _lint(folder / "run.sh", text).findings
    assert _key(wrapped) == _key(bare), text


def test_every_shape_over_one_generated_script_per_hardware(tmp_path):
    """The property over every shape at once (hypothesis samples shapes; this covers each)."""
    for hardware in ("a2", "a3", "310p"):
        config = next(c for c in qt.all_configs() if c.hardware == hardware)
        script = qt.render(config).script
        bare = _key(_lint(tmp_path / "bare.sh", script).findings)
        for shape in SHAPES:
            text = shape(script, tmp_path)
            assert _key(_lint(tmp_path / "run.sh", text).findings) == bare, (shape.__name__, text)


CONTAINERS = [
    lambda code: "bash -c " + _single_quoted(code) + "\n",
    lambda code: "sh -c " + _double_quoted(code) + "\n",
    lambda code: "ssh node0 <<EOF\n" + code + "\nEOF\n",
    lambda code: "f() {\n" + code + "\n}\nf a b\n",
    lambda code: "for x in 1 2; do\n" + code + "\ndone\n",
    lambda code: "docker run -e A=1 img bash -c " + _single_quoted(code) + "\n",
]


@settings(max_examples=int(__import__("os").environ.get("SHAPE_EXAMPLES", "25")))
@given(qt.shell_texts(), st.sampled_from(range(len(CONTAINERS))), st.sampled_from(["run.sh", "guide.md", "pod.yaml"]))
def test_any_text_in_any_shape_is_read_or_refused_never_crashes(text, container, name):
    """Shell-like text (broken now and then) inside a wrapper, a guide or a manifest: a result or an input error."""
    script = CONTAINERS[container](text)
    if name == "guide.md":
        script = "# Guide\n\n```bash\n" + script + "```\n"
    elif name == "pod.yaml":
        script = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: e\n      command: [bash, -c]\n"
                  "      args:\n        - |\n" + "".join("          " + line + "\n" for line in script.splitlines()))
    result = lint_bytes(name, script.encode("utf-8"))
    assert result.error is not None or result.plan is not None
    for finding in result.findings:
        assert finding.span.line >= 1 and finding.span.column >= 1
