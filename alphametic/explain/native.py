"""The explanations' optional native core (_native.c): the compiled twins of columns.py's
_exact and remainders.py's _mod_walk, and which of the two runs.

ALPHAMETIC_ENGINE picks the engine for every native core (linear/native.py): with the native
engine selected, an input that fits (fits_exact(), fits_mod(): at most MAXN letters, digits
below 64, values far inside int64, carries distinct) goes to the C walk; anything else, or the
Python engine, gets None here and runs the pure-Python walk. Both return the same support,
carries and node count (the explanation's clock), node for node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..linear.native import engine

__all__ = ["exact", "fits_exact", "fits_mod", "is_built", "mod_support"]

MAXN = 64  # letters of a column or a remainder argument (the C arrays)
LIMIT = 1 << 40  # coefficients, weights and carries in magnitude: sums stay far inside int64

Links = Sequence[tuple[int, int, int]]
Found = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]
Exact = Callable[[Sequence[int], Sequence[int], Sequence[int], Sequence[int], Links, int], Found]


def _load() -> tuple[Exact, Callable[..., tuple[int, ...] | None]] | None:
    """Return the core's (exact, mod_support), or None when it was not built."""
    try:
        from ._native import exact as c_exact
        from ._native import mod_support as c_mod
    except ImportError:  # no compiler when it was installed: the Python walks run
        return None
    return c_exact, c_mod


_CORE = _load()


def is_built() -> bool:
    """Return whether the explanations' native core was built and imports."""
    return _CORE is not None


def _small(values: Sequence[int]) -> bool:
    """Return whether every value is well inside int64 (see LIMIT)."""
    return not values or (-LIMIT < min(values) and max(values) < LIMIT)


def fits_exact(
    coefs: Sequence[int],
    masks: Sequence[int],
    carries: tuple[Sequence[int], Sequence[int]],
    links: Links,
    base: int,
) -> bool:
    """Return whether the C walk takes this column exactly as _exact does."""
    carry_in, carry_out = carries
    n = len(coefs)
    if n > MAXN or len(masks) != n or not 2 <= base <= 64:
        return False
    if n and (min(masks) <= 0 or max(masks) >> 64):
        return False
    if not (0 < len(carry_in) <= 64 and 0 < len(carry_out) <= 64):
        return False
    if len(set(carry_in)) != len(carry_in) or len(set(carry_out)) != len(carry_out):
        return False  # the walk counts carries by value, the core by place
    if not (_small(coefs) and _small(carry_in) and _small(carry_out)):
        return False
    return all(0 <= i < n and 0 <= j < n and -LIMIT < d < LIMIT for i, j, d in links)


def fits_mod(weights: Sequence[int], masks: Sequence[int], target: int, modulus: int) -> bool:
    """Return whether the C walk takes this remainder argument exactly as _mod_walk does."""
    return (
        len(weights) <= MAXN
        and len(masks) == len(weights)
        and all(0 <= m < 1 << 64 for m in masks)
        and 1 <= modulus < LIMIT
        and -LIMIT < target < LIMIT
        and _small(weights)
    )


def exact(
    coefs: Sequence[int],
    masks: Sequence[int],
    carries: tuple[Sequence[int], Sequence[int]],
    links: Links,
    base: int,
) -> Found | None:
    """Return the C walk's (support, carries in, carries out, nodes visited), or None when
    the Python walk must run (Python engine, no core, or an input it does not fit)."""
    if _CORE is None or engine() != "native" or not fits_exact(coefs, masks, carries, links, base):
        return None
    return _CORE[0](coefs, masks, carries[0], carries[1], links, base)


def mod_support(
    weights: Sequence[int], masks: Sequence[int], target: int, modulus: int
) -> tuple[tuple[int, ...] | None] | None:
    """Return (the C walk's support or None), or None when the Python walk must run."""
    if _CORE is None or engine() != "native" or not fits_mod(weights, masks, target, modulus):
        return None
    return (_CORE[1](weights, masks, target, modulus),)
