"""One input for every engine error code that makes the engine raise it (tests/engine and
tests/web walk the whole code table with these)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import alphametic
from alphametic import ErrorCode, PuzzleError
from alphametic.compose import check_counts, check_reach, check_words

DEEP = "(" * 60 + "A" + ")" * 60 + " = B"
MANY_TERMS = " + ".join(["A"] * 1000) + " = B"


def _parse(text: Any, **options: Any) -> Callable[[], object]:
    """A call of alphametic.parse with these arguments."""
    return lambda: alphametic.parse(text, **options)


def _words(words: Any, result: Any) -> Callable[[], object]:
    """A call of alphametic.from_words with these arguments."""
    return lambda: alphametic.from_words(words, result)


#: For every code, a call that raises it.
EXAMPLES: dict[ErrorCode, Callable[[], object]] = {
    ErrorCode.NOT_A_STRING: _parse(42),
    ErrorCode.TOO_LONG: _parse("A" * 10_001),
    ErrorCode.TOO_MANY_TERMS: _parse(MANY_TERMS),
    ErrorCode.WORDS_NOT_A_LIST: _words("SEND", "MONEY"),
    ErrorCode.NO_WORDS: _words([], "MONEY"),
    ErrorCode.BAD_WORD: _words(["SEND", "M0RE"], "MONEY"),
    ErrorCode.DIGIT_OUTSIDE_BASE: _parse("AB9 = C", base=8),
    ErrorCode.NO_LETTERS: _parse("12 = 3 * 4"),
    ErrorCode.TOO_MANY_LETTERS: _parse("ABCDEFGHIJK = ABCDEFGHIJK"),
    ErrorCode.EMPTY: _parse(" \n "),
    ErrorCode.UNEXPECTED_CHARACTER: _parse('SEND + M"ORE = MONEY'),
    ErrorCode.COMBINING_MARK: _parse("หนึ่ง + A = B"),
    ErrorCode.TRIPLE_EQUALS: _parse("A === B"),
    ErrorCode.MISSING_OPERATOR: _parse("A B = C"),
    ErrorCode.EXPECTED_OPERATOR_OR_END: _parse("A = B (C)"),
    ErrorCode.UNMATCHED_CLOSE: _parse("A) = B"),
    ErrorCode.EMPTY_PARENTHESES: _parse("A = ()"),
    ErrorCode.UNCLOSED_OPEN: _parse("A = (B"),
    ErrorCode.NO_EQUALS: _parse("SEND + MORE"),
    ErrorCode.EQUATION_WITHOUT_EQUALS: _parse("A + B = C\nD + E"),
    ErrorCode.DIVISION_BY_ZERO: _parse("A / 0 = B"),
    ErrorCode.TERM_MISSING_AT_END: _parse("A = B +"),
    ErrorCode.TERM_MISSING_AT_EQUATION_END: _parse("A = B +; C = D"),
    ErrorCode.TERM_MISSING_BEFORE: _parse("A * = B"),
    ErrorCode.TOO_DEEP: _parse(DEEP),
    ErrorCode.POWER_TOO_LARGE: _parse("A = B ^ 9999"),
    ErrorCode.BASE_NOT_INTEGER: _parse("A = B", base="ten"),
    ErrorCode.BASE_OUT_OF_RANGE: _parse("A = B", base=37),
    ErrorCode.UNKNOWN_POLICY: _parse("A = B", leading_zeros="never"),
    ErrorCode.FIXED_NOT_A_MAPPING: _parse("A = B", fixed=[("A", 1)]),
    ErrorCode.FIXED_LETTER_INVALID: _parse("A = B", fixed={"AB": 1}),
    ErrorCode.FIXED_DIGIT_NOT_INTEGER: _parse("A = B", fixed={"A": "1"}),
    ErrorCode.FIXED_DIGIT_OUTSIDE_BASE: _parse("SEND + MORE = MONEY", fixed={"E": 12}),
    ErrorCode.FIXED_LETTER_ABSENT: _parse("SEND + MORE = MONEY", fixed={"Z": 1}),
    ErrorCode.LETTER_FIXED_TWICE: _parse("SEND + MORE = MONEY", fixed={"E": 5, "e": 6}),
    ErrorCode.DIGIT_FIXED_TWICE: _parse("SEND + MORE = MONEY", fixed={"E": 5, "M": 5}),
    ErrorCode.LEADING_LETTER_FIXED_TO_ZERO: _parse("SEND + MORE = MONEY", fixed={"S": 0}),
    ErrorCode.WORD_LIST_NOT_A_LIST: lambda: check_words("SEND MORE"),
    ErrorCode.NOT_A_WORD: lambda: check_words(["SEND", "M0RE"]),
    ErrorCode.WORD_TOO_LONG: lambda: check_words(["SEND", "E" * 101]),
    ErrorCode.TOO_FEW_WORDS: lambda: check_words(["send", "SEND"]),
    ErrorCode.TOO_MANY_WORDS: lambda: check_words(["SEND", "MORE", "MONEY"], most=2),
    ErrorCode.ADDENDS_OUT_OF_RANGE: lambda: check_counts(11, 1),
    ErrorCode.SOLUTIONS_OUT_OF_RANGE: lambda: check_counts(2, True),
    ErrorCode.SETS_OUT_OF_REACH: lambda: check_reach(2_000, 10, 1_800.0),
}


def raised(code: ErrorCode) -> PuzzleError:
    """The error the example of a code raises."""
    try:
        EXAMPLES[code]()
    except PuzzleError as exc:
        return exc
    raise AssertionError(f"the example of {code} raised nothing")
