"""The bundled examples (examples/): each is read the way its kind asks (shell, compose YAML, a Markdown
guide), reports the faults it was written to show, and its safe fixes remove those faults and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from qlint.linter.fixer import fix_bytes
from qlint.linter.lint import lint_bytes
from qlint.rules.graph import Settings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# file -> the rules it is written to trigger
EXPECTED = {
    "qwen36_27b_a2.sh": {"QL507", "QL535", "QL401", "QL802", "QL801"},
    "qwen35_397b_a3_compose.yaml": {"QL105", "QL401", "QL403", "QL508", "QL535"},
    "qwen35_35b_a3b_310p_guide.md": {"QL501", "QL502"},
}


def _lint(name: str, data: bytes, version: str | None = None):
    settings = Settings(version=version) if version else None
    return lint_bytes(name, data, settings)


def test_every_example_is_listed() -> None:
    shipped = {path.name for path in EXAMPLES.iterdir() if path.suffix in (".sh", ".yaml", ".md")} - {"README.md"}
    assert set(EXPECTED) | {"run_dp_template.sh"} == shipped
    listed = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in listed for name in shipped)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_reports_what_it_shows(name: str) -> None:
    result = _lint(name, (EXAMPLES / name).read_bytes())
    assert result.error is None
    assert result.plan is not None and result.plan.commands, "the launch inside the file was read"
    assert EXPECTED[name] <= {finding.rule.id for finding in result.findings}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_safe_fixes_remove_their_findings(name: str) -> None:
    data = (EXAMPLES / name).read_bytes()
    before = _lint(name, data)
    fixable = {f.rule.id for f in before.findings if f.fix is not None and f.fix.edits and f.fix.safety == "safe"}
    outcome = fix_bytes(name, data, lambda blob: _lint(name, blob))
    assert not outcome.rolled_back
    assert outcome.data is not None and outcome.applied >= 1
    after = {f.rule.id for f in outcome.result.findings}
    assert not fixable & after
    assert outcome.result.plan is not None and outcome.result.plan.commands
    # the fixes touch only the lines they mean to: every other line is kept, byte for byte and in order
    touched = {f.span.line for f in before.findings if f.rule.id in fixable}
    kept = iter(outcome.data.splitlines())
    for number, line in enumerate(data.splitlines(), 1):
        if number not in touched:
            assert any(line == new for new in kept), f"line {number} was changed: {line!r}"


@pytest.mark.parametrize("version", ["v0.18.0rc1", "v0.23.0"])
def test_compose_example_at_more_than_one_release(version: str) -> None:
    """The compose file's image names v0.18.0rc1; the config key it sets was removed long before either."""
    name = "qwen35_397b_a3_compose.yaml"
    result = _lint(name, (EXAMPLES / name).read_bytes(), version)
    ids = {finding.rule.id for finding in result.findings}
    assert {"QL105", "QL401"} <= ids
