"""The letter-pattern memo (compose.patterns): a key is a renaming and a reordering, and a
composition that counts one candidate a pattern finds exactly what one that counts each finds."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from alphametic.compose import Tally, compose, words_of
from alphametic.compose.patterns import Memo, pattern

GREEK = Path(__file__).resolve().parents[1] / "data" / "cryptator" / "greek.txt"


def test_renamed_and_reordered_sums_have_one_key() -> None:
    key, letters = pattern(("SEND", "MORE"), "MONEY")
    assert letters == ["M", "O", "N", "E", "Y", "S", "D", "R"]
    renamed, _ = pattern(("BAKE", "TULA"), "TUKAX")  # M->T O->U N->K E->A Y->X S->B D->E R->L
    assert renamed == key
    assert pattern(("MORE", "SEND"), "MONEY")[0] == key  # the addends' order does not count
    assert pattern(("AB", "XYZ", "CD"), "DBA")[0] == pattern(("XYZ", "CD", "AB"), "DBA")[0]
    assert pattern(("SEND", "MORE"), "MONEE")[0] != key  # a letter fewer is another pattern
    assert pattern(("SEND", "MORE", "A"), "MONEY")[0] != key


def test_a_full_memo_starts_again_and_an_empty_one_keeps_nothing() -> None:
    memo = Memo(2)
    for i in range(3):
        memo.put(((i,),), (1, (i,)))
    assert list(memo.answers) == [((2,),)] and memo.get(((2,),)) == (1, (2,)) and memo.hits == 1
    none = Memo(0)
    none.put(((0,),), (0, ()))
    assert none.get(((0,),)) is None and not none.answers


def found(words: list[str], patterns: int, **options: object) -> tuple[dict[str, object], Tally]:
    """Puzzle text -> its solutions, and the tally, of one composition."""
    tally = Tally()
    run = compose(words, tally=tally, patterns=patterns, **options)  # type: ignore[arg-type]
    return {c.puzzle.text: c.solutions for c in run}, tally


@pytest.mark.parametrize(
    ("options"),
    [
        {"addends": 3, "distinct_words": True},
        {"addends": 4, "distinct_words": True},
        {"addends": 2, "solutions": 2},
        {"addends": 3, "leading_zeros": "allow", "distinct_words": True},
    ],
)
def test_the_memo_finds_what_counting_each_candidate_finds(
    engine: str, options: dict[str, object]
) -> None:
    words = words_of(GREEK.read_text().splitlines())[:16]  # seconds on the Python engine
    each, plain = found(words, 0, **options)
    memo, remembered = found(words, 1 << 18, **options)
    assert memo == each and each  # the same puzzles, each with the same solutions
    assert plain.remembered == 0 and remembered.remembered > 0  # the memo answered some
    assert remembered.searched == plain.searched and remembered.candidates == plain.candidates


def test_a_small_memo_that_starts_again_finds_the_same(engine: str) -> None:
    rng = random.Random(7)
    words = list({"".join(rng.choices("ABCDEFG", k=rng.randint(2, 4))) for _ in range(40)})
    each, _ = found(words, 0, addends=2, base=8)
    small, tally = found(words, 16, addends=2, base=8)
    assert small == each and each and tally.remembered > 0
