"""compose.count(): how many results compose() would yield, none written out, and
`alphametic compose --count`, against the brute force of tests/engine/test_compose_distinct.py
and the composer's own listing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alphametic.cli.main import main
from alphametic.compose import Tally, compose, count
from tests.support.words import DISTINCT_CASES as CASES
from tests.support.words import brute, brute_distinct, made_up

WORDS = ["AB", "BA", "CC", "ABC", "CAB", "BCA", "A", "B", "AD", "DAB"]


@pytest.mark.parametrize(("addends", "words", "base"), CASES[:4] + CASES[-1:])
def test_a_count_of_distinct_words_is_the_brute_force_s(
    engine: str, addends: int, words: list[str], base: int
) -> None:
    tally = Tally()
    counted = count(words, addends=addends, base=base, distinct_words=True, tally=tally)
    assert counted == len(brute_distinct(words, addends, base)) == tally.results > 0


@pytest.mark.parametrize(
    ("base", "policy", "wanted"), [(6, "multi-letter", 1), (7, "every-word", 2), (6, "allow", 1)]
)
def test_a_count_is_what_the_listing_lists(
    engine: str, base: int, policy: str, wanted: int
) -> None:
    options = {"base": base, "leading_zeros": policy, "solutions": wanted}
    listed = list(compose(WORDS, **options))  # type: ignore[arg-type]
    assert count(WORDS, **options) == len(listed) == len(brute(WORDS, 2, base, policy, wanted))  # type: ignore[arg-type]
    assert listed


def test_a_heavy_candidate_is_counted_by_the_search_engine() -> None:
    """A base-36 sum of many letters goes to the search engine (the columns have no stop
    hook): counted all the same."""
    words = ["TQKSA", "CZVX", "ODIKML", "AB", "BA"]
    assert count(words, base=36) == len(list(compose(words, base=36)))


def test_a_stopped_count_resumes_at_its_position() -> None:
    words = made_up(3, 11, "ABCDE", 3)
    whole = count(words, addends=3, base=6, distinct_words=True)
    asked = iter(range(10**9))
    tally = Tally()
    stop = lambda: next(asked) >= 20  # noqa: E731
    first = count(words, addends=3, base=6, distinct_words=True, tally=tally, stop=stop)
    # The results of the sets before the position, and the rest from there, make the whole.
    kept = sum(1 for c in compose(words, addends=3, base=6, distinct_words=True,
                                  end=tally.position))  # fmt: skip
    rest = count(words, addends=3, base=6, distinct_words=True, start=tally.position)
    assert kept <= first and kept + rest == whole > first


def test_the_command_line_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = tmp_path / "words.txt"
    listed.write_text("\n".join(WORDS) + "\n")
    assert main(["compose", "--count", "--base", "6", str(listed)]) == 0
    out = capsys.readouterr()
    expected = len(brute(WORDS, 2, 6, "multi-letter", 1))
    assert out.out == f"{expected}\n" and f"{expected} found" in out.err
    assert main(["compose", "--count", "--json", "--base", "6", str(listed)]) == 0
    assert json.loads(capsys.readouterr().out) == {"count": expected, "stopped": False}
    few = tmp_path / "few.txt"
    few.write_text("AB CD\n")  # every sum of them has many solutions
    assert main(["compose", "--count", str(few)]) == 1  # none: status 1
    assert capsys.readouterr().out == "0\n"
