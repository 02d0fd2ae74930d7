"""The sets of addends of a composition, in the run's one order, by index.

A composition takes its addends from a word list: multisets (a word may repeat) or sets of
distinct words (no word twice). Either way the sets grow with the list: every set of its first
k words before any with word k+1 (by last word, the others in lexicographic order), so a run
cut short has used the list's first words (a frequency list's commonest). The order is fixed,
so a run can be cut into index ranges (shards) and resumed at an index (a checkpoint); indexes
are Python integers, and a range starts by unranking its first set, however far in (past 2**63
as well). The distinct sets are walked depth first keeping only sets whose letters fit the base
(DistinctWalk): the others are never looked at one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from math import comb

__all__ = ["DistinctWalk", "distinct_rank", "set_count", "sets", "walk_bound"]


def set_count(n: int, addends: int, distinct: bool) -> int:
    """Sets of `addends` of n words: multisets, or sets of distinct words."""
    return comb(n, addends) if distinct else comb(n + addends - 1, addends)


def sets(n: int, addends: int, start: int = 0, end: int | None = None) -> Iterator[tuple[int, ...]]:
    """The sets of addends (positions in the list, each set ascending) from the `start`-th up
    to the `end`-th, the list growing word by word: every set of the first k words comes before
    any with word k+1. So a run cut short (at the results cap) has composed with the list's
    first words (a frequency list's most common ones), not with its first word alone. Indexes
    are Python integers: a range far past 2**63 starts at once (unranked, not skipped to)."""
    last = comb(n + addends - 1, addends)
    end = last if end is None else min(end, last)
    if start >= end:
        return
    top, others = _unrank(start, addends, n)
    for _ in range(end - start):
        yield (*others, top)
        if not _advance(others, top):  # every set whose last word is `top` is done
            top, others = top + 1, [0] * (addends - 1)


def _unrank(index: int, addends: int, n: int) -> tuple[int, list[int]]:
    """The `index`-th set of addends of the run's order: its last word, and the others in
    ascending order (the sets of the first `top` words come first, then those ending in word
    `top` in lexicographic order)."""
    low, high = 0, n - 1
    while low < high:  # the last top with comb(top + addends - 1, addends) <= index
        middle = (low + high + 1) // 2
        if comb(middle + addends - 1, addends) <= index:
            low = middle
        else:
            high = middle - 1
    top, rank = low, index - comb(low + addends - 1, addends)
    others: list[int] = []
    least = 0
    for place in range(addends - 1):
        after = addends - 2 - place  # positions left once this one is chosen
        while rank >= (below := comb(top - least + after, after)):
            rank -= below  # every set with this word here comes earlier
            least += 1
        others.append(least)
    return top, others


def _advance(others: list[int], top: int) -> bool:
    """Move the others to the next ascending list of words up to `top` (False: none left)."""
    for place in range(len(others) - 1, -1, -1):
        if others[place] < top:
            others[place:] = [others[place] + 1] * (len(others) - place)
            return True
    return False


def distinct_rank(others: list[int], top: int) -> int:
    """The index of a set of distinct words (its `others` ascending, all below `top`) in the
    run's order: every set with a smaller last word first, then the others lexicographically."""
    places = len(others)
    index, previous = comb(top, places + 1), -1
    for place, word in enumerate(others):
        left = places - place  # the others from this place on
        # The sets whose word here is between previous and this one come first.
        index += comb(top - previous - 1, left) - comb(top - word, left)
        previous = word
    return index


class DistinctWalk:
    """The sets of distinct words (positions, ascending) from the `start`-th up to the
    `end`-th whose letters the base has digits for, each with its index, in the run's order:
    by last word, the others in lexicographic order (every set of the first k words before
    any with word k+1). A word is added to a set only while the set's letters fit, from the
    words that fit with all the set's words so far: the sets below one that does not fit are
    never looked at. `halt` is asked every so many steps; an (index, ()) says it said stop
    there (every set before that index is done)."""

    def __init__(
        self,
        masks: list[int],
        addends: int,
        base: int,
        span: tuple[int, int],
        halt: Callable[[], bool] | None,
    ) -> None:
        """Walk sets of `addends` of the words of these letter sets within `span`."""
        self.masks, self.addends, self.base, self.halt = masks, addends, base, halt
        self.start, self.end = span
        self.ranged = span != (0, comb(len(masks), addends))  # else no index to compare
        self.steps = 0
        self.halted = False  # the halt said stop: the walk ends

    def sets(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        """Each fitting set in the range with its index (see the class)."""
        masks, places, base = self.masks, self.addends - 1, self.base
        for top in range(places, len(masks)):
            first, size = comb(top, self.addends), comb(top, places)
            if first + size <= self.start:
                continue
            if first >= self.end:
                return
            if self.halt is not None and self.halt():  # each last word: a pass over the list
                yield max(first, self.start), ()
                return
            letters = masks[top]
            if letters.bit_count() > base:
                continue
            if not places:
                yield first, (top,)
                continue
            fitting = [w for w in range(top) if (letters | masks[w]).bit_count() <= base]
            yield from self._extend([], fitting, letters, top)
            if self.halted:
                return

    def _extend(
        self, chosen: list[int], words: list[int], letters: int, top: int
    ) -> Iterator[tuple[int, tuple[int, ...]]]:
        """The fitting sets that add to `chosen` (and `top`) words of `words` (each fits
        with them), the first of them next."""
        left = self.addends - 1 - len(chosen)  # words still to choose, this one included
        masks, base = self.masks, self.base
        for i, word in enumerate(words):
            if len(words) - i < left:
                return  # too few words left to fill the set
            self.steps += 1
            if self.ranged or (self.halt is not None and not self.steps & 255):
                below = [*chosen, *range(word, word + left)]  # the subtree's first set
                at = distinct_rank(below, top)
                if self.ranged:
                    if at + comb(top - word - 1, left - 1) <= self.start:
                        continue
                    if at >= self.end:
                        return
                if self.halt is not None and not self.steps & 255 and self.halt():
                    self.halted = True
                    yield min(max(at, self.start), self.end), ()
                    return
            fits = letters | masks[word]
            if left == 1:
                yield distinct_rank([*chosen, word], top), (*chosen, word, top)
                continue
            rest = [u for u in words[i + 1 :] if (fits | masks[u]).bit_count() <= base]
            if len(rest) >= left - 1:
                yield from self._extend([*chosen, word], rest, fits, top)
                if self.halted:
                    return


def walk_bound(masks: list[int], addends: int, base: int) -> int:
    """At most how many sets DistinctWalk looks at: for each last word, the sets of fewer than
    `addends` words of those that fit with it (each set it looks at is one, and so is each
    step towards one), so a walk that passes over most sets is weighed by what it looks at."""
    total = 0
    for top, letters in enumerate(masks):
        if letters.bit_count() > base:
            continue
        partners = sum(1 for other in masks[:top] if (letters | other).bit_count() <= base)
        total += sum(comb(partners, size) for size in range(addends))
    return total
