"""The composer against an independent brute force (tests/support/words.py): every multiset
of addends, every result, every assignment of distinct digits, counted with Python integers."""

from __future__ import annotations

import json
import random
from itertools import combinations_with_replacement, permutations
from pathlib import Path

import pytest

from alphametic.cli.main import main
from alphametic.compose import (
    LONGEST,
    Tally,
    candidates,
    check_reach,
    compose,
    groups,
    words_of,
)
from alphametic.language.errors import ErrorCode, PuzzleError
from alphametic.language.options import LeadingZeros
from alphametic.linear.columns import count_columns, counter
from tests.support.words import brute, value

WORDS = ["AB", "BA", "CC", "ABC", "CAB", "BCA", "A", "B", "AD", "DAB"]
# Results whose leading letter repeats: with 0-led words allowed, "CCD" may be worth just D.
RUNS = [*WORDS, "AAB", "CCD", "BBCA", "DDDB"]


@pytest.mark.parametrize(
    ("words", "addends", "base", "policy", "wanted"),
    [
        (WORDS, 2, 6, "multi-letter", 1),
        (WORDS, 2, 6, "allow", 1),
        (WORDS, 2, 7, "every-word", 2),
        (WORDS, 3, 5, "multi-letter", 1),
        (WORDS, 2, 8, "every-word", 1),
        (RUNS, 2, 5, "allow", 1),
        (RUNS, 2, 6, "allow", 2),
        (RUNS, 3, 3, "every-word", 1),
        (RUNS, 2, 4, "multi-letter", 2),
    ],
)
def test_the_composer_finds_what_the_brute_force_finds(
    engine: str, words: list[str], addends: int, base: int, policy: str, wanted: int
) -> None:
    tally = Tally()
    got = {
        c.puzzle.text: sorted(c.solutions, key=lambda s: sorted(s.items()))
        for c in compose(
            words,
            addends=addends,
            base=base,
            leading_zeros=policy,
            solutions=wanted,
            tally=tally,
        )
    }
    expected = {
        text: sorted(s, key=lambda s: sorted(s.items()))
        for text, s in brute(words, addends, base, policy, wanted).items()
    }
    assert got == expected
    assert expected  # the case finds something: a comparison of two empty sets proves little
    assert tally.results == len(got) and tally.searched <= tally.candidates


def brute_solutions(
    base: int, addends: tuple[str, ...], result: str, shortest: int
) -> list[dict[str, int]]:
    """Every assignment of distinct digits that makes the sum hold (words of `shortest`
    letters or more, 0: none, not starting with 0)."""
    words = (*addends, result)
    letters = sorted(set("".join(words)))
    leading = {w[0] for w in words if shortest and len(w) >= shortest}
    found = []
    for chosen in permutations(range(base), len(letters)):
        digits = dict(zip(letters, chosen, strict=True))
        if all(digits[x] for x in leading):
            left = sum(value(w, digits, base) for w in addends)
            if left == value(result, digits, base):
                found.append(digits)
    return found


def random_sums(seed: int, count: int) -> list[tuple[int, tuple[str, ...], str, int]]:
    """Small random sums (base, addends, result, shortest): letters repeat within a word and a
    column, results may be shorter than the addends, letters may outnumber the digits."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        base = rng.randint(2, 7)
        alphabet = "ABCDEFG"[: rng.randint(1, min(base + 1, 6))]
        words = ["".join(rng.choices(alphabet, k=rng.randint(1, 4))) for _ in range(4)]
        addends = tuple(words[: rng.randint(1, 3)])
        out.append((base, addends, words[3], rng.choice([0, 1, 2])))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_columns_count_what_the_brute_force_counts(engine: str, seed: int) -> None:
    """Each engine's column count (solved columns, repeated letters, caps) is exact, and the
    solution it keeps when asked is one of the sum's."""
    count = counter()
    assert (count is count_columns) == (engine == "python")  # the engine's own twin runs
    seen = set()
    for base, addends, result, shortest in random_sums(seed, 250):
        every = brute_solutions(base, addends, result, shortest)
        full = len(every)
        seen.add(min(full, 2))
        for cap in (1, 2, full + 1):
            kept: dict[str, int] = {}
            got = count(base, addends, result, shortest, cap, kept)
            assert got == min(full, cap), (base, addends, result, shortest, cap)
            assert kept in every if every else kept == {}
        assert count(base, addends, result, shortest, 2) == min(full, 2)  # no dict: the same
    assert seen == {0, 1, 2}  # none, one and several solutions all came up
    with pytest.raises(ValueError, match="empty word"):
        count(10, ("AB", ""), "CD", 2, 2)


