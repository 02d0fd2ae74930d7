"""The search core: exact counts, a brute-force oracle, progress, stopping and shards."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Mapping
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphametic import LeadingZeros, Puzzle, Search, as_dict, count, estimate, parse, shards, solve
from alphametic.linear.plan import forget_plans
from tests.support.strategies import puzzles

# 10 letters, every coefficient non-zero, no solution: the full tree is searched.
# Every test here runs on both engines (tests/engine/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")

UNSOLVABLE = "ABCDE + FGHIJ = JIHGFA"
# 10 letters, 4 of them with a zero coefficient (many solutions from permutations).
IDLE = "ABC + DEFG = ABC + DEFG + HI - HI + J - J"


def value(word: str, digits: Mapping[str, int], base: int) -> int:
    """Return the number a word spells."""
    total = 0
    for letter in word:
        total = total * base + digits[letter]
    return total


def holds(puzzle: Puzzle, digits: Mapping[str, int]) -> bool:
    """Return whether the digits satisfy the puzzle's arithmetic, evaluated word by word."""
    left = sum(sign * value(w, digits, puzzle.base) for sign, w in puzzle.left)
    right = sum(sign * value(w, digits, puzzle.base) for sign, w in puzzle.right)
    return left == right


def oracle(puzzle: Puzzle) -> set[tuple[int, ...]]:
    """Return every solution by trying all digit permutations (independent of the engine)."""
    words = [w for _, w in puzzle.left + puzzle.right]
    policy = puzzle.leading_zeros
    shortest = {LeadingZeros.ALLOW: 99, LeadingZeros.MULTI_LETTER: 2}.get(policy, 1)
    leading = {w[0] for w in words if len(w) >= shortest}
    found = set()
    for digits in itertools.permutations(range(puzzle.base), len(puzzle.letters)):
        mapping = dict(zip(puzzle.letters, digits, strict=True))
        if any(mapping[x] == 0 for x in leading):
            continue
        if any(mapping[x] != d for x, d in puzzle.fixed.items()):
            continue
        if holds(puzzle, mapping):
            found.add(digits)
    return found


@pytest.mark.parametrize(
    ("text", "options", "expected"),
    [
        ("SEND + MORE = MONEY", {}, 1),
        ("BASE + BALL = GAMES", {}, 1),
        ("BASE + BALL = GAMES", {"leading_zeros": "allow"}, 3),
        ("NUM + BER = PLAY", {}, 96),
        ("ABC + DEF = GHI", {}, 1088),
        ("AB + DC = CBB", {}, 0),
        ("BILL + GATES = GREAT", {}, 74),
        ("CP + IS + FUN = TRUE", {}, 72),
        ("A + B + C + D + E + F + G + H = IJ", {}, 40320),
        ("SEND + MORE = MONEY", {"base": 11}, 3),
        ("SEND + MORE = MONEY", {"base": 12}, 6),
        ("SEND + MORE = MONEY", {"base": 16}, 28),
        ("ABCDE + FGHIJ = ABCDE + FGHIJ", {}, 2903040),
        (UNSOLVABLE, {}, 0),
    ],
)
def test_known_counts_in_count_and_all_mode(
    text: str, options: dict[str, Any], expected: int
) -> None:
    puzzle = parse(text, **options)
    assert count(puzzle) == expected
    if expected <= 50_000:
        search = Search(puzzle)
        listed = list(search.solutions())
        assert len(listed) == len(set(listed)) == expected == search.found
        assert search.progress == 1.0 and not search.stopped


def test_count_mode_on_a_puzzle_with_141120_solutions() -> None:
    search = Search(parse("A + B + C + D + E = F + G + H + I"))
    assert search.count() == 141_120 == search.found
    assert search.progress == 1.0


def test_base_ball_games_answers() -> None:
    strict = parse("BASE + BALL = GAMES")
    assert list(solve(strict)) == [{"A": 4, "B": 7, "E": 3, "G": 1, "L": 5, "M": 9, "S": 8}]
    allowed = list(solve(parse("BASE + BALL = GAMES", leading_zeros="allow")))
    assert {"A": 4, "B": 2, "E": 1, "G": 0, "L": 5, "M": 9, "S": 6} in allowed
    assert len(allowed) == 3


def test_every_word_policy_forbids_a_zero_one_letter_word() -> None:
    text = "A + B + C = DE"
    every = parse(text, leading_zeros="every-word")
    default = parse(text)
    assert all(0 not in (s["A"], s["B"], s["C"]) for s in solve(every))
    assert any(0 in (s["A"], s["B"], s["C"]) for s in solve(default))
    assert set(Search(every).solutions()) == oracle(every)


