"""Golden findings for every launch block of the three seed tutorials.

Each tests/fixtures/seeds/NAME.sh has NAME.expected: one line per finding,
``line:column severity RULE name``. The golden files were reviewed by hand;
regenerate with ``QLINT_UPDATE_GOLDEN=1 pytest tests/test_seeds.py`` and
review the diff before committing.
"""

import os
import tomllib

import pytest

from conftest import FIXTURES, lint

SEEDS = FIXTURES / "seeds"
MANIFEST = tomllib.loads((SEEDS / "manifest.toml").read_text())


def render(findings):
    return "".join(f"{f.span.line}:{f.span.column} {f.level} {f.rule.id} {f.rule.name}\n" for f in findings)


def test_manifest_covers_every_fixture():
    assert sorted(MANIFEST) == sorted(p.name for p in SEEDS.glob("*.sh"))


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_seed_golden(name):
    context = MANIFEST[name]
    findings = lint((SEEDS / name).read_text(), context.get("hardware"), context.get("version"), path=name)
    golden = SEEDS / (name[:-3] + ".expected")
    actual = render(findings)
    if os.environ.get("QLINT_UPDATE_GOLDEN"):
        golden.write_text(actual)
    assert golden.exists(), f"missing golden file {golden.name}"
    assert actual == golden.read_text()
