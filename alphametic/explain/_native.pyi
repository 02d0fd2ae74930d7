"""Types of the explanations' native core (explain/_native.c): the column walks in C."""

from collections.abc import Sequence

def exact(
    coefs: Sequence[int],
    masks: Sequence[int],
    carry_in: Sequence[int],
    carry_out: Sequence[int],
    links: Sequence[tuple[int, int, int]],
    base: int,
    /,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """columns.py's _exact, node for node: (support masks, carries in and out that some
    assignment uses, sorted, and the nodes visited)."""

def mod_support(
    weights: Sequence[int], masks: Sequence[int], target: int, modulus: int, /
) -> tuple[int, ...] | None:
    """remainders.py's _mod_walk: the digits of each letter some assignment with
    sum(weight * digit) = target (mod modulus) uses, or None if none does."""
