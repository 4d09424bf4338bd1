"""Precision on vllm-ascend's own docs: no false error on the launch blocks of every page, every tag.

tests/fixtures/tutorials/corpus holds every distinct fenced launch block (``vllm serve`` or the
OpenAI API server module) of every Markdown page under docs/source (translations left out) at every
vllm-ascend tag from v0.11.0 to main, written by ``tests/corpus/extract_tutorial_blocks.py MIRROR
corpus DIR``; identical blocks of several tags are one fixture whose ``# refs:`` lists the tags.
Every error-level finding at every ref was reviewed by hand against the source at that tag
(``tests/corpus/review_corpus.py``, verdicts in ``tests/corpus/verdicts.toml``); the header keeps
the result:

* ``# qlint-expect: QLnnn @ref -- real: reason`` -- a real problem of the block; it fires at ``ref``;
* ``# qlint-was-false: QLnnn -- reason`` -- a false error the review found and the rules or the
  knowledge no longer make (it must not come back as an error);
* ``# qlint-unreadable: message`` -- a block that is not shell as written (placeholders such as
  ``<ifname>`` at a line end, log text in a shell fence); qlint refuses it with a located message.

To keep the test quick each block is linted at the newest ref it occurs at and at the refs its
expectations name (the review itself ran every ref).
"""

from pathlib import Path

import pytest

from qlint.linter.lint import lint_text
from qlint.rules.graph import Settings

from conftest import FIXTURES

CORPUS = FIXTURES / "tutorials" / "corpus"
FILES = sorted(CORPUS.glob("*.sh"))


def header(text: str, key: str) -> list[str]:
    prefix = f"# {key}:"
    return [line[len(prefix):].strip() for line in text.splitlines() if line.startswith(prefix)]


def expectations(text: str) -> list[tuple[str, str]]:
    """(rule, ref) of each ``# qlint-expect: QLnnn @ref -- real: reason`` line."""
    found = []
    for entry in header(text, "qlint-expect"):
        head, sep, reason = entry.partition("--")
        assert sep and reason.strip().startswith("real:"), f"'# qlint-expect: {entry}' needs '-- real: reason'"
        rule, ref = head.split()
        found.append((rule, ref.removeprefix("@")))
    return found


def lint_at(path: Path, text: str, ref: str):
    # the ref is the release unless the block names a vllm-ascend image tag (qlint reads it then)
    return lint_text(str(path), text, settings=Settings(version=None if "vllm-ascend:" in text else ref))


def test_corpus_covers_every_tag_and_page_kind():
    assert len(FILES) >= 1000
    refs = {ref for path in FILES for ref in header(path.read_text(encoding="utf-8"), "refs")[0].split()}
    for tag in ("v0.11.0", "v0.13.0", "v0.15.0rc1", "v0.18.0", "v0.23.0", "v0.24.0rc1", "v0.25.1rc1", "main"):
        assert tag in refs
    sources = [header(path.read_text(encoding="utf-8"), "source")[0] for path in FILES]
    assert any("/tutorials/" in s for s in sources) and any("/user_guide/" in s for s in sources)
    assert not any("/locale/" in s for s in sources)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_false_error(path: Path):
    text = path.read_text(encoding="utf-8")
    refs = header(text, "refs")[0].split()
    expected = expectations(text)
    unreadable = header(text, "qlint-unreadable")
    allowed = {rule for rule, _ in expected}
    for ref in dict.fromkeys([refs[-1]] + [ref for _, ref in expected]):
        result = lint_at(path, text, ref)
        if unreadable:
            assert result.error is not None, f"{ref}: the block reads now; drop '# qlint-unreadable' and review it"
            continue
        assert result.error is None, f"{ref}: {result.error.message}"
        errors = [f for f in result.findings if f.level == "error"]
        unexpected = [f"{f.rule.id} line {f.span.line}: {f.message}" for f in errors if f.rule.id not in allowed]
        assert not unexpected, f"error-level findings at {ref} the review did not find real:\n" + "\n".join(unexpected)
        fired = {f.rule.id for f in errors}
        for rule, at in expected:
            if at == ref:
                assert rule in fired, f"{rule} no longer reported at {ref} (listed as a real problem)"
