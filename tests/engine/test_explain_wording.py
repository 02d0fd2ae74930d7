"""What the explanation says follows the puzzle's options and what was actually found."""

from __future__ import annotations

import pytest

import alphametic.explain.walkthrough as explain_module
from alphametic import parse
from alphametic.explain.ja import JAPANESE
from alphametic.explain.text import ENGLISH, Step
from alphametic.explain.th import THAI
from alphametic.explain.walkthrough import explain

TABLES = {"en": ENGLISH, "ja": JAPANESE, "th": THAI}
# How each language says that a letter cannot be 0 in the 'longer result' step.
NOT_ZERO = {"en": "M cannot be 0", "ja": "M は 0 ではない", "th": "M เป็น 0 ไม่ได้"}


def extra_steps(text: str, leading_zeros: str, fixed: dict[str, int] | None = None) -> list[Step]:
    """Return the 'longer result' steps of the puzzle's explanation."""
    steps = explain(parse(text, leading_zeros=leading_zeros, fixed=fixed)).steps
    return [step for step in steps if step.key.startswith("extra_column")]


@pytest.mark.parametrize("policy", ["multi-letter", "every-word"])
def test_a_leading_letter_that_may_not_be_0_is_said_not_to_be(policy: str) -> None:
    first = extra_steps("SEND + MORE = MONEY", leading_zeros=policy)[0]
    assert first.key == "extra_column" and first.facts == {"M": [1]}
    assert first.text().endswith("at most 1. M cannot be 0, so M = 1 and c4 = 1.")
    for code, table in TABLES.items():
        assert NOT_ZERO[code] in first.text(table), code


def test_every_word_also_keeps_a_one_letter_word_from_0() -> None:
    steps = explain(parse("A + B = CD", leading_zeros="every-word")).steps
    assert steps[0].text() == "A, B and C start words, so none of them is 0."
    extra = [step for step in steps if step.key.startswith("extra_column")]
    assert [step.key for step in extra] == ["extra_column"]
    assert extra[0].text().endswith("C cannot be 0, so C = 1 and c1 = 1.")


def test_with_leading_zeros_allowed_the_letter_is_just_the_carry() -> None:
    steps = extra_steps("SEND + MORE = MONEY", leading_zeros="allow")
    assert {step.key for step in steps} == {"extra_column_plain"}
    first = steps[0]
    assert first.case is None and first.facts == {"M": [0, 1]}
    assert first.text() == (
        "MONEY is longer than every word added, so its first letter M is just the carry out of "
        "the column to its right, and that carry is at most 1, so M is 0 or 1."
    )
    in_case = [step for step in steps if step.case == "M = 0"]
    assert in_case and in_case[0].text().endswith("that carry is at most 1, so c4 = 0.")
    for step in steps:
        for code, table in TABLES.items():
            assert NOT_ZERO[code] not in step.text(table), (code, step.case)


def test_nothing_in_an_allow_explanation_says_a_letter_cannot_be_0() -> None:
    explanation = explain(parse("SEND + MORE = MONEY", leading_zeros="allow"))
    assert not any("cannot be 0" in line or "not 0" in line for line in explanation.lines())


def test_a_0_taken_by_another_letter_is_the_reason_when_zeros_are_allowed() -> None:
    steps = extra_steps("SEND + MORE = MONEY", leading_zeros="allow", fixed={"O": 0})
    assert steps[0].key == "extra_column_not_zero" and steps[0].facts == {"M": [1]}
    assert steps[0].text().endswith("M is already known not to be 0, so M = 1 and c4 = 1.")


@pytest.mark.parametrize(
    ("count", "english"),
    [
        (1, "The puzzle has at least one solution: 1 + 2 = 3."),
        (7, "The puzzle has at least 7 solutions; the first is 1 + 2 = 3."),
    ],
)
def test_a_count_cut_short_is_a_lower_bound(count: int, english: str) -> None:
    puzzle = parse("A + B = C")
    step = explain_module._ending(puzzle, {"A": 1, "B": 2, "C": 3}, count, False, 5.0)
    assert step.text() == english and step.facts == {}
    texts = {code: step.text(table) for code, table in TABLES.items()}
    assert "少なくとも" in texts["ja"] and "อย่างน้อย" in texts["th"]
    if count > 1:
        assert all(str(count) in text for text in texts.values())


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("A + B + C + D + E = F + G + H + I", "solutions_many"),  # 141,120: a second or so
        ("NORTH * WEST = EAST * SOUTH", "solution_at_least_one"),
    ],
)
def test_explain_says_at_least_when_counting_runs_out_of_time(text: str, key: str) -> None:
    # A budget of 0 nodes: the count stops at its first look, however fast the machine.
    explanation = explain(parse(text), count_nodes=0)
    assert not explanation.count_complete and explanation.steps[-1].key == key
    line = explanation.lines()[-2]
    assert line.startswith("The puzzle has at least ") and "more than" not in line
    if key == "solutions_many":
        assert f"at least {explanation.count} solutions;" in line and explanation.count > 1
