"""One run of the step search: the compiled chain of steps, counting, batches and progress."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from . import steps
from .checks import all_of, make_checks
from .puzzle import Puzzle
from .schedule import ENUM, LINEAR, READOFF, Model
from .state import Run, State

__all__ = ["Walk", "model_for", "size", "split"]

# Steps above this run first and record their states; solutions() then hands up the
# solutions below each recorded state as one list (one resumption per list, as in core.py).
TOP = 2


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

    def _chain(self, start: int, stop: int, last: Run) -> Run:
        """Return steps start..stop-1 compiled into one call, ending in last (back to front)."""
        run = last
        for depth in range(stop - 1, start - 1, -1):
            step = self.model.steps[depth]
            check = all_of(make_checks(self, step.checks))
            if step.kind == ENUM:
                run = steps.enum(self, depth, step.slot, check, run)
            elif step.kind == READOFF:
                run = steps.readoff(self, depth, step, check, run)
            elif step.kind == LINEAR:
                run = steps.linear(self, depth, step, run)
            else:
                run = steps.solve(self, depth, step, check, run)
        return run

    def run_count(self) -> int:
        """Count every solution (the caller sets tick and budget)."""
        self.count = 0

        def emit() -> None:
            self.count += 1

        if self.ready:
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
    """Return the step search's node count: exact if under cap, else cap / progress at cap."""
    walk = Walk(model)
    walk.budget = cap

    def stop(depth: int) -> None:
        raise _Cap

    walk.tick = stop
    try:
        walk.run_count()
    except _Cap:
        return cap / max(walk.progress(), 1e-9)
    return float(max(1, cap - walk.budget))
