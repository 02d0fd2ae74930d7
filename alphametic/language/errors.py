"""The engine's errors: one stable code per fault, its English sentence, and PuzzleError.

A PuzzleError keeps its code and the values its sentence needs, so that other languages can
say it from their own table (the web's is web/errors/puzzle.py); the English sentence is
rendered here, once, from ENGLISH. Codes are stable snake_case strings (the JSON API reports
them): a new fault gets a new code, a reworded sentence keeps its code. Placeholders are
str.format fields ({cap:,} writes 10,000; {char!r} quotes the character as Python would).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = ["ENGLISH", "ErrorCode", "PuzzleError", "english"]


class ErrorCode(StrEnum):
    """Every fault the engine reports, one code each."""

    # The puzzle as a whole (language/puzzle.py).
    NOT_A_STRING = "not_a_string"
    TOO_LONG = "too_long"
    TOO_MANY_TERMS = "too_many_terms"
    WORDS_NOT_A_LIST = "words_not_a_list"
    NO_WORDS = "no_words"
    BAD_WORD = "bad_word"
    DIGIT_OUTSIDE_BASE = "digit_outside_base"
    NO_LETTERS = "no_letters"
    TOO_MANY_LETTERS = "too_many_letters"
    # Reading the text (language/grammar.py) and sizing powers (language/expr.py).
    EMPTY = "empty"
    UNEXPECTED_CHARACTER = "unexpected_character"
    COMBINING_MARK = "combining_mark"
    TRIPLE_EQUALS = "triple_equals"
    MISSING_OPERATOR = "missing_operator"
    EXPECTED_OPERATOR_OR_END = "expected_operator_or_end"
    UNMATCHED_CLOSE = "unmatched_close"
    EMPTY_PARENTHESES = "empty_parentheses"
    UNCLOSED_OPEN = "unclosed_open"
    NO_EQUALS = "no_equals"
    EQUATION_WITHOUT_EQUALS = "equation_without_equals"
    DIVISION_BY_ZERO = "division_by_zero"
    TERM_MISSING_AT_END = "term_missing_at_end"
    TERM_MISSING_AT_EQUATION_END = "term_missing_at_equation_end"
    TERM_MISSING_BEFORE = "term_missing_before"
    TOO_DEEP = "too_deep"
    POWER_TOO_LARGE = "power_too_large"
    # The options (language/options.py).
    BASE_NOT_INTEGER = "base_not_integer"
    BASE_OUT_OF_RANGE = "base_out_of_range"
    UNKNOWN_POLICY = "unknown_policy"
    FIXED_NOT_A_MAPPING = "fixed_not_a_mapping"
    FIXED_LETTER_INVALID = "fixed_letter_invalid"
    FIXED_DIGIT_NOT_INTEGER = "fixed_digit_not_integer"
    FIXED_DIGIT_OUTSIDE_BASE = "fixed_digit_outside_base"
    FIXED_LETTER_ABSENT = "fixed_letter_absent"
    LETTER_FIXED_TWICE = "letter_fixed_twice"
    DIGIT_FIXED_TWICE = "digit_fixed_twice"
    LEADING_LETTER_FIXED_TO_ZERO = "leading_letter_fixed_to_zero"
    # A word list to compose from and its counts (compose.py).
    WORD_LIST_NOT_A_LIST = "word_list_not_a_list"
    NOT_A_WORD = "not_a_word"
    WORD_TOO_LONG = "word_too_long"
    TOO_FEW_WORDS = "too_few_words"
    TOO_MANY_WORDS = "too_many_words"
    ADDENDS_OUT_OF_RANGE = "addends_out_of_range"
    SOLUTIONS_OUT_OF_RANGE = "solutions_out_of_range"
    SETS_OUT_OF_REACH = "sets_out_of_reach"


_HELP = "use words of letters, numbers, + - * / ^ ( ), = and ; or new lines"

#: The English sentence of every code (str.format templates over the error's params).
ENGLISH: dict[ErrorCode, str] = {
    ErrorCode.NOT_A_STRING: "the puzzle must be a string, not {kind}",
    ErrorCode.TOO_LONG: "the puzzle is longer than {cap:,} characters",
    ErrorCode.TOO_MANY_TERMS: "the puzzle has more than {cap:,} terms",
    ErrorCode.WORDS_NOT_A_LIST: "words must be a list of words",
    ErrorCode.NO_WORDS: "words must hold at least one word",
    ErrorCode.BAD_WORD: "{name} must be a non-empty word of letters, got {word!r}",
    ErrorCode.DIGIT_OUTSIDE_BASE: "digit {digit} is outside base {base}",
    ErrorCode.NO_LETTERS: "the puzzle has no letters",
    ErrorCode.TOO_MANY_LETTERS: "{letters} distinct letters but base {base} has only {base} digits",
    ErrorCode.EMPTY: "the puzzle is empty",
    ErrorCode.UNEXPECTED_CHARACTER: "unexpected character {char!r} ({codepoint}): " + _HELP,
    ErrorCode.COMBINING_MARK: "the combining mark {codepoint} ({name}) is not a symbol: each "
    "symbol is one letter, so write the puzzle's words without vowel, tone or accent marks",
    ErrorCode.TRIPLE_EQUALS: "'===' is not an operator (use '=' or '==')",
    ErrorCode.MISSING_OPERATOR: "expected an operator (+, -, *, /, ^ or =) before this",
    ErrorCode.EXPECTED_OPERATOR_OR_END: "expected an operator or the end, not {op!r}",
    ErrorCode.UNMATCHED_CLOSE: "')' without a matching '('",
    ErrorCode.EMPTY_PARENTHESES: "')' without a matching '(' or with nothing inside",
    ErrorCode.UNCLOSED_OPEN: "'(' without a matching ')'",
    ErrorCode.NO_EQUALS: "the puzzle has no '='",
    ErrorCode.EQUATION_WITHOUT_EQUALS: "this equation has no '='",
    ErrorCode.DIVISION_BY_ZERO: "division by the literal 0",
    ErrorCode.TERM_MISSING_AT_END: "empty term at the end of the puzzle",
    ErrorCode.TERM_MISSING_AT_EQUATION_END: "empty term at the end of this equation",
    ErrorCode.TERM_MISSING_BEFORE: "empty term before {op!r}",
    ErrorCode.TOO_DEEP: "nested more than {depth} levels deep",
    ErrorCode.POWER_TOO_LARGE: "this power is too large to evaluate sensibly (up to about "
    "{bits:,} bits; the cap is {cap:,})",
    ErrorCode.BASE_NOT_INTEGER: "the base must be an integer from {low} to {high}, not {base!r}",
    ErrorCode.BASE_OUT_OF_RANGE: "the base must be from {low} to {high}, not {base}",
    ErrorCode.UNKNOWN_POLICY: "unknown leading-zero policy {policy!r} (choose one of: {choices})",
    ErrorCode.FIXED_NOT_A_MAPPING: "fixed must map letters to digits",
    ErrorCode.FIXED_LETTER_INVALID: "a fixed letter must be one letter, not {key!r}",
    ErrorCode.FIXED_DIGIT_NOT_INTEGER: "the digit fixed for {letter} must be an integer, "
    "not {digit!r}",
    ErrorCode.FIXED_DIGIT_OUTSIDE_BASE: "digit {digit} fixed for {letter} is outside base "
    "{base} (0 to {top})",
    ErrorCode.FIXED_LETTER_ABSENT: "fixed letter {letter} does not occur in the puzzle",
    ErrorCode.LETTER_FIXED_TWICE: "letter {letter} is fixed twice, to {first} and {second}",
    ErrorCode.DIGIT_FIXED_TWICE: "letters {first} and {second} are both fixed to {digit}",
    ErrorCode.LEADING_LETTER_FIXED_TO_ZERO: "{letter} cannot be fixed to 0: it starts a word "
    "and the leading-zero policy is {policy}",
    ErrorCode.WORD_LIST_NOT_A_LIST: "the word list must be a list of words (strings)",
    ErrorCode.NOT_A_WORD: "words that are not one word of letters each ({count:,}; a vowel, "
    "tone or accent mark is not a letter of its own): {listed}",
    ErrorCode.WORD_TOO_LONG: "a word of the list has more than {cap:,} letters",
    ErrorCode.TOO_FEW_WORDS: "the word list needs at least {low} distinct words",
    ErrorCode.TOO_MANY_WORDS: "the word list has more than {cap:,} distinct words",
    ErrorCode.ADDENDS_OUT_OF_RANGE: "the number of addends must be from {low} to {high}, "
    "not {value!r}",
    ErrorCode.SOLUTIONS_OUT_OF_RANGE: "the number of solutions must be from {low} to {high}, "
    "not {value!r}",
    ErrorCode.SETS_OUT_OF_REACH: "{words:,} words make {sets:,} sets of {addends} addends, more "
    "than a run can go through in time ({cap:,}): take fewer addends or fewer words",
}


def english(code: ErrorCode, params: dict[str, Any]) -> str:
    """The English sentence of a code with its values filled in."""
    return ENGLISH[code].format(**params)


class PuzzleError(ValueError):
    """Bad puzzle text or options: a code, the values its sentence needs, and where it is.

    `position` is the 0-based character of the puzzle text at fault, if known (an offset, for
    programs: the API's `position` member); `field` names what is at fault as the JSON API
    calls it ("puzzle", "options.base", "options.fixed.E"). `message` is the English sentence;
    str() adds where, as people count: "at character 6" is position 5, as the form says it
    (the CLI prints str(), and so does the API's English `detail`).
    """

    def __init__(
        self,
        code: ErrorCode,
        position: int | None = None,
        *,
        field: str = "puzzle",
        **params: Any,
    ) -> None:
        """Keep the code, its values, the position and the field; render the English."""
        self.code = ErrorCode(code)
        self.params = params
        self.position = position
        self.field = field
        self.message = english(self.code, params)
        where = "" if position is None else f" at character {position + 1}"
        super().__init__(self.message + where)

    def moved(self, position: int, **params: Any) -> PuzzleError:
        """The same error at another position, some values replaced (folding.relocate)."""
        return _restore(self.code, position, self.field, {**self.params, **params})

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle by code and values (the default would call __init__ with the sentence)."""
        return _restore, (self.code, self.position, self.field, self.params)


def _restore(
    code: ErrorCode, position: int | None, field: str, params: dict[str, Any]
) -> PuzzleError:
    """Rebuild a pickled PuzzleError."""
    return PuzzleError(code, position, field=field, **params)
