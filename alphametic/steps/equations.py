"""The words and constraints of an expression puzzle, indexed for the step search.

Each chain X = Y = Z becomes the constraints X = Y and Y = Z; a side that ends in a division
(X / Y = R) becomes X = Y * R with Y != 0 recorded apart, so the product rules apply to it.
Words are numbered once (the same word twice is one word); each letter knows the words it is
in and its weight there, each word its places (position, letter or constant digit).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..language.expr import NUM, POW, PROD, SUM, WORD, Node
from ..language.puzzle import Puzzle
from .spans import bounded

__all__ = ["Constraint", "Equations", "words_in"]


@dataclass
class Constraint:
    """One equation left == right (a chain is split; a top-level division is multiplied out)."""

    left: Node
    right: Node
    counts: dict[int, int] = field(default_factory=dict)  # word -> occurrences in the equation
    additive: set[int] = field(default_factory=set)  # words reached through sums only
    other: set[int] = field(default_factory=set)  # words also reached otherwise
    signs: dict[int, int] = field(default_factory=dict)  # additive word -> net sign count
    powered: set[int] = field(default_factory=set)  # words inside an exponent
    divides: bool = False
    modular: bool = True  # may be checked mod base^k (no division, no word in an exponent)
    bounded: bool = True  # interval arithmetic covers it (no division, number exponents)


class Equations:
    """The words and constraints of one expression puzzle (static: no search state)."""

    def __init__(self, puzzle: Puzzle) -> None:
        """Split the equations into constraints and index their words and letters."""
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
        self._need: dict[tuple[int, int], set[int]] = {}

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
        self._walk(right, eq, additive=True, powered=False, sign=-1)
        eq.additive -= eq.other
        eq.modular = not eq.divides and not eq.powered
        eq.bounded = bounded(left) and bounded(right)
        self.constraints.append(eq)

    def _walk(
        self, node: Node, eq: Constraint, *, additive: bool, powered: bool, sign: int = 1
    ) -> None:
        """Record the words of a subtree and how they occur in the equation."""
        if node.kind == WORD:
            t = self.index.setdefault(node.text, len(self.words))
            if t == len(self.words):
                self.words.append(node.text)
            eq.counts[t] = eq.counts.get(t, 0) + 1
            (eq.additive if additive else eq.other).add(t)
            if additive:
                eq.signs[t] = eq.signs.get(t, 0) + sign
            if powered:
                eq.powered.add(t)
            return
        if node.kind == NUM:
            return
        if node.kind == PROD and "/" in node.ops:
            eq.divides = True
        for i, arg in enumerate(node.args):
            exponent = node.kind == POW and i == 1
            flip = -1 if node.kind == SUM and node.ops[i] == "-" else 1
            self._walk(
                arg,
                eq,
                additive=additive and node.kind == SUM,
                powered=powered or exponent,
                sign=sign * flip,
            )

    def need(self, eq: Constraint, k: int) -> set[int]:
        """Return the letters in the last k columns of the equation's words (cached)."""
        key = (id(eq), k)
        found = self._need.get(key)
        if found is None:
            found = {s for t in eq.counts for p, s, _ in self.places[t] if p < k and s >= 0}
            self._need[key] = found
        return found


def words_in(node: Node, index: dict[str, int]) -> set[int]:
    """Return the word indices in a subtree."""
    if node.kind == WORD:
        return {index[node.text]}
    return set().union(*(words_in(arg, index) for arg in node.args)) if node.args else set()
