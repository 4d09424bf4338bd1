"""Every rule's own examples behave as labelled: bad is flagged, good is not,
and applying the rule's fix to bad gives ``fixed``, which is no longer flagged."""

import pytest

from qlint.linter.suppressions import UNUSED_SUPPRESSION
from qlint.rules.graph import default_graph

from conftest import fixed, rule_findings

RULES = sorted((r.meta for r in default_graph().order()), key=lambda m: m.id)
CASES = [(meta, index, example) for meta in RULES for index, example in enumerate(meta.examples)]


def test_every_rule_has_examples_and_sources():
    for meta in RULES:
        assert meta.examples, f"{meta.id} has no example"
        assert meta.sources, f"{meta.id} has no source"
        assert meta.title.en and meta.title.zh and meta.why.en and meta.why.zh


def test_rule_ids_and_names_are_unique():
    assert len({m.id for m in RULES}) == len(RULES)
    assert len({m.name for m in RULES}) == len(RULES)


def _lint(meta, text, example):
    return rule_findings(meta, text, example.hardware, example.version, example.peers)


@pytest.mark.parametrize("meta,index,example", CASES, ids=[f"{m.id}-{i}" for m, i, _ in CASES])
def test_example(meta, index, example):
    bad = [f for f in _lint(meta, example.bad, example) if f.rule.id == meta.id]
    assert bad, f"{meta.id} did not flag its bad example"
    good = [f for f in _lint(meta, example.good, example) if f.rule.id == meta.id]
    assert not good, f"{meta.id} flagged its good example: {[f.message for f in good]}"
    if example.fixed is not None:
        assert any(f.fix and f.fix.edits for f in bad), f"{meta.id} has a fixed example but no fix edits"
        fixed_text = fixed(example.bad, bad)
        assert fixed_text == example.fixed
        again = [f for f in _lint(meta, fixed_text, example) if f.rule.id == meta.id]
        assert not again, f"{meta.id} still fires after its fix"


def _has_cjk(text):
    return any("\u4e00" <= char <= "\u9fff" for char in text or "")


@pytest.mark.parametrize("meta", RULES + [UNUSED_SUPPRESSION], ids=lambda m: m.id)
def test_findings_speak_both_languages(meta):
    """Every message and fix of every rule exists in English and Chinese (issue 4, --lang en|zh)."""
    for example in meta.examples:
        for finding in [f for f in _lint(meta, example.bad, example) if f.rule.id == meta.id]:
            assert finding.message and not _has_cjk(finding.message), finding.message
            assert _has_cjk(finding.message_zh), f"{meta.id}: no Chinese message for: {finding.message}"
            if finding.fix is not None:
                assert _has_cjk(finding.fix.description_zh), f"{meta.id}: no Chinese fix for: {finding.fix.description}"


def test_every_message_in_the_rule_modules_is_bilingual():
    """Static check over rules/*.py and linter/suppressions.py: each Finding(...) message and each
    Fix(...) description is written as Text(en=..., zh=...) (or a variable holding one)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = []
    for path in sorted((root / "rules").glob("*.py")) + [root / "linter" / "suppressions.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            index = {"Finding": 1, "Fix": 0}.get(node.func.id)
            if index is None or len(node.args) <= index:
                continue
            argument = node.args[index]
            if isinstance(argument, (ast.Constant, ast.JoinedStr, ast.BinOp)):
                offenders.append(f"{path.name}:{node.lineno} {node.func.id}")
    assert not offenders, "messages without Chinese text:\n" + "\n".join(offenders)
