"""The plan of an expression puzzle: its words, its constraints and the order of search steps.

Letters are taken column by column from the right across every word of every equation: once
the last k digits of each word of an equation are known, the equation must hold mod base^k
(for +, -, * and powers the low digits of a result depend only on the low digits of the
operands). Beyond the first column the last new letter of a column enters an equation
linearly mod base^k (its square carries a factor base^2k-2), so it is solved, not tried
(SOLVE). When every word of an equation but one is known, that word is computed and its
letters read off its digits (READOFF). Every equation is checked exactly once all its words
are known, so the pruning only ever saves work; it never decides a solution.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..language.puzzle import Puzzle
from .equations import Constraint, Equations, words_in
from .spans import Span, compile_span

__all__ = ["ENUM", "LINEAR", "READOFF", "SOLVE", "Model", "Step"]

ENUM, SOLVE, READOFF, LINEAR = "enum", "solve", "readoff", "linear"
# Most letters tried before a LINEAR tail that is planned first (10 * 9 * 8 * 7 choices).
LINEAR_AFTER = 4


@dataclass
class Step:
    """One search step: try a letter's digits, solve a letter, or read a word off a value."""

    kind: str
    slot: int = -1  # the letter (index into puzzle.letters) for ENUM and SOLVE
    word: int = -1  # the word read off (READOFF)
    eq: int = -1  # the constraint solved or read from (SOLVE, READOFF)
    k: int = 0  # the column count of a SOLVE
    slots: tuple[int, ...] = ()  # the letters of a LINEAR step, biggest |coefficient| first
    coefs: tuple[int, ...] = ()  # their coefficients in the equation
    checks: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, index, k)


