"""Composing with no word twice in a sum (`distinct_words`, Cryptator's rule) and with up to
ten addends, against a brute force written apart from the engine (tests/support/words.py:
every combination of distinct words by itertools, every other word as the result, every
assignment of distinct digits tried and the sum checked with Python integers)."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from alphametic.cli.main import main
from alphametic.compose import Tally, candidates, check_reach, compose, groups, words_of
from alphametic.compose.addends import DistinctWalk, walk_bound
from alphametic.language.errors import ErrorCode, PuzzleError
from tests.support.words import DISTINCT_CASES as CASES
from tests.support.words import brute_distinct, made_up

WORDLISTS = Path(__file__).resolve().parents[1] / "data" / "cryptator"
GREEK = WORDLISTS / "greek.txt"
COLOURS = WORDLISTS / "colors.txt"
# Cryptator's Table III (ICTAI 2025): one-solution puzzles of N = 2, 3, ... addends.
GREEK_COUNTS = {2: 4, 3: 38, 4: 128, 5: 207, 6: 184, 7: 30, 8: 2, 9: 0}
COLOUR_COUNTS = {2: 66, 3: 315, 4: 357, 5: 163, 6: 46}


def texts(words: list[str], addends: int, base: int, **options: object) -> set[str]:
    """The puzzle texts compose() finds with no word twice."""
    found = compose(words, addends=addends, base=base, distinct_words=True, **options)  # type: ignore[arg-type]
    return {c.puzzle.text for c in found}


@pytest.mark.parametrize(("addends", "words", "base"), CASES)
def test_distinct_words_find_what_the_brute_force_finds(
    engine: str, addends: int, words: list[str], base: int
) -> None:
    expected = brute_distinct(words, addends, base)
    tally = Tally()
    assert texts(words, addends, base, tally=tally) == expected
    assert expected  # a comparison of two empty sets proves little
    # Every candidate counted once, walked or passed over with its set.
    assert tally.candidates == groups(words, addends, distinct=True) * (len(words) - addends)
    assert tally.position == groups(words, addends, distinct=True)
    assert tally.searched + sum(tally.skipped.values()) == tally.candidates  # each once


@pytest.mark.parametrize(("policy", "leading"), [("allow", False), ("multi-letter", True)])
def test_two_solutions_and_zero_led_words_too(engine: str, policy: str, leading: bool) -> None:
    words = made_up(11, 12, "ABCDE", 3)
    expected = brute_distinct(words, 3, 6, leading, wanted=2)
    assert texts(words, 3, 6, leading_zeros=policy, solutions=2) == expected and expected


def test_no_word_is_used_twice_and_the_order_grows_with_the_list() -> None:
    """The sets are every combination of distinct words, by last word, the others in
    lexicographic order; ranges of them from any start give the run's order."""
    words = [chr(ord("A") + i) * 2 for i in range(7)]
    for addends in (1, 2, 3, 6, 7):
        whole = [
            (*others, top)
            for top in range(len(words))
            for others in combinations(range(top), addends - 1)
        ]
        assert groups(words, addends, distinct=True) == len(whole)
        expected = [
            f"{' + '.join(words[i] for i in terms)} = {words[r]}"
            for terms in whole
            for r in range(len(words))
            if r not in terms
        ]
        listed = [t for _, t in candidates(words, addends, 36, distinct_words=True)]
        assert listed == expected
        for start in range(len(whole) + 1):
            for end in (start, start + 1, start + 4, len(whole) + 2):
                tally = Tally()
                ranged = candidates(
                    words, addends, 36, tally=tally, start=start, end=end, distinct_words=True
                )
                part = [t for _, t in ranged]
                each = len(words) - addends
                assert part == expected[start * each : min(end, len(whole)) * each]
                assert tally.position == max(start, min(end, len(whole)))


