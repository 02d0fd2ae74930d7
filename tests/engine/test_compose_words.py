"""A word list's bad words, every one named at once with the characters at fault (as the
grammar names a character it refuses), or left out when asked."""

from __future__ import annotations

import unicodedata

import pytest

from alphametic import parse
from alphametic.compose import LONGEST_WORD, bad_words, check_words
from alphametic.language.errors import ErrorCode, PuzzleError
from tests.support import cli

# Common Thai words with vowel and tone marks (combining: not letters of their own).
THAI_MARKED = ["ที่", "ไม่", "เป็น", "ได้", "นี้"]
THAI_PLAIN = ["การ", "ใน", "ของ", "และ", "คน"]


def test_every_bad_word_is_named_at_once_with_its_marks() -> None:
    words = [THAI_PLAIN[0], *THAI_MARKED, THAI_PLAIN[1], "M0RE", "TWO WORDS", "ไม่"]
    with pytest.raises(PuzzleError) as caught:
        check_words(words)
    exc = caught.value
    assert exc.code is ErrorCode.NOT_A_WORD and exc.field == "words"
    faults = exc.params["faults"]
    assert [f["word"] for f in faults] == [*THAI_MARKED, "M0RE", "TWO WORDS"]  # each once
    assert exc.params["count"] == 7 and exc.params["word"] == "ที่"
    first = faults[0]["chars"]
    assert [(c["char"], c["codepoint"], c["mark"]) for c in first] == [
        ("\u0e35", "U+0E35", True),
        ("\u0e48", "U+0E48", True),
    ]
    assert first[1]["name"] == "THAI CHARACTER MAI EK" == unicodedata.name("\u0e48")
    assert faults[5]["chars"] == [
        {"char": "0", "codepoint": "U+0030", "mark": False, "name": "DIGIT ZERO"}
    ]
    assert faults[6]["chars"] == []  # not one word: no character to blame
    assert "'ไม่' (U+0E48 THAI CHARACTER MAI EK)" in exc.message
    assert "'TWO WORDS' (not one word)" in exc.message


def test_the_marks_named_are_those_the_solve_form_names() -> None:
    """Each mark a list's word is refused for is the one the grammar refuses in a puzzle."""
    for word in THAI_MARKED:
        with pytest.raises(PuzzleError) as caught:
            parse(f"{word} + {word} = {word}")
        said = caught.value
        assert said.code is ErrorCode.COMBINING_MARK
        (fault,) = bad_words([word])
        assert fault["chars"][0]["codepoint"] == said.params["codepoint"]
        assert fault["chars"][0]["name"] == said.params["name"]


def test_a_typed_full_width_digit_is_named_as_typed() -> None:
    (fault,) = bad_words(["Ｍ０ＲＥ"])
    assert fault["chars"] == [
        {"char": "０", "codepoint": "U+FF10", "mark": False, "name": "FULLWIDTH DIGIT ZERO"}
    ]


def test_skipping_leaves_the_bad_words_out() -> None:
    kept = check_words([*THAI_MARKED, *THAI_PLAIN, "M0RE", "การ"], skip_bad=True)
    assert kept == THAI_PLAIN
    assert check_words(["SEND", "MORE"], skip_bad=True) == ["SEND", "MORE"]


def test_skipping_still_needs_two_words_and_short_ones() -> None:
    with pytest.raises(PuzzleError) as caught:
        check_words([*THAI_MARKED, "การ"], skip_bad=True)
    assert caught.value.code is ErrorCode.TOO_FEW_WORDS
    with pytest.raises(PuzzleError) as caught:
        check_words(["SEND", "MORE", "E" * (LONGEST_WORD + 1)], skip_bad=True)
    assert caught.value.code is ErrorCode.WORD_TOO_LONG
    with pytest.raises(PuzzleError) as caught:
        check_words("SEND MORE", skip_bad=True)
    assert caught.value.code is ErrorCode.WORD_LIST_NOT_A_LIST


def test_the_command_line_names_every_bad_word_of_a_file_or_leaves_them_out() -> None:
    """`alphametic compose FILE` refuses a list with bad words naming each (exit 2), as the
    service does; with --skip-bad-words it composes from the rest and names those left out
    (before, they were dropped without a word)."""
    text = "\n".join(["# Thai", " ".join(THAI_PLAIN), *THAI_MARKED, "M0RE"]) + "\n"
    refused = cli.run("compose", "-", stdin=text.encode())
    assert refused.returncode == 2 and refused.stdout == ""
    assert "'ไม่' (U+0E48 THAI CHARACTER MAI EK)" in refused.stderr
    assert "'M0RE'" in refused.stderr and "6;" in refused.stderr  # every one, counted
    skipped = cli.run("compose", "--skip-bad-words", "--count", "-", stdin=text.encode())
    assert skipped.returncode in (0, 1), skipped.stderr
    assert "left out 6 word(s) not letters only: ที่, ไม่, เป็น, ได้, นี้, M0RE" in skipped.stderr
    plain = cli.run("compose", "--count", "-", stdin=("\n".join(THAI_PLAIN) + "\n").encode())
    assert skipped.stdout == plain.stdout  # composed from the plain words alone
