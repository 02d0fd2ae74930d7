"""Puzzle text basics: the caps, the letters, and the fast path for plain sums.

"SEND + MORE = MONEY" (words joined by + and -, one '=') is split by one regex into signed
terms; everything else goes to the full parser in grammar.py, which also finds errors.
"""

from __future__ import annotations

import re

from .errors import ErrorCode, PuzzleError

__all__ = [
    "MAX_CHARS",
    "MAX_TERMS",
    "PuzzleError",
    "Term",
    "check_terms",
    "linear_sides",
]

#: Longest accepted puzzle text in characters (the 199-addend puzzle has about 1,450).
MAX_CHARS = 10_000
#: Most accepted words (terms) over both sides of the equation.
MAX_TERMS = 1_000

#: One term of a side: its sign (+1 or -1) and its upper-case word.
Term = tuple[int, str]

# The fast path: one regex checks a whole well-formed equation (linear, no nested ambiguity).
# It reads ASCII words only; words of other letters take the full parser, which agrees.
_S = r"[ \t\r\n\f\v]*"
_SIDE = rf"{_S}[+-]?{_S}[A-Za-z]+(?:{_S}[+-]{_S}[A-Za-z]+)*{_S}"
_EQUATION = re.compile(rf"({_SIDE})==?({_SIDE})")
# After the '=', a new line between a word and a sign starts another equation (grammar.py).
_NEXT_EQUATION = re.compile(r"[A-Za-z][ \t\r\f\v]*\n[ \t\r\n\f\v]*[+-]")


def check_terms(count: int, position: int | None = None) -> None:
    """Refuse a puzzle of more than MAX_TERMS words and numbers (position: where it went over)."""
    if count > MAX_TERMS:
        raise PuzzleError(ErrorCode.TOO_MANY_TERMS, position, cap=MAX_TERMS)


def linear_sides(text: str) -> tuple[tuple[Term, ...], tuple[Term, ...]] | None:
    """Return both sides' terms if text is one plain sum equation (the fast path), else None."""
    match = _EQUATION.fullmatch(text)
    if match is None or _NEXT_EQUATION.search(match.group(2)):
        return None
    left, right = _terms(match.group(1)), _terms(match.group(2))
    return (left, right) if len(left) + len(right) <= MAX_TERMS else None


def _terms(side: str) -> tuple[Term, ...]:
    """Return the signed, upper-case terms of one well-formed side."""
    # String methods run in C: drop spaces, mark each '-' term, split on '+'.
    pieces = "".join(side.split()).upper().replace("-", "+-").split("+")
    return tuple((-1, p[1:]) if p[0] == "-" else (1, p) for p in pieces if p)
