"""A compose request's faults in the page's language, by their code (jobstore/compose.py
WordsFault): the API's problem details and the compose form say them from here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jobstore.compose import WordsError, WordsFault
from web.i18n import _, number

Say = Callable[[dict[str, Any]], str]

# How to say each code, from the values the job store gave it.
SAYINGS: dict[WordsFault, Say] = {
    WordsFault.WORDS_NOT_A_LIST: lambda v: _("The words must be given as a list."),
    WordsFault.TOO_FEW_WORDS: lambda v: _("Give at least two different words."),
    WordsFault.TOO_MANY_WORDS: lambda v: _("Give at most %(cap)s different words.", **v),
    WordsFault.BAD_WORD: lambda v: _("Each word must be made of letters only, not %(word)s.", **v),
    WordsFault.WORD_TOO_LONG: lambda v: _("A word may have at most %(cap)s letters.", **v),
    WordsFault.ADDENDS_OUT_OF_RANGE: lambda v: _(
        "The number of words added must be a whole number from %(low)s to %(high)s.", **v
    ),
    WordsFault.SOLUTIONS_OUT_OF_RANGE: lambda v: _(
        "The number of solutions must be a whole number from %(low)s to %(high)s.", **v
    ),
}


def message(exc: WordsError) -> str:
    """The fault said in the page's language, from its code and values."""
    values = dict(exc.params)
    if "word" in values:
        values["word"] = repr(values["word"])
    if "cap" in values:
        values["cap"] = number(values["cap"])
    return SAYINGS[exc.code](values)
