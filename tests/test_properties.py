"""Properties over generated and mutated launch scripts (hypothesis, bounded by the ``ci`` profile).

* parse -> render round trip: every word's span maps back to exactly the text it came from;
  re-emitting the words at their spans reproduces the script byte for byte;
* every configuration qlint.testing draws from the knowledge lints clean;
* every mutation of the catalogue fires its rule (and no other rule at warning level or
  above), and where the rule has a fix with edits, applying it removes that finding and
  adds no error; a suppression of the rule hides it;
* ``--fix`` is idempotent: fixing the output of a fix changes nothing;
* adding a ``# qlint: disable=...`` comment never adds a finding (other than QL901 for
  codes that suppress nothing);
* PD pairs drawn by qlint.testing lint clean as one deployment.

Every example in the rules' own metadata behaving as labelled (bad flagged, good not,
fixed = bad after the fix) is checked in ``tests/rules/test_rule_examples.py``.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, strategies as st

import qlint.testing as qt
from qlint.linter.deployment import lint_deployment
from qlint.linter.fixer import fix_bytes
from qlint.linter.fixes import apply_edits
from qlint.linter.lint import lint_bytes, lint_text
from qlint.linter.shell import ShellSyntaxError, parse_script
from qlint.linter.source import InputError, SourceText
from qlint.rules.base import SEVERITY_RANK, Edit

from conftest import FIXTURES

SEEDS = sorted((FIXTURES / "seeds").glob("*.sh"))

shell_text = qt.shell_texts()


def _parse(text: str):
    try:
        return parse_script(SourceText.from_bytes("p.sh", text.encode("utf-8")))
    except (ShellSyntaxError, InputError):
        return None


def _slice(text: str, span) -> str:
    """The characters of ``text`` covered by a 1-based, end-exclusive span."""
    lines = text.split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    head = lines[span.line - 1][span.column - 1 :]
    middle = lines[span.line : span.end_line - 1]
    tail = lines[span.end_line - 1][: span.end_column - 1]
    return "\n".join([head, *middle, tail])


# -- round trip ---------------------------------------------------------------------------

@given(st.one_of(shell_text, qt.launch_scripts()))
@example("vllm serve m \\\r\n  --port 8000\r\n")                      # CRLF continuation
@example("\ufeffvllm serve m --x '中文' --port 1\n")                     # BOM + wide characters
@example("curl http://<server_ip>:<port>/v1/models -H 'k: v'\n")       # <name> placeholders (QL107)
@example('ARGS="--port 1 --host h"\nvllm serve m $ARGS\n')             # unquoted expansion split on blanks
def test_round_trip_words_map_back_to_their_text(text):
    parsed = _parse(text)
    if parsed is None:
        return
    source_text = parsed.source.text  # without a BOM
    words = [w for c in parsed.commands for w in c.words]
    for word in words:
        assert _slice(source_text, word.span) == word.raw, word
    for comment in parsed.comments:
        assert _slice(source_text, comment.span) == comment.text
    edits = [Edit(w.span, w.raw) for w in words] + [Edit(c.span, c.text) for c in parsed.comments]
    rebuilt, _ = apply_edits(source_text, edits)
    assert rebuilt == source_text
    assert apply_edits(source_text, [])[0] == source_text


@given(qt.launch_scripts())
def test_round_trip_options_point_at_what_was_written(script):
    plan = lint_text("g.sh", script).plan
    (serve,) = plan.serve_commands()
    for option in serve.all_options:
        assert _slice(script, option.name_span) == option.spelled
        if option.value is not None:
            assert _slice(script, option.value.span) == option.value.raw


# -- generated configurations are clean ------------------------------------------------------

@given(qt.deployments())
def test_every_generated_config_lints_clean(deployment):
    assert qt.problems(deployment.script) == [], (deployment.model, deployment.hardware, deployment.version)


@given(qt.pd_pairs())
def test_generated_pd_pairs_lint_clean_as_one_deployment(pair):
    results = lint_deployment([("prefill.sh", pair.prefill.encode()), ("decode.sh", pair.decode.encode()),
                               ("proxy.sh", pair.proxy.encode())])
    found = [(r.path, f.rule.id, f.message) for r in results for f in r.findings if f.level != "info"]
    assert all(r.error is None for r in results) and found == []


def test_filters_narrow_and_reject():
    assert {c.hardware for c in qt._select(hardware="a3")} == {"a3"}
    assert {c.quantized for c in qt._select(quantized=False, hardware=["a2", "310p"])} == {False}
    with pytest.raises(ValueError):
        qt.configs(model="Llama-3-8B")
    with pytest.raises(ValueError):
        qt.violations(rule="QL999")
    with pytest.raises(ValueError):
        qt.violations(rule="QL501", hardware="a3")  # the 310P rules need the 310P


# -- mutations fire their rule; fixes remove it ---------------------------------------------------

def _worst(findings) -> dict[str, int]:
    return {f.rule.id: SEVERITY_RANK[f.level] for f in findings}


@pytest.mark.parametrize("rule", qt.mutation_rules())
def test_catalogue_covers_every_rule_it_names(rule):
    mutation = qt.MUTATIONS[rule]
    assert mutation.rule == rule and mutation.summary
    assert len(qt.mutation_rules()) >= 12


@given(qt.violations())
def test_every_mutation_triggers_its_rule_and_its_fix_removes_it(violation):
    script, rule = violation
    findings = lint_text("m.sh", script).findings
    fired = {f.rule.id for f in findings}
    loud = {f.rule.id for f in findings if f.level != "info"}
    assert rule in fired
    assert loud - {rule} <= qt.MUTATIONS[rule].also, loud
    edits = [e for f in findings if f.rule.id == rule and f.fix for e in f.fix.edits]
    if edits:
        fixed, _ = apply_edits(script, edits)
        after = lint_text("m.sh", fixed)
        assert after.error is None
        assert rule not in {f.rule.id for f in after.findings}
        errors_before = {r for r, level in _worst(findings).items() if level == SEVERITY_RANK["error"]}
        errors_after = {r for r, level in _worst(after.findings).items() if level == SEVERITY_RANK["error"]}
        assert errors_after <= errors_before


@given(qt.violations())
def test_a_file_suppression_hides_exactly_the_mutated_rule(violation):
    script, rule = violation
    lines = script.split("\n")
    lines.insert(1, f"# qlint: disable-file={rule} -- property test")
    result = lint_text("m.sh", "\n".join(lines))
    assert rule not in {f.rule.id for f in result.findings}
    assert rule in {s.finding.rule.id for s in result.suppressed}


# -- --fix is idempotent ------------------------------------------------------------------------

def _fix_twice(data: bytes):
    lint = lambda content: lint_bytes("f.sh", content)  # noqa: E731
    first = fix_bytes("f.sh", data, lint)
    fixed = first.data if first.data is not None else data
    second = fix_bytes("f.sh", fixed, lint)
    return first, second


@given(st.one_of(qt.violations().map(lambda v: v.script), qt.launch_scripts(), shell_text,
                 st.sampled_from(SEEDS).map(lambda p: p.read_text())))
@example("#!/bin/bash\nexport VLLM_USE_V1=1\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 \\\n\n")
def test_fix_is_idempotent(text):
    first, second = _fix_twice(text.encode("utf-8"))
    assert second.data is None, "a second --fix round changed the file again"
    assert second.applied == 0


# -- suppressions never add findings ------------------------------------------------------------

_CODES = st.lists(st.sampled_from(["QL206", "QL102", "QL203", "QL512", "QL901", "QL999", "stale-env-var",
                                   "tp-divides-heads", "unknown-serve-flag", "ql206"]), min_size=1, max_size=3)


def _key(finding, shift: int = 0):
    # not the message: some name the line they are about, which the inserted comment moves
    return finding.rule.id, finding.span.line + shift, finding.span.column, finding.span.end_column


@given(st.one_of(qt.violations().map(lambda v: v.script), st.sampled_from(SEEDS).map(lambda p: p.read_text())),
       _CODES, st.sampled_from(["disable", "disable-file"]), st.data())
def test_adding_a_suppression_never_adds_findings(script, codes, kind, data):
    before = lint_text("s.sh", script)
    assert before.error is None
    lines = script.split("\n")
    # an own-line comment before a command (disable) or between any two statements (disable-file),
    # never above the shebang or inside a continued command
    parsed = _parse(script)
    spans = [c.span for c in parsed.commands] + [a.span for a in parsed.assignments]
    starts = sorted({span.line for span in spans})
    inside = {line for span in spans for line in range(span.line + 1, span.end_line + 1)}
    first = 1 if lines[0].startswith("#!") else 0
    between = [i for i in range(first, len(lines)) if i + 1 not in inside]
    at = data.draw(st.sampled_from([line - 1 for line in starts if line - 1 >= first] if kind == "disable" else between))
    lines.insert(at, f"# qlint: {kind}={','.join(codes)} -- property")
    after = lint_text("s.sh", "\n".join(lines))
    assert after.error is None
    old = {_key(f, 1 if f.span.line > at else 0) for f in before.findings}
    for finding in after.findings:
        if finding.rule.id == "QL901" and finding.span.line == at + 1:
            continue  # the new comment reported as suppressing nothing
        assert _key(finding) in old, (finding.rule.id, finding.message)


# -- the catalogue as users see it ---------------------------------------------------------------

def test_violation_unpacks_as_script_and_rule():
    violation = qt.Violation("vllm serve m\n", "QL206")
    script, rule = violation
    assert (script, rule) == ("vllm serve m\n", "QL206")


@given(qt.launch_scripts(hardware="a3"))
def test_usage_from_the_docs(script):
    assert re.search(r"^# qlint: hardware=a3 ", script, re.MULTILINE)
    assert qt.problems(script) == []
