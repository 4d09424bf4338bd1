"""Recall on public failure reports (tests/fixtures/reports): each NNN.sh rebuilds the launch of a
vllm-ascend / vLLM issue, its header names the report, the hardware and the release, and NNN.toml
says what qlint must report (rule and line, and the known-defect entry when the rule is QL560-QL562)
or why nothing in the script can tell (``undetectable``). Every report is linted at its own
release and hardware."""

import re
import tomllib

import pytest

from conftest import FIXTURES, lint
from qlint.knowledge.base import load

REPORTS = FIXTURES / "reports"
NAMES = sorted(p.stem for p in REPORTS.glob("*.sh"))
URL = re.compile(r"^https://github\.com/vllm-project/(vllm-ascend|vllm)/(issues|pull)/\d+$")


def _sidecar(name):
    return tomllib.loads((REPORTS / f"{name}.toml").read_text())


def test_at_least_thirty_reports_each_with_a_sidecar():
    assert len(NAMES) >= 30
    assert sorted(p.stem for p in REPORTS.glob("*.toml")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_header_names_report_hardware_and_release(name):
    meta = _sidecar(name)
    head = (REPORTS / f"{name}.sh").read_text().splitlines()[:6]
    assert URL.match(meta["url"]), meta["url"]
    assert f"# Report: {meta['url']}" in head
    assert any(line.startswith("# Hardware: ") for line in head)
    assert any(line.startswith(f"# Release: vllm-ascend {meta['release']}") for line in head)
    assert meta["hardware"] in ("a2", "a3", "310p")
    assert ("undetectable" in meta) != ("rule" in meta), "a report is either expected to be caught or undetectable"
    if "undetectable" in meta:
        assert len(meta["undetectable"]) > 40, "say why nothing in the script can tell"


@pytest.mark.parametrize("name", [n for n in NAMES if "rule" in _sidecar(n)])
def test_detectable_report_is_caught_at_its_line(name):
    meta = _sidecar(name)
    findings = lint((REPORTS / f"{name}.sh").read_text(), meta["hardware"], meta["release"], path=f"{name}.sh")
    hits = [f for f in findings if f.rule.id == meta["rule"] and f.span.line == meta["line"]]
    if "defect" in meta:
        hits = [f for f in hits if any(t.name == "defect" and t.value == meta["defect"] for t in f.trace)]
    assert hits, f"{name}: {meta['rule']} ({meta.get('defect')}) not at line {meta['line']}; got " + str(
        [(f.rule.id, f.span.line, f.message[:80]) for f in findings])


@pytest.mark.parametrize("name", [n for n in NAMES if "defect" in _sidecar(n)])
def test_defect_is_not_reported_at_its_fixed_release(name):
    meta = _sidecar(name)
    entry = next(d for d in load().defects if d.id == meta["defect"])
    if entry.fixed_in is None:
        pytest.skip(f"{entry.id}: no fixed release known")
    findings = lint((REPORTS / f"{name}.sh").read_text(), meta["hardware"], entry.fixed_in, path=f"{name}.sh")
    assert not [f for f in findings if any(t.name == "defect" and t.value == entry.id for t in f.trace)]


@pytest.mark.parametrize("name", [n for n in NAMES if "undetectable" in _sidecar(n)])
def test_undetectable_report_is_read(name):
    """Nothing in the script tells; it must still be read (no input error) at its release."""
    meta = _sidecar(name)
    lint((REPORTS / f"{name}.sh").read_text(), meta["hardware"], meta["release"], path=f"{name}.sh")
