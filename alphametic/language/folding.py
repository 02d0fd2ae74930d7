"""Puzzle text as people type it: compatibility folding, one case, and display width.

fold() applies Unicode NFKC to the text before it is read, so that full-width letters, digits,
signs, parentheses and semicolons and the ideographic space mean their ASCII forms (`×`, `÷`
and `−` are left as they are; the grammar reads them). Superscripts, subscripts and vulgar
fractions are not folded (`A²` would silently become the word `A2`): they are refused as
written. NFKC can change the length of a text (`㍿` is four letters), so fold() also returns,
for every folded character, the offset of the typed character it came from: errors point at
what the user typed. ASCII text (and text NFKC leaves alone) is returned as it is.

A symbol is any letter (Unicode category L*: str.isalpha()), compared after folding; a cased
letter is folded to upper case (`ｓ` and `s` are `S`, `α` is `Α`) unless its upper case is
more than one character (`ß` stays `ß`). Kana, kanji, Thai and Hangul are symbols as written
(hiragana and katakana stay distinct). A combining mark left after NFKC (a Thai vowel or
tone mark, say) is refused by the grammar with its own code (combining_mark): one symbol is
one character, and a mark is never silently dropped or glued onto a letter.
"""

from __future__ import annotations

import unicodedata
from unicodedata import east_asian_width, normalize

from .errors import PuzzleError

__all__ = [
    "codepoint",
    "display_width",
    "fold",
    "fold_case",
    "fold_letter",
    "is_mark",
    "relocate",
]

# Characters NFKC may join to the character before them: combining marks, the half-width
# (semi-)voiced sound marks (`ｶﾞ` is `ガ`) and Hangul medial and final jamo.
_JOINING_EXTRA = frozenset("\uff9e\uff9f")


def _joins(char: str) -> bool:
    """Whether NFKC may compose this character with the one before it."""
    return (
        unicodedata.combining(char) != 0
        or unicodedata.category(char)[0] == "M"
        or char in _JOINING_EXTRA
        or "\u1160" <= char <= "\u11ff"
    )


def _kept(char: str) -> bool:
    """Whether a character keeps its form: NFKC would misread superscripts, subscripts and
    fractions (`A²` is not `A2`, `½` not `1⁄2`), so they stay, and the grammar refuses them."""
    return unicodedata.decomposition(char).startswith(("<super>", "<sub>", "<fraction>"))


# The full-width forms of ASCII (U+FF01 to U+FF5E) and the ideographic space: NFKC maps each to
# one ASCII character, so a text of ASCII and these (what an IME types) folds one for one.
_WIDE = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def fold(text: str) -> tuple[str, tuple[int, ...] | None]:
    """Return the NFKC-folded text and, if it differs, each folded character's typed offset.

    The offsets have one more entry, len(text), for the end. The text is folded a cluster at a
    time (a character and what joins it), so each cluster maps back to where it was typed;
    a cluster that keeps its length maps character by character.
    """
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text, None
    narrowed = text.translate(_WIDE)
    if narrowed.isascii():  # one for one: each character comes from the one typed there
        return narrowed, tuple(range(len(text) + 1))
    pieces: list[str] = []
    origin: list[int] = []
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and _joins(text[j]):
            j += 1
        piece = text[i:j] if _kept(text[i]) else normalize("NFKC", text[i:j])
        pieces.append(piece)
        origin.extend(range(i, j) if len(piece) == j - i else [i] * len(piece))
        i = j
    origin.append(n)
    return "".join(pieces), tuple(origin)


def relocate(exc: PuzzleError, text: str, origin: tuple[int, ...]) -> PuzzleError:
    """Return an error about folded text as one about the typed text: its position is the
    typed character's, and a refused character is named as typed (`！`, not `!`)."""
    if exc.position is None:
        return exc
    position = origin[min(exc.position, len(origin) - 1)]
    typed = text[position : position + 1]
    if "char" in exc.params and typed and normalize("NFKC", typed) == exc.params["char"]:
        return exc.moved(position, char=typed, codepoint=codepoint(typed))
    return exc.moved(position)


def codepoint(char: str) -> str:
    """Return how Unicode names a character's number: U+FF0B."""
    return f"U+{ord(char):04X}"


def fold_case(word: str) -> str:
    """Return a word with every cased letter in upper case (one character stays one)."""
    if word.isascii():
        return word.upper()
    upper = word.upper()
    if len(upper) == len(word):
        return upper
    return "".join(u if len(u := c.upper()) == 1 else c for c in word)


def fold_letter(text: str) -> str:
    """Return a letter as the puzzle compares it (NFKC, then upper case)."""
    return fold_case(normalize("NFKC", text))


def is_mark(char: str) -> bool:
    """Whether a character is a combining mark (category M*)."""
    return unicodedata.category(char)[0] == "M"


def display_width(text: str) -> int:
    """Return how many terminal columns text takes: wide and full-width characters take two,
    combining marks none."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if east_asian_width(char) in ("W", "F") else 1
    return width