@pytest.mark.parametrize("stop_after", [1, 5, 30])
def test_a_stopped_distinct_run_resumed_at_its_position_finds_the_same(stop_after: int) -> None:
    words = made_up(3, 11, "ABCDE", 3)
    whole = texts(words, 3, 6)
    asked = iter(range(10**9))
    tally = Tally()
    stop = lambda: next(asked) >= stop_after  # noqa: E731
    first = texts(words, 3, 6, tally=tally, stop=stop)
    assert tally.position < groups(words, 3, distinct=True) and first < whole
    assert first | texts(words, 3, 6, start=tally.position) == whole


def test_a_walk_that_passes_over_sets_still_asks_the_stop_hook() -> None:
    """Sets whose letters never fit are passed over whole, and the stop hook is still asked
    on the way (a halted run says where it stopped, and resumes there)."""
    # 2,024 words of three letters, no two with the same letters: in base 3 each fits alone,
    # no two together; the walk passes over every set, looking at each word with each other.
    words = ["".join(c) for c in combinations("ABCDEFGHIJKLMNOPQRSTUVWX", 3)]
    asked = []
    tally = Tally()

    def stop() -> bool:
        asked.append(tally.position)
        return len(asked) > 3

    found = compose(words, addends=4, base=3, distinct_words=True, tally=tally, stop=stop)
    assert list(found) == [] and len(asked) == 4 and tally.searched == 0
    total = groups(words, 4, distinct=True)
    assert 0 < tally.position < total
    # Every set before the position passed over, counted with its results; resumed there,
    # the rest is passed over too and the counts add up to a whole run's.
    rest = Tally()
    again = compose(words, addends=4, base=3, distinct_words=True, tally=rest, start=tally.position)
    assert list(again) == []
    each = len(words) - 4
    assert tally.candidates == tally.position * each
    passed_over = tally.skipped["letters"] + rest.skipped["letters"]
    assert tally.candidates + rest.candidates == total * each == passed_over


@pytest.mark.parametrize(
    "engine", ["native", pytest.param("python", marks=pytest.mark.slow)], indirect=True
)
def test_greek_letters_give_cryptator_s_counts(engine: str) -> None:
    """About 1 s on the native core, 15 s on the pure-Python engine (marked slow)."""
    words = words_of(GREEK.read_text().splitlines())
    assert len(words) == 24
    for addends, count in GREEK_COUNTS.items():
        assert len(list(compose(words, addends=addends, distinct_words=True))) == count, addends


@pytest.mark.slow
def test_colour_names_give_cryptator_s_counts() -> None:
    words = words_of(COLOURS.read_text().splitlines())
    assert len(words) == 143
    for addends, count in COLOUR_COUNTS.items():
        assert len(list(compose(words, addends=addends, distinct_words=True))) == count, addends


def test_the_command_line_composes_with_distinct_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = made_up(2, 11, "ABCDEF", 3)
    listed = tmp_path / "words.txt"
    listed.write_text("\n".join(words) + "\n")
    argv = ["compose", "--json", "--addends", "3", "--base", "7", str(listed)]
    assert main([*argv, "--distinct-words"]) == 0
    printed = {json.loads(line)["puzzle"] for line in capsys.readouterr().out.splitlines()}
    assert printed == brute_distinct(words, 3, 7)
    assert main(argv) == 0  # without it, a word may repeat: more sums
    repeated = {json.loads(line)["puzzle"] for line in capsys.readouterr().out.splitlines()}
    assert printed < repeated


def test_the_reach_counts_sets_of_distinct_words() -> None:
    assert check_reach(100, 2, 1.0, distinct=True) == 4950
    assert check_reach(10, 10, 1.0, distinct=True) == 1
    with pytest.raises(PuzzleError) as refused:
        check_reach(100, 10, 1_800.0, distinct=True)
    assert refused.value.code is ErrorCode.SETS_OUT_OF_REACH
    assert "17,310,309,456,440 sets" in str(refused.value)


