"""``check_sources`` tells the citations rules and knowledge records use with string operations, and asks
the patterns only for the rest: it never accepts what the patterns refuse, and importing the rules compiles
none of them."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from qlint.knowledge import text

PIECES = ["https://github.com/", "https://pubs.opengroup.org/onlinepubs/", "https://docs.vllm.ai/en/",
          "http://github.com/", "vllm-project", "vllm", "vllm-ascend", "/", "blob", "tree", "issues", "pull",
          "commit", "releases", "tag", "v0.23.0", "0.6.0", "v6", "rc1", "bash-5.2", "?plain=1", "?", "#", "#L12",
          "-L14", ".", "-", "_", "+", "=", "1", "12", "L", "a" * 40, "0123456789abcdef" * 2 + "01234567",
          "9699919799", "main", " (", "(", ")", "note", " ", "\n", "\t", "é", "\u0661", "\u00b2", "x.py", ""]


def _patterns_accept(citation: str) -> bool:
    match = text._compiled("CITATION").match(citation)
    return match is not None and text.pin_problem(match.group("url")) is None


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.text(max_size=4))
def test_the_string_path_accepts_only_what_the_patterns_accept(pieces, noise):
    for citation in ("".join(pieces), "".join(pieces) + noise, "".join(pieces[:1]) + noise + "".join(pieces[1:])):
        if text._plainly_pinned(citation):
            assert _patterns_accept(citation), citation


VALID = [
    "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L120",
    "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/engine/arg_utils.py?plain=1#L801-L803",
    "https://github.com/vllm-project/vllm-ascend/tree/182b75ea84ff13ece27b57391331ef8935410aea/docs/",
    "https://github.com/torvalds/linux/blob/1da177e4c3f41524e886b7f1b8a0c1fc7321cac2/fs/binfmt_script.c#L26-L27",
    "https://github.com/vllm-project/vllm-ascend/issues/8284#issuecomment-1",
    "https://github.com/vllm-project/vllm/pull/52435 (the fix, merged after v0.25.1)",
    "https://github.com/a.b/c_d/blob/0.6.0+x-y_z/README.md?plain=1",
    "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_01",
]
TRICKY = "/?#.-_+=() \n\tvLa0129fé\u0661\u00b2"


@st.composite
def near_valid(draw):
    """A valid citation with up to three characters inserted, replaced or deleted anywhere."""
    citation = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.integers(0, len(citation)))
        change = draw(st.sampled_from(["insert", "replace", "delete"]))
        char = draw(st.sampled_from(TRICKY) | st.characters())
        if change == "insert":
            citation = citation[:where] + char + citation[where:]
        elif change == "replace":
            citation = citation[:where] + char + citation[where + 1:]
        else:
            citation = citation[:where] + citation[where + 1:]
    return citation


@settings(max_examples=4000, deadline=None)
@given(near_valid())
def test_the_string_path_accepts_only_what_the_patterns_accept_near_valid_citations(citation):
    if text._plainly_pinned(citation):
        assert _patterns_accept(citation), citation


def test_the_string_path_tells_the_usual_forms():
    good = [
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L120",
        "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/engine/arg_utils.py?plain=1#L801-L803",
        "https://github.com/vllm-project/vllm-ascend/tree/182b75ea84ff13ece27b57391331ef8935410aea/docs/",
        "https://github.com/vllm-project/vllm-ascend/issues/8284#issuecomment-1",
        "https://github.com/vllm-project/vllm/pull/52435 (the fix, merged after v0.25.1)",
        "https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_02_01",
    ]
    for citation in good:
        assert text._plainly_pinned(citation) and _patterns_accept(citation), citation
    for citation in ["https://github.com/vllm-project/vllm-ascend/blob/main/README.md",  # a branch
                     "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0",  # no path
                     "https://github.com/vllm-project/vllm/blob/v0.25.1/a.py#L1#L2",
                     "https://github.com/vllm-project/vllm/issues/12/comments",
                     "https://github.com/vllm-project/vllm/blob/v0.25.1/a.py ()",
                     "https://github.com/vllm-project/vllm/blob/v0.25.1/a b.py"]:
        assert not text._plainly_pinned(citation) and not _patterns_accept(citation), citation
    for refused in ["https://github.com/vllm-project/vllm-ascend/blob/main/README.md", "my memory", 3]:
        try:
            text.check_sources([refused])
        except ValueError:
            continue
        raise AssertionError(f"{refused!r} was accepted")


def test_importing_the_rules_compiles_none_of_the_citation_patterns():
    probe = ("import qlint.rules.registry, qlint.knowledge.text as text\n"
             "from qlint.linter.catalog import all_rules\n"
             "print(len(all_rules()), sorted(text._COMPILED))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    count, compiled = done.stdout.split(" ", 1)
    assert int(count) > 100 and compiled.strip() == "[]", done.stdout + done.stderr
