"""The search plan: letter order and the per-depth tables the search core reads."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from copy import copy
from math import gcd
from threading import Lock
from typing import TYPE_CHECKING, Any

from .bounds import Ranges, window

if TYPE_CHECKING:
    from ..language.puzzle import Puzzle

# Plans (with their caches) kept per process: the shards of one job run one after another,
# maybe between other jobs; a plan's caches can reach tens of MB, so keep two plans only.
PLANS_KEPT = 2
_plans: OrderedDict[Hashable, Plan] = OrderedDict()
_lock = Lock()


def plan_for(puzzle: Puzzle, prefix: Sequence[int] = ()) -> Plan:
    """Return the puzzle's plan from a small LRU cache (built on a miss), with the prefix."""
    key = (puzzle.text, puzzle.base, puzzle.leading_zeros, puzzle.fixed)  # cheap to hash
    with _lock:  # threads (a web process) may share the cache
        plan = _plans.get(key)
        if plan is not None:
            _plans.move_to_end(key)
    if plan is None:
        plan = Plan(puzzle)
        with _lock:
            _plans[key] = plan
            while len(_plans) > PLANS_KEPT:
                _plans.popitem(last=False)
    return plan.with_prefix(prefix)


def forget_plans() -> None:
    """Drop every cached plan (benchmarks use it to time one-off searches)."""
    with _lock:
        _plans.clear()


def valuation(value: int, base: int) -> int:
    """Return how many times base divides the non-zero value."""
    count = 0
    while value % base == 0:
        value //= base
        count += 1
    return count


def falling(n: int, k: int) -> int:
    """Return n * (n - 1) * ... * (n - k + 1), the number of k-arrangements of n things."""
    if k > n or n < 0:
        return 0
    result = 1
    for x in range(n - k + 1, n + 1):
        result *= x
    return result


class Memo:
    """A memo of search states shared by the runs over one puzzle, with its keep-or-drop verdict."""

    __slots__ = ("stored", "table", "verdict")

    def __init__(self) -> None:
        """Start empty and undecided."""
        self.table: dict[tuple[int, int, int], Any] = {}
        self.verdict: bool | None = None  # None until a run has probed whether states recur
        self.stored = 0  # entries plus stored tails, against the memory cap


