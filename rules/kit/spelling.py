"""Suggestions for misspelt names: ``difflib.get_close_matches``'s answer, found faster.

``get_close_matches(word, names, n, cutoff)`` tries every name with three tests in turn:
``real_quick_ratio``, ``quick_ratio`` and ``ratio``, each ``2 * matches / (len(word) + len(name))``.
The second test, ``quick_ratio``, counts the characters the two strings share as multisets, and it
is where the time goes: it runs in Python for almost every name (for ``--max-num-seqz123`` against
the 265 option names of a release: 184 times, and one name passes).

:class:`Names` computes that same count for all names at once from bit masks: every (character,
occurrence) pair of the names is one bit (``"aab"`` sets the bits of ``("a", 0)``, ``("a", 1)`` and
``("b", 0)``), so the multiset intersection of a word and a name is the popcount of ``word & name``.
A name whose count is below the least count that can reach ``cutoff`` cannot pass ``quick_ratio``;
the names left (usually one or two) go through difflib's own three tests, and the best is chosen as
difflib chooses it (highest ratio, then the greater name). So the answer is difflib's, exactly
(``tests/rules/test_spelling.py`` compares them).
"""

from __future__ import annotations

from functools import lru_cache


def _pairs(text: str) -> list[tuple[str, int]]:
    """``text`` as a multiset: each character with its occurrence number (``"aab"`` -> a0, a1, b0)."""
    seen: dict[str, int] = {}
    out = []
    for char in text:
        count = seen.get(char, 0)
        seen[char] = count + 1
        out.append((char, count))
    return out


class Names:
    """A fixed list of names, indexed for :meth:`close_matches`."""

    def __init__(self, names: tuple[str, ...]):
        self.names = names
        self._bit: dict[tuple[str, int], int] = {}
        self._masks = [self._mask(name, grow=True) for name in names]
        self._lengths = [len(name) for name in names]

    def _mask(self, text: str, grow: bool = False) -> int:
        mask = 0
        for pair in _pairs(text):
            bit = self._bit.get(pair)
            if bit is None:
                if not grow:
                    continue  # no name holds this pair: it can match nothing
                bit = self._bit[pair] = 1 << len(self._bit)
            mask |= bit
        return mask

    @lru_cache(maxsize=64)
    def _needed(self, length: int, cutoff: float) -> tuple[int, ...]:
        """For a word of ``length``: per name, the least shared-character count whose
        ``quick_ratio`` (``2.0 * count / total``, as difflib computes it) reaches ``cutoff``."""
        needed = []
        for other in self._lengths:
            total = length + other
            count = 0
            while count <= min(length, other) and 2.0 * count / total < cutoff:
                count += 1
            needed.append(count)  # min(length, other) + 1: no count is enough
        return tuple(needed)

    def close_matches(self, word: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
        """What ``difflib.get_close_matches(word, self.names, n, cutoff)`` returns."""
        if not n > 0:
            raise ValueError(f"n must be > 0: {n!r}")
        if not 0.0 <= cutoff <= 1.0:
            raise ValueError(f"cutoff must be in [0.0, 1.0]: {cutoff!r}")
        if not word:  # 2 * 0 / len(name) is 0: only a cutoff of 0 lets names through
            return _difflib_best(word, list(self.names), n, cutoff)
        mask = self._mask(word)
        needed = self._needed(len(word), cutoff)
        left = [name for name, name_mask, need in zip(self.names, self._masks, needed)
                if (mask & name_mask).bit_count() >= need]
        return _difflib_best(word, left, n, cutoff)


def _difflib_best(word: str, names: list[str], n: int, cutoff: float) -> list[str]:
    """difflib.get_close_matches's own loop over ``names`` (in their order)."""
    import heapq
    from difflib import SequenceMatcher  # imported when a spelling is wrong

    matcher = SequenceMatcher()
    matcher.set_seq2(word)
    scored = []
    for name in names:
        matcher.set_seq1(name)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff and matcher.ratio() >= cutoff:
            scored.append((matcher.ratio(), name))
    return [name for _, name in heapq.nlargest(n, scored)]


@lru_cache(maxsize=32)
def names_index(names: tuple[str, ...]) -> Names:
    """The index of one list of names (a release's option names), built once."""
    return Names(names)


@lru_cache(maxsize=4096)
def _cached(word: str, names: tuple[str, ...], n: int, cutoff: float) -> tuple[str, ...]:
    return tuple(names_index(names).close_matches(word, n, cutoff))


def close_matches(word: str, names: tuple[str, ...], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """``difflib.get_close_matches(word, names, n, cutoff)``, with ``names`` indexed once per tuple
    and the answer kept for the 4096 latest questions."""
    return list(_cached(word, names, n, cutoff))
