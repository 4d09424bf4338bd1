"""The text report's fast paths give what the general ones give: the ``see:`` link (``first_source``) is the
first URL of ``finding_sources`` for every finding of every fixture at every release, and for any citations."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from qlint.knowledge.releases import known_releases
from qlint.knowledge.text import MAIN_COMMIT
from qlint.linter import reporters
from qlint.linter.catalog import all_rules
from qlint.linter.lint import lint_bytes
from qlint.record import replace

FIXTURES = Path(__file__).parent / "fixtures"


def _first(finding, kb):
    return next(iter(reporters.finding_sources(finding, kb)), None)


def test_see_link_is_the_first_source_of_every_fixture_finding(kb):
    releases = [None, "main", "v0.0.1", *known_releases()]
    findings = []
    for path in sorted(FIXTURES.rglob("*.sh")):
        result = lint_bytes(str(path), path.read_bytes(), kb=kb)
        findings += result.findings
    assert len(findings) > 1000 and len({finding.rule.id for finding in findings}) > 50
    for finding in findings:
        assert reporters.first_source(finding, kb) == _first(finding, kb), finding
    for meta in all_rules():  # every rule's own citations, at every release
        for release in releases:
            moved = replace(findings[0], rule=meta, sources=None, release=release)
            assert reporters.first_source(moved, kb) == _first(moved, kb), (meta.id, release)


_REFS = ["v0.23.0", "v0.9.0rc1", "main", MAIN_COMMIT, "v0.11.0", "0" * 40, "v0.25.1rc1"]
_URLS = st.one_of(
    st.builds("https://github.com/vllm-project/{}/{}/{}/{}".format, st.sampled_from(["vllm-ascend", "vllm", "other"]),
              st.sampled_from(["blob", "tree", "issues"]), st.sampled_from(_REFS), st.sampled_from(["a.py", "", "d/b.md#L3"])),
    st.sampled_from(["https://docs.vllm.ai/en/v0.23.0/x.html", "https://", "not a url", "", "https://a (b)"]),
)
_CITATIONS = st.builds(lambda url, note: url + note, _URLS, st.sampled_from(["", " (a note)", " (x)\n", "\n", " ()"]))


@given(citations=st.lists(_CITATIONS, max_size=6),
       release=st.sampled_from([None, "", "main", "v0.23.0", "v0.11.0", "v0.9.0rc1", "v0.25.1rc1", "v9.9.9"]))
def test_see_link_is_the_first_source_for_any_citations(kb, citations, release):
    finding = lint_bytes("s.sh", b"vllm serve Qwen/Qwen3.6-27B --bogus-flag 1\n", kb=kb).findings[0]
    finding = replace(finding, sources=tuple(citations) or None, release=release)
    assert reporters.first_source(finding, kb) == _first(finding, kb)


def test_see_link_prefers_a_citation_pinned_at_the_release_to_another_release_faq(kb):
    """A rule with a FAQ page (of v0.23.0) and citations: at v0.23.0 the FAQ; at a release one of the citations
    is pinned at (vllm-ascend tag or its vLLM), that citation; at a release none is pinned at, the FAQ still."""
    meta = next(rule for rule in all_rules() if rule.faq and kb.faq(rule.faq) is not None
                and "/ascend/en/v0.23.0/" in kb.faq(rule.faq).url)
    faq = kb.faq(meta.faq).url
    finding = lint_bytes("s.sh", b"vllm serve Qwen/Qwen3.6-27B --bogus-flag 1\n", kb=kb).findings[0]
    own = "https://github.com/vllm-project/vllm-ascend/blob/v0.18.0/vllm_ascend/platform.py#L10"
    other = "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1"
    at = lambda release, sources: reporters.see_link(replace(finding, rule=meta, sources=sources, release=release), kb)
    assert at("v0.23.0", (other, own)) == faq
    assert at("v0.18.0", (other, own)) == own
    assert at("v0.11.0", (other, own)) == faq  # nothing pinned at v0.11.0: the FAQ, not an unrelated tag
    assert at(None, (other, own)) == faq
    issue = next((rule for rule in all_rules() if rule.faq and kb.faq(rule.faq) is not None
                  and "/issues/" in kb.faq(rule.faq).url), None)
    if issue is not None:  # an issue is the same page at every release
        moved = replace(finding, rule=issue, sources=(other, own), release="v0.18.0")
        assert reporters.see_link(moved, kb) == kb.faq(issue.faq).url
    plain = next(rule for rule in all_rules() if not rule.faq)
    assert reporters.see_link(replace(finding, rule=plain, sources=(other, own), release="v0.18.0"), kb) == own