class Plan:
    """Everything fixed for one puzzle and prefix: order, coefficients, domains, moduli."""

    def __init__(self, puzzle: Puzzle) -> None:
        """Order the letters and build the small per-depth tables (cheap: O(letters^2))."""
        base = self.base = puzzle.base
        coefficients = puzzle.coefficients()
        nonzero = self.nonzero = puzzle.nonzero_letters()
        fixed = dict(puzzle.fixed)
        letters = self.letters = puzzle.letters
        live = [x for x in letters if x not in fixed and coefficients[x]]
        # Biggest weight first: the interval bound then cuts hardest near the root. (Ordering
        # by column first, as the notes suggest, measured 3-7x slower on the bench corpus.)
        live.sort(key=lambda x: -abs(coefficients[x]))
        # Zero-coefficient letters last, those that may not be 0 first (they are branched on;
        # the others are plain permutations of the digits left).
        idle = [x for x in letters if x not in fixed and not coefficients[x]]
        idle.sort(key=lambda x: x not in nonzero)
        order = self.order = tuple(live + idle)
        n = self.n = len(order)
        self.last = len(live) - 1
        self.prefix: tuple[int, ...] = ()
        self.coef = [coefficients[x] for x in order]
        self.nz = [x in nonzero for x in order]
        self.dlo = [1 if x in nonzero else 0 for x in order]
        self.dhi = [base - 1] * n
        self.s0 = sum(coefficients[x] * d for x, d in fixed.items())
        used = 0
        self.empty = False
        for x, d in fixed.items():
            self.empty |= bool(used >> d & 1) or (d == 0 and x in nonzero)
            used |= 1 << d
        self.used0 = used
        # Compact solutions: slot k of the path holds the digit of order[k], then fixed ones.
        slots = {x: k for k, x in enumerate(order)}
        slots.update({x: n + k for k, x in enumerate(fixed)})
        self.slots = tuple(slots[x] for x in letters)
        self.fixed_digits = list(fixed.values())
        heads = {x: len(fixed) + k for k, x in enumerate(order)}
        heads.update({x: k for k, x in enumerate(fixed)})
        self.live_slots = tuple(heads[x] for x in letters)
        self._fixed = tuple(fixed)
        self._moduli()
        self._layout()
        # Caches filled by the searches (windows, memos): pure functions of the puzzle, so
        # every run over it (a shard, a re-run) reuses them instead of rebuilding them.
        self.bounds = Ranges(base, self.coef, self.nz, self.last)
        self.counts, self.tails = Memo(), Memo()

    def with_prefix(self, prefix: Sequence[int]) -> Plan:
        """Return this plan with the first len(prefix) letters fixed (shares every cache)."""
        if not prefix:
            return self
        if len(prefix) > self.n:
            raise ValueError(f"prefix has {len(prefix)} digits but the search has {self.n} letters")
        view = copy(self)
        view.prefix = tuple(prefix)
        view.dlo, view.dhi = self.dlo[:], self.dhi[:]
        for i, digit in enumerate(view.prefix):
            if view.dlo[i] <= digit <= view.dhi[i]:
                view.dlo[i] = view.dhi[i] = digit
            else:
                view.dlo[i], view.dhi[i] = 1, 0
        view._layout()
        return view

    def _layout(self) -> None:
        """Where the zero-coefficient letters start being plain permutations, and their slots."""
        order, nonzero = self.order, self.nonzero
        # free: first depth after which every letter is a plain permutation of the free digits.
        self.free = max(
            len(self.prefix),
            self.last + 1,
            *(i + 1 for i, x in enumerate(order) if x in nonzero and i > self.last),
        )
        # Layout for those: the head (digits of order[:free], then fixed ones), then the tail.
        f, fixed = self.free, self._fixed
        tail = {x: (k if k < f else k + len(fixed)) for k, x in enumerate(order)}
        tail.update({x: f + k for k, x in enumerate(fixed)})
        self.tail_slots = tuple(tail[x] for x in self.letters)
        # Solutions in each lazy run: arrangements of the digits left after order[:free].
        self.run_size = falling(self.base - len(fixed) - f, self.n - f)
        self._idle()

    def _moduli(self) -> None:
        """Per depth: the column modulus that the partial sum must satisfy after that letter."""
        base, coef, last = self.base, self.coef, self.last
        self.step = [1] * max(self.n, 1)
        self.g = [1] * max(self.n, 1)
        self.inv = [0] * max(self.n, 1)
        low = None
        for i in range(last - 1, -1, -1):
            v = valuation(coef[i + 1], base)
            low = v if low is None else min(low, v)
            if low == 0:
                continue
            modulus = base**low
            g = gcd(coef[i], modulus)
            m = modulus // g
            if m > 1:
                self.step[i], self.g[i] = m, g
                self.inv[i] = pow(coef[i] // g % m, -1, m)

    def _idle(self) -> None:
        """Arrangement counts of the zero-coefficient letters after the prefix, by free digits."""
        nonzero, start = self.nonzero, max(self.last + 1, len(self.prefix))
        self.idle_start = start
        z = self.n - start
        k = sum(1 for x in self.order[start:] if x in nonzero)
        # with0[r]: 0 already used; free0[r]: 0 still free, so k letters must avoid it.
        self.with0 = [falling(r, z) for r in range(self.base + 1)]
        self.free0 = [
            falling(r, z) - k * falling(r - 1, z - 1) if z else 1 for r in range(self.base + 1)
        ]

    def digits(self, i: int, s: int, used: int) -> range:
        """Return the digit range depth i < last may take given the partial sum (no checks)."""
        lo, hi = window(self.coef[i], s, *self.bounds[used << 6 | i])
        lo, hi = max(self.dlo[i], lo), min(self.dhi[i], hi)
        m = self.step[i]
        if m > 1:
            if s % self.g[i]:
                return range(0)
            lo += ((-s // self.g[i]) * self.inv[i] - lo) % m
        return range(lo, hi + 1, m)

    def candidates(self, i: int, s: int, used: int) -> list[int]:
        """Return the digits depth i may take that survive pruning (slow path, not the core)."""
        dlo, dhi = self.dlo[i], self.dhi[i]
        if i > self.last:
            return [d for d in range(dlo, dhi + 1) if not used >> d & 1]
        c = self.coef[i]
        if i == self.last:
            q, r = divmod(-s, c)
            ok = not r and dlo <= q <= dhi and not used >> q & 1
            return [q] if ok else []
        out = []
        for d in self.digits(i, s, used):
            if not used >> d & 1 and self._alive(i + 1, s + c * d, used | 1 << d):
                out.append(d)
        return out

    def _alive(self, i: int, s: int, used: int) -> bool:
        """Return whether a node passes the checks the search core makes before entering it."""
        if i == self.last:
            return bool(self.candidates(i, s, used))
        return i > self.last or bool(self.digits(i, s, used))

    def place(self, path: Sequence[int], depth: int) -> tuple[float, float]:
        """Return the tree weight passed before the node path[:depth], and the node's weight."""
        used = self.used0
        done, width = 0.0, 1.0
        for j in range(len(self.prefix), depth):
            d = path[j]
            avail = [x for x in range(self.dlo[j], self.dhi[j] + 1) if not used >> x & 1]
            if d not in avail:
                break
            width /= len(avail)
            done += avail.index(d) * width
            used |= 1 << d
        return done, width
