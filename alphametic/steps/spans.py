"""Interval arithmetic over expression trees: the range an equation can still take.

Used where the letters not yet known move an equation little (see schedule.py): each word's
range comes from its known digits plus the extremes of the free digits for the others.
"""

from __future__ import annotations

from collections.abc import Callable

from ..language.expr import NUM, POW, PROD, SUM, WORD, Node

__all__ = ["Ranged", "Span", "bounded", "compile_span", "mul_span", "pow_span"]


Span = tuple[int, int]
Ranged = Callable[[], Span]


def mul_span(a: Span, b: Span) -> Span:
    """Return the range of x * y for x in a and y in b."""
    if a[0] >= 0 and b[0] >= 0:
        return a[0] * b[0], a[1] * b[1]
    corners = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(corners), max(corners)


def pow_span(a: Span, n: int) -> Span:
    """Return the range of x ** n (n >= 0) for x in a."""
    lo, hi = a
    if lo >= 0 or n % 2:
        return int(lo**n), int(hi**n)
    top = int(max(-lo, hi) ** n)
    return (0 if hi >= 0 else int(hi**n)), top


def bounded(node: Node) -> bool:
    """Return whether interval arithmetic covers the node (no division, number exponents)."""
    if node.kind == PROD and "/" in node.ops:
        return False
    if node.kind == POW and node.args[1].kind != NUM:
        return False
    return all(bounded(arg) for arg in node.args)


def compile_span(
    node: Node, word: Callable[[int], Ranged], index: dict[str, int], base: int
) -> Ranged:
    """Return a closure computing the range of a bounded node from its words' ranges."""

    def build(node: Node) -> Ranged:
        if node.kind == WORD:
            return word(index[node.text])
        if node.kind == NUM:
            v = int(node.text, base)
            return lambda: (v, v)
        parts = [build(arg) for arg in node.args]
        if node.kind == SUM:
            signs = [op == "+" for op in node.ops]

            def total() -> Span:
                lo = hi = 0
                for plus, f in zip(signs, parts, strict=True):
                    a, b = f()
                    if plus:
                        lo, hi = lo + a, hi + b
                    else:
                        lo, hi = lo - b, hi - a
                return lo, hi

            return total
        if node.kind == PROD:

            def product() -> Span:
                span = parts[0]()
                for f in parts[1:]:
                    span = mul_span(span, f())
                return span

            return product
        base_part, n = parts[0], int(node.args[1].text, base)
        return lambda: pow_span(base_part(), n)

    return build(node)
