"""The engine's errors in the page's language, by their code.

The engine says each error in English (alphametic.PuzzleError.message) and gives its code and
the values it is about (alphametic.language.errors). SAYINGS holds, for every code, how the
pages (English ones too: plain sentences, one name per field) and the API's problem details
say it through gettext (web/translations); tests/web/test_error_codes.py walks the whole code
table in each language.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alphametic import ErrorCode, PuzzleError
from web.i18n import _, ngettext, number

Say = Callable[[dict[str, Any]], str]

# How to say each code, from the values the engine gave it (its params, shaped by _values).
SAYINGS: dict[ErrorCode, Say] = {
    ErrorCode.NOT_A_STRING: lambda v: _("The puzzle must be text."),
    ErrorCode.TOO_LONG: lambda v: _("The puzzle is longer than %(cap)s characters.", **v),
    ErrorCode.TOO_MANY_TERMS: lambda v: _(
        "The puzzle has more than %(cap)s words and numbers.", **v
    ),
    ErrorCode.WORDS_NOT_A_LIST: lambda v: _("The words must be given as a list."),
    ErrorCode.NO_WORDS: lambda v: _("Give at least one word."),
    ErrorCode.BAD_WORD: lambda v: _("Each word must be made of letters only, not %(word)s.", **v),
    ErrorCode.DIGIT_OUTSIDE_BASE: lambda v: _(
        "The digit %(digit)s does not exist in base %(base)s.", **v
    ),
    ErrorCode.NO_LETTERS: lambda v: _("The puzzle has no letters."),
    ErrorCode.TOO_MANY_LETTERS: lambda v: _(
        "The puzzle has %(letters)s different letters, but base %(base)s has only %(base)s digits.",
        **v,
    ),
    ErrorCode.EMPTY: lambda v: _("Type a puzzle first."),
    ErrorCode.UNEXPECTED_CHARACTER: lambda v: _(
        "“%(char)s” (%(codepoint)s) cannot be used in a puzzle: write words of letters, "
        "numbers, + - * / ^ ( ) and =, with ; or new lines between equations.",
        **v,
    ),
    ErrorCode.COMBINING_MARK: lambda v: _(
        "The mark ◌%(char)s (%(codepoint)s, %(name)s) cannot be part of a word: each letter "
        "stands for one digit, so write the words without vowel, tone or accent marks.",
        **v,
    ),
    ErrorCode.TRIPLE_EQUALS: lambda v: _(
        "=== is not an operator: write = (or ==) between the two sides."
    ),
    ErrorCode.MISSING_OPERATOR: lambda v: _("An operator (+, -, *, /, ^ or =) is missing here."),
    ErrorCode.EXPECTED_OPERATOR_OR_END: lambda v: _(
        "An operator or the end of the equation should come here, not %(op)s.", **v
    ),
    ErrorCode.UNMATCHED_CLOSE: lambda v: _("This ) has no matching (."),
    ErrorCode.EMPTY_PARENTHESES: lambda v: _("This ) has no matching (."),
    ErrorCode.UNCLOSED_OPEN: lambda v: _("This ( is never closed."),
    ErrorCode.NO_EQUALS: lambda v: _("An equation needs an = sign."),
    ErrorCode.EQUATION_WITHOUT_EQUALS: lambda v: _("An equation needs an = sign."),
    ErrorCode.DIVISION_BY_ZERO: lambda v: _("A number cannot be divided by 0."),
    ErrorCode.TERM_MISSING_AT_END: lambda v: _("A word or number is missing here."),
    ErrorCode.TERM_MISSING_AT_EQUATION_END: lambda v: _("A word or number is missing here."),
    ErrorCode.TERM_MISSING_BEFORE: lambda v: _("A word or number is missing here."),
    ErrorCode.TOO_DEEP: lambda v: _(
        "Brackets, minus signs and powers may be nested at most %(depth)s deep.", **v
    ),
    ErrorCode.POWER_TOO_LARGE: lambda v: _(
        "This power is too large to work out: it could have about %(bits)s bits, and the "
        "limit is %(cap)s.",
        **v,
    ),
    ErrorCode.BASE_NOT_INTEGER: lambda v: _(
        "The base must be a whole number from %(low)s to %(high)s.", **v
    ),
    ErrorCode.BASE_OUT_OF_RANGE: lambda v: _(
        "The base must be a whole number from %(low)s to %(high)s.", **v
    ),
    ErrorCode.UNKNOWN_POLICY: lambda v: _("Choose one of the rules for leading zeros in the list."),
    ErrorCode.FIXED_NOT_A_MAPPING: lambda v: _(
        "Write known digits as letter=digit pairs, for example E=5, M=1."
    ),
    ErrorCode.FIXED_LETTER_INVALID: lambda v: _(
        "Write known digits as letter=digit pairs, for example E=5, M=1."
    ),
    ErrorCode.FIXED_DIGIT_NOT_INTEGER: lambda v: _(
        "The known digit of %(letter)s must be a whole number.", **v
    ),
    ErrorCode.FIXED_DIGIT_OUTSIDE_BASE: lambda v: _(
        "%(letter)s is given %(digit)s, but base %(base)s only has the digits 0 to %(top)s.",
        **v,
    ),
    ErrorCode.FIXED_LETTER_ABSENT: lambda v: _(
        "%(letter)s does not occur in the puzzle, so it cannot have a known digit.", **v
    ),
    ErrorCode.LETTER_FIXED_TWICE: lambda v: _(
        "%(letter)s is given two digits, %(first)s and %(second)s.", **v
    ),
    ErrorCode.DIGIT_FIXED_TWICE: lambda v: _(
        "%(first)s and %(second)s are both given %(digit)s, but different letters "
        "stand for different digits.",
        **v,
    ),
    ErrorCode.LEADING_LETTER_FIXED_TO_ZERO: lambda v: _(
        "%(letter)s cannot be 0: it starts a word, and the chosen rule for leading "
        "zeros does not allow that.",
        **v,
    ),
    ErrorCode.WORD_LIST_NOT_A_LIST: lambda v: _("The words must be given as a list."),
    ErrorCode.NOT_A_WORD: lambda v: ngettext(
        "This word is not made of letters only: %(listed)s. Each letter stands for one digit, "
        "so a vowel, tone or accent mark cannot be part of a word: write the word without "
        "its marks, or choose to skip the words that are not letters only.",
        "These %(count)s words are not made of letters only: %(listed)s. Each letter stands "
        "for one digit, so a vowel, tone or accent mark cannot be part of a word: write the "
        "words without their marks, or choose to skip the words that are not letters only.",
        v["many"],
        **v,
    ),
    ErrorCode.WORD_TOO_LONG: lambda v: _("A word may have at most %(cap)s letters.", **v),
    ErrorCode.TOO_FEW_WORDS: lambda v: _("Give at least two different words."),
    ErrorCode.TOO_MANY_WORDS: lambda v: _("Give at most %(cap)s different words.", **v),
    ErrorCode.ADDENDS_OUT_OF_RANGE: lambda v: _(
        "The number of words added must be a whole number from %(low)s to %(high)s.", **v
    ),
    ErrorCode.SOLUTIONS_OUT_OF_RANGE: lambda v: _(
        "The number of solutions must be a whole number from %(low)s to %(high)s.", **v
    ),
    ErrorCode.SETS_OUT_OF_REACH: lambda v: _(
        "%(words)s words make %(sets)s ways to choose %(addends)s words to add: too many to go "
        "through in time (at most %(cap)s). Add fewer words at a time, or give fewer words.",
        **v,
    ),
}


def _values(exc: PuzzleError) -> dict[str, Any]:
    """The error's values as the sentences show them: words quoted, a character as typed (the
    sentence quotes it; an invisible one is its U+ number), caps and bit counts written for
    the locale."""
    values = dict(exc.params)
    if "word" in values:
        values["word"] = repr(values["word"])
    if "char" in values and not str(values["char"]).isprintable():
        values["char"] = values["codepoint"]  # a control character shows as its number
    for key in ("cap", "bits", "sets", "words"):
        if key in values:
            values[key] = number(values[key])
    if "faults" in values:  # a list's bad words, each with the characters at fault
        values["many"] = int(values["count"])
        values["count"] = number(values["count"])
        values["listed"] = _("; ").join(_fault(fault) for fault in values["faults"])
    return values


def _fault(fault: dict[str, Any]) -> str:
    """A bad word of a list and what is wrong with it, as the solve form names a character it
    refuses: the mark ◌่ (U+0E48, THAI CHARACTER MAI EK)."""
    said = [
        _("the mark ◌%(char)s (%(codepoint)s, %(name)s)", **char)
        if char["mark"]
        else _("“%(char)s” (%(codepoint)s, %(name)s)", **char)
        for char in fault["chars"]
    ]
    why = _(", ").join(said) if said else _("more than one word")
    return _("%(word)s: %(why)s", word=fault["word"], why=why)


def message(exc: PuzzleError) -> str:
    """The engine's error said in the page's language, from its code and values."""
    return SAYINGS[exc.code](_values(exc))
