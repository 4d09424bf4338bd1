"""SARIF 2.1.0 (validated against the official schema), GitHub workflow commands, the JSON contract."""

import json
from pathlib import Path

import jsonschema
import pytest

from qlint.linter.catalog import all_rules, rule_url
from qlint.linter.github import annotation
from qlint.linter.sarif import artifact_uri
from qlint.rules.base import Finding
from qlint.rules.plan import Span

from conftest import invoke as run

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
FIXED = ["--hardware", "a3", "--vllm-ascend-version", "v0.23.0"]
SCRIPT = ("#!/bin/bash\n"
          "# qlint: disable=QL206 -- TP 3 is the experiment\n"
          "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3\n"
          "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3 --async-scheduling\n")
CONTRACT = {"path", "line", "column", "end_line", "end_column", "rule", "name", "severity",
            "message", "fix", "sources", "faq"}


@pytest.fixture
def script(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("run.sh").write_text(SCRIPT)
    return "run.sh"


def test_sarif_validates_and_carries_rules_results_fixes_suppressions(script):
    result = run(["--format", "sarif", script, "missing.sh", *FIXED])
    assert result.exit_code == 2  # missing.sh is an input error, reported inside the log too
    log = json.loads(result.stdout)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
    run_ = log["runs"][0]
    assert log["version"] == "2.1.0"
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [m.id for m in all_rules()]
    ql206 = next(r for r in rules if r["id"] == "QL206")
    assert ql206["name"] == "tp-divides-heads"
    assert ql206["helpUri"] == "https://qlint.readthedocs.io/en/latest/rules/QL206.html"
    assert ql206["defaultConfiguration"] == {"level": "error"}
    assert ql206["shortDescription"]["text"] and ql206["fullDescription"]["text"]
    results = run_["results"]
    for item in results:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]
    tp = [r for r in results if r["ruleId"] == "QL206"]
    assert len(tp) == 2
    hidden = next(r for r in tp if "suppressions" in r)
    assert hidden["suppressions"] == [{"kind": "inSource", "justification": "TP 3 is the experiment"}]
    shown = next(r for r in tp if "suppressions" not in r)
    region = shown["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 4, "startColumn": 83, "endLine": 4, "endColumn": 84}
    assert shown["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "run.sh"
    redundant = next(r for r in results if r["ruleId"] == "QL513")
    change = redundant["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert change["insertedContent"]["text"] == "" and change["deletedRegion"]["startLine"] == 4
    invocation = run_["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "missing.sh" in json.dumps(invocation["toolExecutionNotifications"])


def test_sarif_regions_agree_with_json(script):
    sarif = json.loads(run(["--format", "sarif", script, *FIXED]).stdout)["runs"][0]["results"]
    plain = json.loads(run(["--format", "json", script, *FIXED]).stdout)
    visible = [r for r in sarif if "suppressions" not in r]
    assert len(visible) == len(plain)
    for left, right in zip(visible, plain):
        region = left["locations"][0]["physicalLocation"]["region"]
        assert (left["ruleId"], region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]) == \
            (right["rule"], right["line"], right["column"], right["end_line"], right["end_column"])


def test_sarif_clean_run_is_valid(tmp_path):
    path = tmp_path / "ok.sh"
    path.write_text("echo hello\n")
    log = json.loads(run(["--format", "sarif", str(path)]).stdout)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


def test_rule_url_is_the_one_pattern():
    assert rule_url("QL901") == "https://qlint.readthedocs.io/en/latest/rules/QL901.html"


@pytest.mark.parametrize("path,uri", [("run.sh", "run.sh"), ("deploy/my run.sh", "deploy/my%20run.sh"),
                                      ("/srv/a.sh", "file:///srv/a.sh")])
def test_artifact_uri(path, uri):
    assert artifact_uri(path) == uri


def test_github_annotations(script):
    result = run(["--format", "github", script, *FIXED, "--select", "QL206,QL513"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert ("::error file=run.sh,line=4,col=83,endLine=4,endColumn=84,title=QL206 tp-divides-heads::"
            "--tensor-parallel-size 3") in "\n".join(lines)
    assert any(line.startswith("::notice file=run.sh,line=4,") and "title=QL513 redundant-setting::" in line
               for line in lines)
    assert not any("line=3," in line for line in lines)  # the suppressed one


def test_github_chosen_automatically_only_without_format(script):
    auto = run([script, *FIXED], env={"GITHUB_ACTIONS": "true"})
    assert auto.stdout.startswith("::")
    explicit = run([script, *FIXED, "--format", "text"], env={"GITHUB_ACTIONS": "true"})
    assert not explicit.stdout.startswith("::") and "run.sh:4:83: error QL206" in explicit.stdout
    elsewhere = run([script, *FIXED], env={"GITHUB_ACTIONS": "false"})
    assert not elsewhere.stdout.startswith("::")


def test_github_escaping_keeps_one_command_per_finding():
    meta = next(m for m in all_rules() if m.id == "QL206")
    finding = Finding(meta, "50% done\nnext: a,b", Span(1, 2, 1, 3), path="dir,x/a:b.sh")
    line = annotation(finding)
    assert "\n" not in line
    assert line == ("::error file=dir%2Cx/a%3Ab.sh,line=1,col=2,endLine=1,endColumn=3,"
                    "title=QL206 tp-divides-heads::50%25 done%0Anext: a,b")


def test_json_contract_unchanged_and_excludes_suppressed(script):
    data = json.loads(run(["--format", "json", script, *FIXED]).stdout)
    assert data and all(set(item) == CONTRACT for item in data)
    assert [i["line"] for i in data if i["rule"] == "QL206"] == [4]


def test_text_report_of_many_findings_on_one_long_line_is_linear(tmp_path):
    """3,000 unknown options on one line: each finding prints a window of the line, not the whole line."""
    from qlint.linter.reporters import WINDOW

    count = 3000
    line = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 " + " ".join(f"--no-such-option-{i} 1" for i in range(count)) + "\n"
    path = tmp_path / "long.sh"
    path.write_text(line)
    result = run([str(path), "--select", "QL102", "-q"])
    findings = [row for row in result.output.splitlines() if " QL102 " in row]
    assert len(findings) == count
    source_rows = [row for row in result.output.splitlines() if row.startswith("  | ")]
    assert source_rows and max(len(row) for row in source_rows) <= 2 * WINDOW + 20
    assert len(result.output) < 600 * count  # was len(line) (~70 KB) per finding


def test_excerpt_keeps_the_caret_under_the_span():
    from qlint.linter.reporters import excerpt
    from qlint.rules.plan import Span

    text = "x" * 500 + "TARGET" + "y" * 500
    shown, caret = excerpt(text, Span(1, 501, 1, 507))
    column = caret.index("^")
    assert shown[column : column + 6] == "TARGET" and caret.count("~") == 5
    short_shown, short_caret = excerpt("vllm serve m --tp 3", Span(1, 15, 1, 19))
    assert short_shown == "  | vllm serve m --tp 3" and short_caret.index("^") == 4 + 14
