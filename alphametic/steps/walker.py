"""One run of the step search: the compiled chain of steps, counting, batches and progress."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from functools import lru_cache

from ..language.puzzle import Puzzle
from . import closures
from .checks import all_of, make_checks
from .native import compile_steps, runs_native
from .schedule import ENUM, LINEAR, READOFF, Model
from .state import Run, State

__all__ = ["Walk", "model_for", "size", "split"]

# Steps above this run first and record their states; solutions() then hands up the
# solutions below each recorded state as one list (one resumption per list, as in core.py).
TOP = 2
# Sizing runs (measure): children of a subtree measured at most, and nodes below which a
# child is not worth a run of its own.
SPLIT = 3
SAMPLE_NODES = 1000
# Extra cost of a LINEAR tail's node, in plain nodes, per (letters - 3) squared: fitted on the
# two systems of bench/estimates.json that end in one (3 letters: none seen; 5: ~19 us).
LINEAR_NODE = 4.0
# Nodes of the short run that tells a child that dies at once from one worth sampling.
PEEK = 16


class _Cap(Exception):
    """Raised when a sizing run reaches its node cap."""


@lru_cache(maxsize=8)
def model_for(puzzle: Puzzle) -> Model:
    """Return the step plan of an expression puzzle (cached: shards of a job share it)."""
    return Model(puzzle)


class Walk(State):
    """A run of the step search over a model (a prefix fixes the first ENUM digits)."""

    def __init__(self, model: Model, prefix: Sequence[int] = ()) -> None:
        """Set up the state; the setup checks decide whether there is anything to search."""
        super().__init__(model, prefix)
        self.ready = all(check() for check in make_checks(self, model.setup_checks))
        # The native core over the same steps, when selected and the values fit int64.
        self.native = compile_steps(self) if self.ready and runs_native(model) else None

    def _chain(self, start: int, stop: int, last: Run) -> Run:
        """Return steps start..stop-1 compiled into one call, ending in last (back to front)."""
        run = last
        for depth in range(stop - 1, start - 1, -1):
            step = self.model.steps[depth]
            check = all_of(make_checks(self, step.checks))
            if step.kind == ENUM:
                run = closures.enum(self, depth, step.slot, check, run)
            elif step.kind == READOFF:
                run = closures.readoff(self, depth, step, check, run)
            elif step.kind == LINEAR:
                run = closures.linear(self, depth, step, run)
            else:
                run = closures.solve(self, depth, step, check, run)
        return run

    def run_count(self) -> int:
        """Count every solution (the caller sets tick and budget)."""
        self.count = 0

        def emit() -> None:
            self.count += 1

        if self.native is not None:
            self.native.run(self, 0, None)
        elif self.ready:
            self._chain(0, len(self.model.steps), emit)()
        return self.count

    def batches(self) -> Iterator[list[tuple[int, ...]]]:
        """Yield lists of solutions (digits in letter order), one list per top state."""
        if not self.ready:
            return
        val, values, out = self.val, self.values, self.out
        n = len(self.model.steps)
        top = 0  # only ENUM steps above: a LINEAR tail there would record every solution
        while top < min(TOP, n) and self.model.steps[top].kind == ENUM:
            top += 1
        states: list[tuple[list[int], list[int], int]] = []
        self._chain(0, top, lambda: states.append((val[:], values[:], self.used)))()
        native = self.native
        if native is not None:

            def below() -> None:
                native.run(self, top, out)

        else:
            below = self._chain(top, n, lambda: out.append(tuple(val)))
        for state in states:
            val[:], values[:], self.used = state
            below()
            if out:
                yield out[:]
                out.clear()

    def progress(self) -> float:
        """Return the share of the tree passed: over the ENUM letters' digit ranges, in order."""
        done, width = 0.0, 1.0
        for s in self.enums:
            d = self.val[s]
            if d < 0:
                break
            span = self.hi[s] - self.lo[s] + 1
            width /= span
            done += (d - self.lo[s]) * width
        return done


