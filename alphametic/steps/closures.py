"""The search steps compiled to closures: try a letter, solve it, read a word, or finish a sum.

Each compiler takes the shared state, the step, its checks and the next step (a
continuation) and returns a function that tries the step's choices, calling the next step
for each choice that passes, and leaves the state as it found it.
"""

from __future__ import annotations

from itertools import permutations
from operator import itemgetter

from ..language.expr import Node, tokens
from ..linear.bounds import Ranges, window
from .checks import make_checks
from .evaluate import ANY, NoValue, compile_value, inverse
from .schedule import Step
from .state import Check, Run, State

__all__ = ["SLOPES", "enum", "linear", "readoff", "solve"]

# Cap on cached slopes per SOLVE step (they depend only on the column-0 digits).
SLOPES = 1 << 16


def enum(st: State, depth: int, s: int, check: Check | None, nxt: Run) -> Run:
    """Try every free digit of letter s."""
    val, values, occ, lo, hi = st.val, st.values, st.model.occ[s], st.lo, st.hi

    if len(occ) == 1:
        return enum_one(st, depth, s, check, nxt)

    def enum() -> None:
        for d in range(lo[s], hi[s] + 1):
            bit = 1 << d
            if st.used & bit:
                continue
            st.budget -= 1
            if not st.budget:
                st.tick(depth)
            val[s] = d
            for t, w in occ:
                values[t] += d * w
            if check is None or check():
                st.used |= bit
                nxt()
                st.used ^= bit
            for t, w in occ:
                values[t] -= d * w
        val[s] = -1

    return enum


def enum_one(st: State, depth: int, s: int, check: Check | None, nxt: Run) -> Run:
    """Try every free digit of letter s, which occurs in one word (the common case)."""
    val, values, lo, hi = st.val, st.values, st.lo, st.hi
    ((t, w),) = st.model.occ[s]

    def enum() -> None:
        base = values[t]
        for d in range(lo[s], hi[s] + 1):
            bit = 1 << d
            if st.used & bit:
                continue
            st.budget -= 1
            if not st.budget:
                st.tick(depth)
            val[s] = d
            values[t] = base + d * w
            if check is None or check():
                st.used |= bit
                nxt()
                st.used ^= bit
        values[t] = base
        val[s] = -1

    return enum


def solve(st: State, depth: int, step: Step, check: Check | None, nxt: Run) -> Run:
    """Solve letter s from its equation mod base^k (linear there), then try the roots."""
    s, k, base = step.slot, step.k, st.base
    eq = st.model.constraints[step.eq]
    m, low = int(base**k), int(base ** (k - 1))
    index = st.model.index
    a = compile_value(eq.left, st.values, index, base, m)
    b = compile_value(eq.right, st.values, index, base, m)
    val, values, occ, lo, hi = st.val, st.values, st.model.occ[s], st.lo, st.hi
    # Beyond column 1 the slope depends only on the column-0 digits of the equation's
    # words (the derivative mod base), which change rarely: cache it by them.
    deps = sorted(st.model.need(eq, 1)) if k > 1 else []
    key = itemgetter(*deps) if deps else None
    slopes: dict[object, int] = {}
    roots = _roots(base)

    def slope_now(r0: int) -> int:
        for t, w in occ:
            values[t] += w
        r1 = (a() - b()) % m
        for t, w in occ:
            values[t] -= w
        return (r1 - r0) % m // low

    def solve() -> None:
        st.budget -= 1
        if not st.budget:
            st.tick(depth)
        r0 = (a() - b()) % m
        need = (-r0) % m
        if need % low:
            return
        need //= low
        if key is None:
            slope = slope_now(r0)
        else:
            at = key(val)
            found = slopes.get(at)
            if found is None:
                if len(slopes) >= SLOPES:
                    slopes.clear()
                found = slopes[at] = slope_now(r0)
            slope = found
        low_d, high_d = lo[s], hi[s]
        for d in roots[slope][need]:
            bit = 1 << d
            if st.used & bit or d < low_d or d > high_d:
                continue
            val[s] = d
            for t, w in occ:
                values[t] += d * w
            if check is None or check():
                st.used |= bit
                nxt()
                st.used ^= bit
            for t, w in occ:
                values[t] -= d * w
        val[s] = -1

    return solve


