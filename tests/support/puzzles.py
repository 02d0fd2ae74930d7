"""Puzzle helpers independent of the engine's search: checks, compact encoding, shared cases."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import alphametic
from jobstore import DIGITS

# A whole-job enumeration of ~1.5 M solutions: long enough to cancel or cap mid-way.
LONG: tuple[str, dict[str, Any]] = ("A + B + C + D + E = F + G + H + I", {"base": 16})


def encode(solution: Sequence[int]) -> str:
    """Encode a solution (digits in the puzzle's letter order) as the store keeps it."""
    return "".join(DIGITS[d] for d in solution)


def holds(puzzle: str, options: Mapping[str, Any], solution: Mapping[str, int]) -> bool:
    """True when the letter -> digit assignment is distinct and makes the puzzle's sum true."""
    parsed = alphametic.parse(puzzle, **options)

    def value(word: str) -> int:
        number = 0
        for letter in word:
            number = number * parsed.base + solution[letter]
        return number

    left = sum(sign * value(word) for sign, word in parsed.left)
    right = sum(sign * value(word) for sign, word in parsed.right)
    distinct = len(set(solution.values())) == len(solution)
    return left == right and distinct
