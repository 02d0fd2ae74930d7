"""Fuzzing the parser: any input gives a Puzzle or a PuzzleError, never another exception."""

from __future__ import annotations

import string
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphametic import MAX_CHARS, Puzzle, PuzzleError, from_words, parse
from alphametic.language.folding import fold_letter
from alphametic.language.grammar import parse_equations
from alphametic.language.puzzle import _plain_sum
from alphametic.language.syntax import linear_sides

FUZZ = settings(max_examples=200, deadline=500, suppress_health_check=[HealthCheck.too_slow])

# Pieces a hostile or careless client might send: letters, operators, spacing and odd characters.
ODD = ["É", "ß", "ı", "İ", "1", "0", "*", "/", "(", ")", "^", "**", ";", "×", "\x00", "\u200b"]
ODD += ["\ufeff", "🙂", "=", "==="]
PIECES = st.sampled_from(
    list(string.ascii_letters[:8]) + [" ", "\t", "\n", "+", "-", "=", "==", "SEND", "more"] + ODD
)
PUZZLE_LIKE = st.lists(PIECES, max_size=40).map("".join)
TERMS = st.lists(st.text(alphabet="ABCDEFGHIJKLab", min_size=1, max_size=6), min_size=1, max_size=8)
OPTION_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 50), st.floats(allow_nan=True), st.text(max_size=12)
)
FIXED = st.one_of(
    st.none(),
    st.dictionaries(st.text(alphabet="ABEZe1", max_size=2), OPTION_VALUES, max_size=3),
    st.lists(st.integers(), max_size=2),
)


def _parse_or_error(text: object, **options: object) -> Puzzle | None:
    """Parse and return the puzzle, or None for a PuzzleError; anything else fails the test."""
    try:
        return parse(text, **options)  # type: ignore[arg-type]
    except PuzzleError as error:
        assert error.message and isinstance(error.message, str)
        assert error.position is None or 0 <= error.position <= max(len(str(text)), MAX_CHARS)
        return None


def _check_puzzle(puzzle: Puzzle) -> None:
    """Check the invariants every parsed puzzle keeps."""
    # A symbol is one letter of any script, as the parser compares it (folded: É, not é).
    assert all(len(s) == 1 and s.isalpha() and fold_letter(s) == s for s in puzzle.letters)
    assert list(puzzle.letters) == sorted(set(puzzle.letters))
    assert 1 <= len(puzzle.letters) <= puzzle.base
    assert bool(puzzle.left and puzzle.right) == puzzle.is_linear != bool(puzzle.equations)
    again = parse(
        puzzle.text, base=puzzle.base, leading_zeros=puzzle.leading_zeros, fixed=puzzle.fixed
    )
    assert again == puzzle
    if puzzle.is_linear:
        assert set(puzzle.coefficients()) == set(puzzle.letters)
    assert puzzle.nonzero_letters() <= set(puzzle.letters)


@FUZZ
@given(st.text(max_size=200))
def test_any_text_parses_or_raises_puzzle_error(text: str) -> None:
    puzzle = _parse_or_error(text)
    if puzzle is not None:
        _check_puzzle(puzzle)


@FUZZ
@given(PUZZLE_LIKE)
def test_puzzle_like_text_parses_or_raises_puzzle_error(text: str) -> None:
    puzzle = _parse_or_error(text)
    if puzzle is not None:
        _check_puzzle(puzzle)


@FUZZ
@given(st.one_of(PUZZLE_LIKE, st.text(alphabet=" \t+-=ABab\u00a0", max_size=30)))
def test_fast_path_agrees_with_the_full_parser(text: str) -> None:
    fast = linear_sides(text)
    try:
        full: object = _plain_sum(parse_equations(text))
    except PuzzleError:
        full = None
    if fast is not None:
        assert full == fast


@FUZZ
@given(TERMS, TERMS, st.lists(st.sampled_from(["+", "-", " + ", " - "]), min_size=16, max_size=16))
def test_well_formed_equations_always_parse_with_a_big_enough_base(
    left: list[str], right: list[str], ops: list[str]
) -> None:
    text = _join(left, ops) + " == " + _join(right, ops[8:])
    puzzle = _parse_or_error(text, base=36)
    assert puzzle is not None
    assert len(puzzle.left) == len(left) and len(puzzle.right) == len(right)
    _check_puzzle(puzzle)


def _join(words: list[str], ops: list[str]) -> str:
    """Join words with the given operators."""
    text = words[0]
    for op, word in zip(ops, words[1:], strict=False):
        text += op + word
    return text


@FUZZ
@given(
    st.one_of(PUZZLE_LIKE, st.sampled_from(["SEND + MORE = MONEY", "A + B = C"])),
    OPTION_VALUES,
    OPTION_VALUES,
    FIXED,
)
def test_any_options_give_a_puzzle_or_puzzle_error(
    text: str, base: object, policy: object, fixed: object
) -> None:
    puzzle = _parse_or_error(text, base=base, leading_zeros=policy, fixed=fixed)
    if puzzle is not None:
        _check_puzzle(puzzle)


@FUZZ
@given(
    st.one_of(
        st.lists(st.one_of(st.text(max_size=5), st.integers()), max_size=4), st.text(max_size=20)
    ),
    st.one_of(st.text(max_size=6), st.none()),
)
def test_from_words_gives_a_puzzle_or_puzzle_error(words: object, result: object) -> None:
    try:
        puzzle = from_words(words, result)  # type: ignore[arg-type]
    except PuzzleError:
        return
    _check_puzzle(puzzle)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["A", "A + ", "+", "=", "É", "ABCDEFGHIJ + "]))
def test_inputs_at_the_size_cap_are_handled_quickly(piece: str) -> None:
    text = (piece * (MAX_CHARS // len(piece) + 1))[: MAX_CHARS - 3] + "= A"
    started = time.perf_counter()
    _parse_or_error(text)
    _parse_or_error(text + "+A")  # one character over the cap
    assert time.perf_counter() - started < 1.0
