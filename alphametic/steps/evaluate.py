"""Expression trees as closures over the words' current values: exact, modular and inverted.

The closures read `values[word]` (a list the search keeps up to date), so a check costs a
few calls and no tree walk. Exact evaluation raises NoValue when a division is not exact or
divides by 0, or a negative power is not an integer; the search treats that as "no".
"""

from __future__ import annotations

from collections.abc import Callable
from math import isqrt

from ..language.expr import NUM, POW, PROD, SUM, WORD, Node

__all__ = ["ANY", "Inverse", "NoValue", "Value", "compile_value", "inverse", "root"]

Value = Callable[[], int]
# Given the value an equation needs from a subtree: the word values that give it (ANY: the
# subtree cannot pin the word down, e.g. 0 * X = 0; then the search tries its letters).
Inverse = Callable[[int], list[int] | None]
ANY = None


class NoValue(Exception):
    """The expression has no integer value (inexact division, division by 0, 2 ^ -1)."""


def _power(x: int, e: int) -> int:
    """Return x ** e as an integer, or raise NoValue (negative e and |x| != 1)."""
    if e >= 0:
        return int(x**e)
    if x in (1, -1):
        return int(x ** (-e))
    raise NoValue


def _divide(x: int, y: int) -> int:
    """Return x / y if it is exact, or raise NoValue."""
    if y == 0 or x % y:
        raise NoValue
    return x // y


def compile_value(
    node: Node, values: list[int], index: dict[str, int], base: int, modulus: int = 0
) -> Value:
    """Return a closure computing the node (powers mod modulus when given, for column checks)."""

    def build(node: Node) -> Value:
        if node.kind == WORD:
            i = index[node.text]
            return lambda: values[i]
        if node.kind == NUM:
            v = int(node.text, base)
            return lambda: v
        fused = _fused(node, values, index, base)
        if fused is not None:
            return fused
        parts = [build(arg) for arg in node.args]
        if node.kind == SUM:
            return _sum(parts, node.ops)
        if node.kind == PROD:
            return _product(parts, node.ops)
        b, e = parts
        if modulus and node.args[1].kind == NUM:
            n, m = int(node.args[1].text, base), modulus
            return lambda: pow(b(), n, m)
        return lambda: _power(b(), e())

    return build(node)


def _fused(node: Node, values: list[int], index: dict[str, int], base: int) -> Value | None:
    """Return one closure for a sum or product of two words, or of a word and a number."""
    if len(node.args) != 2 or node.kind == POW or "/" in node.ops or node.ops[0] == "-":
        return None
    x, y = node.args
    op = node.ops[1]
    if x.kind == WORD and y.kind == WORD:
        i, j = index[x.text], index[y.text]
        if op == "*":
            return lambda: values[i] * values[j]
        if op == "+":
            return lambda: values[i] + values[j]
        return lambda: values[i] - values[j]
    if {x.kind, y.kind} == {WORD, NUM} and op in "*+":
        word, num = (x, y) if x.kind == WORD else (y, x)
        i, v = index[word.text], int(num.text, base)
        return (lambda: values[i] * v) if op == "*" else (lambda: values[i] + v)
    return None


def _sum(parts: list[Value], ops: tuple[str, ...]) -> Value:
    """Return a closure adding and subtracting the parts."""
    plus = [f for f, op in zip(parts, ops, strict=True) if op == "+"]
    minus = [f for f, op in zip(parts, ops, strict=True) if op == "-"]
    if len(parts) == 1:
        f = parts[0]
        return f if plus else lambda: -f()
    if len(parts) == 2:
        a, b = parts
        if ops == ("+", "+"):
            return lambda: a() + b()
        if ops == ("+", "-"):
            return lambda: a() - b()
        if ops == ("-", "+"):
            return lambda: b() - a()
        return lambda: -a() - b()
    return lambda: sum(f() for f in plus) - sum(f() for f in minus)


