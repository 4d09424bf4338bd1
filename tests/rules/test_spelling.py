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


@given(first=misspellings, second=misspellings, digits=st.integers(0, 10**6), n=st.integers(1, 8),
       cutoff=st.sampled_from([0.1, 0.3, 0.5, 0.75]) | st.floats(0.0, 1.0))
@settings(max_examples=200)
def test_same_answer_for_long_words_and_many_candidates(first, second, digits, n, cutoff):
    """Long words (counters several bits wide, many names left at a low cutoff) and a misspelling
    with digits appended, as a generated script writes them."""
    for word in (first + second, first + str(digits), (first * 9)[:220]):
        for names in (OPTION_NAMES, RELEASE_NAMES):
            assert close_matches(word, names, n, cutoff) == difflib.get_close_matches(word, names, n, cutoff)


@given(names=st.lists(st.text("aab-", max_size=70), max_size=70), word=st.text("ab-c", max_size=70),
       cutoff=cutoffs)
@settings(max_examples=200)
def test_same_answer_with_empty_and_repeated_names(names, word, cutoff):
    """More names than a machine word has bits, empty names, duplicates, a word of repeated characters."""
    assert Names(tuple(names)).close_matches(word, 3, cutoff) == difflib.get_close_matches(word, names, 3, cutoff)


def _prefix_scan(names, prefix):
    matches = [name for name in names if name.startswith(prefix)]
    return matches[0] if len(matches) == 1 else None


def test_abbreviation_tables_are_sorted():
    """unique_prefix searches them by bisection: the planner's and every release's long names are sorted."""
    from qlint.knowledge.releases import known_releases

    assert list(load().flag_names) == sorted(load().flag_names)
    for tag in known_releases():
        facts = facts_for(tag)
        assert facts is not None and list(facts.long_names) == sorted(facts.long_names)


@given(word=misspellings | st.text("-abcdefgmnprstxz", max_size=12), cut=st.integers(0, 40))
@example(word="--max-num", cut=40)
@example(word="--port", cut=40)
@example(word="", cut=0)
@settings(max_examples=300)
def test_unique_prefix_is_the_scan(word, cut):
    """The bisection tells what a scan of every name tells: the one name starting with the prefix."""
    from qlint.knowledge.base import unique_prefix

    prefix = word[:cut]
    for names in (OPTION_NAMES, RELEASE_NAMES):
        assert unique_prefix(names, prefix) == _prefix_scan(names, prefix)


@given(names=st.lists(st.text("ab", max_size=4), max_size=12), prefix=st.text("ab", max_size=4))
def test_unique_prefix_on_small_alphabets(names, prefix):
    from qlint.knowledge.base import unique_prefix

    names = sorted(names)
    assert unique_prefix(names, prefix) == _prefix_scan(names, prefix)
