"""A naive solver for expression puzzles: every digit permutation, evaluated independently.

It shares nothing with the engine's parser or search: the canonical text is read with Python's
`ast` module (^ mapped to **), each tree becomes plain closures once, and every permutation of
distinct digits is tried (leading zeros skipped first). It is the yardstick the engine is timed
against and the second method that confirms the corpus counts.
"""

from __future__ import annotations

import ast
import itertools
import re
import time
from collections.abc import Callable
from operator import itemgetter, mul

from alphametic import Puzzle

_TOKEN = re.compile(r"[A-Z0-9]+")
Fn = Callable[[list[int]], int]


class _NoValue(Exception):
    """An inexact division, a division by 0 or a non-integer power."""


def _div(a: int, b: int) -> int:
    """Return a / b if exact."""
    if b == 0 or a % b:
        raise _NoValue
    return a // b


def _pow(a: int, b: int) -> int:
    """Return a ** b if it is an integer."""
    if b >= 0:
        return int(a**b)
    if a in (1, -1):
        return int(a**-b)
    raise _NoValue


_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: _div,
    ast.Pow: _pow,
}


def _closure(node: ast.expr) -> Fn:
    """Return a function of the token values computing the tree."""
    if isinstance(node, ast.Subscript):  # v[i]
        assert isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)
        i = node.slice.value
        return lambda v: v[i]
    if isinstance(node, ast.UnaryOp):
        f = _closure(node.operand)
        return (lambda v: -f(v)) if isinstance(node.op, ast.USub) else f
    assert isinstance(node, ast.BinOp), ast.dump(node)
    a, b, op = _closure(node.left), _closure(node.right), _BINARY[type(node.op)]
    return lambda v: op(a(v), b(v))


def compile_puzzle(puzzle: Puzzle) -> tuple[list[str], list[list[Fn]]]:
    """Return the tokens and the equations as chains of closures over token values."""
    names: dict[str, int] = {}

    def name(match: re.Match[str]) -> str:
        return f"v[{names.setdefault(match.group(0), len(names))}]"

    chains = []
    for equation in puzzle.text.split(";"):
        sides = equation.replace("^", "**").split("=")
        trees = [ast.parse(_TOKEN.sub(name, s).strip(), mode="eval").body for s in sides]
        chains.append([_closure(tree) for tree in trees])
    return list(names), chains


def naive_count(puzzle: Puzzle, cap: float = float("inf")) -> tuple[int | None, float]:
    """Return (solutions, seconds) by trying every permutation; None if over cap seconds."""
    tokens, chains = compile_puzzle(puzzle)
    base, letters = puzzle.base, puzzle.letters
    slot = {x: i for i, x in enumerate(letters)}
    # Each token: a getter of its letters' digits, their weights, and its constant part.
    forms = []
    for token in tokens:
        weights: dict[int, int] = {}
        const = 0
        for p, char in enumerate(reversed(token)):
            if char.isalpha():
                weights[slot[char]] = weights.get(slot[char], 0) + base**p
            else:
                const += int(char) * base**p
        keys = list(weights)
        getter = (
            itemgetter(*keys)
            if len(keys) > 1
            else (lambda d, k=keys: (d[k[0]],))
            if keys
            else (lambda d: ())
        )
        forms.append((getter, [weights[k] for k in keys], const))
    nonzero = [slot[x] for x in puzzle.nonzero_letters()]
    fixed = [(slot[x], d) for x, d in puzzle.fixed.items()]
    found = 0
    start = time.perf_counter()
    for k, digits in enumerate(itertools.permutations(range(base), len(letters))):
        if k & 0xFFFF == 0 and time.perf_counter() - start > cap:
            return None, cap
        if not all(digits[i] for i in nonzero) or any(digits[i] != d for i, d in fixed):
            continue
        v = [sum(map(mul, w, get(digits))) + c for get, w, c in forms]
        try:
            ok = all(all(f(v) == chain[0](v) for f in chain[1:]) for chain in chains)
        except _NoValue:
            ok = False
        found += ok
    return found, time.perf_counter() - start