class Model(Equations):
    """An expression puzzle's equations and its search steps (static, no search state)."""

    def __init__(self, puzzle: Puzzle) -> None:
        """Index the equations, then plan the steps."""
        super().__init__(puzzle)
        self.steps: list[Step] = []
        self.setup_checks: list[tuple[str, int, int]] = []  # checks before any step
        self.bound_sets: list[frozenset[int]] = []  # the letters known at each bound check
        # Digit-sum checks: (coefficient of the unknown letters, the letters known).
        self.digit_sums: list[tuple[int, tuple[int, ...]]] = []
        self._plan()

    def _plan(self) -> None:
        """Order the steps column by column, with solves, read-offs and checks (greedy)."""
        assigned = set(self.fixed)
        checked = [0] * len(self.constraints)  # columns already checked, -1: checked exactly
        nonzero_done = [False] * len(self.nonzero)
        column = [
            min((p for t, _ in self.occ[s] for p, q, _ in self.places[t] if q == s), default=0)
            for s in range(len(self.letters))
        ]
        self._settle(assigned, checked, nonzero_done, None)
        if self._linear(assigned, checked):
            return
        # Two rounds: the letters a LINEAR tail would take wait for the second one.
        for later in (self._deferred(assigned), set()):
            for k in range(1, max(column, default=0) + 2):
                if self._level(k, column, later, assigned, checked, nonzero_done):
                    return

    def _level(
        self,
        k: int,
        column: list[int],
        later: set[int],
        assigned: set[int],
        checked: list[int],
        nonzero_done: list[bool],
    ) -> bool:
        """Plan the letters of column k-1 (not those for later); True once all are planned."""
        while True:
            pending = [
                s
                for s in range(len(self.letters))
                if s not in assigned and column[s] == k - 1 and s not in later
            ]
            if not pending:
                break
            step = self._solvable(pending, assigned, checked, k)
            if step is None:
                pending.sort(key=lambda s: (self._result_like(s, k), -len(self.occ[s]), s))
                step = Step(ENUM, slot=pending[0])
            else:
                checked[step.eq] = k
            assigned.add(step.slot)
            self.steps.append(step)
            self._settle(assigned, checked, nonzero_done, step)
            if self._linear(assigned, checked):
                return True
        return False

    def _deferred(self, assigned: set[int]) -> set[int]:
        """Return the letters that only add up when the others are few (a LINEAR tail).

        Column order suits products read off one word; a sum of several words after a few
        products (AB * C = D + E + F + G) is better left whole to the LINEAR step.
        """
        home: dict[int, set[int]] = {}
        for e, eq in enumerate(self.constraints):
            for t in eq.counts:
                home.setdefault(t, set()).add(e if t in eq.additive else -1)
        guarded = {t for y in self.nonzero for t in words_in(y, self.index)}
        tail = []
        for s in range(len(self.letters)):
            homes = {e for t, _ in self.occ[s] for e in home[t]}
            words = {t for t, _ in self.occ[s]}
            if s not in assigned and len(homes) == 1 and -1 not in homes and not words & guarded:
                tail.append(s)
        others = len(self.letters) - len(assigned) - len(tail)
        words = {t for s in tail for t, _ in self.occ[s]}
        if len(words) < 2 or len(tail) < 2 or others > LINEAR_AFTER:
            return set()
        return set(tail)

    def _linear(self, assigned: set[int], checked: list[int]) -> bool:
        """End the plan with a LINEAR step if the letters left enter one equation linearly.

        Then the rest is sum(c * digit) == -(the known part) over distinct free digits: the
        coefficient engine's problem, solved with its windows (bounds.Ranges).
        """
        left = [s for s in range(len(self.letters)) if s not in assigned]
        if len(left) < 2:
            return False
        words = {t for s in left for t, _ in self.occ[s]}
        touched = [e for e, eq in enumerate(self.constraints) if words & set(eq.counts)]
        if len(touched) != 1 or any(words_in(y, self.index) & words for y in self.nonzero):
            return False
        eq = self.constraints[touched[0]]
        if not words <= eq.additive:
            return False
        coefs = {s: sum(eq.signs[t] * w for t, w in self.occ[s]) for s in left}
        if not all(coefs.values()):
            return False
        order = tuple(sorted(left, key=lambda s: (-abs(coefs[s]), s)))
        step = Step(LINEAR, eq=touched[0], slots=order, coefs=tuple(coefs[s] for s in order))
        self.steps.append(step)
        checked[touched[0]] = -1
        assigned.update(left)
        return True

    def _result_like(self, s: int, k: int) -> bool:
        """Return whether the letter sits in column k-1 of a word that is added (a result)."""
        return any(
            s in self.need(eq, k) and any(t in eq.additive for t, _ in self.occ[s])
            for eq in self.constraints
        )

    def _solvable(
        self, pending: list[int], assigned: set[int], checked: list[int], k: int
    ) -> Step | None:
        """Return a SOLVE step for a pending letter that an equation fixes mod base^k."""
        for s in pending:
            for e, eq in enumerate(self.constraints):
                if checked[e] < 0 or not eq.modular or self.need(eq, k) - assigned != {s}:
                    continue
                words = [t for t, _ in self.occ[s] if t in eq.counts]
                if any(t in eq.powered for t in words):
                    continue
                low = min(p for t in words for p, q, _ in self.places[t] if q == s)
                if low != k - 1:
                    continue
                if k == 1 and not all(
                    eq.counts[t] == 1 and t in eq.additive
                    for t in words
                    if any(p == 0 and q == s for p, q, _ in self.places[t])
                ):
                    continue
                return Step(SOLVE, slot=s, eq=e, k=k)
        return None

    def _settle(
        self, assigned: set[int], checked: list[int], nonzero_done: list[bool], step: Step | None
    ) -> None:
        """After a step: add read-offs while possible, and the checks that became possible."""
        checks = step.checks if step is not None else self.setup_checks
        first = step is not None and step.kind != READOFF
        while True:
            known = {
                t
                for t, places in enumerate(self.places)
                if all(s < 0 or s in assigned for _, s, _ in places)
            }
            for e, eq in enumerate(self.constraints):
                if checked[e] < 0:
                    continue
                if set(eq.counts) <= known:
                    checks.append(("full", e, 0))
                    checked[e] = -1
                    continue
                if eq.modular:
                    top = max(len(self.words[t]) for t in eq.counts)
                    k = max(
                        (j for j in range(checked[e] + 1, top + 1) if self.need(eq, j) <= assigned),
                        default=0,
                    )
                    if k > checked[e]:
                        checks.append(("column", e, k))
                        checked[e] = k
                if first and step is not None and self._worth_bounding(eq, step.slot, assigned):
                    checks.append(("bound", e, len(self.bound_sets)))
                    self.bound_sets.append(frozenset(assigned))
                c = self._digit_sum(eq, assigned) if first else 0
                if c:
                    checks.append(("digits", e, len(self.digit_sums)))
                    self.digit_sums.append((c, tuple(sorted(assigned))))
            first = False
            for i, y in enumerate(self.nonzero):
                if not nonzero_done[i] and words_in(y, self.index) <= known:
                    checks.append(("nonzero", i, 0))
                    nonzero_done[i] = True
            readoff = self._readoff(known, checked)
            if readoff is None:
                return
            self.steps.append(readoff)
            checks = readoff.checks
            checked[readoff.eq] = -1
            assigned.update(s for _, s, _ in self.places[readoff.word] if s >= 0)

    def _digit_sum(self, eq: Constraint, assigned: set[int]) -> int:
        """Return c if the unknown letters all enter the equation as c times their digit sum.

        With every digit in use, the unknown letters take exactly the free digits, and a word
        is its digit sum mod base - 1, so the equation can be checked mod base - 1 (0: no).
        """
        if len(self.letters) != self.base or self.base < 3 or not eq.modular:
            return 0
        unknown = [s for s in range(len(self.letters)) if s not in assigned]
        common = set()
        for s in unknown:
            net = 0
            for t, _ in self.occ[s]:
                if t in eq.counts:
                    if t not in eq.additive:
                        return 0
                    net += eq.signs[t] * sum(1 for _, q, _ in self.places[t] if q == s)
            common.add(net % (self.base - 1))
        if len(common) != 1 or 0 in common:
            return 0
        return common.pop()

    def _worth_bounding(self, eq: Constraint, letter: int, assigned: set[int]) -> bool:
        """Return whether the unknown letters move the equation little (then bounds cut)."""
        if not eq.bounded or not any(t in eq.counts for t, _ in self.occ[letter]):
            return False
        unknown = [
            t for t in eq.counts if any(s >= 0 and s not in assigned for _, s, _ in self.places[t])
        ]
        if len(unknown) < 2:  # one word left: it is read off, or checked when complete
            return False
        return self._width(eq, assigned) * 4 < self._width(eq, set())

    def _width(self, eq: Constraint, known: set[int]) -> int:
        """Return the width of left - right when known letters sit mid-range, others vary."""
        base, mid = self.base, self.base // 2
        spans: list[Span] = []
        for places in self.places:
            lo = hi = 0
            for p, s, c in places:
                w = base**p
                if s < 0 or s in known:
                    lo, hi = lo + (c if s < 0 else mid) * w, hi + (c if s < 0 else mid) * w
                else:
                    hi += (base - 1) * w
            spans.append((lo, hi))

        def word(t: int) -> Callable[[], Span]:
            return lambda: spans[t]

        a = compile_span(eq.left, word, self.index, base)()
        b = compile_span(eq.right, word, self.index, base)()
        return (a[1] - b[0]) - (a[0] - b[1])

    def _readoff(self, known: set[int], checked: list[int]) -> Step | None:
        """Return a READOFF step for an equation whose words are all known but one."""
        for e, eq in enumerate(self.constraints):
            if checked[e] < 0:
                continue
            unknown = [t for t in eq.counts if t not in known]
            if len(unknown) == 1 and eq.counts[unknown[0]] == 1 and unknown[0] not in eq.powered:
                return Step(READOFF, word=unknown[0], eq=e)
        return None
