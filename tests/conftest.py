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


def lint_result(text: str, hardware=None, version=None, path="script.sh", **kwargs):
    """Lint text (``kwargs`` go to ``lint_text``: policy, bindings...) and return the LintResult;
    fails the test on an input error."""
    from qlint.linter.lint import lint_text
    from qlint.rules.graph import Settings

    result = lint_text(path, text, settings=Settings(hardware=hardware, version=version), **kwargs)
    assert result.error is None, result.error and result.error.message
    return result


def lint(text: str, hardware=None, version=None, path="script.sh"):
    """Lint text and return the findings."""
    return lint_result(text, hardware, version, path).findings


def rule_ids(findings):
    return sorted({f.rule.id for f in findings})


def serve_facts(text: str, *names: str, hardware=None, version=None) -> dict:
    """The named facts (``Known`` or None) of the script's first serve command."""
    from qlint.knowledge.base import load
    from qlint.rules.graph import Scope, Settings

    settings = Settings(hardware=hardware, version=version)
    plan = lint_result(text, hardware, version, path="s.sh").plan
    parent = Scope(plan=plan, kb=load(), settings=settings)
    scope = Scope(plan=plan, kb=parent.kb, settings=settings, serve=plan.serve_commands()[0], parent=parent)
    return {name: scope.known(name) for name in names}


def hits(found, rule: str, hardware=None, version=None, path="script.sh"):
    """The findings of ``rule``: ``found`` is a list of findings, or a script to lint first
    (with ``hardware`` / ``version``). Bind per-file defaults with ``functools.partial``."""
    findings = lint(found, hardware, version, path) if isinstance(found, str) else found
    return [f for f in findings if f.rule.id == rule]


def rule_findings(meta, script: str, hardware=None, version=None, peers=()):
    """The findings of rule ``meta`` on ``script`` (deployment-scope rules: linted with ``peers``
    as one deployment)."""
    if meta.scope != "deployment":
        return hits(script, meta.id, hardware, version)
    from qlint.linter.deployment import lint_deployment
    from qlint.rules.graph import Settings

    files = [("example.sh", script.encode())] + [(f"peer{i}.sh", peer.encode()) for i, peer in enumerate(peers)]
    results = lint_deployment(files, Settings(hardware=hardware, version=version))
    assert all(r.error is None for r in results), [r.error.message for r in results if r.error]
    return [f for r in results for f in r.findings if f.rule.id == meta.id]


def hits_at(hardware=None, version=None, rule=None):
    """A ``hits`` whose ``hardware``, ``version`` (and ``rule``) default to these values."""

    def bound(found, rule=rule, hardware=hardware, version=version, path="script.sh"):
        return hits(found, rule, hardware, version, path)

    return bound


def fixed(text: str, findings) -> str:
    """``text`` after one round of the fixes of ``findings`` (a list, or one finding), applied whole as
    ``qlint --fix`` applies them (``apply_fixes``); findings without a fix add nothing."""
    from qlint.linter.fixes import apply_fixes

    chosen = [findings] if not isinstance(findings, (list, tuple)) else findings
    out, _ = apply_fixes(text, [finding.fix for finding in chosen if finding.fix])
    return out


def invoke(args, stdin=None, **kwargs):
    """Run the ``qlint`` command line in-process (click's CliRunner); ``stdin`` is its input."""
    from click.testing import CliRunner

    from qlint.linter.cli import main

    return CliRunner().invoke(main, args, input=stdin, **kwargs)


def write_file(folder: Path, name: str, content: str | bytes) -> str:
    """Write ``content`` (text or bytes) to ``folder/name`` (making folders) and return the path as a string."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return str(path)


def pytest_configure(config):
    config.addinivalue_line("markers", "docs_build: builds the whole bilingual qdoc site with Sphinx (~10 s)")
