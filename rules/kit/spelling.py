"""Suggestions for misspelt names: ``difflib.get_close_matches``'s answer, found faster.

``get_close_matches(word, names, n, cutoff)`` tries every name with three tests in turn:
``real_quick_ratio``, ``quick_ratio`` and ``ratio``, each ``2 * matches / (len(word) + len(name))``.
The second test, ``quick_ratio``, counts the characters the two strings share as multisets, and it
is where the time goes: it runs in Python for almost every name (for ``--max-num-seqz123`` against
the 265 option names of a release: 184 times, and one name passes).

:class:`Names` computes that same count for all names at once, without a loop over the names:
each (character, occurrence) pair of the word (``"aab"`` is ``("a", 0)``, ``("a", 1)``, ``("b", 0)``)
has the set of names holding it as one integer, a bit per name, and the names' counters are kept
bit-sliced (plane ``k`` holds bit ``k`` of every counter), so one pair adds one to every counter
holding it with a ripple-carry addition of a few integer operations. Each counter starts so that it
overflows exactly when the name shares the least count that can reach ``cutoff``; a name that does
not cannot pass ``quick_ratio``. The names left (usually one) go through difflib's own three tests,
in the names' order, and the best is chosen as difflib chooses it (highest ratio, then the greater
name). So the answer is difflib's, exactly (``tests/rules/test_spelling.py`` compares them).
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
        self._lengths = [len(name) for name in names]
        # character -> per occurrence number k, the names holding it at least k + 1 times (a bit each)
        holders: dict[str, list[int]] = {}
        for index, name in enumerate(names):
            bit = 1 << index
            for char, occurrence in _pairs(name):
                held = holders.setdefault(char, [])
                if occurrence == len(held):
                    held.append(0)
                held[occurrence] |= bit
        self._holders = holders

    @lru_cache(maxsize=64)
    def _start(self, length: int, cutoff: float) -> tuple[tuple[int, ...], int]:
        """For a word of ``length``: per name, the least shared-character count whose ``quick_ratio``
        (``2.0 * count / total``, as difflib computes it) reaches ``cutoff``, as the starting state of
        the counters of :meth:`close_matches`: name ``i`` starts at ``2**width - needed[i]`` (bit ``i``
        of plane ``k`` is bit ``k`` of its count), so its count runs over ``width`` bits exactly when
        enough characters are shared; and the names that need none (they have passed already)."""
        needed = []
        for other in self._lengths:
            total = length + other
            count = 0
            while count <= min(length, other) and 2.0 * count / total < cutoff:
                count += 1
            needed.append(count)  # min(length, other) + 1: no count is enough
        width = max(needed, default=0).bit_length()
        planes = [0] * width
        passed = 0
        for index, need in enumerate(needed):
            if need == 0:
                passed |= 1 << index
                continue
            start = (1 << width) - need
            for plane in range(width):
                if start >> plane & 1:
                    planes[plane] |= 1 << index
        return tuple(planes), passed

    def close_matches(self, word: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
        """What ``difflib.get_close_matches(word, self.names, n, cutoff)`` returns."""
        if not n > 0:
            raise ValueError(f"n must be > 0: {n!r}")
        if not 0.0 <= cutoff <= 1.0:
            raise ValueError(f"cutoff must be in [0.0, 1.0]: {cutoff!r}")
        if not word:  # 2 * 0 / len(name) is 0: only a cutoff of 0 lets names through
            return _difflib_best(word, list(self.names), n, cutoff)
        # One counter per name, all counted at once: bit i of planes[k] is bit k of name i's counter.
        # Each (character, occurrence) of the word adds one to the counters of the names holding it
        # (a ripple-carry addition of that set of names); a carry out of the last plane is a name
        # that shares enough characters to pass quick_ratio.
        start, passed = self._start(len(word), cutoff)
        width = len(start)
        planes = list(start)
        holders = self._holders
        for char in set(word):
            held = holders.get(char)
            if held is None:
                continue  # no name holds this character: it can match nothing
            for carry in held[:word.count(char)]:
                plane = 0
                while carry:
                    if plane == width:
                        passed |= carry
                        break
                    bits = planes[plane]
                    planes[plane] = bits ^ carry
                    carry &= bits
                    plane += 1
        left = []
        names = self.names
        while passed:  # in the names' order
            lowest = passed & -passed
            left.append(names[lowest.bit_length() - 1])
            passed ^= lowest
        return _best(word, left, n, cutoff)


def _best(word: str, names: list[str], n: int, cutoff: float) -> list[str]:
    """difflib.get_close_matches's loop over ``names`` that pass ``quick_ratio``: for them
    ``real_quick_ratio`` (``2 * min(len) / total``, at least ``quick_ratio``'s ``2 * shared / total``)
    passes too, so only ``ratio`` is left to ask."""
    import heapq
    from difflib import SequenceMatcher  # imported when a spelling is wrong

    matcher = SequenceMatcher(None, "", word)
    scored = []
    for name in names:
        matcher.set_seq1(name)
        ratio = matcher.ratio()
        if ratio >= cutoff:
            scored.append((ratio, name))
    return [name for _, name in heapq.nlargest(n, scored)]


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
