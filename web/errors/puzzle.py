"""The engine's puzzle errors in the page's language.

The engine writes its messages in English (alphametic.PuzzleError.message). The common ones
are recognised here and said again in the reader's language; any other message is shown as
the engine wrote it, after a translated lead-in, so nothing is lost when the engine adds one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from web.i18n import _, locale_tag, number

Say = Callable[[re.Match[str]], str]

# (pattern of an engine message, how to say it); tried in order, the whole message must match.
PATTERNS: list[tuple[re.Pattern[str], Say]] = [
    (re.compile(r"unexpected character (.+?) \(.*\)"),
     lambda m: _(
         "%(char)s cannot be used in a puzzle: write words of letters A-Z, numbers, "
         "+ - * / ^ ( ) and =, with ; or new lines between equations.",
         char=m.group(1),
     )),
    (re.compile(r"the puzzle is empty"), lambda m: _("Type a puzzle first.")),
    (re.compile(r"the puzzle has no letters"), lambda m: _("The puzzle has no letters.")),
    (re.compile(r"(the puzzle|this equation) has no '='"),
     lambda m: _("An equation needs an = sign.")),
    (re.compile(r"expected an operator .* before this"),
     lambda m: _("An operator (+, -, *, /, ^ or =) is missing here.")),
    (re.compile(r"empty term (at the end of (the puzzle|this equation)|before .+)"),
     lambda m: _("A word or number is missing here.")),
    (re.compile(r"expected an operator or the end, not '(.+)'"),
     lambda m: _("An operator or the end of the equation should come here, not %(op)s.",
                 op=m.group(1))),
    (re.compile(r"'===' is not an operator .*"),
     lambda m: _("=== is not an operator: write = (or ==) between the two sides.")),
    (re.compile(r"division by the literal 0"), lambda m: _("A number cannot be divided by 0.")),
    (re.compile(r"this power is too large .*about ([\d,]+) bits; the cap is ([\d,]+)\)"),
     lambda m: _(
         "This power is too large to work out: it could have about %(bits)s bits, and the "
         "limit is %(cap)s.",
         bits=_number(m.group(1)),
         cap=_number(m.group(2)),
     )),
    (re.compile(r"digit (\w) is outside base (\d+)"),
     lambda m: _("The digit %(digit)s does not exist in base %(base)s.",
                 digit=m.group(1), base=m.group(2))),
    (re.compile(r"nested more than (\d+) levels deep"),
     lambda m: _("Brackets, minus signs and powers may be nested at most %(depth)s deep.",
                 depth=m.group(1))),
    (re.compile(r"'\(' without a matching '\)'"), lambda m: _("This ( is never closed.")),
    (re.compile(r"'\)' without a matching '\('.*"), lambda m: _("This ) has no matching (.")),
    (re.compile(r"(\d+) distinct letters but base (\d+) has only \d+ digits"),
     lambda m: _(
         "The puzzle has %(letters)s different letters, but base %(base)s has only %(base)s "
         "digits.",
         letters=m.group(1),
         base=m.group(2),
     )),
    (re.compile(r"the puzzle is longer than ([\d,]+) characters"),
     lambda m: _("The puzzle is longer than %(cap)s characters.", cap=m.group(1))),
    (re.compile(r"the puzzle has more than ([\d,]+) terms"),
     lambda m: _("The puzzle has more than %(cap)s words and numbers.", cap=m.group(1))),
]  # fmt: skip


def _number(text: str) -> str:
    """An English-formatted whole number ("4,096") written for the page's locale."""
    return number(int(text.replace(",", "")))


def say(message: str) -> str | None:
    """The engine's message in the page's language, or None: English, or not a known one."""
    if locale_tag() == "en":
        return None  # the engine's own words are English already, and say the most
    for pattern, spoken in PATTERNS:
        found = pattern.fullmatch(message)
        if found:
            return spoken(found)
    return None
