"""Exact, stoppable backtracking search: plain sums in coefficient form, others by steps.

A plain sum (sum(c * digit) == 0) runs the coefficient engine (linear/); any other puzzle
runs the step search (steps/). Both report progress, call
the check hook and stop the same way.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from time import monotonic
from typing import NamedTuple

from .language.puzzle import Puzzle
from .linear.bounds import window
from .linear.core import MEMO_CAP, PROBE, Run, Solution, Tally
from .linear.native import cores, runs_native
from .linear.plan import Plan, plan_for
from .steps import walker
from .steps.native import runs_native as runs_steps_native
from .steps.schedule import Model
from .steps.walker import Walk, model_for

__all__ = [
    "Search",
    "Size",
    "as_dict",
    "assignments",
    "count",
    "estimate",
    "seconds",
    "shards",
    "size",
    "solve",
]

# Sizing: runs of the step search get STEP_NODES nodes per probe asked for (24 probes: 48,000
# nodes, ~60-100 ms); sums get PROBES random paths per probe (24: 192 paths, ~10-40 ms).
STEP_NODES = 2000
PROBES = 8
# Probes of a sum stop after this many loop turns (bases near 36 cost ~1,300 a probe), once
# MIN_PROBES are done: the sample's cost stays ~30-60 ms whatever the base (for 24 probes;
# fewer asked for, proportionally less: lanes and pieces ask for 4).
PROBE_EFFORT = 30_000
MIN_PROBES = 8
# A node call of the count engine in loop turns (a window lookup per child, the memo).
CALL_TURNS = 1.0
# A window lookup of the count engine in loop turns, per digit of the base.
WINDOW_TURNS = 0.2
# CPU seconds per unit of Size.work on one core of the reference machine (bench/estimates.py
# calibrates them), per solution handed out by a listing, and per search set up.
STEP_SECONDS = 1.2e-6
LINEAR_SECONDS = 0.3e-6
# A unit of step-search work on its native core (alphametic/steps/_native.c): 15-58 ns over
# the products, powers and systems of bench/expressions.json and bench/estimates.json (the
# closures: 250-2,900 ns); 40 keeps those within 3x both ways.
NATIVE_STEP_SECONDS = 4e-8
# A loop turn of the native core (alphametic/linear/_native.c): 2.6-12 ns over the sums of
# bench/estimates.json (median 8.6 ns); 7 keeps all within 3x both ways (the memo-heavy
# A + BC + DEF + GHIJ = KLMNO, base 16, is the fastest per turn).
NATIVE_LINEAR_SECONDS = 7e-9
# A solution handed out as a job hands it out (encoded, counted into the grid, stored): about
# the same on both engines, whatever the bare engine's listing costs.
SOLUTION_SECONDS = 1.5e-6
SETUP_SECONDS = 1e-3
# The speed the node thresholds of the job service assume (settings.shard_threshold, 2e6:
# "about a second of search"): estimate() is in these reference nodes.
NODES_PER_SECOND = 2e6

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
            for batch in cores(plan)[0](plan, self._path, tick, tally):
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
                cores(self._plan)[1](self._plan, self._path, tick, self._tally)
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


def assignments(puzzle: Puzzle, cap: float = math.inf) -> float:
    """Return how many partial assignments of distinct digits the letters have (every node the
    search could visit: the bound of its size), counted only until it passes cap."""
    total, product = 1, 1
    for k in range(len(puzzle.letters)):
        product *= puzzle.base - k
        total += product
        if total > cap:
            break
    return float(total)


def estimate(
    puzzle: Puzzle, probes: int = 24, limit: float | None = None, listing: bool = False
) -> float:
    """Return the estimated search effort in reference nodes: seconds() * NODES_PER_SECOND.

    One scale for both engines (a node of the sum engine runs inline loops worth dozens of
    step-search nodes), so thresholds in nodes (lanes, pieces, shards) mean search time;
    size() gives the nodes as Search.nodes counts them. With a limit, the answer may stop at
    "more than limit" (the step search's sample ends there: a big product is judged big in
    a few milliseconds instead of a full sample). listing: of a listing, which also hands
    out every solution (seconds(enumerate=True)).
    """
    if limit is not None and not puzzle.is_linear:
        native = _native(puzzle)
        per_unit = NATIVE_STEP_SECONDS if native else STEP_SECONDS
        step_limit = max(0.0, (limit / NODES_PER_SECOND - SETUP_SECONDS) / per_unit)
        found = _measure(puzzle, probes, step_limit)
        if found.nodes > step_limit:
            return max(limit + 1.0, found.nodes * per_unit * NODES_PER_SECOND)
        # The sample ran whole: the full estimate.
        handed = found.solutions * SOLUTION_SECONDS if listing else 0.0
        return (_spent(found, native) + handed) * NODES_PER_SECOND
    return seconds(puzzle, enumerate=listing, probes=probes) * NODES_PER_SECOND


class Size(NamedTuple):
    """An estimate of one search: nodes (as Search.nodes counts them), work, solutions."""

    nodes: float
    work: float  # the engine's cost units: nodes for the step search, loop turns for sums
    solutions: float
    linear: bool


def size(puzzle: Puzzle, probes: int = 24) -> Size:
    """Return the estimated size of the puzzle's count search (deterministic, cheap)."""
    return _measure(puzzle, probes)


