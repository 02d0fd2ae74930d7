"""The drivers of the expression engine's optional native core (_native.c): which plans it runs,
and each plan flattened into the int64 program the core reads.

ALPHAMETIC_ENGINE picks the engine for every native core (linear/native.py). A plan runs on
this one when every value its search can reach provably fits in int64 (fits(): interval bounds
over the expression trees, a word in an exponent at its largest); any other runs on the
closures, which use Python integers. The core walks the same steps as closures.py, spending a
node where they do and calling walk.tick at the same nodes, so node counts, progress, the
check hook and the solutions' order are the Python engine's.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ..language.expr import NUM, POW, PROD, SUM, WORD, Node
from ..linear.bounds import Ranges
from ..linear.native import engine
from .checks import weights
from .schedule import ENUM, LINEAR, READOFF, SOLVE, Model, Step
from .state import State

if TYPE_CHECKING:
    from ._native import Steps

__all__ = ["compile_steps", "fits", "is_built", "runs_native"]

# Every value the search computes stays below this in magnitude (int64 with room to spare).
LIMIT = 1 << 62
KINDS = {WORD: 0, NUM: 1, SUM: 2, PROD: 3, POW: 4}
STEP_KINDS = {ENUM: 0, SOLVE: 1, READOFF: 2, LINEAR: 3}
CHECK_KINDS = {"column": 0, "full": 1, "nonzero": 2, "digits": 3, "bound": 4}


def _load() -> type[Steps] | None:
    """Return the native core's type, or None when it was not built."""
    try:
        from ._native import Steps
    except ImportError:  # no compiler when it was installed: the closures run
        return None
    return Steps


_STEPS = _load()


def is_built() -> bool:
    """Return whether the expression engine's native core was built and imports."""
    return _STEPS is not None


def runs_native(model: Model) -> bool:
    """Return whether the native core runs this plan (selected, and the plan fits it)."""
    return _STEPS is not None and engine() == "native" and fits(model)


def _bound(node: Node, model: Model, seen: list[int]) -> int | None:
    """Return a bound of |value| of the node (None: outside the core), noting every
    subtree's bound in seen."""
    base = model.base
    if node.kind not in KINDS:  # an operator the core does not know: the closures run it
        return None
    if node.kind == WORD:
        found: int = base ** len(model.words[model.index[node.text]])
    elif node.kind == NUM:
        found = int(node.text, base)
    else:
        parts = [_bound(arg, model, seen) for arg in node.args]
        if any(p is None for p in parts):
            return None
        sizes = [p for p in parts if p is not None]
        if node.kind == SUM:
            found = sum(sizes)
        elif node.kind == PROD:
            found = 1
            for p in sizes:  # a division's quotient is no bigger than its dividend
                found *= max(p, 1)
        else:  # the exponent's bound: its number, or the most its words can make
            if sizes[1].bit_length() > 8:  # a power beyond 2 ** 255 cannot fit int64 anyway
                return None
            found = int(max(sizes[0], 1) ** sizes[1])
    seen.append(found)
    return found


def _inverse_bound(side: Node, word: int, model: Model, y: int, seen: list[int]) -> bool:
    """Return whether the values a read-off's inverse computes stay below LIMIT (multiplying
    out a later divisor is the only step that grows them)."""
    node = side
    while node.kind != WORD:
        at = next(i for i, arg in enumerate(node.args) if _holds(arg, word, model))
        if node.kind == SUM:
            y += sum(_bound(arg, model, seen) or 0 for arg in node.args)
        elif node.kind == PROD:
            for op, arg in zip(node.ops[at + 1 :], node.args[at + 1 :], strict=True):
                if op == "/":
                    y *= max(_bound(arg, model, seen) or 0, 1)
        seen.append(y)
        node = node.args[at]
    return max(seen, default=0) < LIMIT


@lru_cache(maxsize=64)
def fits(model: Model) -> bool:
    """Return whether the native core runs the plan exactly (int64 values, up to 62 digits)."""
    base = model.base
    if base > 62 or len(model.letters) > 62:
        return False
    seen: list[int] = []
    widest = 0
    for eq in model.constraints:
        left, right = _bound(eq.left, model, seen), _bound(eq.right, model, seen)
        if left is None or right is None:
            return False
        widest = max(widest, left + right)
    if any(_bound(node, model, seen) is None for node in model.nonzero):
        return False
    # Differences, digit sums, and a LINEAR tail's partial sums (its coefficients times digits).
    seen.append(widest + base**3)
    for step in model.steps:
        if step.kind == LINEAR:
            seen.append(widest + sum(abs(c) for c in step.coefs) * base)
        if step.kind == READOFF:
            eq = model.constraints[step.eq]
            side = eq.left if _holds(eq.left, step.word, model) else eq.right
            if not _inverse_bound(side, step.word, model, widest, seen):
                return False
    return max(seen, default=0) < LIMIT


def _holds(node: Node, word: int, model: Model) -> bool:
    """Return whether the subtree contains the word."""
    if node.kind == WORD:
        return model.index[node.text] == word
    return any(_holds(arg, word, model) for arg in node.args)


