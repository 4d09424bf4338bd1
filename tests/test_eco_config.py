"""Configuration files: discovery, merging with the command line, defaults, errors (exit 2)."""

import pytest

from qlint.linter.lint import Policy, lint_text
from qlint.rules.graph import Settings

from conftest import invoke as run

TP3 = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3\n"
CROWDED = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 2 --data-parallel-size 8\n"
FIXED = ["--hardware", "a3", "--vllm-ascend-version", "v0.23.0"]


def tree(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_pyproject_found_walking_up(tmp_path):
    tree(tmp_path, {"pyproject.toml": '[project]\nname = "x"\n[tool.qlint]\nignore = ["tp-divides-heads"]\n',
                    "deploy/a3/run.sh": TP3})
    result = run([str(tmp_path / "deploy/a3/run.sh"), *FIXED, "--format", "json"])
    assert "QL206" not in result.output
    assert run([str(tmp_path / "deploy/a3/run.sh"), *FIXED, "--select", "QL206"]).exit_code == 1


def test_qlint_toml_wins_and_pyproject_without_table_is_passed_over(tmp_path):
    tree(tmp_path, {".qlint.toml": 'select = ["QL2"]\nfail-level = "error"\n',
                    "pyproject.toml": '[tool.qlint]\nignore = ["QL2"]\n',
                    "sub/pyproject.toml": '[project]\nname = "y"\n',
                    "sub/run.sh": TP3})
    shown = run(["config", "--show", str(tmp_path / "sub/run.sh")])
    assert shown.exit_code == 0, shown.output
    assert f'select = ["QL2"]  # from: {tmp_path / ".qlint.toml"}' in shown.output
    assert "# ignore: nothing  (from: default)" in shown.output
    assert run([str(tmp_path / "sub/run.sh"), *FIXED]).exit_code == 1


def test_each_file_gets_its_own_configuration(tmp_path):
    tree(tmp_path, {"strict/run.sh": TP3, "lax/run.sh": TP3, "lax/.qlint.toml": 'severity = { QL206 = "info" }\n'})
    result = run([str(tmp_path / "strict"), str(tmp_path / "lax"), *FIXED, "--select", "QL206",
                  "--format", "json"])
    levels = {item["path"].split("/")[-2]: item["severity"] for item in __import__("json").loads(result.stdout)}
    assert levels == {"strict": "error", "lax": "info"}


def test_fail_level_and_severity_from_config_drive_exit_code(tmp_path):
    tree(tmp_path, {".qlint.toml": 'select = ["QL206"]\n[severity]\ntp-divides-heads = "warning"\n',
                    "run.sh": TP3})
    path = str(tmp_path / "run.sh")
    assert run([path, *FIXED]).exit_code == 1
    (tmp_path / ".qlint.toml").write_text('select = ["QL206"]\nfail-level = "error"\n[severity]\nQL206 = "warning"\n')
    assert run([path, *FIXED]).exit_code == 0
    assert run([path, *FIXED, "--fail-level", "warning"]).exit_code == 1
    assert run([path, *FIXED, "--fail-level", "info", "--exit-zero"]).exit_code == 0


def test_cli_select_replaces_and_ignore_adds(tmp_path):
    tree(tmp_path, {".qlint.toml": 'select = ["QL203"]\nignore = ["QL5"]\n', "run.sh": TP3})
    path = str(tmp_path / "run.sh")
    assert run([path, *FIXED]).exit_code == 0  # QL206 not selected by the file
    assert run([path, *FIXED, "--select", "QL206"]).exit_code == 1
    emptied = run([path, *FIXED, "--select", "QL206", "--ignore", "QL206"])
    assert emptied.exit_code == 2 and "no rule selected" in emptied.output  # not "no problems"
    shown = run(["config", "--show", path, "--ignore", "QL206"]).output
    assert 'ignore = ["QL5", "QL206"]' in shown and "+ command line" in shown


def test_hardware_default_applies_only_when_the_script_states_none():
    def crowded(text, hardware):
        result = lint_text("run.sh", text, settings=Settings(version="v0.23.0"), policy=Policy(hardware=hardware))
        return "QL203" in [f.rule.id for f in result.findings]

    assert crowded(CROWDED, "a2")  # 16 NPUs on an 8-NPU node
    assert not crowded(CROWDED, "a3")
    assert not crowded("# qlint: hardware=a3\n" + CROWDED, "a2")  # the script's own directive wins
    imaged = "# image: quay.io/ascend/vllm-ascend:v0.23.0-a3\n" + CROWDED
    assert not crowded(imaged, "a2")


def test_version_default_silences_the_assumption_note(tmp_path):
    tree(tmp_path, {".qlint.toml": 'vllm-ascend = "v0.23.0"\nhardware = "a3"\n', "run.sh": TP3, "empty.toml": ""})
    assert "assuming" not in run([str(tmp_path / "run.sh")]).output
    assert "assuming v0.23.0" in run([str(tmp_path / "run.sh"), "--config", str(tmp_path / "empty.toml")]).output


def test_explicit_config_file(tmp_path):
    tree(tmp_path, {"ci.toml": 'select = ["QL203"]\n', "run.sh": TP3, ".qlint.toml": 'select = ["QL206"]\n'})
    path = str(tmp_path / "run.sh")
    assert run([path, *FIXED]).exit_code == 1
    assert run([path, *FIXED, "--config", str(tmp_path / "ci.toml")]).exit_code == 0


def test_config_show_origins(tmp_path):
    tree(tmp_path, {"pyproject.toml": '[tool.qlint]\nhardware = "a3"\n'})
    shown = run(["config", "--show", str(tmp_path), "--fail-level", "error"])
    assert shown.exit_code == 0
    assert f'hardware = "a3"  # from: {tmp_path / "pyproject.toml"} [tool.qlint]' in shown.output
    assert 'fail-level = "error"  # from: command line' in shown.output
    assert "# select: every rule  (from: default)" in shown.output
    assert run(["config", str(tmp_path)]).exit_code == 2  # says what to do


A3_IMAGE = "# image: quay.io/ascend/vllm-ascend:v0.22.1rc1-a3\n"


def test_config_show_file_says_what_the_script_states(tmp_path):
    tree(tmp_path, {"pyproject.toml": '[tool.qlint]\nhardware = "a2"\nvllm-ascend = "v0.23.0"\n',
                    "run.sh": A3_IMAGE + TP3, "d.sh": "# qlint: hardware=310p\n" + TP3, "plain.sh": TP3})
    shown = run(["config", "--show", str(tmp_path / "run.sh")]).output
    assert f'hardware = "a3"  # from: image tag quay.io/ascend/vllm-ascend:v0.22.1rc1-a3 at {tmp_path / "run.sh"}:1' in shown
    assert 'vllm-ascend = "v0.22.1rc1"  # from: image tag' in shown
    directive = run(["config", "--show", str(tmp_path / "d.sh")]).output
    assert "hardware = \"310p\"  # from: directive '# qlint: hardware=' at" in directive
    assert 'vllm-ascend = "v0.23.0"  # from: ' + str(tmp_path / "pyproject.toml") in directive
    plain = run(["config", "--show", str(tmp_path / "plain.sh")]).output
    assert 'hardware = "a2"  # from: ' + str(tmp_path / "pyproject.toml") in plain
    option = run(["config", "--show", str(tmp_path / "run.sh"), "--hardware", "310p"]).output
    assert 'hardware = "310p"  # from: command line' in option
    # and the lint run agrees: the image tag's A3 wins over the configured A2 (no node-size error for TP 3)
    assert run([str(tmp_path / "run.sh"), "--format", "json"]).exit_code == 1


def test_config_show_file_with_nothing_stated_names_the_assumed_release(tmp_path):
    tree(tmp_path, {"run.sh": TP3})
    shown = run(["config", "--show", str(tmp_path / "run.sh")]).output
    assert 'vllm-ascend = "v0.23.0"  # from: assumed: the latest stable release' in shown


@pytest.mark.parametrize("args", [["--select", "QL201", "--ignore", "QL201"], ["--select", "QL2", "--ignore", "parallelism"]])
def test_an_empty_selection_says_so(tmp_path, args):
    path = tree(tmp_path, {"run.sh": TP3}) / "run.sh"
    result = run([str(path), *args])
    assert result.exit_code == 2
    assert "no rule selected" in result.output and "nothing was checked" in result.output
    assert "no problems" not in result.output


def test_an_empty_selection_from_the_config_file_says_so(tmp_path):
    tree(tmp_path, {".qlint.toml": 'select = ["QL206"]\nignore = ["tp-divides-heads"]\n', "run.sh": TP3})
    result = run([str(tmp_path / "run.sh")])
    assert result.exit_code == 2 and "no rule selected" in result.output


@pytest.mark.parametrize("name,text,location,needle", [
    (".qlint.toml", 'select = ["QL206"]\ncolour = "always"\n', ":2:1:", "unknown key 'colour'"),
    (".qlint.toml", 'fail-level = "fatal"\n', ":1:1:", "'fail-level'"),
    (".qlint.toml", 'hardware = "h100"\n', ":1:1:", "'hardware'"),
    (".qlint.toml", 'vllm-ascend = "banana"\n', ":1:1:", "not a release tag"),
    (".qlint.toml", 'ignore = ["QL206", "no-such-rule"]\n', ":1:1:", "'no-such-rule' names no rule"),
    (".qlint.toml", 'select = "QL206"\n', ":1:1:", "'select'"),
    (".qlint.toml", '\n\n[severity]\nQL206 = "fatal"\n', ":4:1:", "'severity.QL206'"),
    ("pyproject.toml", '[project]\nname = "x"\n\n[tool.qlint]\nselect = ["QL2"]\nfail_level = "error"\n',
     ":6:1:", "unknown key 'fail_level'"),
    ("pyproject.toml", '[tool.qlint\nselect = []\n', ":1:12:", "invalid TOML"),
    # errors under a [severity] table point at the key, not at the table's first line
    (".qlint.toml", 'hardware = "a3"\n[severity]\nQL201 = "warning"\nQL999 = "error"\n', ":4:1:", "'QL999' names no rule"),
    ("pyproject.toml", '[tool.qlint]\nhardware = "a3"\n\n[tool.qlint.severity]\nQL201 = "warning"\nQL999 = "error"\n',
     ":6:1:", "'QL999' names no rule"),
    ("pyproject.toml", '[tool.qlint]\nhardware = "a3"\n\n[tool.qlint.severity]\nQL201 = "warning"\n\nQL202 = "loud"\n',
     ":7:1:", "'severity.QL202'"),
    ("pyproject.toml", '[tool.qlint]\nseverity = { QL201 = "warning", QL202 = "loud" }\n', ":2:32:", "'severity.QL202'"),
    ("pyproject.toml", '[tool.other]\nQL202 = "x"\n[tool.qlint.severity]\nQL202 = "loud"\n', ":4:1:", "'severity.QL202'"),
])
def test_bad_configuration_is_exit_2_with_location(tmp_path, name, text, location, needle):
    tree(tmp_path, {name: text, "run.sh": TP3})
    result = run([str(tmp_path / "run.sh")])
    assert result.exit_code == 2
    assert f"{tmp_path / name}{location} error:" in result.output
    assert needle in result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("args", [["--select", "QL77"], ["--ignore", "nope"], ["--fail-level", "fatal"],
                                  ["--config", "/nonexistent/q.toml"]])
def test_bad_options_exit_2(tmp_path, args):
    path = tree(tmp_path, {"run.sh": TP3}) / "run.sh"
    result = run([str(path), *args])
    assert result.exit_code == 2 and "Traceback" not in result.output