def seconds(
    puzzle: Puzzle, enumerate: bool = False, probes: int = 24, solutions: float | None = None
) -> float:
    """Return the expected CPU seconds of a count (or, enumerate=True, a listing) on one core.

    A listing also hands out every solution: `solutions` when the caller knows better (a
    count), else the sample's estimate of them.
    """
    found = _measure(puzzle, probes)
    spent = _spent(found, _native(puzzle))
    if enumerate:
        spent += (found.solutions if solutions is None else solutions) * SOLUTION_SECONDS
    return spent


def _spent(found: Size, native: bool = False) -> float:
    """The CPU seconds of a count of that size (on the native cores when native)."""
    if not found.linear:
        per_unit = NATIVE_STEP_SECONDS if native else STEP_SECONDS
    else:
        per_unit = NATIVE_LINEAR_SECONDS if native else LINEAR_SECONDS
    return SETUP_SECONDS + found.work * per_unit


def _native(puzzle: Puzzle) -> bool:
    """Whether this puzzle's search runs on the native core here (ALPHAMETIC_ENGINE, and a
    plan the core fits); asked at each estimate, as the engine is chosen at each search."""
    if puzzle.is_linear:
        return runs_native(plan_for(puzzle))
    return runs_steps_native(model_for(puzzle))


@lru_cache(maxsize=64)
def _measure(puzzle: Puzzle, probes: int, limit: float = math.inf) -> Size:
    """Estimate the search of either engine (probes sets how much is sampled; a step search's
    sample may stop once its nodes pass limit)."""
    if not puzzle.is_linear:
        nodes, solutions, work = walker.measure(model_for(puzzle), STEP_NODES * probes, limit)
        return Size(nodes, work, solutions, False)
    plan = plan_for(puzzle)
    if plan.empty or plan.n == 0:
        return Size(1.0, 1.0, 0.0, True)
    sym = _symmetry(plan)
    if not _memo_kept(plan):
        sym = [1.0] * len(sym)
    return _probe_sums(plan, PROBES * probes, sym)


