"""QL546 mamba cache mode on a handed case (edge cases: tests/fixtures/rules/QL546.toml)."""

from conftest import SHARED, fixed, hits


def test_ql546_case_14_after_the_ql701_fix_drops_align():
    text = (SHARED / "cases" / "case-14.sh").read_text()
    assert not hits(text, "QL546")  # prefix caching on, chunked prefill on: align is fine
    after = text.replace("--enable-prefix-caching", "--no-enable-prefix-caching")
    found = hits(after, "QL546")
    assert [f.level for f in found] == ["warning"] and "--mamba-cache-mode align" in found[0].message
    assert "vllm-ascend v0.18.0rc1" in found[0].message and "--mamba-cache-mode align" not in fixed(after, found)
