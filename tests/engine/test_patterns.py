"""The letter-pattern memo (compose.patterns): a key is a renaming and a reordering, and a
composition that counts one candidate a pattern finds exactly what one that counts each finds."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from alphametic.compose import Tally, compose, words_of
from alphametic.compose.patterns import GAP, LETTERS, Memo, pattern
from tests.support.engines import native_only

GREEK = Path(__file__).resolve().parents[1] / "data" / "cryptator" / "greek.txt"


def test_renamed_and_reordered_sums_have_one_key() -> None:
    key, letters = keyed(("SEND", "MORE"), "MONEY")
    assert letters == "MONEYSDR"
    assert key == bytes([0, 1, 2, 3, 4, GAP, 5, 3, 2, 6, GAP, 0, 1, 7, 3])  # SEND, then MORE
    renamed, _ = keyed(("BAKE", "TULA"), "TUKAX")  # M->T O->U N->K E->A Y->X S->B D->E R->L
    assert renamed == key
    assert keyed(("MORE", "SEND"), "MONEY")[0] == key  # the addends' order does not count
    assert keyed(("AB", "XYZ", "CD"), "DBA")[0] == keyed(("XYZ", "CD", "AB"), "DBA")[0]
    assert keyed(("SEND", "MORE"), "MONEE")[0] != key  # a letter fewer is another pattern
    assert keyed(("SEND", "MORE", "A"), "MONEY")[0] != key
    assert keyed(("AB", "C"), "ABC")[0] != keyed(("A", "BC"), "ABC")[0]  # the gaps count


def keyed(addends: tuple[str, ...], result: str) -> tuple[bytes, str]:
    """pattern()'s key of a sum that has one."""
    key = pattern(addends, result)
    assert key is not None
    return key


def test_a_sum_of_too_many_letters_has_no_key() -> None:
    letters = [chr(0x4E00 + i) for i in range(LETTERS + 1)]
    assert pattern(("".join(letters[:40]),), "".join(letters[40:])) is None
    assert pattern(("".join(letters[:40]),), "".join(letters[40:-1])) is not None


def random_sum(rng: random.Random) -> tuple[tuple[str, ...], str]:
    """A sum of 1-10 addends over a small alphabet (shapes often tie) or a wide one (often past
    LETTERS: no key), words of 1-8 letters (1-20 in the wide one), some repeated."""
    wide = "".join(chr(0x4E00 + i) for i in range(200))
    alphabet = rng.choice(["ABCDE", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ÀÉÎ日本語ꙮ𝔄", wide])
    most = 20 if alphabet == wide else 8
    count = rng.randint(2, 11)
    words = ["".join(rng.choices(alphabet, k=rng.randint(1, most))) for _ in range(count)]
    words += rng.choices(words, k=rng.randint(0, 3))
    rng.shuffle(words)
    return tuple(words[1:]), words[0]


@native_only
def test_the_native_key_is_the_python_key() -> None:
    from alphametic.linear._native import pattern_key

    rng = random.Random(33)
    nones = 0
    for _ in range(20_000):
        addends, result = random_sum(rng)
        native = pattern_key(addends, result)
        assert native == pattern(addends, result), (addends, result)
        nones += native is None
    assert 0 < nones < 20_000  # both kinds of answer met
    # Renamed and reordered, a sum keeps its key on the native core too.
    assert pattern_key(("SEND", "MORE"), "MONEY") == (keyed(("SEND", "MORE"), "MONEY"))
    assert pattern_key(("BAKE", "TULA"), "TUKAX")[0] == pattern_key(("MORE", "SEND"), "MONEY")[0]  # type: ignore[index]
    with pytest.raises(TypeError):
        pattern_key(("A", 1), "B")  # type: ignore[arg-type]


def test_a_full_memo_forgets_its_older_half_and_an_empty_one_keeps_nothing() -> None:
    memo = Memo(4)  # two generations of two
    for i in range(5):
        memo.put(bytes([i]), (1, (i,)))
    assert list(memo.older) == [b"\x02", b"\x03"] and list(memo.answers) == [b"\x04"]
    assert memo.get(b"\x00") is None and memo.get(b"\x01") is None  # forgotten
    assert memo.get(b"\x02") == (1, (2,)) and memo.hits == 1  # in the older: kept anew
    assert list(memo.answers) == [b"\x04", b"\x02"]
    memo.put(b"\x05", (0, ()))  # the newer is full: \x03 goes, \x02 (met again) stays
    assert memo.get(b"\x03") is None and memo.get(b"\x02") == (1, (2,)) and memo.hits == 2
    none = Memo(0)
    none.put(b"\x00", (0, ()))
    assert none.get(b"\x00") is None and not none.answers


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
