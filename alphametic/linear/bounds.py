"""Interval bounds: what the letters after a depth can still add, and the cache of windows.

Why a window is stored "oriented" (the trick behind ``x, y = -((t + a)//c1), (-t - b)//c1``
in the search core): at depth i with coefficient c, partial sum t after the letters before
it, and [low, high] the range the letters after it can still add, digit d can lead to a
solution only if t + c*d + low <= 0 <= t + c*d + high. Solving for d needs a case on the sign
of c (dividing by a negative c flips both inequalities). Instead the window is stored as
(a, b) = (high, low) when c > 0 and (low, high) when c < 0; then for either sign

    lo = -((t + a) // c)    (ceil(-(t + a) / c), by floor division of negated numbers)
    hi = (-t - b) // c      (floor(-(t + b) / c))

so the hot loops hold no branch on the sign. Python's floor division is exact for negative
operands, so the bounds are exact integers, never floats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import mul

__all__ = ["BOUNDS_CAP", "Ranges", "window"]

# Cap on cached windows (and digit lists) per puzzle, so big-base searches stay in memory.
BOUNDS_CAP = 1 << 18

Split = tuple[list[int], list[int]]
# Per depth: positive coefficients (descending), negative ones (ascending), the 0-guards of
# the maximum and the minimum, and the splits without the best letter to take 0 (max, min).
_Signs = tuple[list[int], list[int], int, int, Split | None, Split | None]


def window(c: int, t: int, a: int, b: int) -> tuple[int, int]:
    """Return the digit bounds (lo, hi) for coefficient c, partial sum t and window (a, b)."""
    return -((t + a) // c), (-t - b) // c


def _best(
    pick: Callable[[list[int]], int],
    pos: list[int],
    neg: list[int],
    rest: list[int],
    without: Split | None,
    full: bool,
    side: int,
) -> int:
    """Return the max (side 1) or min (side 0) when 0 may not go where rearrangement puts it."""
    up, down = (rest[::-1], rest) if side else (rest, rest[::-1])
    options = [] if full else [sum(map(mul, pos, up)) + sum(map(mul, neg, down))]
    if without is not None:
        options.append(sum(map(mul, without[0], up)) + sum(map(mul, without[1], down)))
    if not options:  # no valid assignment at all: an empty window
        return -(1 << 400) if side else 1 << 400
    return pick(options)


def _split(coef: Sequence[int], nz: Sequence[bool]) -> _Signs:
    """Return the coefficients of the letters after a depth split by sign, with 0-guard data."""
    free = [c for c, nonzero in zip(coef, nz, strict=True) if not nonzero]
    pos = sorted((c for c in coef if c > 0), reverse=True)  # already sorted: a linear pass
    neg = sorted(c for c in coef if c < 0)

    def guard(c: int | None, when_full: bool) -> int:
        # 1: the extreme gives 0 to a letter that may not take it; 2: only if no digit is
        # spare; 0: never (ties between equal coefficients can swap to an allowed letter).
        if c is None or c in free:
            return 0
        return 2 if when_full else 1

    def without(c: int) -> Split:
        # Equal coefficients are interchangeable, so dropping any one of them will do.
        p, n = pos[:], neg[:]
        (p if c > 0 else n).remove(c)
        return p, n

    hi_guard = guard(neg[0], False) if neg else guard(pos[-1] if pos else None, True)
    lo_guard = guard(pos[0], False) if pos else guard(neg[-1] if neg else None, True)
    if not (hi_guard or lo_guard) or not free:
        return pos, neg, hi_guard, lo_guard, None, None
    return pos, neg, hi_guard, lo_guard, without(min(free)), without(max(free))


class Ranges(dict[int, tuple[int, int]]):
    """Lazy cache: key used << 6 | i -> (a, b), the oriented window of depth i (see above)."""

    def __init__(self, base: int, coef: Sequence[int], nz: Sequence[bool], last: int) -> None:
        """Start empty for the letters 0..last with these coefficients and nonzero flags."""
        super().__init__()
        self.base, self.last = base, last
        self.coef, self.nz = list(coef), list(nz)
        # Its own caches: the sign split per depth and the free digits per used-digit set.
        self.signs: list[_Signs | None] = [None] * max(last, 0)
        self.avail: dict[int, list[int]] = {}

    def __missing__(self, key: int) -> tuple[int, int]:
        """Compute a window on first use (and keep it unless the cache is full)."""
        i = key & 63
        low, high = self.rest_range(i, key >> 6)
        value = (high, low) if self.coef[i] > 0 else (low, high)
        if len(self) < BOUNDS_CAP:
            self[key] = value
        return value

    def signs_at(self, i: int) -> _Signs:
        """Return the sign split of the letters after depth i (the native core reads it too)."""
        signs = self.signs[i]
        if signs is None:  # built for the depths the search reaches only
            end = self.last + 1
            signs = self.signs[i] = _split(self.coef[i + 1 : end], self.nz[i + 1 : end])
        return signs

    def rest_range(self, i: int, used: int) -> tuple[int, int]:
        """Return (min, max) of the sum over letters i+1..last using distinct unused digits."""
        pos, neg, hi_guard, lo_guard, for_max, for_min = self.signs_at(i)
        avail = self.avail.get(used)
        if avail is None:
            avail = [x for x in range(self.base) if not used >> x & 1]
            if len(self.avail) < BOUNDS_CAP:
                self.avail[used] = avail
        top = avail[::-1]
        # Rearrangement: the sum is largest when big coefficients get big digits, and the
        # positive and negative letters never compete for a digit (there are enough of them).
        hi = sum(map(mul, pos, top)) + sum(map(mul, neg, avail))
        lo = sum(map(mul, pos, avail)) + sum(map(mul, neg, top))
        if avail and not avail[0] and (hi_guard or lo_guard):
            # Digit 0 is free but the letter the extreme gives it to may not take it: then the
            # extreme leaves 0 unused or gives it to the allowed letter that suits it best
            # (exchange argument: the smallest coefficient for max, the largest for min).
            full = len(pos) + len(neg) == len(avail)
            rest = avail[1:]
            if hi_guard == 1 or (hi_guard == 2 and full):
                hi = _best(max, pos, neg, rest, for_max, full, 1)
            if lo_guard == 1 or (lo_guard == 2 and full):
                lo = _best(min, pos, neg, rest, for_min, full, 0)
        return lo, hi
