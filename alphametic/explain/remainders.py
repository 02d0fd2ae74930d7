"""Remainder arguments for explanations: casting out (base - 1)s, and even and odd."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from . import native
from .model import Model, State, digits_of
from .text import Step

__all__ = ["remainder_steps"]

_MOD_CAP = 20_000  # most digit combinations tried in a remainder argument
_LOOKS = 1 << 15  # remainder arguments remembered across explanations in one process


def remainder_steps(model: Model, state: State, modulus: int) -> tuple[list[Step], int]:
    """One remainder argument: narrow the few letters whose coefficients stand out.

    Returns the steps (none if it shows nothing new) and how many digit combinations it tried.
    """
    base = model.base
    residues = {x: c % modulus for x, c in model.coef.items()}
    all_used = len(state.dom) == base
    common = _common_residue(residues) if all_used else 0
    total = base * (base - 1) // 2
    target = (-common * total) % modulus if all_used else 0
    odd: list[tuple[str, int]] = []
    for letter, residue in residues.items():
        weight = _centred(residue - common, modulus)
        if not weight:
            continue
        value = state.value(letter)
        if value is None:
            odd.append((letter, weight))
        else:
            target = (target - weight * value) % modulus
    size = 1
    for letter, _ in odd:
        size *= state.dom[letter].bit_count()
    if len(odd) > 4 or size > _MOD_CAP:
        return [], 0
    support = _mod_support(state, odd, target, modulus)
    params: dict[str, Any] = {
        "modulus": modulus,
        "base": base,
        "power": base % modulus,
        "equation": _mod_equation(odd, target, modulus)
        if odd
        else f"{_times(common, str(total))} ≡ 0",
    }
    if all_used:
        params.update(count=base, total=total)
    kind = ("parity" if modulus == 2 and base % 2 == 0 else "mod") + ("_all" if all_used else "")
    if support is None:
        return [Step(f"{kind}_fails", params, fail=True)], size
    narrowed = [x for x, _ in odd if support[x] != state.dom[x]]
    if not narrowed:
        return [], size
    for letter in narrowed:
        state.dom[letter] = support[letter]
    return [Step(kind, params, dict.fromkeys(narrowed, []))], size


def _common_residue(residues: dict[str, int]) -> int:
    """Return the most frequent residue (0 on a tie), to leave the fewest letters over."""
    tally: dict[int, int] = {}
    for residue in residues.values():
        tally[residue] = tally.get(residue, 0) + 1
    return max(sorted(tally), key=lambda r: (tally[r], r == 0))


def _centred(value: int, modulus: int) -> int:
    """Return value mod modulus in the range (-modulus/2, modulus/2]."""
    value %= modulus
    return value - modulus if value > modulus // 2 else value


def _mod_support(
    state: State, odd: list[tuple[str, int]], target: int, modulus: int
) -> dict[str, int] | None:
    """Return the digits of each odd letter used by some distinct-digit solution, or None."""
    weights = tuple(w for _, w in odd)
    masks = tuple(state.dom[x] for x, _ in odd)
    support = _mod_look(weights, masks, target, modulus)
    if support is None:
        return None
    return {x: s for (x, _), s in zip(odd, support, strict=True)}


@lru_cache(maxsize=_LOOKS)
def _mod_look(
    weights: tuple[int, ...], masks: tuple[int, ...], target: int, modulus: int
) -> tuple[int, ...] | None:
    """_mod_walk, remembered for the process (the same argument met in other explanations);
    the native core's twin (explain/_native.c) walks it when it runs and the argument fits."""
    found = native.mod_support(weights, masks, target, modulus)
    if found is None:
        return _mod_walk(weights, masks, target, modulus)
    return found[0]


def _mod_walk(
    weights: tuple[int, ...], masks: tuple[int, ...], target: int, modulus: int
) -> tuple[int, ...] | None:
    """Return the digits of each letter (weight, digits mask) used by some assignment of
    distinct digits with sum(weight * digit) = target (mod modulus), or None if none is."""
    n = len(weights)
    support = [0] * n
    found = False
    path: list[int] = []
    digits = [digits_of(m) for m in masks]

    def walk(i: int, total: int, used: int) -> None:
        nonlocal found
        if i == n:
            if (total - target) % modulus == 0:
                found = True
                for j, digit in enumerate(path):
                    support[j] |= 1 << digit
            return
        weight = weights[i]
        for digit in digits[i]:
            if not used >> digit & 1:
                path.append(digit)
                walk(i + 1, total + weight * digit, used | 1 << digit)
                path.pop()

    walk(0, 0, 0)
    return tuple(support) if found else None


def _mod_equation(odd: list[tuple[str, int]], target: int, modulus: int) -> str:
    """Return e.g. '2×E + M ≡ Y + 3' for the odd letters and the target remainder."""
    left = [_times(w, x) for x, w in odd if w > 0]
    right = [_times(-w, x) for x, w in odd if w < 0]
    if target or not right:
        right.append(str(target))
    return f"{' + '.join(left) or '0'} ≡ {' + '.join(right)}"


def _times(weight: int, name: str) -> str:
    """Return 'X' or '3×X'."""
    return name if weight == 1 else f"{weight}×{name}"
