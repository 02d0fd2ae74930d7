"""Which engine runs, and the drivers of the plain sums' optional native core (_native.c).

ALPHAMETIC_ENGINE picks the engine for every native core, this one, the expression engine's
(steps/_native.c, driven by steps/native.py) and the explanations' column walks
(explain/_native.c, driven by explain/native.py), built together: ``auto`` (the default:
the native cores where they were built, else pure Python), ``native`` (refuse to run without
them: CI and images) or ``python``. The native core walks the same tree as core.py /
counting.py and hands back the same solutions in the same order; it returns to Python every
tally.batch nodes, so tick() (check hook, progress, cancellation, time slices) runs exactly as
it does for the pure-Python loops.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, cast

from .core import Item, Tally, Tick, batches, emitter, given
from .counting import count_tree
from .plan import Plan, falling

__all__ = ["ENV", "EngineError", "cores", "describe", "engine", "is_built", "runs_native"]

ENV = "ALPHAMETIC_ENGINE"
CHOICES = ("auto", "native", "python")
# The core's int64 sums stay exact while every partial sum and window is below 2**59.
FIT = 1 << 59
# Solutions asked of the core per call: one first (first mode stops there), then more.
WANT_FIRST, WANT_MAX = 1, 4096
# Loop turns per call (a few milliseconds): a node costs up to base * base turns, so a budget
# of nodes alone could keep the core from the clock for a tenth of a second in base 36.
TURNS = 1 << 20

if TYPE_CHECKING:
    from ._native import Core

Batches = Callable[[Plan, list[int], Tick, Tally], Iterator[list[Item]]]
Counter = Callable[[Plan, list[int], Tick, Tally], None]


class EngineError(RuntimeError):
    """ALPHAMETIC_ENGINE is not a known engine, or asks for a native core that is not built."""


def _load() -> type[Core] | None:
    """Return the native core's search type, or None when it was not built."""
    try:
        from ._native import Core
    except ImportError:  # no compiler when it was installed: the pure-Python engine runs
        return None
    return Core


def _load_others() -> bool:
    """Return whether the other native cores (steps/_native.c, explain/_native.c) were built."""
    try:
        from ..explain import _native as _explain  # noqa: F401
        from ..steps import _native  # noqa: F401
    except ImportError:
        return False
    return True


_CORE = _load()
# "native" means every core: one that built without the others is an install to fix.
_BOTH = _CORE is not None and _load_others()


def is_built() -> bool:
    """Return whether the native cores (plain sums, expressions, explanations) were built and
    import."""
    return _BOTH


def choice() -> str:
    """Return ALPHAMETIC_ENGINE as given (auto when unset), checked."""
    value = os.environ.get(ENV, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise EngineError(f"{ENV}={value!r}: expected one of {', '.join(CHOICES)}")
    return value


def engine() -> str:
    """Return the engine that runs plain sums: 'native' or 'python' (EngineError if neither)."""
    wanted = choice()
    if wanted == "python":
        return "python"
    if not _BOTH:
        if wanted == "native":
            raise EngineError(
                f"{ENV}=native but the native core (alphametic.linear._native, "
                "alphametic.steps._native and alphametic.explain._native) is not built"
            )
        return "python"
    return "native"


def describe() -> str:
    """Return one line saying which engine runs and why."""
    name = engine()
    if name == "native":
        return "native"
    return "python (forced)" if choice() == "python" else "python (native core not built)"


def fits(plan: Plan) -> bool:
    """Return whether the native core handles this plan exactly (int64, up to 63 letters)."""
    if plan.last < 1 or plan.n >= 63 or plan.base > 62:
        return False
    reach = abs(plan.s0) + sum(abs(c) for c in plan.coef[: plan.last + 1]) * (plan.base - 1)
    return reach < FIT and falling(plan.base, plan.n) < FIT


def runs_native(plan: Plan) -> bool:
    """Return whether the native core runs this plan (selected, and the plan fits it)."""
    return engine() == "native" and fits(plan)


def cores(plan: Plan) -> tuple[Batches, Counter]:
    """Return the (batches, count_tree) pair that runs this plan on the selected engine."""
    if runs_native(plan):
        return native_batches, native_count
    return batches, count_tree


def _core(plan: Plan, path: list[int], top: int, s: int, used: int) -> Core:
    """Build the native search for the plan from depth top (partial sum s, used digits)."""
    assert _CORE is not None
    signs = [plan.bounds.signs_at(i) if i >= top else None for i in range(plan.last)]
    full = plan.last + 1 == plan.n
    return _CORE(
        base=plan.base,
        last=plan.last,
        top=top,
        s=s,
        used=used,
        coef=plan.coef,
        dlo=plan.dlo,
        dhi=plan.dhi,
        step=plan.step,
        g=plan.g,
        inv=plan.inv,
        signs=signs,
        fixed=plan.fixed_digits,
        slots=plan.live_slots if full else None,
        start=plan.idle_start,
        with0=plan.with0,
        free0=plan.free0,
        path=path,
    )


def _searchable(plan: Plan, path: list[int]) -> tuple[int, int, int] | None:
    """Return given()'s (top, sum, used) when the core has a tree to walk, else None."""
    top, s, used = given(plan, path)
    return (top, s, used) if 0 <= top < plan.last else None


def _tick(tick: Tick, tally: Tally, budget: list[int], depth: int) -> None:
    """Tick after a call that spent its budget or its turns, counting the nodes it spent."""
    tally.done -= budget[0]  # tick() adds the whole batch: only what was spent counts
    tick(depth)
    budget[0] = tally.batch


def native_count(plan: Plan, path: list[int], tick: Tick, tally: Tally) -> None:
    """counting.count_tree on the native core: the same count, the same ticks."""
    start = _searchable(plan, path)
    if start is None:  # a prefix that breaks a rule or fixes the live letters: trivial
        count_tree(plan, path, tick, tally)
        return
    core = _core(plan, path, *start)
    budget = [tally.batch]
    tally.reader = lambda: tally.done + tally.batch - budget[0]
    done = False
    while not done:
        found, budget[0], depth, done = core.count(budget[0], TURNS)
        tally.found += found
        if not done:
            _tick(tick, tally, budget, depth)


def native_batches(plan: Plan, path: list[int], tick: Tick, tally: Tally) -> Iterator[list[Item]]:
    """core.batches on the native core: the same solutions in the same order, the same ticks."""
    start = _searchable(plan, path)
    if start is None:
        yield from batches(plan, path, tick, tally)
        return
    core = _core(plan, path, *start)
    emit = None if plan.last + 1 == plan.n else emitter(plan, path)
    budget = [tally.batch]
    tally.reader = lambda: tally.done + tally.batch - budget[0]
    want, done = WANT_FIRST, False
    while not done:
        found, budget[0], depth, done = core.solve(budget[0], want, TURNS)
        if found:
            # Tuples in letter order already, or the live digits for emit() to complete.
            yield cast(list[Item], found) if emit is None else emit(0, plan.used0, found)
            want = min(want * 2, WANT_MAX)
        if not done and (not budget[0] or not found):
            _tick(tick, tally, budget, depth)
