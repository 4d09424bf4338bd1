"""Shared test helpers and hypothesis profiles (bounded in CI)."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=200, deadline=None)
settings.register_profile("fuzz", max_examples=20000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"


def _shared() -> Path:
    for candidate in (TESTS.parent.parent / "shared", Path("/work/shared")):
        if (candidate / "cases").is_dir():
            return candidate
    return TESTS.parent.parent / "shared"


SHARED = _shared()


@pytest.fixture(scope="session")
def kb():
    from qlint.knowledge.base import load

    return load()


def lint(text: str, hardware=None, version=None, path="script.sh"):
    """Lint text and return the findings."""
    from qlint.linter.lint import lint_text
    from qlint.rules.graph import Settings

    result = lint_text(path, text, settings=Settings(hardware=hardware, version=version))
    assert result.error is None, result.error and result.error.message
    return result.findings


def rule_ids(findings):
    return sorted({f.rule.id for f in findings})


def pytest_configure(config):
    config.addinivalue_line("markers", "docs_build: builds the whole bilingual qdoc site with Sphinx (~10 s)")
