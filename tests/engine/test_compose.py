"""The composer against an independent brute force written here: every multiset of addends,
every result, every assignment of distinct digits, counted with Python integers."""

from __future__ import annotations

import json
from itertools import combinations_with_replacement, permutations
from pathlib import Path

import pytest

from alphametic.cli.main import main
from alphametic.compose import Tally, compose, groups, words_of

WORDS = ["AB", "BA", "CC", "ABC", "CAB", "BCA", "A", "B", "AD", "DAB"]


def value(word: str, digits: dict[str, int], base: int) -> int:
    """The number a word spells in the base."""
    total = 0
    for letter in word:
        total = total * base + digits[letter]
    return total


def brute(
    words: list[str], addends: int, base: int, policy: str, wanted: int
) -> dict[str, list[dict[str, int]]]:
    """Puzzle text -> its solutions, for every candidate with exactly `wanted` solutions."""
    found: dict[str, list[dict[str, int]]] = {}
    for terms in combinations_with_replacement(sorted(set(words)), addends):
        for result in sorted(set(words)):
            if result in terms:
                continue
            everything = [*terms, result]
            letters = sorted(set("".join(everything)))
            if len(letters) > base:
                continue
            leading = {
                w[0]
                for w in everything
                if policy == "every-word" or (policy == "multi-letter" and len(w) > 1)
            }
            solutions = []
            for chosen in permutations(range(base), len(letters)):
                digits = dict(zip(letters, chosen, strict=True))
                if any(digits[letter] == 0 for letter in leading):
                    continue
                left = sum(value(w, digits, base) for w in terms)
                if left == value(result, digits, base):
                    solutions.append(digits)
            if len(solutions) == wanted:
                found[" + ".join(terms) + " = " + result] = solutions
    return found


@pytest.mark.parametrize(
    ("addends", "base", "policy", "wanted"),
    [
        (2, 6, "multi-letter", 1),
        (2, 6, "allow", 1),
        (2, 7, "every-word", 2),
        (3, 5, "multi-letter", 1),
        (2, 8, "every-word", 1),
    ],
)
def test_the_composer_finds_what_the_brute_force_finds(
    addends: int, base: int, policy: str, wanted: int
) -> None:
    tally = Tally()
    got = {
        c.puzzle.text: sorted(c.solutions, key=lambda s: sorted(s.items()))
        for c in compose(
            WORDS,
            addends=addends,
            base=base,
            leading_zeros=policy,
            solutions=wanted,
            tally=tally,
        )
    }
    expected = {
        text: sorted(s, key=lambda s: sorted(s.items()))
        for text, s in brute(WORDS, addends, base, policy, wanted).items()
    }
    assert got == expected
    assert expected  # the case finds something: a comparison of two empty sets proves little
    assert tally.results == len(got) and tally.searched <= tally.candidates


def test_ranges_find_what_one_whole_run_finds() -> None:
    """Sets of addends cut into three ranges find exactly what one whole run finds."""
    whole = sorted(c.puzzle.text for c in compose(WORDS, base=6))
    total = groups(WORDS)
    assert total == len(WORDS) * (len(WORDS) + 1) // 2
    cut = total // 3
    ranged = [c.puzzle.text for c in compose(WORDS, base=6, end=cut)]
    ranged += [c.puzzle.text for c in compose(WORDS, base=6, start=cut, end=2 * cut)]
    ranged += [c.puzzle.text for c in compose(WORDS, base=6, start=2 * cut)]
    assert sorted(ranged) == whole and len(whole) > 3


@pytest.mark.parametrize("stop_after", [1, 7, 40])
def test_a_stopped_run_resumed_at_its_position_finds_the_same(stop_after: int) -> None:
    """Stopped after some candidates and resumed at `Tally.position`: nothing is lost."""
    whole = {c.puzzle.text for c in compose(WORDS, base=6)}
    asked = iter(range(10**9))
    tally = Tally()
    stop = lambda: next(asked) >= stop_after  # noqa: E731
    first = {c.puzzle.text for c in compose(WORDS, base=6, tally=tally, stop=stop)}
    assert 0 <= tally.position < groups(WORDS) and first < whole
    rest = {c.puzzle.text for c in compose(WORDS, base=6, start=tally.position)}
    assert first | rest == whole


def test_words_are_folded_and_deduplicated() -> None:
    lines = ["# a comment", "send  ＭＯＲＥ", "", "money send", "no-word 42"]
    assert words_of(lines) == ["SEND", "MORE", "MONEY"]


def test_the_command_line_prints_the_same_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    assert main(["compose", "--json", "--base", "6", str(words)]) == 0
    lines = capsys.readouterr().out.splitlines()
    printed = {json.loads(line)["puzzle"]: json.loads(line) for line in lines}
    expected = brute(WORDS, 2, 6, "multi-letter", 1)
    assert set(printed) == set(expected)
    for text, out in printed.items():
        assert out["solutions"] == 1 and out["solution"] == expected[text][0]
        assert out["difficulty"]["label"] in {"easy", "medium", "hard", "fiendish"}
    assert main(["compose", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["compose", "--base", "37", str(words)]) == 2
    lone = tmp_path / "lone.txt"
    lone.write_text("WORD\n")
    assert main(["compose", str(lone)]) == 2
