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

from dataclasses import dataclass, field

from .expr import NUM, POW, PROD, SUM, WORD, Node
from .puzzle import Puzzle

__all__ = ["ENUM", "READOFF", "SOLVE", "Constraint", "Model", "Step"]

ENUM, SOLVE, READOFF = "enum", "solve", "readoff"


@dataclass
class Constraint:
    """One equation left == right (a chain is split; a top-level division is multiplied out)."""

    left: Node
    right: Node
    counts: dict[int, int] = field(default_factory=dict)  # word -> occurrences in the equation
    additive: set[int] = field(default_factory=set)  # words reached through sums only
    other: set[int] = field(default_factory=set)  # words also reached otherwise
    powered: set[int] = field(default_factory=set)  # words inside an exponent
    divides: bool = False
    modular: bool = True  # may be checked mod base^k (no division, no word in an exponent)


@dataclass
class Step:
    """One search step: try a letter's digits, solve a letter, or read a word off a value."""

    kind: str
    slot: int = -1  # the letter (index into puzzle.letters) for ENUM and SOLVE
    word: int = -1  # the word read off (READOFF)
    eq: int = -1  # the constraint solved or read from (SOLVE, READOFF)
    k: int = 0  # the column count of a SOLVE
    checks: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, index, k)


class Model:
    """Words, constraints and the search steps of one expression puzzle (static, no state)."""

    def __init__(self, puzzle: Puzzle) -> None:
        """Split the equations into constraints and plan the steps."""
        self.base = base = puzzle.base
        self.letters = puzzle.letters
        slot = {x: i for i, x in enumerate(self.letters)}
        nonzero = puzzle.nonzero_letters()
        self.lo = [1 if x in nonzero else 0 for x in self.letters]
        self.fixed = {slot[x]: d for x, d in puzzle.fixed.items()}
        self.words: list[str] = []
        self.index: dict[str, int] = {}
        self.constraints: list[Constraint] = []
        self.nonzero: list[Node] = []  # divisors that must not be 0
        for chain in puzzle.equations:
            for left, right in zip(chain, chain[1:], strict=False):
                self._add(left, right)
        # Per word: (position from the right, letter slot or -1, constant digit or -1).
        self.places = [
            [(p, slot.get(c, -1), -1 if c.isalpha() else int(c)) for p, c in enumerate(w[::-1])]
            for w in self.words
        ]
        # Per letter: (word, weight) pairs, the weight summing every place it has in the word.
        self.occ: list[list[tuple[int, int]]] = [[] for _ in self.letters]
        for t, places in enumerate(self.places):
            weights: dict[int, int] = {}
            for p, s, _ in places:
                if s >= 0:
                    weights[s] = weights.get(s, 0) + base**p
            for s, w in weights.items():
                self.occ[s].append((t, w))
        self.steps: list[Step] = []
        self.setup_checks: list[tuple[str, int, int]] = []  # checks before any step
        self._need: dict[tuple[int, int], set[int]] = {}
        self._plan()

    def _add(self, left: Node, right: Node) -> None:
        """Add one equation, multiplying out a top-level division (X / Y = R: X = Y * R)."""
        for a, b in ((left, right), (right, left)):
            if a.kind == PROD and a.ops[-1] == "/":
                x = a.args[0] if len(a.args) == 2 else Node(PROD, a.args[:-1], a.ops[:-1])
                y = a.args[-1]
                self.nonzero.append(y)
                left, right = x, Node(PROD, (y, b), ("*", "*"))
                break
        eq = Constraint(left, right)
        self._walk(left, eq, additive=True, powered=False)
        self._walk(right, eq, additive=True, powered=False)
        eq.additive -= eq.other
        eq.modular = not eq.divides and not eq.powered
        self.constraints.append(eq)

    def _walk(self, node: Node, eq: Constraint, *, additive: bool, powered: bool) -> None:
        """Record the words of a subtree and how they occur in the equation."""
        if node.kind == WORD:
            t = self.index.setdefault(node.text, len(self.words))
            if t == len(self.words):
                self.words.append(node.text)
            eq.counts[t] = eq.counts.get(t, 0) + 1
            (eq.additive if additive else eq.other).add(t)
            if powered:
                eq.powered.add(t)
            return
        if node.kind == NUM:
            return
        if node.kind == PROD and "/" in node.ops:
            eq.divides = True
        for i, arg in enumerate(node.args):
            exponent = node.kind == POW and i == 1
            self._walk(arg, eq, additive=additive and node.kind == SUM, powered=powered or exponent)

    def need(self, eq: Constraint, k: int) -> set[int]:
        """Return the letters in the last k columns of the equation's words (cached)."""
        key = (id(eq), k)
        found = self._need.get(key)
        if found is None:
            found = {s for t in eq.counts for p, s, _ in self.places[t] if p < k and s >= 0}
            self._need[key] = found
        return found

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
        for k in range(1, max(column, default=0) + 2):
            while True:
                pending = [
                    s for s in range(len(self.letters)) if s not in assigned and column[s] == k - 1
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
            for i, y in enumerate(self.nonzero):
                if not nonzero_done[i] and _words(y, self.index) <= known:
                    checks.append(("nonzero", i, 0))
                    nonzero_done[i] = True
            readoff = self._readoff(known, checked)
            if readoff is None:
                return
            self.steps.append(readoff)
            checks = readoff.checks
            checked[readoff.eq] = -1
            assigned.update(s for _, s, _ in self.places[readoff.word] if s >= 0)

    def _readoff(self, known: set[int], checked: list[int]) -> Step | None:
        """Return a READOFF step for an equation whose words are all known but one."""
        for e, eq in enumerate(self.constraints):
            if checked[e] < 0:
                continue
            unknown = [t for t in eq.counts if t not in known]
            if len(unknown) == 1 and eq.counts[unknown[0]] == 1 and unknown[0] not in eq.powered:
                return Step(READOFF, word=unknown[0], eq=e)
        return None


def _words(node: Node, index: dict[str, int]) -> set[int]:
    """Return the word indices in a subtree."""
    if node.kind == WORD:
        return {index[node.text]}
    return set().union(*(_words(arg, index) for arg in node.args)) if node.args else set()
