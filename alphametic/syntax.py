"""Puzzle text syntax: split "SEND + MORE = MONEY" into signed terms, or say where it is wrong."""

from __future__ import annotations

import re

__all__ = ["LETTERS", "MAX_CHARS", "MAX_TERMS", "PuzzleError", "Term", "split_sides"]

#: Longest accepted puzzle text in characters (the 199-addend puzzle has about 1,450).
MAX_CHARS = 10_000
#: Most accepted words (terms) over both sides of the equation.
MAX_TERMS = 1_000

#: One term of a side: its sign (+1 or -1) and its upper-case word.
Term = tuple[int, str]

#: The letters a word may use: ASCII A-Z in either case (no accented or other letters).
LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_SPACES = frozenset(" \t\r\n\f\v")

# The fast path: one regex checks a whole well-formed equation (linear, no nested ambiguity).
_S = r"[ \t\r\n\f\v]*"
_SIDE = rf"{_S}[+-]?{_S}[A-Za-z]+(?:{_S}[+-]{_S}[A-Za-z]+)*{_S}"
_EQUATION = re.compile(rf"({_SIDE})==?({_SIDE})")

# Scanner states: a side may open with a sign; an operator needs a word; a word needs an operator.
_SIDE_START, _AFTER_OPERATOR, _AFTER_WORD = 0, 1, 2


class PuzzleError(ValueError):
    """Bad puzzle text or options, with a human message and the 0-based position if known."""

    def __init__(self, message: str, position: int | None = None) -> None:
        self.message = message
        self.position = position
        text = message if position is None else f"{message} at position {position}"
        super().__init__(text)


def split_sides(text: str) -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    """Return the terms of both sides; raise PuzzleError with a position if text is malformed."""
    match = _EQUATION.fullmatch(text)
    if match is not None:
        left, right = _terms(match.group(1)), _terms(match.group(2))
        if len(left) + len(right) <= MAX_TERMS:
            return left, right
    return scan_sides(text)  # slow but exact: finds the error and its position


def _terms(side: str) -> tuple[Term, ...]:
    """Return the signed, upper-case terms of one well-formed side."""
    # String methods run in C: drop spaces, mark each '-' term, split on '+'.
    pieces = "".join(side.split()).upper().replace("-", "+-").split("+")
    return tuple((-1, p[1:]) if p[0] == "-" else (1, p) for p in pieces if p)


def scan_sides(text: str) -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    """Scan the text character by character, raising PuzzleError at the first error."""
    sides: list[list[Term]] = [[]]
    state = _SIDE_START
    sign, terms, i, n = 1, 0, 0, len(text)
    while i < n:
        char = text[i]
        if char in _SPACES:
            i += 1
        elif char in LETTERS:
            if state == _AFTER_WORD:
                raise PuzzleError("expected an operator (+, - or =) before this word", i)
            j = i
            while j < n and text[j] in LETTERS:
                j += 1
            terms += 1
            if terms > MAX_TERMS:
                raise PuzzleError(f"the puzzle has more than {MAX_TERMS:,} terms", i)
            sides[-1].append((sign, text[i:j].upper()))
            state, i = _AFTER_WORD, j
        elif char in "+-":
            if state == _AFTER_OPERATOR:
                raise PuzzleError(f"empty term before {char!r}", i)
            sign, state, i = (1 if char == "+" else -1), _AFTER_OPERATOR, i + 1
        elif char == "=":
            if len(sides) > 1 or text.startswith("===", i):
                at = i if len(sides) > 1 else i + 2
                raise PuzzleError("more than one '=' in the puzzle", at)
            if state != _AFTER_WORD:
                raise PuzzleError("empty term before '='", i)
            sides.append([])
            sign, state = 1, _SIDE_START
            i += 2 if text.startswith("==", i) else 1
        else:
            raise PuzzleError(f"unexpected character {char!r} (use letters A-Z, +, - and =)", i)
    _check_complete(text, len(sides), state)
    return tuple(sides[0]), tuple(sides[1])


def _check_complete(text: str, sides: int, state: int) -> None:
    """Raise PuzzleError if the scanned text is empty, has no '=' or ends after an operator."""
    if not text.strip():
        raise PuzzleError("the puzzle is empty")
    if sides == 1:
        raise PuzzleError("the puzzle has no '='")
    if state != _AFTER_WORD:
        raise PuzzleError("empty term at the end of the puzzle", len(text))
