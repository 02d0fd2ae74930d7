"""Puzzle options: the leading-zero policy, the base and fixed letters, and their checks."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum

from .syntax import LETTERS, PuzzleError

__all__ = ["FixedDigits", "LeadingZeros", "check_base", "check_fixed", "check_policy"]

_MIN_BASE, _MAX_BASE = 2, 36


class LeadingZeros(StrEnum):
    """Which words may not start with the digit 0."""

    MULTI_LETTER = "multi-letter"
    ALLOW = "allow"
    EVERY_WORD = "every-word"


class FixedDigits(Mapping[str, int]):
    """An immutable, hashable letter -> digit mapping (the puzzle's fixed letters)."""

    __slots__ = ("_items", "_map")

    def __init__(self, items: Mapping[str, int] | None = None) -> None:
        pairs = tuple(sorted((items or {}).items()))
        self._items: tuple[tuple[str, int], ...] = pairs
        self._map: dict[str, int] = dict(pairs)

    def __getitem__(self, key: str) -> int:
        """Return the digit fixed for a letter."""
        return self._map[key]

    def __iter__(self) -> Iterator[str]:
        """Iterate over the fixed letters in alphabetical order."""
        return iter(self._map)

    def __len__(self) -> int:
        """Return how many letters are fixed."""
        return len(self._items)

    def __hash__(self) -> int:
        """Hash by content so that equal puzzles hash alike."""
        return hash(self._items)

    def __repr__(self) -> str:
        """Show the mapping like a dict."""
        return f"FixedDigits({self._map!r})"


_NO_FIXED = FixedDigits()


def check_base(base: object) -> int:
    """Return the base if it is an int in 2..36."""
    if isinstance(base, bool) or not isinstance(base, int):
        raise PuzzleError(f"the base must be an integer from 2 to 36, not {base!r}")
    if not _MIN_BASE <= base <= _MAX_BASE:
        raise PuzzleError(f"the base must be from {_MIN_BASE} to {_MAX_BASE}, not {base}")
    return base


def check_policy(policy: object) -> LeadingZeros:
    """Return the leading-zero policy named by policy."""
    if isinstance(policy, LeadingZeros):
        return policy
    if isinstance(policy, str):
        for member in LeadingZeros:
            if member.value == policy.strip().lower():
                return member
    names = ", ".join(m.value for m in LeadingZeros)
    raise PuzzleError(f"unknown leading-zero policy {policy!r} (choose one of: {names})")


def check_fixed(
    fixed: Mapping[str, int],
    letters: tuple[str, ...],
    base: int,
    nonzero: frozenset[str],
    policy: LeadingZeros,
) -> FixedDigits:
    """Validate the fixed letters against the puzzle's letters and rules; return them."""
    result: dict[str, int] = {}
    by_digit: dict[int, str] = {}
    for key, digit in fixed.items():
        if not isinstance(key, str) or len(key) != 1 or key not in LETTERS:
            raise PuzzleError(f"a fixed letter must be one letter A-Z, not {key!r}")
        letter = key.upper()
        if letter not in letters:
            raise PuzzleError(f"fixed letter {letter} does not occur in the puzzle")
        if isinstance(digit, bool) or not isinstance(digit, int):
            raise PuzzleError(f"the digit fixed for {letter} must be an integer, not {digit!r}")
        if not 0 <= digit < base:
            raise PuzzleError(
                f"digit {digit} fixed for {letter} is outside base {base} (0 to {base - 1})"
            )
        if letter in result and result[letter] != digit:
            raise PuzzleError(f"letter {letter} is fixed twice, to {result[letter]} and {digit}")
        if digit in by_digit and by_digit[digit] != letter:
            raise PuzzleError(f"letters {by_digit[digit]} and {letter} are both fixed to {digit}")
        if digit == 0 and letter in nonzero:
            raise PuzzleError(
                f"{letter} cannot be fixed to 0: it starts a word and the leading-zero "
                f"policy is {policy.value}"
            )
        result[letter] = digit
        by_digit[digit] = letter
    return FixedDigits(result)
