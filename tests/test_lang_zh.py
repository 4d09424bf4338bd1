"""``--lang zh``: everything a person reads is Chinese, outside commands, flags, names and quoted
messages. Runs the commands people read (check with findings, notes, input errors and the summary;
explain; explain --log; config --show) and looks for English sentences left in the output."""

from __future__ import annotations

import re

import pytest

from qlint.docgen.prose import PROPER_NOUNS

from conftest import invoke, write_file

# words that are names in qlint's output, not prose: severities, the rule-name brackets are dropped
ALLOWED = PROPER_NOUNS | {"error", "warning", "info", "note", "serve", "qwen", "eco", "tech", "expert", "parallel",
                          "dense", "ray", "mp", "yes", "no", "true", "false", "none", "fix", "advice", "see"}
_DROP = re.compile(
    r"https?://\S+"                      # links
    r"|\[[a-z0-9-]+\]"                   # [rule-name]
    r"|'[^']*'|\"[^\"]*\"|“[^”]*”|`[^`]*`"  # quoted values and messages
    r"|--?[A-Za-z][\w-]*(=\S*)?"         # flags
    r"|\S*[/\\._:=\d]\S*"                # paths, ids, versions, numbers, key=value
)
_WORD = re.compile(r"\b[A-Za-z]{2,}\b")


def english_runs(text: str, longest: int = 3) -> list[str]:
    """Lines of ``text`` holding more than ``longest`` English prose words in a row."""
    bad = []
    for line in text.splitlines():
        if line.lstrip().startswith("|"):  # the quoted script line under a finding
            continue
        plain = _DROP.sub(" ", line)
        run = 0
        for token in re.split(r"(\s+|[，。；：（）、,;:()])", plain):
            if not token or token.isspace():
                continue
            if _WORD.fullmatch(token) and token.lower() not in ALLOWED:
                run += 1
                if run > longest:
                    bad.append(line)
                    break
            elif re.search(r"[\u3400-\u9fff]", token) or re.fullmatch(r"[，。；：（）、,;:()]", token):
                run = 0
    return bad


def test_the_check_finds_english():
    assert english_runs("run.sh:1:1: error QL206 [tp-divides-heads] the TP does not divide the heads")
    assert not english_runs("run.sh:1:1: error QL206 [tp-divides-heads] --tensor-parallel-size 3 不能整除 24 个注意力头")


SCRIPT = "#!/bin/bash\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 3 --enable-expert-parallel\n"
UNKNOWN_RELEASE = ("# qlint: vllm-ascend=v0.22.7\nvllm serve Qwen/Qwen3.6-27B --max-model-len 262144 "
                   "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n")
LOG = ("ValueError: KV transfer 'decode' config has a conflicting tensor parallel size. Expected 4, but got 8\n")


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "empty").mkdir()
    return {
        "script": write_file(tmp_path, "a.sh", SCRIPT),
        "unknown": write_file(tmp_path, "b.sh", UNKNOWN_RELEASE),
        "bad": write_file(tmp_path, "bad.sh", "vllm serve \"x\n"),
        "binary": write_file(tmp_path, "bin.sh", b"vllm\x00serve\n"),
        "client": write_file(tmp_path, "c.sh", "curl http://localhost:8000/v1/models\n"),
        "log": write_file(tmp_path, "server.log", LOG),
        "directives": [write_file(tmp_path, f"d{index}.sh", f"# qlint: {directive}\n" + SCRIPT) for index, directive in
                       enumerate(("hardwre=a2", "hardware=a9", "model=Foo-1B", "vllm-ascend=vX"))],
        "empty": str(tmp_path / "empty"),
        "missing": str(tmp_path / "no-such-file.sh"),
    }


@pytest.mark.parametrize("case", ["check", "unknown", "bad", "empty", "explain", "log", "config", "directives",
                                  "missing"])
def test_lang_zh_output_has_no_english_sentence(inputs, case):
    zh = ["--lang", "zh"]
    args = {
        "check": [inputs["script"], inputs["client"], *zh],
        "unknown": [inputs["unknown"], *zh],
        "bad": [inputs["bad"], inputs["binary"], inputs["script"], *zh],
        "empty": [inputs["empty"], *zh],
        "explain": ["explain", "QL206", *zh],
        "log": ["explain", "--log", inputs["log"], *zh],
        "config": ["config", "--show", inputs["script"], *zh],
        "directives": [*inputs["directives"], *zh],
        "missing": [inputs["missing"], inputs["script"], *zh],
    }[case]
    result = invoke(args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert re.search(r"[\u3400-\u9fff]", result.output), result.output
    assert english_runs(result.output) == [], result.output
    assert not re.search(r"(错误|注意|警告|提示): ", result.output), result.output  # a Chinese label takes "："


def test_the_same_runs_in_english_are_caught(inputs):
    """The check sees real output: the English run of the same inputs is full of English sentences."""
    for args in ([inputs["script"], inputs["client"]], [inputs["bad"], inputs["binary"]], ["explain", "QL206"],
                 ["explain", "--log", inputs["log"]], [inputs["unknown"]], [inputs["empty"]], inputs["directives"],
                 [inputs["missing"]]):
        assert english_runs(invoke([*args, "--lang", "en"]).output), args
