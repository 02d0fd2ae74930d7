"""Exact, stoppable backtracking search: plain sums in coefficient form, others by steps.

A plain sum (sum(c * digit) == 0) runs the coefficient engine (plan.py, core.py, counting.py);
any other puzzle runs the step search (schedule.py, walker.py). Both report progress, call
the check hook and stop the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from time import monotonic

from . import walker
from .core import Run, Solution, Tally, batches
from .counting import count_tree
from .plan import Plan, plan_for
from .puzzle import Puzzle
from .schedule import Model
from .walker import Walk, model_for

__all__ = ["Search", "as_dict", "count", "estimate", "shards", "solve"]

# Solutions handed out between two looks at the clock (they cost the consumer time too).
CHUNK = 1024
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
        self._prefix = tuple(prefix)
        self._plan: Plan | None = None
        self._model: Model | None = None
        self._walk: Walk | None = None
        # The searched letters in search order (fixed letters are not searched); prefix
        # digits follow this order. Plain sums: biggest |coefficient| first, zero-coefficient
        # letters last; other puzzles: the letters tried (not solved or read off), by column.
        if puzzle.is_linear:
            self._plan = plan_for(puzzle, prefix)
            self.order: tuple[str, ...] = self._plan.order
        else:
            self._model = model_for(puzzle)
            self.order = Walk(self._model, prefix).order
        self.stopped = False
        self._tally = Tally()
        self._path: list[int] = []
        self._depth = -1
        self._progress = 0.0
        self._run: Run | None = None  # the lazy run being handed out, if any
        self._run_start = 0  # self.found when it started

    @property
    def nodes(self) -> int:
        """Return the number of search nodes visited so far."""
        return self._tally.reader()

    @property
    def found(self) -> int:
        """Return the number of solutions found (yielded, or counted) so far."""
        return self._tally.found

    @property
    def progress(self) -> float:
        """Return the share of the search tree passed so far (only rises; 1.0 when complete)."""
        if self._progress < 1.0 and self._depth >= 0:
            plan, run = self._plan, self._run
            if plan is None:
                now = self._walk.progress() if self._walk is not None else 0.0
            elif run is None:
                now = plan.place(self._path, self._depth)[0]
            else:
                # Inside a lazy run: its leaf's weight, times the share of it handed out.
                done, width = plan.place(run[0], plan.free)
                emitted = self._tally.found - self._run_start
                now = done + width * min(1.0, emitted / plan.run_size if plan.run_size else 1.0)
            if now > self._progress:
                self._progress = min(now, _ALMOST)
        return self._progress

    def _start(self) -> Callable[[int], None]:
        """Reset the counters for a new run and return tick(depth), the periodic check."""
        plan = self._plan
        self.stopped = False
        tally = self._tally = Tally()
        self._progress = 0.0
        self._run = None
        n = plan.n if plan is not None else 0
        self._depth = n
        self._path = [0] * n + plan.fixed_digits if plan is not None else []
        check, interval = self.check, self.check_interval * 0.6
        # Clock reads ~0.5-2 ms apart, and closer when the caller asks for a shorter interval.
        fast, slow = min(0.0005, interval / 8), min(0.002, interval / 2)
        clock = [monotonic(), monotonic()]  # last tick, last check

        def poll(depth: int) -> None:
            now = monotonic()
            if check is not None and now - clock[1] >= interval:
                clock[1] = now
                self._depth = depth
                halt = check(self)
                self._depth = n
                if halt:
                    self.stopped = True
                    raise _Stop

        def tick(depth: int) -> None:
            now = monotonic()
            tally.done += tally.batch
            gap, clock[0] = now - clock[0], now
            if gap < fast and tally.batch < 1 << 16:
                tally.batch *= 2
            elif gap > slow and tally.batch > 8:
                tally.batch //= 2
            poll(depth)

        self._poll = poll
        return tick

    def _finish(self) -> None:
        """Mark the search complete."""
        self._depth = -1
        self._progress = 1.0

    def _walker(self, tick: Callable[[int], None]) -> Walk:
        """Return a fresh step search for this run, ticking through the run's tally."""
        assert self._model is not None
        walk = self._walk = Walk(self._model, self._prefix)
        tally = self._tally
        walk.budget = tally.batch

        def walk_tick(depth: int) -> None:
            tally.found = max(tally.found, walk.count)
            tick(depth)
            walk.budget = tally.batch

        walk.tick = walk_tick
        tally.reader = lambda: tally.done + tally.batch - walk.budget
        return walk

    def solutions(self) -> Iterator[Solution]:
        """Yield every solution as digits in puzzle.letters order, in a deterministic order."""
        tick = self._start()
        plan = self._plan
        if plan is None:
            yield from self._walk_solutions(self._walker(tick))
            return
        if plan.empty or (plan.last < 0 and plan.s0):
            self._finish()
            return
        tally = self._tally
        try:
            left = CHUNK
            for batch in batches(plan, self._path, tick, tally):
                for item in batch:
                    if isinstance(item, tuple):
                        tally.found += 1
                        yield item
                        left -= 1
                        if not left:  # big batches: keep checking while handing them out
                            left = CHUNK
                            self._poll(plan.n)
                        continue
                    # A lazy run of permutations (zero-coefficient letters): progress follows it.
                    self._run, self._run_start = item, tally.found
                    for solution in item[1]:
                        tally.found += 1
                        yield solution
                        left -= 1
                        if not left:
                            left = CHUNK
                            self._poll(plan.n)
                self._run = None
        except _Stop:
            return
        self._finish()

    def _walk_solutions(self, walk: Walk) -> Iterator[Solution]:
        """Hand out the step search's solutions, checking now and then while doing so."""
        tally, left = self._tally, CHUNK
        try:
            for batch in walk.batches():
                for item in batch:
                    tally.found += 1
                    yield item
                    left -= 1
                    if not left:
                        left = CHUNK
                        self._poll(0)
        except _Stop:
            return
        self._finish()

    def count(self) -> int:
        """Count the solutions without building them (stops early if the check hook says so)."""
        tick = self._start()
        if self._plan is None:
            walk = self._walker(tick)
            try:
                walk.run_count()
            except _Stop:
                self._tally.found = walk.count
                return self.found
            self._tally.found = walk.count
        elif not self._plan.empty:
            try:
                count_tree(self._plan, self._path, tick, self._tally)
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


