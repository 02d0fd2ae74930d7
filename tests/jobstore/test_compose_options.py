"""A compose job's options as the job store admits them: `distinct_words` and `count_only`
JSON booleans, false when not given, part of what makes two submissions the same; the reach
weighed by the sets of distinct words when the store checks a run can walk the list's sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from alphametic.language.errors import ErrorCode, PuzzleError
from jobstore import Mode, OptionsError
from jobstore.compose import WordList, admit_compose, check_compose_options

WORDS = ["AB", "BA", "CC", "ABC"]


SWITCHES = pytest.mark.parametrize("name", ["distinct_words", "count_only"])


@SWITCHES
def test_a_switch_is_false_unless_given_true(name: str) -> None:
    assert check_compose_options({})[name] is False
    assert check_compose_options({name: True})[name] is True
    assert check_compose_options({name: False})[name] is False


@SWITCHES
@pytest.mark.parametrize("value", ["yes", 1, 0, None, [True], "true"])
def test_a_switch_must_be_a_boolean(name: str, value: object) -> None:
    with pytest.raises(OptionsError) as refused:
        check_compose_options({name: value})
    assert refused.value.field == f"options.{name}"
    assert "true or false" in str(refused.value)


@SWITCHES
def test_a_switch_makes_another_submission(name: str) -> None:
    plain = admit_compose(WORDS, {}, 100, 60.0)
    switched = admit_compose(WORDS, {name: True}, 100, 60.0)
    assert plain.fingerprint != switched.fingerprint
    assert admit_compose(WORDS, {name: False}, 100, 60.0).fingerprint == plain.fingerprint


def test_the_reach_is_weighed_by_sets_of_distinct_words() -> None:
    """30 words make 635,745,396 multisets of ten but 30,045,015 sets of ten distinct words:
    with 500 s of walking (100,000,000 sets at most) only the second is admitted."""
    words = [a + b for a in "ABCDEF" for b in "GHIJK"]
    assert len(words) == 30
    with pytest.raises(PuzzleError) as refused:
        admit_compose(words, {"addends": 10}, 100, 500.0)
    assert refused.value.code is ErrorCode.SETS_OUT_OF_REACH
    admitted = admit_compose(words, {"addends": 10, "distinct_words": True}, 100, 500.0)
    assert isinstance(admitted.puzzle, WordList)
    assert admitted.puzzle.options()["distinct_words"] is True


def test_distinct_words_too_many_sets_are_weighed_by_their_walk() -> None:
    """Seven of Cryptator's 143 colours: 2.1e11 sets, but a walk of at most 3.4e9 in base 10
    (admitted with a day's search); in base 36 every set fits, and the list is refused."""
    path = Path(__file__).resolve().parents[1] / "data" / "cryptator" / "colors.txt"
    words = path.read_text().split()
    options = {"addends": 7, "distinct_words": True}
    assert admit_compose(words, options, 200, 86_400.0).mode is Mode.COMPOSE
    with pytest.raises(PuzzleError) as refused:
        admit_compose(words, {**options, "base": 36}, 200, 86_400.0)
    assert refused.value.code is ErrorCode.SETS_OUT_OF_REACH
