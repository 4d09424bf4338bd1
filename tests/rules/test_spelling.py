"""The indexed matcher of ``kit.spelling`` gives difflib.get_close_matches's answer, exactly."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from qlint.knowledge.base import load
from qlint.knowledge.releases import facts_for
from qlint.rules.kit.spelling import Names, close_matches

OPTION_NAMES = tuple(load().flag_names)
RELEASE_FACTS = facts_for("v0.23.0")
assert RELEASE_FACTS is not None
RELEASE_NAMES = RELEASE_FACTS.long_names


def _edited(name: str, edits: list[tuple[int, int, str]]) -> str:
    """``name`` with characters deleted, inserted or replaced (position, kind, character)."""
    chars = list(name)
    for position, kind, char in edits:
        at = position % (len(chars) + 1)
        if kind == 0 and chars:
            del chars[min(at, len(chars) - 1)]
        elif kind == 1:
            chars.insert(at, char)
        elif chars:
            chars[min(at, len(chars) - 1)] = char
    return "".join(chars)


misspellings = st.builds(
    _edited,
    st.sampled_from(OPTION_NAMES),
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 2), st.sampled_from("-_aeinorstxz19A")), max_size=8),
)
cutoffs = st.sampled_from([0.0, 0.3, 0.6, 0.75, 0.8, 1.0]) | st.floats(0.0, 1.0)


@given(word=misspellings | st.text(max_size=30), n=st.integers(1, 5), cutoff=cutoffs)
@example(word="--max-num-seqz17", n=1, cutoff=0.75)
@example(word="--tensor-paralel-size", n=1, cutoff=0.75)
@example(word="", n=3, cutoff=0.0)
@example(word="--port", n=1, cutoff=1.0)
@settings(max_examples=300)
def test_same_answer_as_difflib(word, n, cutoff):
    for names in (OPTION_NAMES, RELEASE_NAMES):
        assert close_matches(word, names, n, cutoff) == difflib.get_close_matches(word, names, n, cutoff)


@given(names=st.lists(st.text("ab-c", min_size=1, max_size=8), min_size=1, max_size=12),
       word=st.text("ab-cd", max_size=9), n=st.integers(1, 4), cutoff=cutoffs)
def test_same_answer_on_small_alphabets(names, word, n, cutoff):
    """Repeated characters and ties (several names at the same ratio) are where a count could slip."""
    assert Names(tuple(names)).close_matches(word, n, cutoff) == difflib.get_close_matches(word, names, n, cutoff)


def test_every_release_option_one_edit_away():
    """Each option name of a release with one character dropped finds what difflib finds."""
    for name in RELEASE_NAMES:
        word = name[:3] + name[4:]
        assert close_matches(word, RELEASE_NAMES, 1, 0.75) == difflib.get_close_matches(word, RELEASE_NAMES, 1, 0.75)


def test_bad_arguments_are_refused_like_difflib():
    with pytest.raises(ValueError):
        close_matches("--port", OPTION_NAMES, 0)
    with pytest.raises(ValueError):
        close_matches("--port", OPTION_NAMES, 1, 1.5)