def _memo_kept(plan: Plan) -> bool:
    """Whether the count keeps its memo: its verdict, or what its first PROBE states decide.

    count_tree stores each finished state (depth, sum, digits used) and keeps the memo when
    1 in 8 lookups hit by the PROBE-th store. Those states come first in its depth-first
    order, so the same walk over node calls, without the inline loops below them, tells.
    """
    if plan.counts.verdict is not None:
        return plan.counts.verdict
    last, coef, step, g, inv = plan.last, plan.coef, plan.step, plan.g, plan.inv
    seen: set[tuple[int, int, int]] = set()
    hits = 0

    def node(i: int, s: int, used: int, lo: int, hi: int) -> None:
        nonlocal hits
        if (i, s, used) in seen:
            hits += 1
            return
        m = step[i]
        if m > 1:
            if s % g[i]:
                return
            lo += ((-s // g[i]) * inv[i] - lo) % m
        if i + 2 < last:
            for d in range(lo, hi + 1, m):
                if not used >> d & 1:
                    t, u = s + coef[i] * d, used | 1 << d
                    x, y = _window(plan, i + 1, t, u)
                    if x <= y:
                        node(i + 1, t, u, x, y)
        seen.add((i, s, used))
        if len(seen) == PROBE:
            raise _Stop

    lo, hi = _top_window(plan, plan.s0, plan.used0)
    try:
        if lo <= hi:
            node(0, plan.s0, plan.used0, lo, hi)
    except _Stop:
        return hits * 8 >= PROBE
    return True  # fewer states than the probe: the memo is never dropped


def _probe_sums(plan: Plan, probes: int, sym: list[float]) -> Size:
    """Knuth's estimate of the count engine's tree, mirroring counting.count_tree's loops.

    Each probe follows one random path of node() calls, weighting each level by the
    product of the children counts above it, and adds up the calls (nodes) and the loop
    turns they make (work; the last two letters are inline loops). When the count keeps its
    memo, a state (depth, sum, digits used) is searched once however many orders of equal
    coefficients above it lead there: the calls at a depth are divided by that symmetry.
    """
    last, coef = plan.last, plan.coef
    rng = random.Random(0)
    calls = hits = turns = windows = leaves = 0.0
    effort, done = 0, 0
    cap = PROBE_EFFORT * probes // (PROBES * 24)  # 30,000 turns for the default 24 probes
    while done < probes and (done < MIN_PROBES or effort < cap):
        done += 1
        weight, s, used = 1.0, plan.s0, plan.used0
        i = 0
        lo, hi = _top_window(plan, s, used)
        while 0 <= i <= last - 1 and lo <= hi:
            calls += weight / sym[i]
            hits += weight / sym[i - 1] - weight / sym[i] if i else 0.0
            m = plan.step[i]
            if m > 1:
                if s % plan.g[i]:
                    break
                lo += ((-s // plan.g[i]) * plan.inv[i] - lo) % m
            turns += weight / sym[i] * len(range(lo, hi + 1, m))
            effort += len(range(lo, hi + 1, m))
            if i + 2 >= last:
                # The inline loops: the letter before the last tries its window per digit.
                inner, found = _inline(plan, i, s, used, range(lo, hi + 1, m))
                if i + 2 == last:
                    windows += (
                        weight / sym[i] * sum(1 for d in range(lo, hi + 1, m) if not used >> d & 1)
                    )
                turns += weight / sym[i] * inner
                effort += inner
                leaves += weight * found
                break
            kids = []
            for d in range(lo, hi + 1, m):
                if used >> d & 1:
                    continue
                windows += weight / sym[i]
                t, u = s + coef[i] * d, used | 1 << d
                x, y = _window(plan, i + 1, t, u)
                if x <= y:
                    kids.append((d, x, y))
            if not kids:
                break
            weight *= len(kids)
            d, lo, hi = rng.choice(kids)
            s, used, i = s + coef[i] * d, used | 1 << d, i + 1
    if calls / done > MEMO_CAP and sym[-1] > 1:
        # A full memo stores no more: beyond its cap, states are searched again.
        kept = MEMO_CAP / (calls / done)
        calls, turns, windows = calls / kept, turns / kept, windows / kept
    nodes = calls / done
    # A window lookup costs more in a big base (one computed costs O(base), and more of
    # them are new: one per set of digits used).
    work = calls * CALL_TURNS + hits + turns + windows * plan.base * WINDOW_TURNS
    return Size(max(nodes, 1.0), max(work / done, 1.0), leaves / done, True)


def _window(plan: Plan, i: int, s: int, used: int) -> tuple[int, int]:
    """The digit range of depth i that the count engine computes (window, then domain)."""
    lo, hi = window(plan.coef[i], s, *plan.bounds[used << 6 | i])
    return max(plan.dlo[i], lo), min(plan.dhi[i], hi)


def _inline(plan: Plan, i: int, s: int, used: int, digits: range) -> tuple[int, float]:
    """(loop turns, solutions) of the inline loops below depth i (the last two letters)."""
    last, c = plan.last, plan.coef[i]
    c2, lo2, hi2 = plan.coef[last], plan.dlo[last], plan.dhi[last]
    turns, found = 0, 0.0
    for d in digits:
        if used >> d & 1:
            continue
        u, t = used | 1 << d, s + c * d
        if i + 1 == last:
            tails: Iterable[tuple[int, int]] = ((0, t),)
        else:
            x, y = _window(plan, i + 1, t, u)
            m1 = plan.step[i + 1]
            if x > y or (m1 > 1 and t % plan.g[i + 1]):
                continue
            if m1 > 1:
                x += ((-t // plan.g[i + 1]) * plan.inv[i + 1] - x) % m1
            e_digits = range(x, y + 1, m1)
            turns += len(e_digits)
            tails = ((e, t + plan.coef[i + 1] * e) for e in e_digits)
        for e, te in tails:
            if i + 1 != last and u >> e & 1:
                continue
            q, r = divmod(-te, c2)
            if r or q < lo2 or q > hi2 or u >> q & 1 or (i + 1 != last and q == e):
                continue
            w = u | 1 << q | (1 << e if i + 1 != last else 0)
            found += _idle(plan, w)
    return turns, found


def _idle(plan: Plan, used: int) -> int:
    """Arrangements of the zero-coefficient letters once `used` digits are taken."""
    free = plan.base - used.bit_count()
    return plan.with0[free] if used & 1 else plan.free0[free]


def _symmetry(plan: Plan) -> list[float]:
    """Per depth: how many orders of the letters above lead to one state (equal coefficients)."""
    sym = [1.0] * max(plan.last + 1, 1)
    groups: dict[int, int] = {}
    for i in range(1, len(sym)):
        c = plan.coef[i - 1]
        groups[c] = groups.get(c, 0) + 1
        sym[i] = sym[i - 1] * groups[c]
    return sym


def _top_window(plan: Plan, s: int, used: int) -> tuple[int, int]:
    """The first letter's digit range, as count_tree starts (empty when there is no tree)."""
    if plan.last < 1:
        return 1, 0
    return _window(plan, 0, s, used)
