"""A puzzle of products read as a person would: each equation one product of words equal to
another, quotients turned around (A / B = C is B × C = A) and powers written out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from ..language.expr import NUM, POW, PROD, WORD, Node, word_value

if TYPE_CHECKING:
    from ..language.puzzle import Puzzle

__all__ = ["Factor", "Products", "Relation"]

#: A word or number as its places, most significant first: a letter or a digit each.
Factor = tuple[str | int, ...]

# Most copies of a factor a power is written out as: a person multiplies out a square or a
# cube, not a tenth power.
_MAX_EXPONENT = 6


@dataclass(frozen=True)
class Relation:
    """One product equal to another: left[0] × left[1] × ... = right[0] × ..."""

    left: tuple[Factor, ...]
    right: tuple[Factor, ...]

    @cached_property
    def letters(self) -> tuple[str, ...]:
        """Return the relation's letters, each once, in order of first appearance."""
        seen = [p for f in self.left + self.right for p in f if isinstance(p, str)]
        return tuple(dict.fromkeys(seen))

    def text(self) -> str:
        """Return the relation as text, e.g. 'EF × GH = ABCD' (an empty side is 1)."""
        return f"{side_text(self.left)} = {side_text(self.right)}"


@dataclass(frozen=True)
class Products:
    """A puzzle whose every equation is a product of words equal to another."""

    puzzle: Puzzle
    relations: tuple[Relation, ...]
    turned: bool  # a quotient was turned into a product
    powers: bool  # a power was written out as a product

    @classmethod
    def of(cls, puzzle: Puzzle) -> Products | None:
        """Read the puzzle as products, or return None if some side is not a product."""
        relations = []
        turned = powers = False
        for equation in puzzle.equations:
            for left, right in zip(equation, equation[1:], strict=False):
                up, down = _factors(left, puzzle.base), _factors(right, puzzle.base)
                if up is None or down is None:
                    return None
                turned |= any("/" in node.ops for node in _nodes(left) + _nodes(right))
                powers |= any(node.kind == POW for node in _nodes(left) + _nodes(right))
                if up[1] and not down[1]:  # A / B = C: say B × C = A, as a person turns it
                    relations.append(Relation(tuple(up[1] + down[0]), tuple(up[0])))
                else:
                    relations.append(Relation(tuple(up[0] + down[1]), tuple(down[0] + up[1])))
        return cls(puzzle, tuple(relations), turned, powers) if relations else None

    def text(self) -> str:
        """Return every relation as text, joined by '; '."""
        return "; ".join(relation.text() for relation in self.relations)


def side_text(factors: tuple[Factor, ...]) -> str:
    """Return a product's text, e.g. 'TWO × TWO' (no factors at all is 1)."""
    return " × ".join(factor_text(f) for f in factors) or "1"


def factor_text(factor: Factor) -> str:
    """Return a factor's text, e.g. 'TOM' or '13'."""
    return "".join(str(place) for place in factor)


def _factors(node: Node, base: int) -> tuple[list[Factor], list[Factor]] | None:
    """Return the factors a node multiplies by and those it divides by, or None."""
    if node.kind in (WORD, NUM):
        return [tuple(c if c.isalpha() else int(c) for c in node.text)], []
    if node.kind == PROD:
        up: list[Factor] = []
        down: list[Factor] = []
        for op, arg in zip(node.ops, node.args, strict=True):
            parts = _factors(arg, base)
            if parts is None:
                return None
            # An exact division x / y = q holds only if x = y × q: y moves to the other side.
            times, over = parts if op == "*" else (parts[1], parts[0])
            up += times
            down += over
        return up, down
    if node.kind == POW:
        top, exponent = node.args
        copies = word_value(exponent.text, base) if exponent.kind == NUM else None
        parts = _factors(top, base)
        if copies is None or copies > _MAX_EXPONENT or parts is None:
            return None
        return parts[0] * copies, parts[1] * copies
    return None  # sums and negations: no product to read


def _nodes(node: Node) -> list[Node]:
    """Return the node and every node inside it."""
    return [node, *(inner for arg in node.args for inner in _nodes(arg))]