class _Program:
    """The int64 program of one Walk's steps, in the layout _native.c reads (see there)."""

    def __init__(self, model: Model, lo: Sequence[int], hi: Sequence[int]) -> None:
        """Flatten the model's steps and checks, with the Walk's digit ranges (lo, hi) as the
        closures take them when they are compiled (bound checks, a LINEAR tail)."""
        self.model, self.lo, self.hi = model, lo, hi
        self.nodes: list[list[int]] = []
        self.known: dict[int, int] = {}  # id(node) -> its index (trees are shared)
        self.steps = [self._step(step) + self._checks(step.checks) for step in self.model.steps]

    def code(self) -> list[int]:
        """Return the whole program: header, occurrences, places, nodes, steps."""
        model, base = self.model, self.model.base
        out = [base, len(model.letters), len(model.words), len(self.steps), len(self.nodes)]
        for occ in model.occ:
            out += [len(occ), *(x for pair in occ for x in pair)]
        for places in model.places:
            out += [len(places), base ** len(places), *(x for _, s, c in places for x in (s, c))]
        for node in self.nodes:
            out += node
        for step in self.steps:
            out += step
        return out

    def node(self, node: Node) -> int:
        """Return the index of the node (added with its subtree on first use)."""
        found = self.known.get(id(node))
        if found is not None:
            return found
        if node.kind == WORD:
            code = [KINDS[WORD], self.model.index[node.text], 0]
        elif node.kind == NUM:
            code = [KINDS[NUM], int(node.text, self.model.base), 0]
        else:
            ops = node.ops or ("",) * len(node.args)
            code = [KINDS[node.kind], 0, len(node.args)]
            for op, arg in zip(ops, node.args, strict=True):
                code += [ord(op) if op else 0, self.node(arg)]
        self.known[id(node)] = len(self.nodes)
        self.nodes.append(code)
        return len(self.nodes) - 1

    def _step(self, step: Step) -> list[int]:
        """Return one step's code (without its checks)."""
        model, base, kind = self.model, self.model.base, STEP_KINDS[step.kind]
        if step.kind == ENUM:
            return [kind, step.slot]
        eq = model.constraints[step.eq]
        a, b = self.node(eq.left), self.node(eq.right)
        if step.kind == SOLVE:
            return [kind, step.slot, a, b, base**step.k, base ** (step.k - 1)]
        if step.kind == READOFF:
            side, other = (
                (eq.left, eq.right) if _holds(eq.left, step.word, model) else (eq.right, eq.left)
            )
            path, node = [], side
            while not (node.kind == WORD and model.index[node.text] == step.word):
                at = next(i for i, arg in enumerate(node.args) if _holds(arg, step.word, model))
                path.append(at)
                node = node.args[at]
            return [kind, step.word, self.node(other), self.node(side), len(path), *path, a, b]
        lows = [self.lo[s] for s in step.slots]
        highs = [self.hi[s] for s in step.slots]
        code = [kind, a, b, len(step.slots)]
        for row in zip(step.slots, step.coefs, lows, highs, strict=True):
            code += row
        last = len(step.slots) - 1
        ranges = Ranges(base, step.coefs, [low > 0 for low in lows], last)
        for j in range(last):
            pos, neg, hi_guard, lo_guard, for_max, for_min = ranges.signs_at(j)
            code += [len(pos), *pos, len(neg), *neg, hi_guard, lo_guard]
            for split in (for_max, for_min):
                code += [0] if split is None else [1, len(split[0]), *split[0]]
                code += [] if split is None else [len(split[1]), *split[1]]
        return code

    def _checks(self, specs: list[tuple[str, int, int]]) -> list[int]:
        """Return a step's checks: their count, then each one's code."""
        model, base, lo = self.model, self.model.base, self.lo
        code = [len(specs)]
        for kind, i, k in specs:
            code.append(CHECK_KINDS[kind])
            if kind == "nonzero":
                code.append(self.node(model.nonzero[i]))
                continue
            eq = model.constraints[i]
            code += [self.node(eq.left), self.node(eq.right)]
            if kind == "column":
                code.append(base**k)
            elif kind == "digits":
                c, known = model.digit_sums[k]
                code += [base - 1, c, len(known), *known]
            elif kind == "bound":
                known_set = model.bound_sets[k]
                for places in model.places:
                    free = [(w, lo[s]) for s, w in weights(places, base) if s not in known_set]
                    code += [len(free), sum(w for w, _ in free), *(x for f in free for x in f)]
        return code


@lru_cache(maxsize=64)
def _code(model: Model, lo: tuple[int, ...], hi: tuple[int, ...]) -> tuple[int, ...]:
    """Return the program of a model under these digit ranges (cached: a search builds a few
    Walks, and the shards of a job share their model)."""
    return tuple(_Program(model, lo, hi).code())


def compile_steps(st: State) -> Steps:
    """Return the native core over the Walk's steps (call only when runs_native says so)."""
    assert _STEPS is not None
    return _STEPS(program=_code(st.model, tuple(st.lo), tuple(st.hi)))
