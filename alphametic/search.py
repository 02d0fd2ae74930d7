"""Exact, stoppable backtracking search over the coefficient form sum(c * digit) == 0."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice, permutations
from operator import itemgetter
from time import monotonic
from typing import TYPE_CHECKING

from .order import Plan, Ranges, estimate, shards

if TYPE_CHECKING:
    from .puzzle import Puzzle

__all__ = ["Search", "as_dict", "count", "estimate", "shards", "solve"]

# Memo of (depth, partial sum, used digits) -> completions, capped for memory; it is dropped
# if fewer than 1 in 8 lookups hit by the time it holds PROBE states.
MEMO_CAP = 1 << 21
PROBE = 256
# Solutions handed out between two looks at the clock (they cost the consumer time too).
CHUNK = 1024
# Just below 1.0: an unfinished search never reports completion.
_ALMOST = 1.0 - 2.0**-40

Solution = tuple[int, ...]
# What the search core hands up: a solution, or a lazy run of them (zero-coefficient letters).
Item = Solution | Iterator[Solution]
# Letters above the last one that are solved as one memoised subtree in solutions().
DEEP = 4


class _Stop(Exception):
    """Raised inside the search when the check hook asks it to stop."""


def _getter(slots: tuple[int, ...]) -> Callable[[Sequence[int]], Solution]:
    """Return a function picking the given slots of a sequence as a tuple."""
    if len(slots) == 1:
        only = slots[0]
        return lambda seq: (seq[only],)
    get: Callable[[Sequence[int]], Solution] = itemgetter(*slots)
    return get


class Search:
    """One search over a puzzle: solutions() or count(), with progress and a stop hook."""

    _batch = 256

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

    def _start(self) -> Callable[[int], None]:
        """Reset the counters for a new run and return tick(depth), the periodic check."""
        plan = self._plan
        self.stopped = False
        self.found = 0
        self._progress = 0.0
        self._depth = plan.n
        self._path = [0] * plan.n + plan.fixed_digits
        self._batch = 256
        check, interval = self.check, self.check_interval * 0.6
        # Clock reads ~0.5-2 ms apart, and closer when the caller asks for a shorter interval.
        fast, slow = min(0.0005, interval / 8), min(0.002, interval / 2)
        done = self._done = [0]  # nodes in the batches already finished
        clock = [monotonic(), monotonic()]  # last tick, last check

        def poll(depth: int) -> None:
            now = monotonic()
            if check is not None and now - clock[1] >= interval:
                clock[1] = now
                self._depth = depth
                halt = check(self)
                self._depth = plan.n
                if halt:
                    self.stopped = True
                    raise _Stop

        def tick(depth: int) -> None:
            now = monotonic()
            done[0] += self._batch
            gap, clock[0] = now - clock[0], now
            if gap < fast and self._batch < 1 << 16:
                self._batch *= 2
            elif gap > slow and self._batch > 8:
                self._batch //= 2
            poll(depth)

        self._poll = poll
        return tick

    def _finish(self) -> None:
        """Mark the search complete."""
        self._depth = -1
        self._progress = 1.0

    def solutions(self) -> Iterator[Solution]:
        """Yield every solution as digits in puzzle.letters order, in a deterministic order."""
        tick = self._start()
        plan = self._plan
        if plan.empty or (plan.last < 0 and plan.s0):
            self._finish()
            return
        try:
            left = CHUNK
            for batch in self._batches(tick):
                for item in batch:
                    if isinstance(item, tuple):
                        self.found += 1
                        yield item
                        left -= 1
                        if not left:  # big batches: keep checking while handing them out
                            left = CHUNK
                            self._poll(plan.n)
                        continue
                    # A lazy run of permutations: hand it out in chunks, checking in between.
                    while chunk := list(islice(item, CHUNK)):
                        for solution in chunk:
                            self.found += 1
                            yield solution
                        self._poll(plan.n)
        except _Stop:
            return
        self._finish()

    def _batches(self, tick: Callable[[int], None]) -> Iterator[list[Item]]:
        """Yield lists of solutions (or lazy runs of them); bottom levels are memoised calls."""
        plan = self._plan
        path, n, last, free = self._path, plan.n, plan.last, plan.free
        coef, dlo_, dhi_, step_, g_, inv_ = (
            plan.coef,
            plan.dlo,
            plan.dhi,
            plan.step,
            plan.g,
            plan.inv,
        )
        rest = Ranges(plan)
        pick_live, pick_tail = _getter(plan.live_slots), _getter(plan.tail_slots)
        fixed = tuple(plan.fixed_digits)
        budget = self._batch
        self._nodes = lambda: self._done[0] + self._batch - budget
        base_range = range(plan.base)
        memo: dict[tuple[int, int, int], list[Solution]] = {}
        get_memo = memo.get
        stored = hits = 0
        remember = True

        def idle(j: int, used: int, out: list[Item]) -> None:
            # Zero-coefficient letters: branch on the constrained ones, then permutations.
            if j == free:
                head = tuple(path[:free]) + fixed
                avail = [d for d in base_range if not used >> d & 1]
                out.append(map(pick_tail, map(head.__add__, permutations(avail, n - free))))
                return
            for d in range(dlo_[j], dhi_[j] + 1):
                if not used >> d & 1:
                    path[j] = d
                    idle(j + 1, used | 1 << d, out)

        def tails(i: int, s: int, used: int, lo: int, hi: int) -> list[Solution]:
            # Digits for depths i..last of every completion; states recur, so memoise them.
            nonlocal budget, stored, hits, remember
            if remember:
                res = get_memo((i, s, used))
                if res is not None:
                    hits += 1
                    return res
            budget -= 1
            if not budget:
                tick(i)
                budget = self._batch
            res = []
            c, m = coef[i], step_[i]
            if m > 1:
                if s % g_[i]:
                    return res
                lo += ((-s // g_[i]) * inv_[i] - lo) % m
            i1 = i + 1
            if i1 == last:
                c1, lo1, hi1 = coef[last], dlo_[last], dhi_[last]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    q, r = divmod(-s - c * d, c1)
                    if r or q < lo1 or q > hi1 or used >> q & 1 or q == d:
                        continue
                    res.append((d, q))
            elif i1 + 1 == last:
                # The letter before the last, inlined: its digits, then the last by division.
                c1, lo1, hi1, m1, g1, v1 = coef[i1], dlo_[i1], dhi_[i1], step_[i1], g_[i1], inv_[i1]
                c2, lo2, hi2 = coef[last], dlo_[last], dhi_[last]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    u = used | 1 << d
                    t = s + c * d
                    a, b = rest[u << 6 | i1]
                    x, y = -((t + a) // c1), (-t - b) // c1
                    if x < lo1:
                        x = lo1
                    if y > hi1:
                        y = hi1
                    if x > y:
                        continue
                    if m1 > 1:
                        if t % g1:
                            continue
                        x += ((-t // g1) * v1 - x) % m1
                    for e in range(x, y + 1, m1):
                        if u >> e & 1:
                            continue
                        q, r = divmod(-t - c1 * e, c2)
                        if r or q < lo2 or q > hi2 or u >> q & 1 or q == e:
                            continue
                        res.append((d, e, q))
            else:
                c1, lo1, hi1 = coef[i1], dlo_[i1], dhi_[i1]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    u = used | 1 << d
                    t = s + c * d
                    a, b = rest[u << 6 | i1]
                    x, y = -((t + a) // c1), (-t - b) // c1
                    if x < lo1:
                        x = lo1
                    if y > hi1:
                        y = hi1
                    if x <= y:
                        path[i] = d
                        sub = tails(i1, t, u, x, y)
                        if sub:
                            res.extend(map((d,).__add__, sub))
            if remember:
                memo[i, s, used] = res
                stored += len(res) + 1
                # States rarely recur when coefficients differ: then stop paying for the memo.
                if stored > MEMO_CAP or (len(memo) == PROBE and hits * 8 < PROBE):
                    remember = False
                    memo.clear()
            return res

        def emit(i: int, used: int, res: list[Solution]) -> list[Item]:
            # Complete solutions for the subtree at depth i: prefix + tail (+ zero letters).
            if last + 1 == n:
                head = fixed + tuple(path[:i])
                return list(map(pick_live, map(head.__add__, res)))
            out: list[Item] = []
            for tail in res:
                path[i : last + 1] = tail
                u = used
                for d in tail:
                    u |= 1 << d
                idle(last + 1, u, out)
            return out

        def node(i: int, s: int, used: int, lo: int, hi: int) -> Iterator[list[Item]]:
            # Generator levels near the root; the subtree below `cut` is one tails() call.
            nonlocal budget
            budget -= 1
            if not budget:
                tick(i)
                budget = self._batch
            c, m = coef[i], step_[i]
            if m > 1:
                if s % g_[i]:
                    return
                lo += ((-s // g_[i]) * inv_[i] - lo) % m
            i1 = i + 1
            c1, lo1, hi1 = coef[i1], dlo_[i1], dhi_[i1]
            for d in range(lo, hi + 1, m):
                if used >> d & 1:
                    continue
                u = used | 1 << d
                t = s + c * d
                a, b = rest[u << 6 | i1]
                x, y = max(lo1, -((t + a) // c1)), min(hi1, (-t - b) // c1)
                if x <= y:
                    path[i] = d
                    if i1 < cut:
                        yield from node(i1, t, u, x, y)
                    else:
                        res = tails(i1, t, u, x, y)
                        if res:
                            yield emit(i1, u, res)

        s0, used0 = plan.s0, plan.used0
        cut = max(0, last - DEEP)
        if last < 0:
            out: list[Item] = []
            idle(0, used0, out)
            yield out
        elif last == 0:
            q, r = divmod(-s0, coef[0])
            if not r and dlo_[0] <= q <= dhi_[0] and not used0 >> q & 1:
                yield emit(0, used0, [(q,)])
        else:
            a, b = rest[used0 << 6]
            x, y = max(dlo_[0], -((s0 + a) // coef[0])), min(dhi_[0], (-s0 - b) // coef[0])
            if x > y:
                return
            if cut == 0:
                yield emit(0, used0, tails(0, s0, used0, x, y))
            else:
                yield from node(0, s0, used0, x, y)

    def count(self) -> int:
        """Count the solutions without building them (stops early if the check hook says so)."""
        tick = self._start()
        plan = self._plan
        if plan.empty:
            self._finish()
            return 0
        budget = self._batch
        self._nodes = lambda: self._done[0] + self._batch - budget
        path, last, base = self._path, plan.last, plan.base
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
        hits, remember = 0, True
        with0, free0, start = plan.with0, plan.free0, plan.idle_start

        def idle(used: int) -> int:
            # Zero-coefficient letters fixed by the prefix first, then arrangements of the rest.
            for j in range(last + 1, start):
                d = dlo_[j]
                if d > dhi_[j] or used >> d & 1:
                    return 0
                used |= 1 << d
            free = base - used.bit_count()
            return with0[free] if used & 1 else free0[free]

        def node(i: int, s: int, used: int, lo: int, hi: int) -> int:
            nonlocal budget, hits, remember
            if remember:
                total = get_memo((i, s, used))
                if total is not None:
                    hits += 1
                    self.found += total
                    return total
            budget -= 1
            if not budget:
                tick(i)
                budget = self._batch
            total = 0
            c, m = coef[i], step_[i]
            if m > 1:
                if s % g_[i]:
                    return 0
                lo += ((-s // g_[i]) * inv_[i] - lo) % m
            i1 = i + 1
            if i1 == last:
                c1, lo1, hi1 = coef[last], dlo_[last], dhi_[last]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    q, r = divmod(-s - c * d, c1)
                    if r or q < lo1 or q > hi1 or used >> q & 1 or q == d:
                        continue
                    k = idle(used | 1 << d | 1 << q)
                    self.found += k
                    total += k
            elif i1 + 1 == last:
                # The letter before the last, inlined: its digits, then the last by division.
                c1, lo1, hi1, m1, g1, v1 = coef[i1], dlo_[i1], dhi_[i1], step_[i1], g_[i1], inv_[i1]
                c2, lo2, hi2 = coef[last], dlo_[last], dhi_[last]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    u = used | 1 << d
                    t = s + c * d
                    a, b = rest[u << 6 | i1]
                    x, y = -((t + a) // c1), (-t - b) // c1
                    if x < lo1:
                        x = lo1
                    if y > hi1:
                        y = hi1
                    if x > y:
                        continue
                    if m1 > 1:
                        if t % g1:
                            continue
                        x += ((-t // g1) * v1 - x) % m1
                    for e in range(x, y + 1, m1):
                        if u >> e & 1:
                            continue
                        q, r = divmod(-t - c1 * e, c2)
                        if r or q < lo2 or q > hi2 or u >> q & 1 or q == e:
                            continue
                        k = idle(u | 1 << e | 1 << q)
                        self.found += k
                        total += k
            else:
                c1, lo1, hi1 = coef[i1], dlo_[i1], dhi_[i1]
                for d in range(lo, hi + 1, m):
                    if used >> d & 1:
                        continue
                    u = used | 1 << d
                    t = s + c * d
                    a, b = rest[u << 6 | i1]
                    x, y = -((t + a) // c1), (-t - b) // c1
                    if x < lo1:
                        x = lo1
                    if y > hi1:
                        y = hi1
                    if x <= y:
                        path[i] = d
                        total += node(i1, t, u, x, y)
            if remember:
                memo[i, s, used] = total
                if len(memo) > MEMO_CAP or (len(memo) == PROBE and hits * 8 < PROBE):
                    remember = False
                    memo.clear()
            return total

        try:
            s0, used0 = plan.s0, plan.used0
            if last < 0:
                self.found = idle(used0) if s0 == 0 else 0
            elif last == 0:
                q, r = divmod(-s0, coef[0])
                ok = not r and dlo_[0] <= q <= dhi_[0] and not used0 >> q & 1
                self.found = idle(used0 | 1 << q) if ok else 0
            else:
                a, b = rest[used0 << 6]
                x, y = max(dlo_[0], -((s0 + a) // coef[0])), min(dhi_[0], (-s0 - b) // coef[0])
                if x <= y:
                    node(0, s0, used0, x, y)
        except _Stop:
            return self.found
        self._finish()
        return self.found


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
