"""Puzzle text and options: parsing, validation, and the coefficient form of plain sums."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from .errors import ErrorCode, PuzzleError
from .expr import NUM, WORD, Node, check_powers, show, tokens
from .folding import fold, fold_case, relocate
from .grammar import parse_equations
from .options import FixedDigits, LeadingZeros, check_fixed, check_options
from .syntax import MAX_CHARS, MAX_TERMS, Term, check_terms, linear_sides

_NO_FIXED = FixedDigits()

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
        return frozenset(w[0] for w in self.words if len(w) >= shortest and w[0].isalpha())

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
    """Parse puzzle text such as "SEND + MORE = MONEY" (caps: MAX_CHARS, MAX_TERMS).

    The option values are checked before the text, the fixed letters against it after. The
    text is read folded (folding.py: NFKC, cased letters in upper case); an error's position
    is an offset in the text as given, and a refused character is the one typed there.
    """
    if not isinstance(text, str):
        raise PuzzleError(ErrorCode.NOT_A_STRING, kind=type(text).__name__)
    base, policy, fixed = check_options(base, leading_zeros, fixed)
    if len(text) > MAX_CHARS:
        raise PuzzleError(ErrorCode.TOO_LONG, MAX_CHARS, cap=MAX_CHARS)
    folded, origin = fold(text)
    try:
        return _parse_folded(folded, base, policy, fixed)
    except PuzzleError as exc:
        if origin is None:
            raise
        raise relocate(exc, text, origin) from None


def _parse_folded(
    text: str, base: int, policy: LeadingZeros, fixed: Mapping[str, int] | None
) -> Puzzle:
    """Parse folded text (the fast path for plain sums, else the full grammar)."""
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
        raise PuzzleError(ErrorCode.WORDS_NOT_A_LIST, field="words")
    if not words:
        raise PuzzleError(ErrorCode.NO_WORDS, field="words")
    check_terms(len(words) + 1)
    for index, word in enumerate([*words, result]):
        name = "result" if index == len(words) else f"word {index + 1}"
        if not isinstance(word, str) or not _is_word(word):
            raise PuzzleError(ErrorCode.BAD_WORD, field="words", name=name, word=word)
    left = tuple((1, _word(w)) for w in words)
    checked, policy, fixed = check_options(base, leading_zeros, fixed)
    return _build(left, ((1, _word(result)),), checked, policy, fixed)


def _word(text: str) -> str:
    """A word of from_words as the puzzle compares it (folded, cased letters upper case)."""
    return fold_case(fold(text)[0])


def _is_word(text: str) -> bool:
    """Whether text is a non-empty word of letters once folded."""
    return bool(text) and _word(text).isalpha()


def _build(
    left: tuple[Term, ...],
    right: tuple[Term, ...],
    base: int,
    policy: LeadingZeros,
    fixed: Mapping[str, int] | None,
) -> Puzzle:
    """Check the letters and fixed digits, then assemble the Puzzle."""
    letters = tuple(sorted(set("".join(word for _, word in left + right))))
    _check_letter_count(letters, base)
    return _with_fixed(Puzzle(_canonical(left, right), left, right, letters, base, policy), fixed)


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
            raise PuzzleError(ErrorCode.DIGIT_OUTSIDE_BASE, leaf.pos, digit=wrong[0], base=base)
    letters = tuple(sorted({c for t in leaves if t.kind != NUM for c in t.text if c.isalpha()}))
    if not letters:
        raise PuzzleError(ErrorCode.NO_LETTERS)
    _check_letter_count(letters, base)
    for eq in equations:
        for side in eq:
            check_powers(side, base)
    text = "; ".join(" = ".join(show(side) for side in eq) for eq in equations)
    return _with_fixed(Puzzle(text, (), (), letters, base, policy, equations=equations), fixed)


def _check_letter_count(letters: tuple[str, ...], base: int) -> None:
    """Refuse more distinct letters than the base has digits."""
    if len(letters) > base:
        raise PuzzleError(ErrorCode.TOO_MANY_LETTERS, letters=len(letters), base=base)


def _with_fixed(puzzle: Puzzle, fixed: Mapping[str, int] | None) -> Puzzle:
    """The puzzle with its fixed letters, checked against it (their values are checked)."""
    if not fixed:
        return puzzle
    checked = check_fixed(fixed, puzzle.letters, puzzle.nonzero_letters(), puzzle.leading_zeros)
    return replace(puzzle, fixed=checked)


def _canonical(left: tuple[Term, ...], right: tuple[Term, ...]) -> str:
    """Return the normalised text: upper case, single spaces, one '='."""
    return f"{_side_text(left)} = {_side_text(right)}"


def _side_text(terms: tuple[Term, ...]) -> str:
    """Return one side's text, keeping a leading '-' and every '-' term."""
    text = " ".join([f"+ {word}" if sign > 0 else f"- {word}" for sign, word in terms])
    return text[2:] if text[0] == "+" else f"-{text[2:]}"
