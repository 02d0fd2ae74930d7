"""Exact, stoppable backtracking search over the coefficient form sum(c * digit) == 0."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from time import monotonic
from typing import TYPE_CHECKING

from .order import Plan, Ranges

if TYPE_CHECKING:
    from .puzzle import Puzzle

__all__ = ["Search", "as_dict", "count", "estimate", "shards", "solve"]

# Count-mode memo of (depth, partial sum, used digits) -> completions, capped for memory.
MEMO_CAP = 1 << 21
# Just below 1.0: an unfinished search never reports completion.
_ALMOST = 1.0 - 2.0**-40


class _Stop(Exception):
    """Raised inside the search when the check hook asks it to stop."""


class Search:
    """One search over a puzzle: solutions() or count(), with progress and a stop hook."""

    def __init__(
        self,
        puzzle: Puzzle,
        *,
        check: Callable[[Search], object] | None = None,
        check_interval: float = 0.01,
        prefix: Sequence[int] = (),
    ) -> None:
        """Plan the search (cheap); nothing runs until solutions() or count() is called."""
        self.puzzle = puzzle
        self.check = check
        self.check_interval = check_interval
        self._plan = Plan(puzzle, prefix)
        self.order: tuple[str, ...] = self._plan.order
        self.stopped = False
        self.found = 0
        self._nodes: Callable[[], int] = lambda: 0
        self._path: list[int] = []
        self._depth = -1
        self._progress = 0.0

    @property
    def nodes(self) -> int:
        """Return the number of search nodes visited so far."""
        return self._nodes()

    @property
    def progress(self) -> float:
        """Return the share of the search tree passed so far (only rises; 1.0 when complete)."""
        if self._progress < 1.0 and self._depth >= 0:
            now = self._plan.weight_ranks(self._path, self._depth)
            if now > self._progress:
                self._progress = min(now, _ALMOST)
        return self._progress

    def _finish(self) -> None:
        """Mark the search complete."""
        self._depth = -1
        self._progress = 1.0

    def _start(self) -> None:
        """Reset the counters for a new run."""
        self.stopped = False
        self.found = 0
        self._progress = 0.0
        self._depth = -1
        self._path = [0] * self._plan.n + self._plan.fixed_digits

    def _ticker(self) -> tuple[Callable[[int], None], Callable[[], int]]:
        """Return tick(depth), called every `budget` nodes, and a reader of the node count."""
        check, interval = self.check, self.check_interval * 0.75
        nodes = [0]  # nodes before the current batch
        state = [monotonic(), monotonic()]  # last tick, last check

        def tick(depth: int) -> None:
            now = monotonic()
            nodes[0] += self._batch
            gap = now - state[0]
            state[0] = now
            # Keep clock reads ~1 ms apart whatever a node costs.
            if gap < 0.0005 and self._batch < 1 << 16:
                self._batch *= 2
            elif gap > 0.002 and self._batch > 8:
                self._batch //= 2
            if check is not None and now - state[1] >= interval:
                state[1] = now
                self._depth = depth
                halt = check(self)
                self._depth = self._plan.n
                if halt:
                    self.stopped = True
                    raise _Stop

        return tick, lambda: nodes[0]

    def solutions(self) -> Iterator[tuple[int, ...]]:
        """Yield every solution as digits in puzzle.letters order, in a deterministic order."""
        self._start()
        plan = self._plan
        if plan.empty:
            self._finish()
            return
        tick, before = self._ticker()
        self._batch = 256
        budget = self._batch
        self._nodes = lambda: before() + self._batch - budget
        path, n, last = self._path, plan.n, plan.last
        coef, dlo_, dhi_, step_, g_, inv_ = (
            plan.coef,
            plan.dlo,
            plan.dhi,
            plan.step,
            plan.g,
            plan.inv,
        )
        rest = Ranges(plan)
        slots = plan.slots
        pick: Callable[[list[int]], tuple[int, ...]]
        if len(slots) == 1:
            only = slots[0]
            pick = lambda p: (p[only],)  # noqa: E731
        else:
            pick = itemgetter(*slots)
        self._depth = n

        def idle(j: int, used: int) -> Iterator[tuple[int, ...]]:
            if j == n:
                self.found += 1
                yield pick(path)
                return
            for d in range(dlo_[j], dhi_[j] + 1):
                if not used >> d & 1:
                    path[j] = d
                    yield from idle(j + 1, used | 1 << d)

        def leaf(s: int, used: int) -> Iterator[tuple[int, ...]]:
            q, r = divmod(-s, coef[last])
            if not r and dlo_[last] <= q <= dhi_[last] and not used >> q & 1:
                path[last] = q
                yield from idle(last + 1, used | 1 << q)

        def node(i: int, s: int, used: int) -> Iterator[tuple[int, ...]]:
            nonlocal budget
            budget -= 1
            if not budget:
                tick(i)
                budget = self._batch
            c = coef[i]
            low, high = rest[used << 6 | i]
            if c > 0:
                lo = -((s + high) // c)
                hi = (-s - low) // c
            else:
                lo = -((s + low) // c)
                hi = (-s - high) // c
            if lo < dlo_[i]:
                lo = dlo_[i]
            if hi > dhi_[i]:
                hi = dhi_[i]
            m = step_[i]
            if m > 1:
                g = g_[i]
                if s % g:
                    return
                lo += ((-s // g) * inv_[i] - lo) % m
            i1 = i + 1
            if i1 == last:
                cl, llo, lhi = coef[last], dlo_[last], dhi_[last]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    q, r = divmod(-s - c * d, cl)
                    if r or q < llo or q > lhi or used >> q & 1 or q == d:
                        continue
                    path[i] = d
                    path[last] = q
                    if last + 1 == n:
                        self.found += 1
                        yield pick(path)
                    else:
                        yield from idle(last + 1, used | 1 << d | 1 << q)
            else:
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    u = used | 1 << d
                    t = s + c * d
                    low, high = rest[u << 6 | i]
                    if t + low <= 0 <= t + high:
                        path[i] = d
                        yield from node(i1, t, u)

        try:
            if last < 0:
                if plan.s0 == 0:
                    yield from idle(0, plan.used0)
            elif last == 0:
                yield from leaf(plan.s0, plan.used0)
            else:
                yield from node(0, plan.s0, plan.used0)
        except _Stop:
            return
        self._finish()

    def count(self) -> int:
        """Count the solutions without building them (stops early if the check hook says so)."""
        self._start()
        plan = self._plan
        if plan.empty:
            self._finish()
            return 0
        tick, before = self._ticker()
        self._batch = 256
        budget = self._batch
        self._nodes = lambda: before() + self._batch - budget
        path, n, last, base = self._path, plan.n, plan.last, plan.base
        coef, dlo_, dhi_, step_, g_, inv_ = (
            plan.coef,
            plan.dlo,
            plan.dhi,
            plan.step,
            plan.g,
            plan.inv,
        )
        rest = Ranges(plan)
        memo: dict[tuple[int, int, int], int] = {}
        get_memo = memo.get
        with0, free0, start = plan.with0, plan.free0, plan.idle_start
        self._depth = n

        def idle(used: int) -> int:
            # Zero-coefficient letters fixed by the prefix first, then arrangements of the rest.
            for j in range(last + 1, start):
                d = dlo_[j]
                if d > dhi_[j] or used >> d & 1:
                    return 0
                used |= 1 << d
            free = base - used.bit_count()
            return with0[free] if used & 1 else free0[free]

        def leaf(s: int, used: int) -> int:
            q, r = divmod(-s, coef[last])
            if not r and dlo_[last] <= q <= dhi_[last] and not used >> q & 1:
                return idle(used | 1 << q)
            return 0

        def node(i: int, s: int, used: int) -> int:
            nonlocal budget
            mk = (i, s, used)
            total = get_memo(mk)
            if total is not None:
                self.found += total
                return total
            budget -= 1
            if not budget:
                tick(i)
                budget = self._batch
            c = coef[i]
            low, high = rest[used << 6 | i]
            if c > 0:
                lo = -((s + high) // c)
                hi = (-s - low) // c
            else:
                lo = -((s + low) // c)
                hi = (-s - high) // c
            if lo < dlo_[i]:
                lo = dlo_[i]
            if hi > dhi_[i]:
                hi = dhi_[i]
            m = step_[i]
            total = 0
            if m > 1:
                g = g_[i]
                if s % g:
                    return 0
                lo += ((-s // g) * inv_[i] - lo) % m
            i1 = i + 1
            if i1 == last:
                cl, llo, lhi = coef[last], dlo_[last], dhi_[last]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    q, r = divmod(-s - c * d, cl)
                    if r or q < llo or q > lhi or used >> q & 1 or q == d:
                        continue
                    k = idle(used | 1 << d | 1 << q)
                    self.found += k
                    total += k
            else:
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    u = used | 1 << d
                    t = s + c * d
                    low, high = rest[u << 6 | i]
                    if t + low <= 0 <= t + high:
                        path[i] = d
                        total += node(i1, t, u)
            if len(memo) < MEMO_CAP:
                memo[mk] = total
            return total

        try:
            if last < 0:
                self.found = idle(plan.used0) if plan.s0 == 0 else 0
            elif last == 0:
                self.found = leaf(plan.s0, plan.used0)
            else:
                node(0, plan.s0, plan.used0)
        except _Stop:
            return self.found
        self._finish()
        return self.found

    _batch = 256


def shards(puzzle: Puzzle, depth: int) -> list[tuple[tuple[int, ...], float]]:
    """Return the surviving prefixes of the first `depth` search letters with their tree shares."""
    plan = Plan(puzzle)
    depth = max(0, min(depth, plan.n))
    if plan.empty or (plan.last < 0 and plan.s0 != 0):
        return []
    out: list[tuple[tuple[int, ...], float]] = []
    bounds = Ranges(plan)

    def walk(i: int, s: int, used: int, prefix: tuple[int, ...], weight: float) -> None:
        if i == depth:
            out.append((prefix, weight))
            return
        width = sum(1 for d in range(plan.dlo[i], plan.dhi[i] + 1) if not used >> d & 1)
        for d in plan.candidates(i, s, used, bounds):
            walk(i + 1, s + plan.coef[i] * d, used | 1 << d, (*prefix, d), weight / width)

    walk(0, plan.s0, plan.used0, (), 1.0)
    total = sum(w for _, w in out)
    return [(p, w / total) for p, w in out]


def estimate(puzzle: Puzzle, probes: int = 24) -> float:
    """Return Knuth's random-probe estimate of the number of search nodes (deterministic)."""
    plan = Plan(puzzle)
    if plan.empty:
        return 1.0
    rng = random.Random(0)
    bounds = Ranges(plan)
    total = 0.0
    for _ in range(probes):
        s, used, size, product = plan.s0, plan.used0, 1.0, 1.0
        for i in range(plan.n):
            options = plan.candidates(i, s, used, bounds)
            if not options:
                break
            product *= len(options)
            size += product
            d = rng.choice(options)
            s, used = s + plan.coef[i] * d, used | 1 << d
        total += size
    return total / probes


def as_dict(puzzle: Puzzle, compact: Sequence[int]) -> dict[str, int]:
    """Return a compact solution as a letter -> digit dict."""
    return dict(zip(puzzle.letters, compact, strict=True))


def solve(puzzle: Puzzle) -> Iterator[dict[str, int]]:
    """Yield every solution as a dict (next() for the first one)."""
    for compact in Search(puzzle).solutions():
        yield as_dict(puzzle, compact)


def count(puzzle: Puzzle) -> int:
    """Return the number of solutions."""
    return Search(puzzle).count()