def test_fixed_letters_restrict_the_search() -> None:
    assert count(parse("SEND + MORE = MONEY", fixed={"E": 5, "Y": 2})) == 1
    assert count(parse("SEND + MORE = MONEY", fixed={"E": 4})) == 0
    play = parse("NUM + BER = PLAY", fixed={"A": 3})
    a = play.letters.index("A")
    unfixed = [s for s in Search(parse("NUM + BER = PLAY")).solutions() if s[a] == 3]
    assert list(Search(play).solutions()) == unfixed
    assert count(play) == len(unfixed) > 0
    # A fixed letter with a zero coefficient still takes its digit away from the others.
    idle = parse("AB + C - C = AB", fixed={"C": 7})
    assert count(idle) == 8 * 8 and all(s[2] == 7 for s in Search(idle).solutions())


def test_first_solution_and_as_dict() -> None:
    puzzle = parse("SEND + MORE = MONEY")
    compact = next(Search(puzzle).solutions())
    assert as_dict(puzzle, compact) == dict(zip("DEMNORSY", (7, 5, 1, 6, 0, 8, 9, 2), strict=True))
    assert next(solve(puzzle)) == as_dict(puzzle, compact)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(puzzles())
def test_search_matches_the_brute_force_oracle(puzzle: Puzzle) -> None:
    expected = oracle(puzzle)
    search = Search(puzzle)
    listed = list(search.solutions())
    assert set(listed) == expected
    assert len(listed) == len(expected)
    assert count(puzzle) == len(expected)
    for compact in listed:
        assert holds(puzzle, as_dict(puzzle, compact))
    assert search.progress == 1.0


@settings(max_examples=40, deadline=None)
@given(puzzles(), st.integers(1, 3))
def test_shards_concatenate_to_the_unsharded_search(puzzle: Puzzle, depth: int) -> None:
    whole = list(Search(puzzle).solutions())
    parts = shards(puzzle, depth)
    pieces = [s for prefix, _ in parts for s in Search(puzzle, prefix=prefix).solutions()]
    assert pieces == whole
    if parts:
        assert sum(share for _, share in parts) == pytest.approx(1.0)
        assert all(share > 0 for _, share in parts)
    assert sum(Search(puzzle, prefix=p).count() for p, _ in parts) == len(whole)


@settings(max_examples=60, deadline=None)
@given(puzzles(), st.lists(st.integers(0, 9), max_size=3))
def test_a_prefix_selects_the_solutions_that_start_with_it(
    puzzle: Puzzle, prefix: list[int]
) -> None:
    whole = Search(puzzle)
    prefix = prefix[: len(whole.order)]
    slots = [puzzle.letters.index(x) for x in whole.order[: len(prefix)]]
    expected = [s for s in whole.solutions() if [s[k] for k in slots] == prefix]
    part = Search(puzzle, prefix=prefix)
    assert list(part.solutions()) == expected
    assert part.progress == 1.0
    assert Search(puzzle, prefix=prefix).count() == len(expected)


@pytest.mark.parametrize(
    "text", ["A + B + C + D = E + F + G + H", "AB + BA + CD - CD = EFE", "A + B + CD - CD = E + F"]
)
def test_shards_of_bigger_puzzles(text: str) -> None:
    puzzle = parse(text)
    whole = list(Search(puzzle).solutions())
    parts = shards(puzzle, 2)
    assert len(parts) > 1
    pieces = [s for prefix, _ in parts for s in Search(puzzle, prefix=prefix).solutions()]
    assert pieces == whole


def test_order_and_prefixes_of_send_more_money() -> None:
    puzzle = parse("SEND + MORE = MONEY")
    search = Search(puzzle)
    # Biggest |coefficient| first: M is -9000, S 1000, O -900, E 91, N -90, R 10, D 1, Y -1.
    assert search.order == ("M", "S", "O", "E", "N", "R", "D", "Y")
    assert list(Search(puzzle, prefix=[9]).solutions()) == []  # M must be 1
    assert list(Search(puzzle, prefix=[1, 9]).solutions()) == list(search.solutions())
    assert Search(puzzle, prefix=[1, 8]).count() == 0
    with pytest.raises(ValueError):
        Search(puzzle, prefix=[1] * 9)


def test_fixed_letters_are_not_searched() -> None:
    puzzle = parse("SEND + MORE = MONEY", fixed={"M": 1, "Y": 2})
    search = Search(puzzle)
    assert search.order == ("S", "O", "E", "N", "R", "D")
    assert [as_dict(puzzle, s)["S"] for s in search.solutions()] == [9]


def _watch(search: Search, seen: list[float], stop_after: int | None = None) -> bool:
    """Record progress; ask to stop after a number of calls."""
    assert 0.0 <= search.progress < 1.0
    seen.append(search.progress)
    return stop_after is not None and len(seen) >= stop_after


