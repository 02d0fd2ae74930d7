"""Puzzle options: the leading-zero policy, the base and fixed letters, and their checks.

Every rule on an option value lives here, once; a new option and its rule go here too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum

from .errors import ErrorCode, PuzzleError
from .folding import fold_letter

__all__ = [
    "MAX_BASE",
    "MIN_BASE",
    "FixedDigits",
    "LeadingZeros",
    "check_base",
    "check_fixed",
    "check_fixed_values",
    "check_options",
    "check_policy",
]

#: The bases a puzzle may be written in.
MIN_BASE, MAX_BASE = 2, 36


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


def check_options(
    base: object, leading_zeros: object, fixed: object
) -> tuple[int, LeadingZeros, Mapping[str, int] | None]:
    """Check the option values that need no puzzle: (base, policy, fixed) or PuzzleError.

    The one place option values are checked (the job store checks only their JSON shapes);
    each error names its option in `field` as the JSON API calls it.
    """
    checked = check_base(base)
    policy = check_policy(leading_zeros)
    if fixed is None:
        return checked, policy, None
    return checked, policy, check_fixed_values(fixed, checked)


def check_base(base: object) -> int:
    """Return the base if it is an int in 2..36."""
    if isinstance(base, bool) or not isinstance(base, int):
        raise PuzzleError(
            ErrorCode.BASE_NOT_INTEGER, field="options.base", base=base, low=MIN_BASE, high=MAX_BASE
        )
    if not MIN_BASE <= base <= MAX_BASE:
        raise PuzzleError(
            ErrorCode.BASE_OUT_OF_RANGE,
            field="options.base",
            base=base,
            low=MIN_BASE,
            high=MAX_BASE,
        )
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
    raise PuzzleError(
        ErrorCode.UNKNOWN_POLICY, field="options.leading_zeros", policy=policy, choices=names
    )


def check_fixed_values(fixed: object, base: int) -> Mapping[str, int]:
    """Return fixed if it maps letters to digits of the base (the puzzle is not needed).

    A key is one letter as typed (`E`, `ｅ`, `い`): it is compared with the puzzle's symbols
    after folding (fold_letter), so it must fold to one letter.
    """
    if not isinstance(fixed, Mapping):
        raise PuzzleError(ErrorCode.FIXED_NOT_A_MAPPING, field="options.fixed")
    for key, digit in fixed.items():
        if not isinstance(key, str) or not _is_letter(key):
            raise PuzzleError(ErrorCode.FIXED_LETTER_INVALID, field="options.fixed", key=key)
        letter = fold_letter(key)
        where = f"options.fixed.{letter}"
        if isinstance(digit, bool) or not isinstance(digit, int):
            raise PuzzleError(
                ErrorCode.FIXED_DIGIT_NOT_INTEGER, field=where, letter=letter, digit=digit
            )
        if not 0 <= digit < base:
            raise PuzzleError(
                ErrorCode.FIXED_DIGIT_OUTSIDE_BASE,
                field=where,
                letter=letter,
                digit=digit,
                base=base,
                top=base - 1,
            )
    return fixed


def check_fixed(
    fixed: Mapping[str, int],
    letters: tuple[str, ...],
    nonzero: frozenset[str],
    policy: LeadingZeros,
) -> FixedDigits:
    """Check fixed letters (already through check_fixed_values) against the puzzle; return them.

    First that every fixed letter occurs in the puzzle, then that they can all hold together.
    """
    for key in fixed:
        letter = fold_letter(key)
        if letter not in letters:
            raise PuzzleError(
                ErrorCode.FIXED_LETTER_ABSENT, field=f"options.fixed.{letter}", letter=letter
            )
    result: dict[str, int] = {}
    by_digit: dict[int, str] = {}
    for key, digit in fixed.items():
        letter = fold_letter(key)
        if letter in result and result[letter] != digit:
            raise PuzzleError(
                ErrorCode.LETTER_FIXED_TWICE,
                field="options.fixed",
                letter=letter,
                first=result[letter],
                second=digit,
            )
        if digit in by_digit and by_digit[digit] != letter:
            raise PuzzleError(
                ErrorCode.DIGIT_FIXED_TWICE,
                field="options.fixed",
                first=by_digit[digit],
                second=letter,
                digit=digit,
            )
        if digit == 0 and letter in nonzero:
            raise PuzzleError(
                ErrorCode.LEADING_LETTER_FIXED_TO_ZERO,
                field="options.fixed",
                letter=letter,
                policy=policy.value,
            )
        result[letter] = digit
        by_digit[digit] = letter
    return FixedDigits(result)


def _is_letter(key: str) -> bool:
    """Whether a fixed key is one letter once folded (short keys only: `㍿` is four)."""
    return 0 < len(key) <= 4 and len(folded := fold_letter(key)) == 1 and folded.isalpha()