def split(
    model: Model, depth: int, under: Sequence[int] = ()
) -> list[tuple[tuple[int, ...], float]]:
    """Return the digit prefixes of the first `depth` tried letters (distinct, in range), under
    the prefix `under` only when given."""
    letters = [step.slot for step in model.steps if step.kind == ENUM][: max(0, depth)]
    used0 = sum(1 << d for d in model.fixed.values())
    out: list[tuple[tuple[int, ...], float]] = []

    def walk(i: int, used: int, prefix: tuple[int, ...], weight: float) -> None:
        if i == len(letters):
            out.append((prefix, weight))
            return
        digits = [d for d in range(model.lo[letters[i]], model.base) if not used >> d & 1]
        if i < len(under):
            digits = [d for d in digits if d == under[i]]
        for d in digits:
            walk(i + 1, used | 1 << d, (*prefix, d), weight / len(digits))

    walk(0, used0, (), 1.0)
    return out


def size(model: Model, cap: int) -> float:
    """Return the step search's estimated node count (deterministic; about cap nodes of work)."""
    return measure(model, cap)[0]


def measure(model: Model, cap: int, limit: float = math.inf) -> tuple[float, float, float]:
    """Return (nodes, solutions, work) of the step search: exact under cap, else sampled.

    With a limit, sampling stops as soon as the nodes counted pass it (the answer is then
    only "more than limit"): deciding whether a search is small costs little for a big one.

    Knuth's single random path misses the few heavy subtrees of a product (30x low on
    NORTH * WEST = EAST * SOUTH in base 15), and cap / progress after a prefix of the tree
    reads the first digits' subtrees as typical. Instead a subtree that a short run finishes
    is counted exactly, and one that it does not is split on its next tried letter and a
    few of its children are measured the same way (all of them near the root): the mean
    times the number of children estimates it, like Knuth's estimator with exact leaves.
    Work is in plain nodes: a node of a LINEAR tail costs more, the more letters it has
    (each looks up windows over the digits used, and few of those repeat).
    """
    sampler = _Sampler(model)
    if not sampler.walk.ready:
        return 1.0, 0.0, 1.0
    nodes, solutions, linear = sampler.estimate((), float(cap), random.Random(0), limit)
    letters = max((len(step.slots) for step in model.steps if step.kind == LINEAR), default=3)
    return nodes, solutions, nodes + linear * LINEAR_NODE * max(letters - 3, 0) ** 2


