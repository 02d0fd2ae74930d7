"""A puzzle of products and sums read as a person would: each equation a sum of products of
words equal to another, quotients turned around (A / B = C is B × C = A) and powers written
out as products.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from ..language.expr import NUM, POW, PROD, SUM, WORD, Node, word_value

if TYPE_CHECKING:
    from ..language.puzzle import Puzzle

__all__ = ["Factor", "Products", "Relation", "Side", "Term"]

#: A word or number as its places, most significant first: a letter or a digit each.
Factor = tuple[str | int, ...]
#: A signed product of factors (no factors at all is 1).
Term = tuple[int, tuple[Factor, ...]]
#: A sum of signed products.
Side = tuple[Term, ...]

# Most copies of a factor a power is written out as: a person multiplies out a square or a
# cube, not a tenth power.
_MAX_EXPONENT = 6
# Most products a side may expand to (a power of a sum multiplies out): past it, no reasons.
_MAX_TERMS = 16
_ONE: Side = ((1, ()),)


@dataclass(frozen=True)
class Relation:
    """One sum of products equal to another, e.g. TWO × TWO = SQUARE."""

    left: Side
    right: Side

    @cached_property
    def letters(self) -> tuple[str, ...]:
        """Return the relation's letters, each once, in order of first appearance."""
        seen = [p for _, fs in self.left + self.right for f in fs for p in f if isinstance(p, str)]
        return tuple(dict.fromkeys(seen))

    @cached_property
    def mixed(self) -> bool:
        """Return whether a side adds or subtracts (else it is a product on each side)."""
        return any(len(side) != 1 or side[0][0] < 0 for side in (self.left, self.right))

    def text(self) -> str:
        """Return the relation as text, e.g. 'EF × GH = ABCD'."""
        return f"{side_text(self.left)} = {side_text(self.right)}"


@dataclass(frozen=True)
class Products:
    """A puzzle whose every equation is a sum of products of words equal to another."""

    puzzle: Puzzle
    relations: tuple[Relation, ...]
    turned: bool  # a quotient was turned into a product
    powers: bool  # a power was written out as a product

    @classmethod
    def of(cls, puzzle: Puzzle) -> Products | None:
        """Read the puzzle as sums of products, or return None if it does not read so."""
        relations = []
        nodes = [n for equation in puzzle.equations for side in equation for n in _nodes(side)]
        for equation in puzzle.equations:
            for left, right in zip(equation, equation[1:], strict=False):
                relation = _relation(left, right, puzzle.base)
                if relation is None:
                    return None
                relations.append(relation)
        turned = any("/" in node.ops for node in nodes if node.kind == PROD)
        powers = any(node.kind == POW for node in nodes)
        return cls(puzzle, tuple(relations), turned, powers) if relations else None

    def text(self) -> str:
        """Return every relation as text, joined by '; '."""
        return "; ".join(relation.text() for relation in self.relations)


def side_text(side: Side) -> str:
    """Return a side's text, e.g. 'TWO × TWO' or 'TO × FLY + FLIGHT' (no products is 0)."""
    out = ""
    for index, (sign, factors) in enumerate(side):
        product = " × ".join(factor_text(f) for f in factors) or "1"
        if index == 0:
            out = product if sign > 0 else f"-{product}"
        else:
            out += f" {'+' if sign > 0 else '-'} {product}"
    return out or "0"


def factor_text(factor: Factor) -> str:
    """Return a factor's text, e.g. 'TOM' or '13'."""
    return "".join(str(place) for place in factor)


def _relation(left: Node, right: Node, base: int) -> Relation | None:
    """Return left = right as sums of products, divisions turned into products, or None."""
    first, second = _fraction(left, base), _fraction(right, base)
    if first is None or second is None:
        return None
    (up, under), (down, below) = first, second
    # An exact division x / y = q holds only if x = y × q: each denominator moves across.
    if under != _ONE and below == _ONE:  # A / B = C: say B × C = A, as a person turns it
        pair = _times(under, down), up
    else:
        pair = _times(up, below), _times(down, under)
    if max(len(pair[0]), len(pair[1])) > _MAX_TERMS:
        return None
    return Relation(*pair)


def _fraction(node: Node, base: int) -> tuple[Side, Side] | None:
    """Return a node as numerator and denominator, each a sum of products, or None."""
    if node.kind in (WORD, NUM):
        return ((1, (tuple(c if c.isalpha() else int(c) for c in node.text),)),), _ONE
    if node.kind not in (SUM, PROD, POW):
        return None
    parts = [_fraction(arg, base) for arg in node.args]
    fractions = [part for part in parts if part is not None]
    if len(fractions) < len(parts):
        return None
    if node.kind == SUM:
        return _sum(fractions, node.ops)
    if node.kind == PROD:
        up, under = _ONE, _ONE
        for op, (top, bottom) in zip(node.ops, fractions, strict=True):
            if op == "/":  # dividing by top / bottom is multiplying by bottom / top
                top, bottom = bottom, top
            up, under = _times(up, top), _times(under, bottom)
        return _capped(up, under)
    exponent = node.args[1]
    copies = word_value(exponent.text, base) if exponent.kind == NUM else None
    if copies is None or copies > _MAX_EXPONENT:
        return None
    (top, bottom), up, under = fractions[0], _ONE, _ONE
    for _ in range(copies):
        up, under = _times(up, top), _times(under, bottom)
    return _capped(up, under)


def _sum(fractions: list[tuple[Side, Side]], ops: tuple[str, ...]) -> tuple[Side, Side] | None:
    """Return the sum of signed fractions over their common denominator."""
    up: Side = ()
    under = _ONE
    for op, (top, bottom) in zip(ops, fractions, strict=True):
        signed = top if op == "+" else tuple((-sign, fs) for sign, fs in top)
        up = _times(up, bottom) + _times(signed, under)
        under = _times(under, bottom)
    return _capped(up, under)


def _times(a: Side, b: Side) -> Side:
    """Return the product of two sums of products, multiplied out (1 × x is x)."""
    if b == _ONE:
        return a
    if a == _ONE:
        return b
    return tuple((sa * sb, fa + fb) for sa, fa in a for sb, fb in b)


def _capped(up: Side, under: Side) -> tuple[Side, Side] | None:
    """Return the fraction, or None if it multiplied out to too many products."""
    return (up, under) if max(len(up), len(under)) <= _MAX_TERMS else None


def _nodes(node: Node) -> list[Node]:
    """Return the node and every node inside it."""
    return [node, *(inner for arg in node.args for inner in _nodes(arg))]
