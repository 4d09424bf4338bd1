"""qlint is quiet on vllm-ascend's own tutorial launch blocks (issue 3 item 8).

tests/fixtures/tutorials/<ref>/<tutorial>_<n>.sh are `vllm serve` blocks copied by
tests/corpus/extract_tutorial_blocks.py from vllm-project/vllm-ascend
docs/source/tutorials at that ref (the header names the file and line). Each is
linted on its own; the test is driven by the header comments:

* ``# qlint: hardware=... vllm-ascend=...`` -- what the tutorial implies (read by qlint itself);
* ``# qlint-test-hardware: a2 a3`` -- lint once per listed hardware (blocks a tutorial gives
  for several machines);
* ``# qlint-expect: QLnnn -- reason`` -- an error-level finding that is a real problem in the
  tutorial (the reason says which). It must occur; no other error-level finding may.
"""

from pathlib import Path

import pytest

from qlint.linter.deployment import lint_deployment
from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings

from conftest import FIXTURES

TUTORIALS = FIXTURES / "tutorials"
FILES = sorted(p for p in TUTORIALS.glob("*/*.sh") if p.parent.name != "corpus")  # corpus/: test_docs_corpus.py


def header(text: str, key: str) -> list[str]:
    """The values of the ``# key: value`` comment lines of a fixture."""
    prefix = f"# {key}:"
    return [line[len(prefix):].strip() for line in text.splitlines() if line.startswith(prefix)]


def expected_rules(text: str) -> set[str]:
    rules = set()
    for entry in header(text, "qlint-expect"):
        rule, sep, reason = entry.partition("--")
        assert sep and reason.strip(), f"'# qlint-expect: {entry}' needs '-- reason'"
        rules.add(rule.strip())
    return rules


def cases():
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        for hardware in header(text, "qlint-test-hardware")[0].split() if header(text, "qlint-test-hardware") else [None]:
            name = f"{path.parent.name}/{path.name}" + (f"@{hardware}" if hardware else "")
            yield pytest.param(path, hardware, id=name)


def test_corpus_size_and_mix():
    assert 30 <= len(FILES) <= 40
    texts = {p: p.read_text(encoding="utf-8") for p in FILES}
    assert all(header(t, "source") for t in texts.values()), "every fixture names its source"
    assert sum("Qwen3.5" in p.name or "Qwen3.6" in p.name for p in FILES) >= 10
    assert sum("hardware=310p" in t for t in texts.values()) >= 5
    assert sum("kv_role" in t for t in texts.values()) >= 6


@pytest.mark.parametrize("path, hardware", list(cases()))
def test_tutorial_block(path: Path, hardware):
    text = path.read_text(encoding="utf-8")
    result = lint_text(str(path), text, settings=Settings(hardware=hardware))
    assert result.error is None, result.error and result.error.message
    errors = [f for f in result.findings if f.level == "error"]
    found = {f.rule.id for f in result.findings}  # a listed real problem may be reported at any level
    expected = expected_rules(text)
    unexpected = [f"{f.rule.id} line {f.span.line}: {f.message}" for f in errors if f.rule.id not in expected]
    assert not unexpected, "error-level findings not listed as real in the header:\n" + "\n".join(unexpected)
    assert expected <= found, f"listed as real but not reported: {sorted(expected - found)}"


def test_pd_pair_is_one_consistent_deployment():
    # Qwen3.5-397B-A17B.md section 5.4: P and D both write --data-parallel-address ${IP_ADDRESS}
    # (each node's own IP, the same placeholder) and RPC port 6884; they are two DP groups, not one.
    names = ("Qwen3.5-397B-A17B_5.sh", "Qwen3.5-397B-A17B_6.sh")
    files = [(name, (TUTORIALS / "v0.23.0" / name).read_bytes()) for name in names]
    results = lint_deployment(files, Settings())
    errors = [(r.path, f.rule.id, f.message) for r in results for f in r.findings if f.level == "error"]
    assert not errors