# Long sums: many columns past the result's length, or one more in the result.
LONG_SUMS = [
    (6, ("A" * 150 + "B", "B" * 150 + "A"), "C" + "A" * 149 + "B", 0),
    (6, ("A" * 150 + "B", "B"), "C", 0),
    (5, ("C" * 150 + "B", "B" * 150 + "A"), "CA", 0),
    (5, ("A" * 150 + "B", "B" * 150 + "A"), "C" * 151, 2),
    (6, ("BA" * 70, "AB" * 70), "BCA", 1),
    (4, ("B" * 150 + "A", "A"), "B" * 150 + "C", 2),
]


@pytest.mark.parametrize(("base", "addends", "result", "shortest"), LONG_SUMS)
def test_columns_count_long_sums_like_the_brute_force(
    engine: str, base: int, addends: tuple[str, ...], result: str, shortest: int
) -> None:
    every = brute_solutions(base, addends, result, shortest)
    kept: dict[str, int] = {}
    assert counter()(base, addends, result, shortest, 3, kept) == min(len(every), 3)
    assert kept in every if every else kept == {}


def least(word: str, base: int, shortest: int, whole: bool) -> int:
    """The least a word can be worth: a word that may not start with 0 has all its digits;
    else 0, or (a result, `whole`) what the letters after its leading letter's run spell."""
    if shortest and len(word) >= shortest:
        return int(base ** (len(word) - 1))
    rest = word.lstrip(word[0])
    return int(base ** (len(rest) - 1)) if whole and rest and not shortest else 0


def pruned(
    words: list[str], addends: int, base: int, policy: str
) -> tuple[list[tuple[int, str]], dict[str, int], int]:
    """Candidate by candidate: those worth a search (with their set's index), the others by
    reason (letters first), and how many there are in all."""
    shortest = {"allow": 0, "multi-letter": 2}.get(policy, 1)
    kept: list[tuple[int, str]] = []
    skipped: dict[str, int] = {}
    total = 0
    # The list's order; its sets of addends by their last word, then as they come: the list
    # grows word by word.
    sets = combinations_with_replacement(range(len(words)), addends)
    for group, chosen in enumerate(sorted(sets, key=lambda t: (t[-1], t))):
        terms = tuple(words[i] for i in chosen)
        for result in words:
            if result in terms:
                continue
            total += 1
            most = sum(base ** len(w) - 1 for w in terms)
            low = sum(least(w, base, shortest, False) for w in terms)
            why = None
            if len(set("".join((*terms, result)))) > base:
                why = "letters"
            elif least(result, base, shortest, True) > most or base ** len(result) - 1 < low:
                why = "lengths"
            if why:
                skipped[why] = skipped.get(why, 0) + 1
            else:
                kept.append((group, " + ".join(terms) + " = " + result))
    return kept, skipped, total


# Longer words too (letters beyond small bases), and one word twice.
MIXED = [*RUNS, "ABCDE", "EDCBA", "BEAD", "FACE", "CAFE", "DEAF", "FADED", "AB"]


@pytest.mark.parametrize(
    ("addends", "base", "policy"),
    [
        (2, 10, "multi-letter"),
        (2, 6, "allow"),
        (3, 5, "every-word"),
        (2, 4, "multi-letter"),
        (4, 3, "every-word"),
        (1, 6, "allow"),
        (3, 6, "allow"),
    ],
)
def test_the_pruning_leaves_what_each_rule_leaves(addends: int, base: int, policy: str) -> None:
    """Counted a bucket at a time, the skipped candidates are those the letter and length
    rules skip one by one, and the rest come in the same order."""
    kept, skipped, total = pruned(MIXED, addends, base, policy)
    tally = Tally()
    got = list(candidates(MIXED, addends, base, LeadingZeros(policy), tally))
    assert got == kept
    assert tally.skipped == skipped and tally.candidates == total
    assert tally.position == groups(MIXED, addends)
    assert kept and "lengths" in skipped  # the rules fired (letters where the base is short)
    assert ("letters" in skipped) == (base < 6)


# Words too long for the column count (past compose.LONGEST): the search engine decides.
LONG = ["AB", "BA", "B", "C", "CA", "A" * 250 + "B", "B" * 250 + "A", "C" + "A" * 249 + "B"]


def test_candidates_with_long_words_find_what_the_brute_force_finds(engine: str) -> None:
    got = {c.puzzle.text: c.solutions for c in compose(LONG, base=6, leading_zeros="allow")}
    expected = brute(LONG, 2, 6, "allow", 1)
    assert {text: list(found) for text, found in got.items()} == expected
    assert any(len(text) > 2 * LONGEST for text in expected)  # long ones among them


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


