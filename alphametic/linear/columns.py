"""Column counting: the solutions of W1 + ... + WN = R, units column first, up to a cap.

The composer's test of one candidate (the twin of count_columns in _native.c, which runs
when the native core does). Column by column from the units: the column's letters not met
before are tried on the free digits, then the column's sum and the carry fix the result's
digit there (or check it), so the units column's parity and carries prune at once and
nothing is built but the columns. Every assignment of distinct digits that makes the sum
hold is one path, so the count is exact below the cap.
"""

from __future__ import annotations

from collections.abc import Callable

from .native import engine

__all__ = ["Counter", "count_columns", "counter"]

# count(base, addends, result, shortest, cap): solutions counted up to cap; words of
# `shortest` letters or more (0: none) start with no 0.
Counter = Callable[[int, tuple[str, ...], str, int, int], int]

# A column: (its letters met first there, its addend letters with their multiplicities,
# the result's letter there or None, whether that letter is met first there).
Column = tuple[list[str], list[tuple[str, int]], str | None, bool]


def columns(addends: tuple[str, ...], result: str) -> list[Column]:
    """The sum's columns from the units, each letter met first in the first column it is in."""
    met: set[str] = set()
    out: list[Column] = []
    for j in range(max(len(word) for word in (*addends, result))):
        weights: dict[str, int] = {}
        for word in addends:
            if len(word) > j:
                letter = word[-1 - j]
                weights[letter] = weights.get(letter, 0) + 1
        fresh = [x for x in weights if x not in met]
        met.update(fresh)
        res = result[-1 - j] if len(result) > j else None
        res_new = res is not None and res not in met
        if res is not None:
            met.add(res)
        out.append((fresh, list(weights.items()), res, res_new))
    return out


def count_columns(base: int, addends: tuple[str, ...], result: str, shortest: int, cap: int) -> int:
    """Count the solutions of the sum of the addends = result, up to cap."""
    words = (*addends, result)
    if len(set("".join(words))) > base or cap <= 0:
        return 0  # more letters than digits: no assignment at all
    nonzero = {w[0] for w in words if shortest and len(w) >= shortest}
    cols = columns(addends, result)
    digit: dict[str, int] = {}
    free = [True] * base
    found = 0

    def column(j: int, carry: int) -> None:
        nonlocal found
        if j == len(cols):
            found += carry == 0
        else:
            pick(j, 0, carry)

    def pick(j: int, n: int, carry: int) -> None:
        fresh, terms, res, res_new = cols[j]
        if n < len(fresh):
            x = fresh[n]
            for d in range(1 if x in nonzero else 0, base):
                if found >= cap:
                    return
                if free[d]:
                    free[d], digit[x] = False, d
                    pick(j, n + 1, carry)
                    free[d] = True
            return
        carry, r = divmod(carry + sum(w * digit[x] for x, w in terms), base)
        if res is None:
            if not r:
                column(j + 1, carry)
        elif not res_new:
            if digit[res] == r:
                column(j + 1, carry)
        elif free[r] and (r or res not in nonzero):
            free[r], digit[res] = False, r
            column(j + 1, carry)
            free[r] = True

    column(0, 0)
    return found


def counter() -> Counter:
    """Return the column counter of the selected engine (the native one where it runs)."""
    if engine() == "native":
        from ._native import count_columns as native

        return native
    return count_columns