class _Sampler:
    """Capped runs of one compiled step search under different prefixes (a sizing run)."""

    def __init__(self, model: Model) -> None:
        """Compile the search once; each run sets the tried letters' digit ranges itself."""
        self.model = model
        walk = self.walk = Walk(model)
        self.enums = [step.slot for step in model.steps if step.kind == ENUM]
        self.lo, self.hi = walk.lo[:], walk.hi[:]
        self.saved = (walk.val[:], walk.values[:], walk.used)
        self.used0 = walk.used

        def emit() -> None:
            walk.count += 1

        def stop(depth: int) -> None:
            raise _Cap

        walk.tick = stop
        self.linear = 0  # nodes spent in a LINEAR tail by the runs so far
        n = len(model.steps)
        tail = next((k for k, step in enumerate(model.steps) if step.kind == LINEAR), n)
        below = walk._chain(tail, n, emit) if walk.ready else emit
        native = walk.native
        if native is not None:
            # The same runs on the native core (all of it, or the LINEAR tail: its nodes are
            # counted apart): it counts into walk.count, and the tick's exception unwinds it
            # (count() below restores the state, as for the closures).
            start = 0 if tail == n else tail

            def below() -> None:
                native.run(walk, start, None)

            if tail == n:
                self.run = below
                return

        def linear() -> None:
            before = walk.budget
            try:
                below()
            finally:
                self.linear += before - walk.budget

        self.run = walk._chain(0, tail, linear if tail < n else below) if walk.ready else emit

    def children(self, prefix: tuple[int, ...]) -> list[int]:
        """The digits the next tried letter may take after the prefix (distinct, in range)."""
        if len(prefix) >= len(self.enums):
            return []
        used = self.used0
        for d in prefix:
            used |= 1 << d
        s = self.enums[len(prefix)]
        return [d for d in range(self.lo[s], self.hi[s] + 1) if not used >> d & 1]

    def count(
        self, prefix: tuple[int, ...], cap: int, stop: bool = False
    ) -> tuple[int, int, int] | None:
        """(nodes, solutions, LINEAR nodes) under the prefix, or None if it passes cap nodes.

        stop=True leaves the next tried letter no digit: the nodes every child shares.
        """
        walk = self.walk
        walk.lo[:], walk.hi[:] = self.lo, self.hi
        for s, d in zip(self.enums, prefix, strict=False):
            walk.lo[s], walk.hi[s] = (d, d) if self.lo[s] <= d <= self.hi[s] else (1, 0)
        if stop and len(prefix) < len(self.enums):
            walk.lo[self.enums[len(prefix)]], walk.hi[self.enums[len(prefix)]] = 1, 0
        walk.count, walk.budget, self.linear = 0, cap + 1, 0
        try:
            self.run()
        except _Cap:
            # The compiled steps undo their changes as they return, not when interrupted.
            walk.val[:], walk.values[:], walk.used = (
                self.saved[0][:],
                self.saved[1][:],
                self.saved[2],
            )
            return None
        return cap + 1 - walk.budget, walk.count, self.linear

    def estimate(
        self, prefix: tuple[int, ...], budget: float, rng: random.Random, limit: float
    ) -> tuple[float, float, float]:
        """(nodes, solutions, LINEAR nodes) under the prefix, from about `budget` nodes of runs
        (or fewer: it returns once the nodes counted pass `limit`)."""
        first = int(budget / 4)
        exact = self.count(prefix, max(first, 64))
        if exact is not None:
            return float(exact[0]), float(exact[1]), float(exact[2])
        digits = self.children(prefix)
        if not digits:
            return max(float(first), 1.0), 0.0, 0.0  # nothing to split on: at least what ran
        # Each child's run passes the nodes above its letter again (the path, the other roots
        # of a solved letter): counted once, not once per child.
        above = self.count(prefix, max(first, 64), stop=True)
        shared = float(above[0]) if above is not None else 0.0
        # Most children of a product die at once (a column check): a short run counts those
        # exactly, and only the others are sampled (Knuth samples the children that survive).
        nodes = solutions = linear = 0.0
        heavy = []
        for d in digits:
            found = self.count((*prefix, d), PEEK)
            if found is None:
                heavy.append(d)
            else:
                nodes += max(found[0] - shared, 0.0)
                solutions, linear = solutions + found[1], linear + found[2]
            # Each heavy child passed PEEK nodes: a lower bound of the whole.
            least = shared + nodes + max(PEEK - shared, 0.0) * len(heavy)
            if least > limit:
                return least, solutions, linear
        if not heavy:
            return shared + nodes, solutions, linear
        left = budget - first - PEEK * len(digits)
        # Near the root every child (its share of the tree differs most); below, a few.
        k = min(len(heavy), max(1, int(left // SAMPLE_NODES)), SPLIT) if prefix else len(heavy)
        picked = heavy if k == len(heavy) else sorted(rng.sample(heavy, k))
        scale = len(heavy) / k
        for d in picked:
            n, c, lin = self.estimate(
                (*prefix, d), max(left, 0.0) / k, rng, (limit - shared - nodes) / scale + shared
            )
            nodes += max(n - shared, 0.0) * scale
            solutions, linear = solutions + c * scale, linear + lin * scale
            if shared + nodes > limit:
                break
        return shared + nodes, solutions, linear
