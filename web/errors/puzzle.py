"""The engine's errors in the page's language, by their code.

The engine says each error in English (alphametic.PuzzleError.message) and gives its code and
the values it is about (alphametic.language.errors). SAYINGS holds, for every code, how the
pages say it through gettext (web/translations); tests/web/test_error_codes.py walks the whole
code table in each language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from alphametic import ErrorCode, PuzzleError
from web.i18n import _, locale_tag, number

Say = Callable[[Mapping[str, Any]], str]

# How to say each code, from the values the engine gave it (its params).
SAYINGS: dict[ErrorCode, Say] = {
    ErrorCode.NOT_A_STRING: lambda p: _("The puzzle must be text."),
    ErrorCode.TOO_LONG: lambda p: _(
        "The puzzle is longer than %(cap)s characters.", cap=number(p["cap"])
    ),
    ErrorCode.TOO_MANY_TERMS: lambda p: _(
        "The puzzle has more than %(cap)s words and numbers.", cap=number(p["cap"])
    ),
    ErrorCode.WORDS_NOT_A_LIST: lambda p: _("The words must be given as a list."),
    ErrorCode.NO_WORDS: lambda p: _("Give at least one word."),
    ErrorCode.BAD_WORD: lambda p: _(
        "Each word must be made of the letters A-Z only, not %(word)s.", word=repr(p["word"])
    ),
    ErrorCode.DIGIT_OUTSIDE_BASE: lambda p: _(
        "The digit %(digit)s does not exist in base %(base)s.", digit=p["digit"], base=p["base"]
    ),
    ErrorCode.NO_LETTERS: lambda p: _("The puzzle has no letters."),
    ErrorCode.TOO_MANY_LETTERS: lambda p: _(
        "The puzzle has %(letters)s different letters, but base %(base)s has only %(base)s digits.",
        letters=p["letters"],
        base=p["base"],
    ),
    ErrorCode.EMPTY: lambda p: _("Type a puzzle first."),
    ErrorCode.UNEXPECTED_CHARACTER: lambda p: _(
        "%(char)s cannot be used in a puzzle: write words of letters A-Z, numbers, "
        "+ - * / ^ ( ) and =, with ; or new lines between equations.",
        char=repr(p["char"]),
    ),
    ErrorCode.TRIPLE_EQUALS: lambda p: _(
        "=== is not an operator: write = (or ==) between the two sides."
    ),
    ErrorCode.MISSING_OPERATOR: lambda p: _("An operator (+, -, *, /, ^ or =) is missing here."),
    ErrorCode.EXPECTED_OPERATOR_OR_END: lambda p: _(
        "An operator or the end of the equation should come here, not %(op)s.", op=p["op"]
    ),
    ErrorCode.UNMATCHED_CLOSE: lambda p: _("This ) has no matching (."),
    ErrorCode.EMPTY_PARENTHESES: lambda p: _("This ) has no matching (."),
    ErrorCode.UNCLOSED_OPEN: lambda p: _("This ( is never closed."),
    ErrorCode.NO_EQUALS: lambda p: _("An equation needs an = sign."),
    ErrorCode.EQUATION_WITHOUT_EQUALS: lambda p: _("An equation needs an = sign."),
    ErrorCode.DIVISION_BY_ZERO: lambda p: _("A number cannot be divided by 0."),
    ErrorCode.TERM_MISSING_AT_END: lambda p: _("A word or number is missing here."),
    ErrorCode.TERM_MISSING_AT_EQUATION_END: lambda p: _("A word or number is missing here."),
    ErrorCode.TERM_MISSING_BEFORE: lambda p: _("A word or number is missing here."),
    ErrorCode.TOO_DEEP: lambda p: _(
        "Brackets, minus signs and powers may be nested at most %(depth)s deep.",
        depth=p["depth"],
    ),
    ErrorCode.POWER_TOO_LARGE: lambda p: _(
        "This power is too large to work out: it could have about %(bits)s bits, and the "
        "limit is %(cap)s.",
        bits=number(p["bits"]),
        cap=number(p["cap"]),
    ),
    ErrorCode.BASE_NOT_INTEGER: lambda p: _("The base must be a whole number from 2 to 36."),
    ErrorCode.BASE_OUT_OF_RANGE: lambda p: _("The base must be a whole number from 2 to 36."),
    ErrorCode.UNKNOWN_POLICY: lambda p: _("Choose one of the rules for leading zeros in the list."),
    ErrorCode.FIXED_NOT_A_MAPPING: lambda p: _(
        "Write fixed digits as letter=digit pairs, for example E=5, M=1."
    ),
    ErrorCode.FIXED_LETTER_INVALID: lambda p: _(
        "Write fixed digits as letter=digit pairs, for example E=5, M=1."
    ),
    ErrorCode.FIXED_DIGIT_NOT_INTEGER: lambda p: _(
        "The digit fixed for %(letter)s must be a whole number.", letter=p["letter"]
    ),
    ErrorCode.FIXED_DIGIT_OUTSIDE_BASE: lambda p: _(
        "%(letter)s is fixed to %(digit)s, but base %(base)s only has the digits 0 to %(top)s.",
        letter=p["letter"],
        digit=p["digit"],
        base=p["base"],
        top=p["top"],
    ),
    ErrorCode.FIXED_LETTER_ABSENT: lambda p: _(
        "%(letter)s does not occur in the puzzle, so it cannot be fixed.", letter=p["letter"]
    ),
    ErrorCode.LETTER_FIXED_TWICE: lambda p: _(
        "%(letter)s is given two digits, %(first)s and %(second)s.",
        letter=p["letter"],
        first=p["first"],
        second=p["second"],
    ),
    ErrorCode.DIGIT_FIXED_TWICE: lambda p: _(
        "%(first)s and %(second)s are both fixed to %(digit)s, but different letters "
        "stand for different digits.",
        first=p["first"],
        second=p["second"],
        digit=p["digit"],
    ),
    ErrorCode.LEADING_LETTER_FIXED_TO_ZERO: lambda p: _(
        "%(letter)s cannot be 0: it starts a word, and the chosen rule for leading "
        "zeros does not allow that.",
        letter=p["letter"],
    ),
}

#: Why fixed digits cannot all hold together (English pages wrap the engine's own words).
CONFLICTS = frozenset(
    {
        ErrorCode.LETTER_FIXED_TWICE,
        ErrorCode.DIGIT_FIXED_TWICE,
        ErrorCode.LEADING_LETTER_FIXED_TO_ZERO,
    }
)


def message(exc: PuzzleError) -> str:
    """The engine's error said in the page's language, from its code and values."""
    return SAYINGS[exc.code](exc.params)


def say(exc: PuzzleError) -> str | None:
    """The engine's error in the page's language, or None in English (the engine's own words
    say the most, and the page shows them)."""
    if locale_tag() == "en":
        return None
    return message(exc)
