"""The built-in word lists: each word a valid puzzle word, in its script; the CLI composes
from them as from a file."""

from __future__ import annotations

import json
import unicodedata

import pytest

from alphametic.cli.main import main
from alphametic.compose import compose, words_of
from alphametic.language.puzzle import parse
from alphametic.wordlists import LISTS, word_list

SCRIPTS: dict[str, tuple[str, ...]] = {
    "en": ("LATIN",),
    "ja": ("HIRAGANA", "KATAKANA"),
    "th": ("THAI",),
}
SIZES = {"en": 2000, "ja": 1000, "th": 1000}


@pytest.mark.parametrize("name", LISTS)
def test_each_list_holds_distinct_words_of_its_script(name: str) -> None:
    words = word_list(name)
    assert len(words) == SIZES[name]
    # Folding changes none of them and merges none: the list is what a composition uses.
    assert words_of(words) == words
    for word in words:
        assert len(word) >= 2
        assert all(unicodedata.name(ch).startswith(SCRIPTS[name]) for ch in word), word
        parse(f"{word} = {word}")  # a valid word of a puzzle (no combining marks)
    assert word_list(name, 10) == words[:10]


def test_an_unknown_list_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        word_list("fr")


def test_the_command_line_composes_from_a_built_in_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["compose", "--json", "--list", "th", "--first", "25"]) == 0
    printed = {json.loads(line)["puzzle"] for line in capsys.readouterr().out.splitlines()}
    assert printed == {c.puzzle.text for c in compose(word_list("th", 25))} != set()
    assert main(["compose", "--list", "en"] + ["words.txt"]) == 2
    assert "either a word file" in capsys.readouterr().err
    assert main(["compose"]) == 2
    assert main(["compose", "--list", "en", "--first", "1"]) == 2
    assert main(["compose", "--list", "xx"]) == 2