@pytest.mark.parametrize(("order", "sign"), [("easiest", 1), ("hardest", -1)])
def test_the_command_line_prints_by_difficulty_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], order: str, sign: int
) -> None:
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    assert main(["compose", "--json", "--base", "6", str(words)]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["compose", "--json", "--base", "6", "--order", order, str(words)]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(map(json.dumps, listed)) == sorted(map(json.dumps, found))
    keys = [(sign * item["difficulty"]["score"], item["puzzle"]) for item in listed]
    assert keys == sorted(keys) and listed != found  # ordered, and not as found
    assert main(["compose", "--order", "best", str(words)]) == 2


def test_the_sets_of_addends_grow_with_the_list() -> None:
    """A run cut short has used the list's first words (a frequency list's commonest), not
    its first word with every other one; addends are written in the list's order."""
    words = ["THE", "TO", "AND", "OF", "IN", "IS", "FOR", "THAT", "YOU", "IT"]
    for k in range(1, len(words) + 1):
        first = groups(words[:k])  # every set within the first k words, and no other
        texts = [text for group, text in candidates(words, end=first)]
        used = {word for text in texts for word in text.split(" = ")[0].split(" + ")}
        assert used <= set(words[:k]), (k, used)
        for text in texts:
            terms = text.split(" = ")[0].split(" + ")
            assert [words.index(t) for t in terms] == sorted(words.index(t) for t in terms)
    later = [text for _, text in candidates(words, start=groups(words[:3]), end=groups(words[:4]))]
    assert later and all("OF" in text.split(" = ")[0].split(" + ") for text in later)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--addends", "11"], "addends must be from 1 to 10"),
        (["--addends", "0"], "addends must be from 1 to 10"),
        (["--solutions", "1001"], "solutions must be from 1 to 1000"),
    ],
)
def test_the_command_line_refuses_counts_as_the_api_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    """The engine's one check of the counts (alphametic.compose.check_counts): exit status 2."""
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    assert main(["compose", *argv, str(words)]) == 2
    assert says in capsys.readouterr().err


def _reference_sets(n: int, addends: int) -> list[tuple[int, ...]]:
    """The run's order of the sets of addends, written out: by last word, the others in
    lexicographic order (every set of the first k words before any with word k+1)."""
    return [
        (*others, top)
        for top in range(n)
        for others in combinations_with_replacement(range(top + 1), addends - 1)
    ]


@pytest.mark.parametrize(("n", "addends"), [(1, 1), (5, 1), (6, 2), (5, 3), (4, 5)])
def test_a_range_of_sets_is_the_run_s_order_from_any_start(n: int, addends: int) -> None:
    words = [chr(ord("A") + i) * 2 for i in range(n)]
    whole = _reference_sets(n, addends)
    assert groups(words, addends) == len(whole)
    for start in range(len(whole) + 1):
        for end in (start, start + 1, start + 7, len(whole), len(whole) + 3):
            tally = Tally()
            list(compose(words, addends=addends, base=36, tally=tally, start=start, end=end))
            assert tally.position == (start if start >= len(whole) else min(end, len(whole)))
    texts = [t for _, t in candidates(words, addends, 36, start=3, end=9)]
    expected = [
        f"{' + '.join(words[i] for i in terms)} = {r}"
        for terms in whole[3:9]
        for r in words
        if r not in {words[i] for i in terms}
    ]
    assert texts == expected


def test_a_range_far_past_2_to_the_63_starts_at_once() -> None:
    """Ten addends from 2,000 words make ~2.9e26 sets: a shard's range that far in starts where
    it says (the old walk skipped to it with islice, whose bounds stop at 2**63)."""
    words = [a + b + c for a in "ABCDEFGHIJKLM" for b in "NOPQRSTUVW" for c in "XYZABCDEFGHIJKLMN"]
    words = words[:2000]
    total = groups(words, 10)
    assert total > 2**87
    for start in (2**63 + 5, total // 2, total - 3):
        tally = Tally()
        found = list(compose(words, addends=10, tally=tally, start=start, end=start + 3))
        assert found == [] and tally.searched == 0 and tally.position == start + 3


def test_a_list_no_run_could_walk_is_refused(tmp_path: Path) -> None:
    assert check_reach(100, 2, 1.0) == 5050
    with pytest.raises(PuzzleError) as refused:
        check_reach(100, 10, 1_800.0)
    assert refused.value.code is ErrorCode.SETS_OUT_OF_REACH
    assert refused.value.field == "options.addends"
    assert "42,634,215,112,710 sets" in str(refused.value)
    words = tmp_path / "words.txt"
    words.write_text("\n".join(f"{a}{b}{c}" for a in "ABCDE" for b in "FGHIJ" for c in "KLMN"))
    assert main(["compose", "--addends", "10", str(words)]) == 2