def readoff(st: State, depth: int, step: Step, check: Check | None, nxt: Run) -> Run:
    """Compute the word from its equation and read its free letters off the digits."""
    model, base, values, val = st.model, st.base, st.values, st.val
    t = step.word
    eq = model.constraints[step.eq]
    index = model.index
    holds = _holds_word(eq.left, model.words[t])
    side, other = (eq.left, eq.right) if holds else (eq.right, eq.left)
    target = compile_value(other, values, index, base)
    invert = inverse(side, t, values, index, base)
    places = model.places[t]
    top = base ** len(places)
    lo = st.lo
    hi = st.hi
    occ = model.occ
    exact = make_checks(st, [("full", step.eq, 0)])[0]

    def assign(v: int) -> list[int] | None:
        # Give the free letters their digits of v; None (and nothing changed) on conflict.
        got: list[int] = []
        for _, s, c in places:
            d = v % base
            v //= base
            if s < 0:
                ok = d == c
            elif val[s] >= 0:
                ok = val[s] == d
            else:
                ok = lo[s] <= d <= hi[s] and not st.used >> d & 1
                if ok:
                    val[s] = d
                    st.used |= 1 << d
                    got.append(s)
            if not ok:
                for s in got:
                    st.used ^= 1 << val[s]
                    val[s] = -1
                return None
        for s in got:
            for u, w in occ[s]:
                values[u] += val[s] * w
        return got

    def release(got: list[int]) -> None:
        for s in got:
            d = val[s]
            for u, w in occ[s]:
                values[u] -= d * w
            st.used ^= 1 << d
            val[s] = -1

    def readoff() -> None:
        st.budget -= 1
        if not st.budget:
            st.tick(depth)
        try:
            found = invert(target())
        except NoValue:
            return
        if found is ANY:
            every(st, depth, places, exact, check, nxt)
            return
        for v in found:
            if 0 <= v < top:
                got = assign(v)
                if got is not None:
                    if check is None or check():
                        nxt()
                    release(got)

    return readoff


def every(
    st: State,
    depth: int,
    places: list[tuple[int, int, int]],
    exact: Check,
    check: Check | None,
    nxt: Run,
) -> None:
    """Try every digit for a word's free letters (when its equation cannot pin it down)."""
    free = sorted({s for _, s, _ in places if s >= 0 and st.val[s] < 0})
    digits = [d for d in range(st.base) if not st.used >> d & 1]
    for choice in permutations(digits, len(free)):
        st.budget -= 1  # a node each: the check hook (and a cancel) keeps being called
        if not st.budget:
            st.tick(depth)
        if all(st.lo[s] <= d <= st.hi[s] for s, d in zip(free, choice, strict=True)):
            for s, d in zip(free, choice, strict=True):
                st.set(s, d)
            if exact() and (check is None or check()):
                nxt()
            for s, d in zip(free, choice, strict=True):
                st.used ^= 1 << d
                st.val[s] = -1
                for u, w in st.model.occ[s]:
                    st.values[u] -= d * w


def linear(st: State, depth: int, step: Step, nxt: Run) -> Run:
    """Solve the letters left, which enter one equation linearly, as the sum engine does."""
    model, base, val = st.model, st.base, st.val
    eq = model.constraints[step.eq]
    index = model.index
    a = compile_value(eq.left, st.values, index, base)
    b = compile_value(eq.right, st.values, index, base)
    slots, coef = step.slots, step.coefs
    last = len(slots) - 1
    lows = [st.lo[s] for s in slots]
    highs = [st.hi[s] for s in slots]
    windows = Ranges(base, coef, [low > 0 for low in lows], last)

    def tail(j: int, s: int) -> None:
        # s: the equation's value so far; the letters j.. must bring it to 0.
        st.budget -= 1
        if not st.budget:
            st.tick(depth)
        used = st.used
        if j == last:
            q, r = divmod(-s, coef[last])
            if not r and lows[last] <= q <= highs[last] and not used >> q & 1:
                val[slots[last]] = q
                nxt()
                val[slots[last]] = -1
            return
        lo, hi = window(coef[j], s, *windows[used << 6 | j])
        slot, c = slots[j], coef[j]
        for d in range(max(lo, lows[j]), min(hi, highs[j]) + 1):
            bit = 1 << d
            if used & bit:
                continue
            val[slot] = d
            st.used = used | bit
            tail(j + 1, s + c * d)
        st.used = used
        val[slot] = -1

    def linear() -> None:
        try:
            s = a() - b()
        except NoValue:
            return
        tail(0, s)

    return linear


def _roots(base: int) -> list[list[tuple[int, ...]]]:
    """Return roots[a][c]: the digits x with a * x == c (mod base)."""
    digits = range(base)
    return [[tuple(x for x in digits if (a * x - c) % base == 0) for c in digits] for a in digits]


def _holds_word(node: Node, word: str) -> bool:
    """Return whether the expression contains the word."""
    return any(t.text == word for t in tokens(node))