def _product(parts: list[Value], ops: tuple[str, ...]) -> Value:
    """Return a closure multiplying (and exactly dividing) the parts left to right."""
    if len(parts) == 2 and ops[1] == "*":
        a, b = parts
        return lambda: a() * b()
    steps = list(zip(ops[1:], parts[1:], strict=True))
    first = parts[0]

    def product() -> int:
        total = first()
        for op, f in steps:
            total = total * f() if op == "*" else _divide(total, f())
        return total

    return product


def inverse(node: Node, word: int, values: list[int], index: dict[str, int], base: int) -> Inverse:
    """Return a function: the value the node must have -> the values the word may have."""

    def build(node: Node) -> Inverse:
        if node.kind == WORD and index[node.text] == word:
            return lambda y: [y]
        at = next(i for i, arg in enumerate(node.args) if _holds(arg, word, index))
        inner = build(node.args[at])
        others = [compile_value(arg, values, index, base) for arg in node.args]
        if node.kind == SUM:
            return _sum_inverse(inner, others, node.ops, at)
        if node.kind == PROD:
            return _product_inverse(inner, others, node.ops, at)
        exponent = others[1]  # the word is in the base (read-offs never solve an exponent)

        def power(y: int) -> list[int] | None:
            e = exponent()
            if e <= 0:
                return ANY
            return _each(inner, root(y, e))

        return power

    return build(node)


def _each(inner: Inverse, targets: list[int]) -> list[int] | None:
    """Return the word values for every target (ANY if any target gives ANY)."""
    out: list[int] = []
    for y in targets:
        got = inner(y)
        if got is ANY:
            return ANY
        out.extend(got)
    return out


def _sum_inverse(inner: Inverse, others: list[Value], ops: tuple[str, ...], at: int) -> Inverse:
    """Invert a sum through its term number `at`."""
    rest = [(f, op) for i, (f, op) in enumerate(zip(others, ops, strict=True)) if i != at]
    sign = -1 if ops[at] == "-" else 1

    def sum_inverse(y: int) -> list[int] | None:
        for f, op in rest:
            y = y - f() if op == "+" else y + f()
        return inner(y * sign)

    return sum_inverse


def _product_inverse(inner: Inverse, others: list[Value], ops: tuple[str, ...], at: int) -> Inverse:
    """Invert a left-to-right product (with exact divisions) through its factor `at`."""
    after = list(zip(ops[at + 1 :], others[at + 1 :], strict=True))[::-1]
    before = list(zip(ops[1:at], others[1:at], strict=True))
    first, op_at = others[0], ops[at]

    def product_inverse(y: int) -> list[int] | None:
        for op, f in after:  # undo the later factors, last first
            v = f()
            if op == "*":
                if v == 0:
                    return ANY if y == 0 else []
                if y % v:
                    return []
                y //= v
            elif v == 0:
                return []
            else:
                y *= v
        if at == 0:
            return inner(y)
        p = first()
        for op, f in before:
            p = p * f() if op == "*" else _divide(p, f())
        if op_at == "*":
            if p == 0:
                return ANY if y == 0 else []
            return [] if y % p else inner(y // p)
        if y == 0:  # p / x == 0: p is 0 and x any non-zero value
            return ANY if p == 0 else []
        return [] if p % y or p // y == 0 else inner(p // y)

    return product_inverse


def _holds(node: Node, word: int, index: dict[str, int]) -> bool:
    """Return whether the subtree contains the word."""
    if node.kind == WORD:
        return index[node.text] == word
    return any(_holds(arg, word, index) for arg in node.args)


def root(y: int, e: int) -> list[int]:
    """Return the integers x with x ** e == y (e >= 1)."""
    if e == 1:
        return [y]
    if y < 0:
        return [] if e % 2 == 0 else [-x for x in root(-y, e)]
    x = isqrt(y) if e == 2 else _iroot(y, e)
    if x**e != y:
        return []
    return [x, -x] if e % 2 == 0 and x else [x]


def _iroot(y: int, e: int) -> int:
    """Return the integer e-th root of y >= 0 rounded down (Newton's method)."""
    if y < 2:
        return y
    x = 1 << -(-y.bit_length() // e)  # an upper bound
    while True:
        z = ((e - 1) * x + y // x ** (e - 1)) // e
        if z >= x:
            return x
        x = z