@pytest.mark.parametrize("mode", ["all", "count"])
def test_progress_only_rises_and_ends_at_one(mode: str) -> None:
    seen: list[float] = []
    search = Search(parse(UNSOLVABLE), check=lambda s: _watch(s, seen), check_interval=0)
    if mode == "all":
        assert list(search.solutions()) == []
    else:
        assert search.count() == 0
    assert len(seen) > 3
    assert seen == sorted(seen) and seen[-1] > 0
    assert search.progress == 1.0 and not search.stopped and search.nodes > 1000


@pytest.mark.parametrize("text", [UNSOLVABLE, IDLE])
def test_the_check_hook_stops_all_mode(text: str) -> None:
    seen: list[float] = []
    search = Search(parse(text), check=lambda s: _watch(s, seen, 3), check_interval=0)
    found = list(search.solutions())
    assert search.stopped and len(seen) == 3
    assert search.progress < 1.0
    assert len(found) == search.found
    if text == IDLE:
        assert 0 < search.found < count(parse(text))


def test_the_check_hook_stops_count_mode() -> None:
    seen: list[float] = []
    search = Search(parse(UNSOLVABLE), check=lambda s: _watch(s, seen, 2), check_interval=0)
    assert search.count() == 0
    assert search.stopped and search.progress < 1.0


def test_a_stopped_generator_yields_a_prefix_of_the_full_order() -> None:
    puzzle = parse("A + B + C + D = E + F + G + H")
    whole = list(Search(puzzle).solutions())
    calls: list[float] = []
    search = Search(puzzle, check=lambda s: _watch(s, calls, 2), check_interval=0)
    part = list(search.solutions())
    assert search.stopped and 0 < len(part) < len(whole)
    assert part == whole[: len(part)]


def test_the_check_hook_is_called_during_a_long_search() -> None:
    calls: list[Search] = []
    search = Search(
        parse("CP + IS + FUN = TRUE", base=16), check=calls.append, check_interval=0.002
    )
    assert sum(1 for _ in search.solutions()) == 39_564
    assert len(calls) >= 2 and not search.stopped


def test_estimate_is_positive_and_deterministic() -> None:
    puzzle = parse(UNSOLVABLE)
    assert estimate(puzzle) == estimate(puzzle) >= 1.0
    assert estimate(parse("SEND + MORE = MONEY")) < estimate(puzzle)


def test_importing_alphametic_loads_no_third_party_module() -> None:
    code = (
        "import sys; before = set(sys.modules); import alphametic; "
        "new = {m.split('.')[0] for m in set(sys.modules) - before}; "
        "bad = sorted(m for m in new if m not in sys.stdlib_module_names and m != 'alphametic'); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    banned = (
        "import alphametic, sys; "
        "print([m for m in ('celery', 'redis', 'flask', 'kombu') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", banned], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_runs_over_one_puzzle_share_its_tables_and_stay_exact() -> None:
    puzzle = parse("A + B + C + D + E = F + G + H + I")
    forget_plans()
    parts = shards(puzzle, 2)
    shard = Search(puzzle, prefix=parts[0][0])
    shard_plan, whole_plan = shard._plan, Search(puzzle)._plan  # sums: the linear plan
    assert shard_plan is not None and whole_plan is not None
    assert shard_plan.bounds is whole_plan.bounds  # built once per puzzle
    # Runs stopped part-way (count and all mode) must leave nothing partial in the memos.
    for stop_after in (1, 2, 4):
        for mode in ("count", "all"):
            hook = partial(_watch, seen=[], stop_after=stop_after)
            run = Search(puzzle, check=hook, check_interval=0)
            found = run.count() if mode == "count" else sum(1 for _ in run.solutions())
            assert found < 141_120 if run.stopped else found == 141_120
    assert sum(Search(puzzle, prefix=p).count() for p, _ in parts) == 141_120 == count(puzzle)
    pieces = [s for p, _ in parts for s in Search(puzzle, prefix=p).solutions()]
    forget_plans()
    assert pieces == list(Search(puzzle).solutions())


@pytest.mark.parametrize("text", ["ABC + DE = ABC + DE", IDLE])
def test_progress_advances_inside_the_lazy_runs_of_zero_coefficient_letters(text: str) -> None:
    total = count(parse(text))
    seen: list[tuple[float, int]] = []
    search = Search(parse(text), check_interval=0)
    search.check = lambda s: seen.append((s.progress, s.found))
    listed = list(search.solutions())
    assert len(listed) == total and search.progress == 1.0
    marks = [p for p, _ in seen]
    assert len(marks) > 10 and marks == sorted(marks) and marks[-1] < 1.0
    if text == IDLE:
        assert len(set(marks)) > len(marks) // 2  # it moves within runs, not only between them
    else:
        # Every letter has a zero coefficient: 72 runs of 336 solutions over a uniform tree,
        # so the progress is exactly the share of solutions handed out.
        assert all(p == pytest.approx(found / total, abs=1e-9) for p, found in seen)
