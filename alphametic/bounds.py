"""Interval bounds: what the letters after a depth can still add, and the cache of windows."""

from __future__ import annotations

from collections.abc import Callable
from operator import mul
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .order import Plan

# Cap on cached windows (and digit lists) per puzzle, so big-base searches stay in memory.
BOUNDS_CAP = 1 << 18

Split = tuple[list[int], list[int]]
# Per depth: positive coefficients (descending), negative ones (ascending), the 0-guards of
# the maximum and the minimum, and the splits without the best letter to take 0 (max, min).
_Signs = tuple[list[int], list[int], int, int, Split | None, Split | None]


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


def rest_range(plan: Plan, i: int, used: int) -> tuple[int, int]:
    """Return (min, max) of the sum over letters i+1..last using distinct unused digits."""
    signs = plan.signs[i]
    if signs is None:  # built for the depths the search reaches only
        signs = plan.signs[i] = _split(plan, i)
    pos, neg, hi_guard, lo_guard, for_max, for_min = signs
    avail = plan.avail.get(used)
    if avail is None:
        avail = [x for x in range(plan.base) if not used >> x & 1]
        if len(plan.avail) < BOUNDS_CAP:
            plan.avail[used] = avail
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


def _split(plan: Plan, i: int) -> _Signs:
    """Return the coefficients after depth i split by sign, with the 0-guard data."""
    cs = plan.coef[i + 1 : plan.last + 1]
    free = [c for c, nz in zip(cs, plan.nz[i + 1 : plan.last + 1], strict=True) if not nz]
    pos = sorted((c for c in cs if c > 0), reverse=True)  # already sorted: a linear pass
    neg = sorted(c for c in cs if c < 0)

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
    """Lazy cache: key used << 6 | i -> (a, b), the window of depth i, built when first visited."""

    def __init__(self, plan: Plan) -> None:
        """Start empty for one plan."""
        super().__init__()
        self.plan = plan

    def __missing__(self, key: int) -> tuple[int, int]:
        """Compute a window on first use (and keep it unless the cache is full)."""
        i = key & 63
        low, high = rest_range(self.plan, i, key >> 6)
        value = (high, low) if self.plan.coef[i] > 0 else (low, high)
        if len(self) < BOUNDS_CAP:
            self[key] = value
        return value
