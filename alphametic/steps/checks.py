"""The checks a step makes once its letter is set: columns, exact values, bounds, digit sums.

A check reads the shared state (state.py) and answers whether the search may go on; an
exact value that does not exist (an inexact division) counts as "no".
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from ..language.expr import Node
from .evaluate import NoValue, Value, compile_value
from .spans import Ranged, Span, compile_span
from .state import Check, State

__all__ = ["all_of", "make_checks", "weights"]


def make_checks(st: State, specs: list[tuple[str, int, int]]) -> list[Check]:
    """Return the check closures of a step."""
    model, values, index, base = st.model, st.values, st.model.index, st.base
    out: list[Check] = []
    for kind, i, k in specs:
        if kind == "nonzero":
            f = compile_value(model.nonzero[i], values, index, base)
            out.append(_safe(_nonzero(f)))
            continue
        eq = model.constraints[i]
        if kind == "bound":
            out.append(bound(st, eq.left, eq.right, model.bound_sets[k]))
            continue
        if kind == "digits":
            out.append(digits(st, eq.left, eq.right, *model.digit_sums[k]))
            continue
        m = base**k if kind == "column" else 0
        a = compile_value(eq.left, values, index, base, m)
        b = compile_value(eq.right, values, index, base, m)
        out.append(_congruent(a, b, m) if m else _safe(_equal(a, b)))
    return out


def digits(st: State, left: Node, right: Node, c: int, known: tuple[int, ...]) -> Check:
    """Return the digit-sum check: left - right + c * (free digits' sum) == 0 mod base-1."""
    m, index, val = st.base - 1, st.model.index, st.val
    total = st.base * (st.base - 1) // 2
    a = compile_value(left, st.values, index, st.base, m)
    b = compile_value(right, st.values, index, st.base, m)
    if len(known) == 1:
        only = known[0]
        return lambda: (a() - b() + c * (total - val[only])) % m == 0
    digits: Callable[[list[int]], tuple[int, ...]] = itemgetter(*known)
    return lambda: (a() - b() + c * (total - sum(digits(val)))) % m == 0


def bound(st: State, left: Node, right: Node, known: frozenset[int]) -> Check:
    """Return a check that left - right can still be 0 (interval arithmetic on the words)."""
    values, lo, base = st.values, st.lo, st.base
    full = (1 << base) - 1

    def word(t: int) -> Ranged:
        free = [(w, lo[s]) for s, w in weights(st.model.places[t], base) if s not in known]
        if not free:
            return lambda: (values[t], values[t])
        top = sum(w for w, _ in free)

        def span() -> Span:
            unused = ~st.used & full
            least, most = (unused & -unused).bit_length() - 1, unused.bit_length() - 1
            v = values[t]
            return v + sum(w * max(least, low) for w, low in free), v + most * top

        return span

    index = st.model.index
    a, b = compile_span(left, word, index, base), compile_span(right, word, index, base)

    def bound() -> bool:
        x, y = a(), b()
        return x[0] <= y[1] and y[0] <= x[1]

    return bound


def weights(places: list[tuple[int, int, int]], base: int) -> list[tuple[int, int]]:
    """Return (letter, weight) for each letter of a word, weights summed over its places."""
    weights: dict[int, int] = {}
    for p, s, _ in places:
        if s >= 0:
            weights[s] = weights.get(s, 0) + base**p
    return list(weights.items())


def _nonzero(f: Value) -> Check:
    """Return a check that the value is not 0."""
    return lambda: f() != 0


def _equal(a: Value, b: Value) -> Check:
    """Return a check that both values are equal."""
    return lambda: a() == b()


def _congruent(a: Value, b: Value, m: int) -> Check:
    """Return a check that both values are equal mod m."""
    return lambda: (a() - b()) % m == 0


def _safe(check: Check) -> Check:
    """Return the check with NoValue (no integer value) counted as failing."""

    def safe() -> bool:
        try:
            return check()
        except NoValue:
            return False

    return safe


def all_of(checks: list[Check]) -> Check | None:
    """Return one closure running every check (None when there are none)."""
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]
    return lambda: all(c() for c in checks)
