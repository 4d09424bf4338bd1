"""The known defects a command may hit, picked without decoding the others: the compiled form's rows of each
release (id, hardware, models, conditions) and the conditions a command fails by what it does not give."""

from __future__ import annotations

import pytest

from qlint.knowledge import base
from qlint.linter.lint import lint_bytes
from qlint.rules import known_defects as kd


@pytest.fixture(scope="module")
def eager():
    return base._build(base._blobs_and_digest()[0])


def test_the_rows_of_every_release_are_those_of_the_defects(eager):
    """At every release of releases.toml (and at one without a table), the rows the compiled form holds are
    those the defects give (``defect_row`` of each entry whose range holds the release, by severity, in order)."""
    kb = base.load()
    tags = [release.tag for release in eager.releases] + ["v0.8.5rc1", "v0.26.0"]
    count = 0
    for tag in tags:
        expected: dict = {}
        for entry in eager.defects:
            if kd._release_in(entry, tag):
                expected.setdefault(entry.severity, []).append(base.defect_row(entry))
        assert kb.defect_rows(tag) == expected, tag
        assert eager.defect_rows(tag) == expected, tag  # (made from the decoded defects)
        count += sum(len(rows) for rows in expected.values())
    assert count > 150
    row = next(row for rows in kb.defect_rows("v0.23.0").values() for row in rows if row[3])
    entry = kb.defect(row[0])
    assert entry.id == row[0] and kb.defect("no-such-defect") is None
    assert [[getattr(c, name) for name in base.DEFECT_CONDITION] for c in kd._Conditions(row[0], row[3]).when] == [
        [getattr(c, name, None) for name in base.DEFECT_CONDITION] for c in entry.when]


@pytest.mark.parametrize("head", sorted(kd._ABSENT))
def test_a_fact_is_its_absent_value_without_its_option(head):
    """What ``_cannot_hold`` takes a fact to be when its option is not given is what the fact is then."""
    from conftest import lint_result, serve_facts

    option, absent = kd._ABSENT[head]
    script = "vllm serve Qwen/Qwen3-32B --max-model-len 4096\n"
    [serve] = lint_result(script).plan.serve_commands()
    assert option not in serve.options
    known = serve_facts(script, head)[head]
    assert known is not None and known.value == absent and type(known.value) is type(absent)


def _serve(script: str):
    from conftest import lint_result

    [serve] = lint_result(script).plan.serve_commands()
    return serve


@pytest.mark.parametrize("conditions,expected", [
    ([[None, None, "--enable-expert-parallel", "set", None, None, False]], True),
    ([[None, None, "--enable-expert-parallel", "unset", None, None, False]], False),
    ([[None, None, "--max-model-len", "gt", 1, None, False]], False),  # given: decided by the entry's own reading
    ([[None, "VLLM_ASCEND_ENABLE_NZ", None, "eq", "1", None, False]], True),
    ([[None, "VLLM_ASCEND_ENABLE_NZ", None, "ne", "1", None, False]], False),
    ([["speculative.method", None, None, "in", ["mtp"], None, False]], True),
    ([["tp", None, None, "gt", None, "pp", False]], False),  # (than another fact: read by the entry)
    ([["additional_config.x", None, None, "ne", True, None, False]], False),
    ([["enforce_eager", None, None, "eq", True, None, False]], True),
    ([["enforce_eager", None, None, "eq", False, None, False]], False),
    ([["tp", None, None, "gt", 1, None, False]], True),
    ([["tp", None, None, "eq", 1, None, False]], False),
    ([["model_ref", None, None, "contains", "x", None, False]], False),  # not a fact of _ABSENT: read by the entry
    ([["tp", None, None, "in", "1", None, False], ["pp", None, None, "gt", 1, None, False]], True),  # (a comparison that raises is skipped)
])
def test_conditions_a_command_fails_by_what_it_does_not_give(conditions, expected):
    assert kd._cannot_hold(_serve("vllm serve Qwen/Qwen3-32B --max-model-len 4096\n"), conditions) is expected


def test_a_defect_is_reported_as_before_through_the_rows():
    script = (b"vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4 --enable-expert-parallel\n")
    from qlint.rules.graph import Settings

    found = lint_bytes("run.sh", script, Settings(version="v0.11.0", hardware="a3")).findings
    assert any(f.rule.id == "QL560" for f in found)
