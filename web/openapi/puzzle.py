"""How the OpenAPI document describes a puzzle: grammar, limits, an example of each kind."""

from __future__ import annotations

from typing import Any

import alphametic
from alphametic.language import grammar
from alphametic.language.expr import MAX_POWER_BITS
from alphametic.language.grammar import MAX_DEPTH

# One puzzle of each kind the language has (every one parses; tests/web checks it).
EXAMPLES = [
    "SEND + MORE = MONEY",
    "TWO * TWO = SQUARE",
    "ABCD / EF = GH",
    "NAUGHT ^ 2 = ZERO ^ 3",
    "TOM * 13 = DALEY",
    "A + A = B; B * C = AB",
    "(A + B) * C = -(D - EF)",
    "いち + いち = にい",
]

# The grammar as alphametic/language/grammar.py's docstring gives it (its indented lines).
GRAMMAR = "\n".join(
    line for line in (grammar.__doc__ or "").splitlines() if line.startswith("    ")
)


def puzzle_description() -> str:
    """The grammar, rules and limits of the puzzle field, as Markdown."""
    return (
        "One or more equations, separated by `;` or new lines (a new line where an equation "
        "cannot end yet is a space, so long sums may span lines). The text is read after "
        "Unicode NFKC folding: full-width letters, digits, signs, parentheses and `；` and the "
        "ideographic space mean their ASCII forms (`ＳＥＮＤ＋ＭＯＲＥ＝ＭＯＮＥＹ` is "
        "`SEND + MORE = MONEY`). Words are letters of any script (Unicode category L: `A-Z`, "
        "`αβ`, `ДА`, kana, kanji, Thai, Hangul); cased letters are one symbol in either case "
        "(`ａ`, `a` and `A` are `A`), kana and kanji are symbols as written (hiragana and "
        "katakana differ: `いち + いち = にい`). A combining mark (a Thai vowel or tone mark, "
        "say) is refused (`combining_mark`): each symbol is one letter. Numbers are ASCII "
        "digits (`13`), and a word may mix both (`AB3`); a digit in a word is a constant. "
        'Solutions are keyed by the puzzle\'s own symbols (`{"い": 2, "ち": 1, "に": 4}`), '
        "and a base-36 puzzle may use up to 36 of them. Operators, loosest first: `+ -`; "
        "`* × / ÷` (left to right); unary minus; `^ **` (power, right to left); parentheses. "
        "`=` (or `==`) may be chained.\n\n"
        f"```\n{GRAMMAR}\n```\n\n"
        "`/` is exact: the divisor must divide and must not be 0. Different letters take "
        "different digits; the leading-zero rule applies to every word of two or more "
        "characters that starts with a letter. Jobs and solutions show the puzzle in a "
        "canonical form (`TWO × TWO == SQUARE` becomes `TWO * TWO = SQUARE`, and "
        "`ｓｅｎｄ＋ｍｏｒｅ＝ｍｏｎｅｙ` becomes `SEND + MORE = MONEY`: one job for both).\n\n"
        f"Limits: {alphametic.MAX_CHARS:,} characters, {alphametic.MAX_TERMS:,} words and "
        f"numbers, nesting of parentheses, signs and powers {MAX_DEPTH} levels deep, powers "
        f"whose value could exceed {MAX_POWER_BITS:,} bits are refused, and so is a division "
        "by a literal 0. A puzzle that breaks a rule is 422 with the position of the fault (a "
        "0-based offset in the text as sent, in characters; the English `detail`, like the "
        'form and the CLI, counts characters from 1: position 5 is "at character 6").'
    )


def puzzle_schema() -> dict[str, Any]:
    """The JSON Schema of the puzzle field of a job request."""
    return {
        "type": "string",
        "maxLength": alphametic.MAX_CHARS,
        "description": puzzle_description(),
        "examples": EXAMPLES,
    }
