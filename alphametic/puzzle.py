"""Puzzle text and options: parsing, validation, and the coefficient form of plain sums."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property

from .expr import NUM, WORD, Node, check_powers, show, tokens
from .grammar import parse_equations
from .syntax import LETTERS, MAX_CHARS, MAX_TERMS, PuzzleError, Term, linear_sides

__all__ = [
    "MAX_CHARS",
    "MAX_TERMS",
    "FixedDigits",
    "LeadingZeros",
    "Node",
    "Puzzle",
    "PuzzleError",
    "Term",
    "from_words",
    "parse",
]

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


@dataclass(frozen=True)
class Puzzle:
    """A parsed, validated puzzle over distinct digits.

    A plain sum (words joined by + and -, one '=') keeps its signed words in left and right
    and goes to the coefficient engine; any other puzzle keeps its equations (each the chain
    of its sides' expression trees) and left and right are empty.
    """

    text: str
    left: tuple[Term, ...]
    right: tuple[Term, ...]
    letters: tuple[str, ...]
    base: int = 10
    leading_zeros: LeadingZeros = LeadingZeros.MULTI_LETTER
    fixed: FixedDigits = field(default_factory=lambda: _NO_FIXED)
    equations: tuple[tuple[Node, ...], ...] = ()

    @property
    def is_linear(self) -> bool:
        """Return whether this is a plain sum (one linear equation of words)."""
        return not self.equations

    @property
    def words(self) -> tuple[str, ...]:
        """Return every word (token with a letter) of the puzzle, left to right."""
        if self.equations:
            return tuple(
                t.text
                for eq in self.equations
                for side in eq
                for t in tokens(side)
                if t.kind == WORD
            )
        return tuple(word for _, word in self.left + self.right)

    def coefficients(self) -> dict[str, int]:
        """Return each letter's net coefficient: the puzzle holds iff sum(c * digit) == 0."""
        if self.equations:
            raise ValueError("only a plain sum has coefficients")
        return dict(self._coefficients)

    @cached_property
    def _coefficients(self) -> tuple[tuple[str, int], ...]:
        """Compute the coefficients once (left side +, right side -, a '-' term flips)."""
        # Repeated words (common in long puzzles) are weighed once, by their net multiplicity.
        times: dict[str, int] = {}
        for side, terms in ((1, self.left), (-1, self.right)):
            for sign, word in terms:
                times[word] = times.get(word, 0) + side * sign
        coef = dict.fromkeys(self.letters, 0)
        base = self.base
        for word, weight in times.items():
            for letter in reversed(word):
                coef[letter] += weight
                weight *= base
        return tuple(coef.items())

    def nonzero_letters(self) -> frozenset[str]:
        """Return the letters that may not be 0 under the leading-zero policy."""
        if self.leading_zeros is LeadingZeros.ALLOW:
            return frozenset()
        shortest = 2 if self.leading_zeros is LeadingZeros.MULTI_LETTER else 1
        return frozenset(w[0] for w in self.words if len(w) >= shortest and w[0] in LETTERS)

    def options(self) -> dict[str, object]:
        """Return the options as a JSON-able dict."""
        return {
            "base": self.base,
            "leading_zeros": self.leading_zeros.value,
            "fixed": dict(self.fixed),
        }


def parse(
    text: str,
    *,
    base: int = 10,
    leading_zeros: LeadingZeros | str = LeadingZeros.MULTI_LETTER,
    fixed: Mapping[str, int] | None = None,
) -> Puzzle:
    """Parse puzzle text such as "SEND + MORE = MONEY" (caps: MAX_CHARS, MAX_TERMS)."""
    if not isinstance(text, str):
        raise PuzzleError(f"the puzzle must be a string, not {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise PuzzleError(f"the puzzle is longer than {MAX_CHARS:,} characters", MAX_CHARS)
    base = _check_base(base)
    policy = _check_policy(leading_zeros)
    sides = linear_sides(text)
    if sides is not None:
        return _build(sides[0], sides[1], base, policy, fixed)
    equations = parse_equations(text)
    sides = _plain_sum(equations)
    if sides is not None:
        return _build(sides[0], sides[1], base, policy, fixed)
    return _build_expressions(equations, base, policy, fixed)


def from_words(
    words: Sequence[str],
    result: str,
    *,
    base: int = 10,
    leading_zeros: LeadingZeros | str = LeadingZeros.MULTI_LETTER,
    fixed: Mapping[str, int] | None = None,
) -> Puzzle:
    """Build the puzzle words[0] + words[1] + ... = result from a list of words."""
    if isinstance(words, str) or not isinstance(words, Sequence):
        raise PuzzleError("words must be a list of words")
    if not words:
        raise PuzzleError("words must hold at least one word")
    if len(words) + 1 > MAX_TERMS:
        raise PuzzleError(f"the puzzle has more than {MAX_TERMS:,} terms")
    for index, word in enumerate([*words, result]):
        name = "result" if index == len(words) else f"word {index + 1}"
        if not isinstance(word, str) or not word or not all(c in LETTERS for c in word):
            raise PuzzleError(f"{name} must be a non-empty word of letters A-Z, got {word!r}")
    left = tuple((1, w.upper()) for w in words)
    return _build(
        left, ((1, result.upper()),), _check_base(base), _check_policy(leading_zeros), fixed
    )


def _check_base(base: object) -> int:
    """Return the base if it is an int in 2..36."""
    if isinstance(base, bool) or not isinstance(base, int):
        raise PuzzleError(f"the base must be an integer from 2 to 36, not {base!r}")
    if not _MIN_BASE <= base <= _MAX_BASE:
        raise PuzzleError(f"the base must be from {_MIN_BASE} to {_MAX_BASE}, not {base}")
    return base


def _check_policy(policy: object) -> LeadingZeros:
    """Return the leading-zero policy named by policy."""
    if isinstance(policy, LeadingZeros):
        return policy
    if isinstance(policy, str):
        for member in LeadingZeros:
            if member.value == policy.strip().lower():
                return member
    names = ", ".join(m.value for m in LeadingZeros)
    raise PuzzleError(f"unknown leading-zero policy {policy!r} (choose one of: {names})")


def _build(
    left: tuple[Term, ...],
    right: tuple[Term, ...],
    base: int,
    policy: LeadingZeros,
    fixed: Mapping[str, int] | None,
) -> Puzzle:
    """Check the letters and fixed digits, then assemble the Puzzle."""
    letters = tuple(sorted(set("".join(word for _, word in left + right))))
    if len(letters) > base:
        raise PuzzleError(f"{len(letters)} distinct letters but base {base} has only {base} digits")
    puzzle = Puzzle(_canonical(left, right), left, right, letters, base, policy)
    if fixed is not None:
        if not isinstance(fixed, Mapping):
            raise PuzzleError("fixed must map letters to digits")
        if fixed:
            puzzle = replace(puzzle, fixed=_check_fixed(puzzle, fixed))
    return puzzle


def _plain_sum(
    equations: tuple[tuple[Node, ...], ...],
) -> tuple[tuple[Term, ...], tuple[Term, ...]] | None:
    """Return the signed words of a plain sum equation, or None for any other puzzle."""
    if len(equations) != 1 or len(equations[0]) != 2:
        return None
    sides = []
    for side in equations[0]:
        terms = [(1, side)] if side.kind == WORD else []
        if side.kind == "sum":
            terms = [
                (-1 if op == "-" else 1, arg) for op, arg in zip(side.ops, side.args, strict=True)
            ]
        if not terms or any(t.kind != WORD or not t.text.isalpha() for _, t in terms):
            return None
        sides.append(tuple((sign, t.text) for sign, t in terms))
    return sides[0], sides[1]


def _build_expressions(
    equations: tuple[tuple[Node, ...], ...],
    base: int,
    policy: LeadingZeros,
    fixed: Mapping[str, int] | None,
) -> Puzzle:
    """Check the letters, digits and powers of an expression puzzle, then assemble it."""
    leaves = [t for eq in equations for side in eq for t in tokens(side)]
    for leaf in leaves:
        wrong = [c for c in leaf.text if c.isdigit() and int(c) >= base]
        if wrong:
            raise PuzzleError(f"digit {wrong[0]} is outside base {base}", leaf.pos)
    letters = tuple(sorted({c for t in leaves if t.kind != NUM for c in t.text if c.isalpha()}))
    if not letters:
        raise PuzzleError("the puzzle has no letters")
    if len(letters) > base:
        raise PuzzleError(f"{len(letters)} distinct letters but base {base} has only {base} digits")
    for eq in equations:
        for side in eq:
            check_powers(side, base)
    text = "; ".join(" = ".join(show(side) for side in eq) for eq in equations)
    puzzle = Puzzle(text, (), (), letters, base, policy, equations=equations)
    if fixed is not None:
        if not isinstance(fixed, Mapping):
            raise PuzzleError("fixed must map letters to digits")
        if fixed:
            puzzle = replace(puzzle, fixed=_check_fixed(puzzle, fixed))
    return puzzle


def _check_fixed(puzzle: Puzzle, fixed: Mapping[str, int]) -> FixedDigits:
    """Validate the fixed letters against the puzzle and return them normalised."""
    result: dict[str, int] = {}
    by_digit: dict[int, str] = {}
    nonzero = puzzle.nonzero_letters()
    for key, digit in fixed.items():
        if not isinstance(key, str) or len(key) != 1 or key not in LETTERS:
            raise PuzzleError(f"a fixed letter must be one letter A-Z, not {key!r}")
        letter = key.upper()
        if letter not in puzzle.letters:
            raise PuzzleError(f"fixed letter {letter} does not occur in the puzzle")
        if isinstance(digit, bool) or not isinstance(digit, int):
            raise PuzzleError(f"the digit fixed for {letter} must be an integer, not {digit!r}")
        if not 0 <= digit < puzzle.base:
            raise PuzzleError(
                f"digit {digit} fixed for {letter} is outside base {puzzle.base} "
                f"(0 to {puzzle.base - 1})"
            )
        if letter in result and result[letter] != digit:
            raise PuzzleError(f"letter {letter} is fixed twice, to {result[letter]} and {digit}")
        if digit in by_digit and by_digit[digit] != letter:
            raise PuzzleError(f"letters {by_digit[digit]} and {letter} are both fixed to {digit}")
        if digit == 0 and letter in nonzero:
            raise PuzzleError(
                f"{letter} cannot be fixed to 0: it starts a word and the leading-zero "
                f"policy is {puzzle.leading_zeros.value}"
            )
        result[letter] = digit
        by_digit[digit] = letter
    return FixedDigits(result)


def _canonical(left: tuple[Term, ...], right: tuple[Term, ...]) -> str:
    """Return the normalised text: upper case, single spaces, one '='."""
    return f"{_side_text(left)} = {_side_text(right)}"


def _side_text(terms: tuple[Term, ...]) -> str:
    """Return one side's text, keeping a leading '-' and every '-' term."""
    text = " ".join([f"+ {word}" if sign > 0 else f"- {word}" for sign, word in terms])
    return text[2:] if text[0] == "+" else f"-{text[2:]}"
