"""Recall on public failure reports (tests/fixtures/reports): each NNN.sh rebuilds the launch of a
vllm-ascend / vLLM issue, its header names the report, the hardware and the release, and NNN.toml
says what qlint must report (rule and line, and the known-defect entry when the rule is QL560-QL562)
or why nothing in the script can tell (``undetectable``). Every report is linted at its own
release and hardware.

Reports 032-061 (``held_out = "2026-12-01"``) were collected as a held-out set: public reports
qlint's knowledge had never cited, read before any gap they showed was closed. Their figures,
before (main at d2c5614) and now, are in README (Known defects of a release). A held-out report
qlint should catch but still misses carries ``still_missed`` (why); the test fails once it is
caught, so the figures and the sidecar get updated."""

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


def _hits(name, meta):
    findings = lint((REPORTS / f"{name}.sh").read_text(), meta["hardware"], meta["release"], path=f"{name}.sh")
    hits = [f for f in findings if f.rule.id == meta["rule"] and f.span.line == meta["line"]]
    if "defect" in meta:
        hits = [f for f in hits if any(t.name == "defect" and t.value == meta["defect"] for t in f.trace)]
    return hits, findings


@pytest.mark.parametrize("name", [n for n in NAMES if "rule" in _sidecar(n) and "still_missed" not in _sidecar(n)])
def test_detectable_report_is_caught_at_its_line(name):
    meta = _sidecar(name)
    hits, findings = _hits(name, meta)
    assert hits, f"{name}: {meta['rule']} ({meta.get('defect')}) not at line {meta['line']}; got " + str(
        [(f.rule.id, f.span.line, f.message[:80]) for f in findings])


@pytest.mark.parametrize("name", [n for n in NAMES if "still_missed" in _sidecar(n)])
def test_a_report_still_missed_stays_documented(name):
    """A report qlint should catch but does not yet: the reason is written down, and the day it is
    caught this fails, so that the sidecar and the README figures are updated."""
    meta = _sidecar(name)
    assert "rule" in meta and len(meta["still_missed"]) > 40
    hits, _ = _hits(name, meta)
    assert not hits, f"{name} is caught now: drop still_missed from {name}.toml and update the README figures"


HELD_OUT = [n for n in NAMES if "held_out" in _sidecar(n)]
# measured on the held-out set with main at d2c5614, before the gaps it showed were closed
HELD_OUT_BEFORE = 8


def test_held_out_figures_are_the_ones_readme_states():
    detectable = [n for n in HELD_OUT if "rule" in _sidecar(n)]
    caught = [n for n in detectable if _hits(n, _sidecar(n))[0]]
    out_of_scope = [n for n in HELD_OUT if "undetectable" in _sidecar(n)]
    assert len(HELD_OUT) >= 30 and len(detectable) + len(out_of_scope) == len(HELD_OUT)
    assert set(caught) == {n for n in detectable if "still_missed" not in _sidecar(n)}
    readme = " ".join((FIXTURES.parent.parent / "README.md").read_text().split())
    figures = (f"{len(HELD_OUT)} held-out reports: {len(detectable)} a launch script can show, {len(out_of_scope)} out of "
               f"its reach; caught {HELD_OUT_BEFORE} of {len(detectable)} before, {len(caught)} of {len(detectable)} now")
    assert figures in readme, figures


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


@pytest.mark.parametrize("name, line, defect", [
    # the reporters' own error lines (aclnn spells "foramt" in #11621), read by qlint explain --log
    ("043", "AclNN_Parameter_Error(EZ1001): Not support mat2 n = 1 or k = 1 when foramt is FRACTAL_NZ, mat2: [2048, 1]",
     "nz2-narrow-shared-expert-gate"),
])
def test_a_held_out_report_log_line_names_its_defect(name, line, defect, tmp_path):
    from conftest import invoke

    log = tmp_path / "server.log"
    log.write_text(line + "\n")
    result = invoke(["explain", "--log", str(log), "--script", str(REPORTS / f"{name}.sh")])
    assert f"defect-{defect}" in result.output or defect in result.output, result.output