def test_more_addends_than_words_make_no_sets() -> None:
    words = ["AB", "BC", "CA"]
    tally = Tally()
    assert list(compose(words, addends=4, distinct_words=True, tally=tally)) == []
    assert groups(words, 4, distinct=True) == 0 and tally.position == 0


def test_a_distinct_range_far_past_2_to_the_63_starts_at_once() -> None:
    """Ten distinct addends from 2,000 words make ~2.8e26 sets: a shard's range that far in
    starts where it says, its indexes Python integers."""
    words = [a + b + c for a in "ABCDEFGHIJKLM" for b in "NOPQRSTUVW" for c in "XYZABCDEFGHIJKLMN"]
    words = list(dict.fromkeys(words))[:2000]
    total = groups(words, 10, distinct=True)
    assert total > 2**87 and len(words) == 2000
    for start in (2**63 + 5, total // 2, total - 3):
        tally = Tally()
        found = list(compose(words, addends=10, tally=tally, start=start, end=start + 3,
                             distinct_words=True))  # fmt: skip
        assert found == [] and tally.position == start + 3
        assert tally.candidates == 3 * (len(words) - 10)


@pytest.mark.parametrize("stop_at", [1, 3, 10, 40])
def test_the_walk_halted_anywhere_resumes_where_it_said(stop_at: int) -> None:
    """The walk of the sets that fit, told to stop (among its steps or between its last
    words), says the index every set before which it has given; walked again from there, it
    gives the rest: together, the whole walk, in order."""
    words = words_of(GREEK.read_text().splitlines())
    masks = [sum(1 << (ord(x) - ord("A")) for x in set(word)) for word in words]
    total = groups(words, 5, distinct=True)
    whole = list(DistinctWalk(masks, 5, 10, (0, total), None).sets())
    assert len(whole) > 1000 and all(terms for _, terms in whole)
    calls = iter(range(1, 10**9))
    halted = list(DistinctWalk(masks, 5, 10, (0, total), lambda: next(calls) >= stop_at).sets())
    (stopped, last), given = halted[-1], halted[:-1]
    assert last == () and 0 <= stopped < total
    assert given == [item for item in whole if item[0] < stopped]
    rest = list(DistinctWalk(masks, 5, 10, (stopped, total), None).sets())
    assert given + rest == whole


@pytest.mark.parametrize("addends", [2, 3, 5, 7])
def test_the_walk_looks_at_no_more_sets_than_its_bound(addends: int) -> None:
    words = words_of(COLOURS.read_text().splitlines())
    masks = [sum(1 << (ord(x) - ord("A")) for x in set(word)) for word in words]
    total = groups(words, addends, distinct=True)
    walk = DistinctWalk(masks, addends, 10, (0, total), None)
    given = sum(1 for _ in walk.sets())
    tops = sum(1 for mask in masks if mask.bit_count() <= 10)  # each last word is looked at
    bound = walk_bound(masks, addends, 10)
    assert given <= walk.steps + tops <= bound < total


def test_the_reach_of_distinct_words_is_what_their_walk_looks_at(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seven of the 143 colours make 2.1e11 sets, past a day's walk at 200,000 a second, but
    the walk looks at 3.4e9 at most (those of words that fit with the last one): admitted;
    eight (3.7e10 at most) are not."""
    words = words_of(COLOURS.read_text().splitlines())
    day = 86_400.0
    with pytest.raises(PuzzleError):
        check_reach(len(words), 7, day, distinct=True)  # the sets alone
    assert check_reach(len(words), 7, day, True, words) < groups(words, 7, distinct=True)
    with pytest.raises(PuzzleError) as refused:
        check_reach(len(words), 8, day, True, words)
    assert "3,553,074,951,283 sets" in str(refused.value)
    assert main(["compose", "--count", "--distinct-words", "--addends", "7", str(COLOURS)]) == 0
    assert capsys.readouterr().out == "15\n"  # Cryptator's database: 15
