"""QL314 (a model argument that names no known model) and the ``# qlint: model=`` directive."""

import pytest
from click.testing import CliRunner

from conftest import lint
from qlint.linter.cli import main
from qlint.linter.lint import lint_text


def ids(findings, level=None):
    return sorted({f.rule.id for f in findings if level is None or f.level == level})


UNKNOWN = "vllm serve /data/ckpt/final --tensor-parallel-size 3 --max-model-len 300000\n"


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_unknown_model_says_what_was_skipped(version):
    findings = lint(UNKNOWN, "a2", version)
    info = [f for f in findings if f.rule.id == "QL314"]
    assert len(info) == 1 and info[0].level == "info"
    message = info[0].message
    assert message.startswith("/data/ckpt/final names no model qlint knows")
    for skipped in ("QL206", "QL301", "QL310"):  # heads, context length, weights
        assert skipped in message
    assert "# qlint: model=" in info[0].fix.description
    assert "closest known ids" not in message  # "final" is not a misspelt model id (it was 0.4 like MiniMax-M3)
    assert ids(findings, "error") == []  # nothing guessed


def test_a_misspelt_model_id_gets_the_close_one():
    [info] = [f for f in lint("vllm serve /models/Qwn3.6-27B\n", "a2", "v0.23.0") if f.rule.id == "QL314"]
    assert "closest known ids: Qwen3.6-27B" in info.message  # a letter dropped


def test_known_model_gets_no_info():
    assert "QL314" not in ids(lint("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n", "a2", "v0.23.0"))


def test_symbolic_model_gets_no_info():
    assert "QL314" not in ids(lint('vllm serve "$1" --tensor-parallel-size 2\n', "a2", "v0.23.0"))


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
def test_directive_names_the_model(version):
    findings = lint("# qlint: model=Qwen3.6-27B\n" + UNKNOWN, "a2", version)
    assert "QL314" not in ids(findings)
    assert {"QL206", "QL301"} <= set(ids(findings, "error"))  # TP 3 vs 4 KV heads; 300000 > 262144
    tp = next(f for f in findings if f.rule.id == "QL206")
    assert "Qwen3.6-27B" in tp.message


def test_directive_also_names_a_symbolic_model():
    findings = lint('# qlint: model=Qwen3.6-27B\nvllm serve "$MODEL" --tensor-parallel-size 3\n', "a2", "v0.23.0")
    assert "QL206" in ids(findings, "error")


def test_nearest_directive_above_each_command_applies():
    text = ("# qlint: model=Qwen3.6-27B\nvllm serve /data/a --tensor-parallel-size 8 &\n"
            "# qlint: model=Qwen3.5-397B-A17B\nvllm serve /data/b --tensor-parallel-size 8 --enable-expert-parallel\n")
    findings = lint(text, "a3", "v0.23.0")
    # the BF16 397B does not fit 8 A3 NPUs (QL310); only the second directive names that model
    weights = [f for f in findings if f.rule.id == "QL310"]
    assert [f.span.line for f in weights] == [4] and "Qwen3.5-397B-A17B" in weights[0].message
    assert "QL314" not in ids(findings)


def test_directive_keeps_the_weight_format_of_the_path():
    text = "# qlint: model=Qwen3.5-397B-A17B\nvllm serve /data/ckpt/w4a8-final --tensor-parallel-size 8 " \
           "--enable-expert-parallel --quantization ascend\n"
    findings = lint(text, "a2", "main")
    assert "QL509" not in ids(findings) and "QL310" not in ids(findings)  # W4A8, estimated ~198 GB / 8


def test_unknown_model_in_directive_is_an_input_error():
    result = lint_text("s.sh", "# qlint: hardware=a2 model=Qwen9-1T\nvllm serve /data/x\n")
    assert result.error is not None
    assert (result.error.line, result.error.column) == (1, 28)
    assert "Qwen9-1T" in result.error.message and "names no model" in result.error.message


def test_unknown_model_directive_exits_2_with_location(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("# qlint: model=Qwen3.6-72B\nvllm serve /data/x\n")
    result = CliRunner().invoke(main, [str(script)])
    assert result.exit_code == 2
    assert f"{script}:1:16: error: '# qlint: model=Qwen3.6-72B' names no model" in result.output
    assert "Traceback" not in result.output