def shards(
    puzzle: Puzzle, depth: int, prefix: Sequence[int] = ()
) -> list[tuple[tuple[int, ...], float]]:
    """Return the surviving prefixes of the first `depth` search letters with their tree shares
    (under `prefix` only, when given: the shares are then of its subtree)."""
    if not puzzle.is_linear:
        return walker.split(model_for(puzzle), depth, prefix)
    plan = plan_for(puzzle, prefix)
    depth = max(0, min(depth, plan.n))
    if plan.empty or (plan.last < 0 and plan.s0 != 0):
        return []
    out: list[tuple[tuple[int, ...], float]] = []

    def walk(i: int, s: int, used: int, prefix: tuple[int, ...], weight: float) -> None:
        if i == depth:
            out.append((prefix, weight))
            return
        width = sum(1 for d in range(plan.dlo[i], plan.dhi[i] + 1) if not used >> d & 1)
        for d in plan.candidates(i, s, used):
            walk(i + 1, s + plan.coef[i] * d, used | 1 << d, (*prefix, d), weight / width)

    walk(0, plan.s0, plan.used0, (), 1.0)
    total = sum(w for _, w in out)
    return [(p, w / total) for p, w in out]


def estimate(puzzle: Puzzle, probes: int = 24) -> float:
    """Return Knuth's random-probe estimate of the number of search nodes (deterministic)."""
    if not puzzle.is_linear:
        return walker.size(model_for(puzzle), 1000 * probes)
    plan = plan_for(puzzle)
    if plan.empty:
        return 1.0
    rng = random.Random(0)
    total = 0.0
    for _ in range(probes):
        s, used, size, product = plan.s0, plan.used0, 1.0, 1.0
        for i in range(plan.n):
            options = plan.candidates(i, s, used)
            if not options:
                break
            product *= len(options)
            size += product
            d = rng.choice(options)
            s, used = s + plan.coef[i] * d, used | 1 << d
        total += size
    return total / probes
