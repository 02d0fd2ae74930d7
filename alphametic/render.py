"""Show a solution: an aligned column sum (or equations), a letter -> digit table, or one line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .language.folding import display_width
from .language.puzzle import Puzzle, Term

__all__ = [
    "caret",
    "digit_char",
    "render_equations",
    "render_line",
    "render_sum",
    "render_table",
]

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_GAP = "    "

#: A solution as a letter -> digit mapping or as digits in ``puzzle.letters`` order.
Solution = Mapping[str, int] | Sequence[int]


def digit_char(digit: int) -> str:
    """Return the one-character spelling of a digit (0-9, then A-Z for bases over 10)."""
    return _DIGITS[digit]


def caret(text: str, position: int | None) -> tuple[str, int] | None:
    """The line of the text holding an error's position, and the display column to put a caret
    under (a wide character before it counts two columns; a combining mark is shown on the
    column of the character it sits on), or None without a position."""
    if position is None or not 0 <= position <= len(text):
        return None
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    line = text[start : len(text) if end < 0 else end]
    column = display_width(text[start:position])
    if column and not display_width(text[position : position + 1] or " "):
        column -= 1  # a combining mark shows over the character before it
    return line.rstrip("\r"), column


def render_line(puzzle: Puzzle, solution: Solution) -> str:
    """Return "SEND + MORE = MONEY | 9567 + 1085 = 10652"."""
    table = str.maketrans(_char_map(puzzle, solution))
    return f"{puzzle.text} | {puzzle.text.translate(table)}"


def render_table(puzzle: Puzzle, solution: Solution) -> str:
    """Return a two-row table: the letters in alphabetical order and their digits."""
    chars = _char_map(puzzle, solution)
    return "\n".join(
        [
            "letter | " + " ".join(puzzle.letters),
            "digit  | " + " ".join(chars[letter] for letter in puzzle.letters),
        ]
    )


def render_sum(puzzle: Puzzle, solution: Solution) -> str:
    """Return a plain sum as a column sum aligned by display width (letters left, digits
    beside), any other puzzle as its equations, one per line, each with its digits under its
    letters."""
    chars = _char_map(puzzle, solution)
    if not puzzle.is_linear:
        return render_equations(puzzle, chars)
    letters = _column(puzzle.left, puzzle.right)
    digits = _column(_spell(puzzle.left, chars), _spell(puzzle.right, chars))
    return "\n".join(f"{a}{_GAP}{b}".rstrip() for a, b in zip(letters, digits, strict=True))


def render_equations(puzzle: Puzzle, chars: Mapping[str, str]) -> str:
    """Return every equation on a line (with × and ÷) and its digits on the line under it."""
    table = str.maketrans({**chars, "*": "×", "/": "÷"})
    lines = []
    for equation in puzzle.text.split("; "):
        lines += [equation.translate(_SIGNS), equation.translate(table)]
    return "\n".join(lines)


_SIGNS = str.maketrans({"*": "×", "/": "÷"})


def _spell(terms: tuple[Term, ...], chars: Mapping[str, str]) -> tuple[Term, ...]:
    """Replace every letter of the terms by its digit character."""
    return tuple((sign, "".join(chars[c] for c in word)) for sign, word in terms)


def _column(left: tuple[Term, ...], right: tuple[Term, ...]) -> list[str]:
    """Lay out both sides right-aligned, one term per row, with a rule between the sides.

    Rows are aligned by display width: a wide letter (kana, kanji) takes two columns."""
    rows = [_row(index, sign, word) for index, (sign, word) in enumerate(left)]
    below = [_row(index, sign, word) for index, (sign, word) in enumerate(right)]
    width = max(display_width(row) for row in rows + below)
    return [_pad(row, width) for row in rows] + ["-" * width] + [_pad(r, width) for r in below]


def _pad(row: str, width: int) -> str:
    """Right-align a row to a display width."""
    return " " * (width - display_width(row)) + row


def _row(index: int, sign: int, word: str) -> str:
    """Return one term's row: its operator (none for a leading '+') and its spaced letters."""
    spaced = " ".join(word)
    if index == 0:
        return spaced if sign > 0 else f"- {spaced}"
    return f"{'+' if sign > 0 else '-'} {spaced}"


def _char_map(puzzle: Puzzle, solution: Solution) -> dict[str, str]:
    """Return letter -> digit character for every letter, checking the solution's shape."""
    if isinstance(solution, Mapping):
        missing = [letter for letter in puzzle.letters if letter not in solution]
        if missing:
            raise ValueError(f"the solution has no digit for {', '.join(missing)}")
        digits = [solution[letter] for letter in puzzle.letters]
    else:
        digits = list(solution)
        if len(digits) != len(puzzle.letters):
            raise ValueError(
                f"a compact solution needs {len(puzzle.letters)} digits, got {len(digits)}"
            )
    for digit in digits:
        if not 0 <= digit < puzzle.base:
            raise ValueError(f"digit {digit} is outside base {puzzle.base}")
    return {letter: _DIGITS[d] for letter, d in zip(puzzle.letters, digits, strict=True)}
