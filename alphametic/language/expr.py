"""Expression trees of the puzzle language: nodes, their canonical text and their size caps."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import ErrorCode, PuzzleError

__all__ = [
    "MAX_POWER_BITS",
    "Node",
    "check_powers",
    "show",
    "tokens",
    "word_value",
]

#: Largest power the engine evaluates, in bits (about 1,200 decimal digits): beyond it a
#: search would spend its time multiplying huge numbers, so the puzzle is refused.
MAX_POWER_BITS = 4096

# Node kinds. A sum holds signed terms ('+' or '-' each, the first may be '-'); a product
# holds factors joined left to right by '*' or '/' (its first op is '*'); a power holds base
# and exponent; a word holds its text (letters, maybe with digits); a number its digits.
WORD, NUM, SUM, PROD, POW = "word", "num", "sum", "prod", "pow"


@dataclass(frozen=True, slots=True)
class Node:
    """One node of an expression: kind, children, their operators, text and source position."""

    kind: str
    args: tuple[Node, ...] = ()
    ops: tuple[str, ...] = ()
    text: str = ""
    pos: int = field(default=0, compare=False)

    @property
    def negation(self) -> bool:
        """Return whether this node is a lone negated term (unary minus)."""
        return self.kind == SUM and len(self.args) == 1


def word_value(text: str, base: int) -> int | None:
    """Return the value of a number written in the base (None if it uses letters)."""
    total = 0
    for char in text:
        if not char.isdigit():
            return None
        total = total * base + int(char)
    return total


def tokens(node: Node) -> Iterator[Node]:
    """Yield the word and number leaves of an expression, left to right."""
    if node.kind in (WORD, NUM):
        yield node
        return
    for arg in node.args:
        yield from tokens(arg)


# Precedence for printing: a child binds weaker than its place needs -> parentheses.
_PREC = {SUM: 1, PROD: 2, POW: 4, WORD: 5, NUM: 5}


def _prec(node: Node) -> int:
    """Return how tightly a node binds when printed (a lone negation sits between)."""
    return 3 if node.negation else _PREC[node.kind]


def show(node: Node) -> str:
    """Return the canonical text of an expression (upper case, single spaces, few parens)."""
    if node.kind in (WORD, NUM):
        return node.text
    if node.kind == SUM:
        parts = []
        for index, (op, arg) in enumerate(zip(node.ops, node.args, strict=True)):
            text = _wrap(arg, 2, no_negation=True)
            if index == 0:
                parts.append(f"-{text}" if op == "-" else text)
            else:
                parts.append(f"{op} {text}")
        return " ".join(parts)
    if node.kind == PROD:
        parts = [_wrap(node.args[0], 4, no_negation=True)]
        for op, arg in zip(node.ops[1:], node.args[1:], strict=True):
            parts.append(f"{op} {_wrap(arg, 3)}")
        return " ".join(parts)
    base, exponent = node.args
    return f"{_wrap(base, 5)} ^ {_wrap(exponent, 3)}"


def _wrap(node: Node, need: int, *, no_negation: bool = False) -> str:
    """Return a child's text, in parentheses when it binds weaker than its place needs."""
    if _prec(node) < need or (no_negation and node.negation):
        return f"({show(node)})"
    return show(node)


def check_powers(node: Node, base: int) -> int:
    """Return a bound on |value| over all digits; raise PuzzleError if a power is absurd."""
    if node.kind == WORD:
        return int(base ** len(node.text))
    if node.kind == NUM:
        return int(node.text, base)
    bounds = [check_powers(arg, base) for arg in node.args]
    if node.kind == SUM:
        return sum(bounds)
    if node.kind == PROD:
        total = 1
        for op, bound in zip(node.ops, bounds, strict=True):
            total = total * bound if op == "*" else total  # |x / y| <= |x| when exact
        return total
    top, exponent = bounds
    bits = max(top, 2).bit_length() * exponent
    if exponent.bit_length() > 32 or bits > MAX_POWER_BITS:
        raise PuzzleError(ErrorCode.POWER_TOO_LARGE, node.pos, bits=bits, cap=MAX_POWER_BITS)
    return int(max(top, 1) ** exponent)
