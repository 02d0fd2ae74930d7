"""The search over an expression puzzle's steps: depth-first, with checks, solves and read-offs.

State is three things the closures share: each letter's digit (-1 while free), the digits in
use (a bit set), and each word's value so far (every known letter's digit times its weight,
plus the word's constant digits), so a word's value mod base^k is right as soon as its last k
letters are known, and exact once all are. The steps come from schedule.Model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import permutations
from operator import itemgetter

from .bounds import Ranges, window
from .evaluate import ANY, NoValue, Ranged, Span, Value, compile_span, compile_value, inverse
from .expr import Node, tokens
from .schedule import ENUM, LINEAR, READOFF, Model, Step

__all__ = ["Walk"]

# A compiled step: tries its choices, calling the next step (a continuation) for each one
# with the state set, and leaves the state as it found it.
Run = Callable[[], None]
Check = Callable[[], bool]
# Steps above this run first and record their states; solutions() then hands up the
# solutions below each recorded state as one list (one resumption per list, as in core.py).
TOP = 2
# Cap on cached slopes per SOLVE step (they depend only on the column-0 digits).
SLOPES = 1 << 16


class Walk:
    """One run's search state over a model, with a prefix fixing the first ENUM digits."""

    def __init__(self, model: Model, prefix: Sequence[int] = ()) -> None:
        """Compile the steps into closures over fresh state."""
        self.model = model
        base = self.base = model.base
        self.val = [-1] * len(model.letters)
        self.values = [0] * len(model.words)
        for t, places in enumerate(model.places):
            self.values[t] = sum(c * base**p for p, _, c in places if c > 0)
        self.used = 0
        for s, d in model.fixed.items():
            self._set(s, d)
        self.lo = model.lo[:]
        self.hi = [base - 1] * len(model.letters)
        enums = [step.slot for step in model.steps if step.kind == ENUM]
        if len(prefix) > len(enums):
            raise ValueError(f"prefix has {len(prefix)} digits but the search tries {len(enums)}")
        for s, d in zip(enums, prefix, strict=False):
            self.lo[s], self.hi[s] = (d, d) if self.lo[s] <= d <= self.hi[s] else (1, 0)
        self.enums = enums[len(prefix) :]  # the letters progress is measured over
        self.order = tuple(model.letters[s] for s in enums)
        self.count = 0
        self.out: list[tuple[int, ...]] = []
        self.tick: Callable[[int], None] = lambda depth: None
        self.budget = 1 << 30
        self.ready = all(check() for check in self._checks(model.setup_checks))

    def _set(self, s: int, d: int) -> None:
        """Give letter s digit d (no checks)."""
        self.val[s] = d
        self.used |= 1 << d
        for t, w in self.model.occ[s]:
            self.values[t] += d * w

    def _checks(self, specs: list[tuple[str, int, int]]) -> list[Check]:
        """Return the check closures of a step."""
        model, values, index, base = self.model, self.values, self.model.index, self.base
        out: list[Check] = []
        for kind, i, k in specs:
            if kind == "nonzero":
                f = compile_value(model.nonzero[i], values, index, base)
                out.append(_safe(_nonzero(f)))
                continue
            eq = model.constraints[i]
            if kind == "bound":
                out.append(self._bound(eq.left, eq.right, model.bound_sets[k]))
                continue
            if kind == "digits":
                out.append(self._digits(eq.left, eq.right, *model.digit_sums[k]))
                continue
            m = base**k if kind == "column" else 0
            a = compile_value(eq.left, values, index, base, m)
            b = compile_value(eq.right, values, index, base, m)
            out.append(_congruent(a, b, m) if m else _safe(_equal(a, b)))
        return out

    def _digits(self, left: Node, right: Node, c: int, known: tuple[int, ...]) -> Check:
        """Return the digit-sum check: left - right + c * (free digits' sum) == 0 mod base-1."""
        m, index, val = self.base - 1, self.model.index, self.val
        total = self.base * (self.base - 1) // 2
        a = compile_value(left, self.values, index, self.base, m)
        b = compile_value(right, self.values, index, self.base, m)
        if len(known) == 1:
            only = known[0]
            return lambda: (a() - b() + c * (total - val[only])) % m == 0
        digits: Callable[[list[int]], tuple[int, ...]] = itemgetter(*known)
        return lambda: (a() - b() + c * (total - sum(digits(val)))) % m == 0

    def _linear(self, depth: int, step: Step, nxt: Run) -> Run:
        """Solve the letters left, which enter one equation linearly, as the sum engine does."""
        model, base, val = self.model, self.base, self.val
        eq = model.constraints[step.eq]
        index = model.index
        a = compile_value(eq.left, self.values, index, base)
        b = compile_value(eq.right, self.values, index, base)
        slots, coef = step.slots, step.coefs
        last = len(slots) - 1
        lows = [self.lo[s] for s in slots]
        highs = [self.hi[s] for s in slots]
        windows = Ranges(base, coef, [low > 0 for low in lows], last)

        def tail(j: int, s: int) -> None:
            # s: the equation's value so far; the letters j.. must bring it to 0.
            self.budget -= 1
            if not self.budget:
                self.tick(depth)
            used = self.used
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
                self.used = used | bit
                tail(j + 1, s + c * d)
            self.used = used
            val[slot] = -1

        def linear() -> None:
            try:
                s = a() - b()
            except NoValue:
                return
            tail(0, s)

        return linear

    def _bound(self, left: Node, right: Node, known: frozenset[int]) -> Check:
        """Return a check that left - right can still be 0 (interval arithmetic on the words)."""
        values, lo, base = self.values, self.lo, self.base
        full = (1 << base) - 1

        def word(t: int) -> Ranged:
            free = [(w, lo[s]) for s, w in _weights(self.model.places[t], base) if s not in known]
            if not free:
                return lambda: (values[t], values[t])
            top = sum(w for w, _ in free)

            def span() -> Span:
                unused = ~self.used & full
                least, most = (unused & -unused).bit_length() - 1, unused.bit_length() - 1
                v = values[t]
                return v + sum(w * max(least, low) for w, low in free), v + most * top

            return span

        index = self.model.index
        a, b = compile_span(left, word, index, base), compile_span(right, word, index, base)

        def bound() -> bool:
            x, y = a(), b()
            return x[0] <= y[1] and y[0] <= x[1]

        return bound

    def _chain(self, start: int, stop: int, last: Run) -> Run:
        """Return steps start..stop-1 compiled into one call, ending in last (back to front)."""
        run = last
        for depth in range(stop - 1, start - 1, -1):
            step = self.model.steps[depth]
            check = _all(self._checks(step.checks))
            if step.kind == ENUM:
                run = self._enum(depth, step.slot, check, run)
            elif step.kind == READOFF:
                run = self._readoff(depth, step, check, run)
            elif step.kind == LINEAR:
                run = self._linear(depth, step, run)
            else:
                run = self._solve(depth, step, check, run)
        return run

    def _enum(self, depth: int, s: int, check: Check | None, nxt: Run) -> Run:
        """Try every free digit of letter s."""
        val, values, occ, lo, hi = self.val, self.values, self.model.occ[s], self.lo, self.hi

        if len(occ) == 1:
            return self._enum_one(depth, s, check, nxt)

        def enum() -> None:
            for d in range(lo[s], hi[s] + 1):
                bit = 1 << d
                if self.used & bit:
                    continue
                self.budget -= 1
                if not self.budget:
                    self.tick(depth)
                val[s] = d
                for t, w in occ:
                    values[t] += d * w
                if check is None or check():
                    self.used |= bit
                    nxt()
                    self.used ^= bit
                for t, w in occ:
                    values[t] -= d * w
            val[s] = -1

        return enum

    def _enum_one(self, depth: int, s: int, check: Check | None, nxt: Run) -> Run:
        """Try every free digit of letter s, which occurs in one word (the common case)."""
        val, values, lo, hi = self.val, self.values, self.lo, self.hi
        ((t, w),) = self.model.occ[s]

        def enum() -> None:
            base = values[t]
            for d in range(lo[s], hi[s] + 1):
                bit = 1 << d
                if self.used & bit:
                    continue
                self.budget -= 1
                if not self.budget:
                    self.tick(depth)
                val[s] = d
                values[t] = base + d * w
                if check is None or check():
                    self.used |= bit
                    nxt()
                    self.used ^= bit
            values[t] = base
            val[s] = -1

        return enum

    def _solve(self, depth: int, step: Step, check: Check | None, nxt: Run) -> Run:
        """Solve letter s from its equation mod base^k (linear there), then try the roots."""
        s, k, base = step.slot, step.k, self.base
        eq = self.model.constraints[step.eq]
        m, low = int(base**k), int(base ** (k - 1))
        index = self.model.index
        a = compile_value(eq.left, self.values, index, base, m)
        b = compile_value(eq.right, self.values, index, base, m)
        val, values, occ, lo, hi = self.val, self.values, self.model.occ[s], self.lo, self.hi
        # Beyond column 1 the slope depends only on the column-0 digits of the equation's
        # words (the derivative mod base), which change rarely: cache it by them.
        deps = sorted(self.model.need(eq, 1)) if k > 1 else []
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
            self.budget -= 1
            if not self.budget:
                self.tick(depth)
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
                if self.used & bit or d < low_d or d > high_d:
                    continue
                val[s] = d
                for t, w in occ:
                    values[t] += d * w
                if check is None or check():
                    self.used |= bit
                    nxt()
                    self.used ^= bit
                for t, w in occ:
                    values[t] -= d * w
            val[s] = -1

        return solve

    def _readoff(self, depth: int, step: Step, check: Check | None, nxt: Run) -> Run:
        """Compute the word from its equation and read its free letters off the digits."""
        model, base, values, val = self.model, self.base, self.values, self.val
        t = step.word
        eq = model.constraints[step.eq]
        index = model.index
        holds = _holds_word(eq.left, model.words[t])
        side, other = (eq.left, eq.right) if holds else (eq.right, eq.left)
        target = compile_value(other, values, index, base)
        invert = inverse(side, t, values, index, base)
        places = model.places[t]
        top = base ** len(places)
        lo = self.lo
        hi = self.hi
        occ = model.occ
        exact = self._checks([("full", step.eq, 0)])[0]

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
                    ok = lo[s] <= d <= hi[s] and not self.used >> d & 1
                    if ok:
                        val[s] = d
                        self.used |= 1 << d
                        got.append(s)
                if not ok:
                    for s in got:
                        self.used ^= 1 << val[s]
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
                self.used ^= 1 << d
                val[s] = -1

        def readoff() -> None:
            self.budget -= 1
            if not self.budget:
                self.tick(depth)
            try:
                found = invert(target())
            except NoValue:
                return
            if found is ANY:
                self._every(places, exact, check, nxt)
                return
            for v in found:
                if 0 <= v < top:
                    got = assign(v)
                    if got is not None:
                        if check is None or check():
                            nxt()
                        release(got)

        return readoff

    def _every(
        self, places: list[tuple[int, int, int]], exact: Check, check: Check | None, nxt: Run
    ) -> None:
        """Try every digit for a word's free letters (when its equation cannot pin it down)."""
        free = sorted({s for _, s, _ in places if s >= 0 and self.val[s] < 0})
        digits = [d for d in range(self.base) if not self.used >> d & 1]
        for choice in permutations(digits, len(free)):
            if all(self.lo[s] <= d <= self.hi[s] for s, d in zip(free, choice, strict=True)):
                for s, d in zip(free, choice, strict=True):
                    self._set(s, d)
                if exact() and (check is None or check()):
                    nxt()
                for s, d in zip(free, choice, strict=True):
                    self.used ^= 1 << d
                    self.val[s] = -1
                    for u, w in self.model.occ[s]:
                        self.values[u] -= d * w

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
        top = min(TOP, n)
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


def _weights(places: list[tuple[int, int, int]], base: int) -> list[tuple[int, int]]:
    """Return (letter, weight) for each letter of a word, weights summed over its places."""
    weights: dict[int, int] = {}
    for p, s, _ in places:
        if s >= 0:
            weights[s] = weights.get(s, 0) + base**p
    return list(weights.items())


def _roots(base: int) -> list[list[tuple[int, ...]]]:
    """Return roots[a][c]: the digits x with a * x == c (mod base)."""
    digits = range(base)
    return [[tuple(x for x in digits if (a * x - c) % base == 0) for c in digits] for a in digits]


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


def _all(checks: list[Check]) -> Check | None:
    """Return one closure running every check (None when there are none)."""
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]
    return lambda: all(c() for c in checks)


def _holds_word(node: Node, word: str) -> bool:
    """Return whether the expression contains the word."""
    return any(t.text == word for t in tokens(node))
