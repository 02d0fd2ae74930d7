"""Explanations: every fact they state is checked against the engine's full solution set."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from alphametic import Puzzle, PuzzleError, Search, as_dict, parse
from alphametic.explain.ja import JAPANESE
from alphametic.explain.model import Model
from alphametic.explain.text import render
from alphametic.explain.th import THAI
from alphametic.explain.walkthrough import ENGLISH, Explanation, explain

DATA = Path(__file__).resolve().parent.parent / "data"
EXERCISM = json.loads((DATA / "exercism-alphametics.json").read_text())["cases"]
CLASSICS = [
    "SEND + MORE = MONEY",
    "DONALD + GERALD = ROBERT",
    "CROSS + ROADS = DANGER",
    "FORTY + TEN + TEN = SIXTY",
    "BASE + BALL = GAMES",
    "TWO + TWO = FOUR",
    "ODD + ODD = EVEN",
    "COUNT - COIN = SNUB",
    "NUM + BER = PLAY",
    "A + B + C + D + E = F + G + H + I + J",
    "AB + DC = CBB",
    "SATURN + URANUS + NEPTUNE + PLUTO = PLANETS",
]


def solutions(puzzle: Puzzle) -> list[dict[str, int]]:
    """Return every solution, enumerated by the engine."""
    return [as_dict(puzzle, compact) for compact in Search(puzzle).solutions()]


def case_of(label: str | None) -> dict[str, int]:
    """Return the assignments a case label such as 'A = 4, c3 = 1' makes."""
    if label is None:
        return {}
    return {name: int(value) for name, value in re.findall(r"([A-Z]|c\d+) = (-?\d+)", label)}


def with_carries(puzzle: Puzzle, solution: dict[str, int]) -> dict[str, int]:
    """Return the solution with its column carries added as c1, c2, ..."""
    out = dict(solution)
    carry = 0
    for column in Model.of(puzzle).columns:
        total = sum(c * solution[x] for x, c in column.terms) + carry
        assert total % puzzle.base == 0
        carry = total // puzzle.base
        out[f"c{column.index + 1}"] = carry
    return out


def check_facts(explanation: Explanation, every: list[dict[str, int]]) -> None:
    """Assert each step's facts hold for every solution in its case (all of them outside cases)."""
    puzzle = explanation.puzzle
    full = [with_carries(puzzle, s) for s in every] if puzzle.left else every
    for step in explanation.steps:
        assumed = case_of(step.case)
        inside = [s for s in full if all(s[x] == d for x, d in assumed.items())]
        if step.key == "case_fails":
            assert not inside, f"{step.case} fails, yet has solutions"
        for letter, digits in step.facts.items():
            for solution in inside:
                assert solution[letter] in digits, (step.key, step.case, letter, digits, solution)
        step.text(base=explanation.puzzle.base)  # renders without a missing field


def check_story(explanation: Explanation, every: list[dict[str, int]]) -> None:
    """Assert the ending agrees with the solution set."""
    last = explanation.steps[-1]
    if not every:
        assert explanation.solution is None and last.key == "no_solution"
    else:
        assert explanation.solution in every
        assert explanation.count == len(every) and explanation.count_complete
        assert last.key == ("solution_unique" if len(every) == 1 else "solutions")
    assert explanation.difficulty.label in ("easy", "medium", "hard", "fiendish")


@pytest.mark.parametrize("text", CLASSICS)
def test_classic_facts_hold_for_every_solution(text: str) -> None:
    puzzle = parse(text)
    explanation = explain(puzzle)
    every = solutions(puzzle)
    check_facts(explanation, every)
    check_story(explanation, every)


@pytest.mark.parametrize("case", EXERCISM, ids=[c["description"] for c in EXERCISM])
def test_exercism_cases(case: dict[str, object]) -> None:
    puzzle = parse(str(case["puzzle"]))
    explanation = explain(puzzle)
    assert explanation.solution == case["expected"]
    check_facts(explanation, solutions(puzzle))


def test_send_more_money_begins_with_m_is_1() -> None:
    steps = explain(parse("SEND + MORE = MONEY")).steps
    assert [s.key for s in steps[:3]] == ["leading", "columns_plain", "extra_column"]
    assert steps[2].facts == {"M": [1]}
    assert steps[2].text().endswith("so M = 1 and c4 = 1.")
    assert steps[0].text() == "M and S start words, so none of them is 0."
    # The classic walk-through needs no case split: pure deduction finds every digit.
    assert all(step.case is None for step in steps)
    assert steps[-1].text() == "The solution, and the only one, is 9567 + 1085 = 10652."


def test_parity_refutes_the_ten_letter_sum() -> None:
    steps = explain(parse("A + B + C + D + E = F + G + H + I + J")).steps
    assert [s.key for s in steps] == ["parity_all_fails", "no_solution"]
    assert "adding up to 45" in steps[0].text()


def test_a_case_split_is_explained_and_concluded() -> None:
    explanation = explain(parse("DONALD + GERALD = ROBERT"))
    keys = [s.key for s in explanation.steps]
    assert "stall" in keys and "case_fails" in keys
    split = keys.index("stall")
    assert explanation.steps[split].case is None
    assert any(s.key == "case_only" and s.case is None for s in explanation.steps)
    assert explanation.tally.branches >= 2 and explanation.tally.depth >= 1


def test_given_letters_and_other_bases() -> None:
    puzzle = parse("SEND + MORE = MONEY", fixed={"E": 5})
    explanation = explain(puzzle)
    assert explanation.steps[0].key == "given" and explanation.steps[0].facts == {"E": [5]}
    check_facts(explanation, solutions(puzzle))
    sixteen = parse("SEND + MORE = MONEY", base=16)
    explanation = explain(sixteen)
    check_facts(explanation, solutions(sixteen))
    check_story(explanation, solutions(sixteen))
    assert "column 1 from the right" in explanation.steps[1].text(base=16)


def test_json_shape() -> None:
    data = explain(parse("I + BB = ILL")).as_json()
    assert set(data) == {"puzzle", "options", "solution", "steps", "difficulty"}
    assert data["solution"] == {"B": 9, "I": 1, "L": 0}
    assert set(data["difficulty"]) == {"score", "label"}
    for step in data["steps"]:
        assert {"key", "params", "text", "facts"} <= set(step)
        assert all(isinstance(d, int) for digits in step["facts"].values() for d in digits)
    json.dumps(data)  # JSON-able as it is
    assert explain(parse("AB + DC = CBB")).as_json()["solution"] is None


def test_templates_render_from_another_table() -> None:
    table = {"part.is": "{name} ist {value}", "part.and": "{head} und {last}"}
    text = render("case_solved", {"facts": [["A", [1]], ["B", [2]]]}, table)
    assert text == "Every letter is now known: A ist 1 und B ist 2."
    assert all(isinstance(v, str) for v in ENGLISH.values())
    german = {"leading": "{letters:and} beginnen Wörter, also ist keiner 0.", **table}
    explanation = explain(parse("I + BB = ILL"))
    first = explanation.as_json(german)["steps"][0]
    assert first["text"] == "B und I beginnen Wörter, also ist keiner 0."
    assert first["key"] == "leading" and first["params"] == {"letters": ["B", "I"]}
    assert explanation.lines({"part.label.easy": "leicht"})[-1] == "Difficulty: leicht (5)"


def test_long_sums_end_with_the_search() -> None:
    puzzle = parse(str(EXERCISM[-1]["puzzle"]))  # 199 addends
    explanation = explain(puzzle)
    assert len(explanation.steps) <= 100
    assert explanation.difficulty.label in ("hard", "fiendish")


# Random small puzzles: two or three words, a result, maybe a '-' term, a small base.
_words = st.text(alphabet="ABCDEFG", min_size=1, max_size=4)


@st.composite
def small_puzzles(draw: st.DrawFn) -> Puzzle:
    """Draw a small puzzle that parses, maybe with a letter fixed."""
    addends = draw(st.lists(_words, min_size=2, max_size=3))
    signs = [draw(st.sampled_from(["+", "+", "-"])) for _ in addends[1:]]
    result = draw(st.text(alphabet="ABCDEFG", min_size=1, max_size=5))
    text = addends[0] + "".join(f" {s} {w}" for s, w in zip(signs, addends[1:], strict=True))
    base = draw(st.sampled_from([7, 8, 10, 10, 10]))
    policy = draw(st.sampled_from(["multi-letter", "allow", "every-word"]))
    try:
        puzzle = parse(f"{text} = {result}", base=base, leading_zeros=policy)
        if draw(st.booleans()):  # sometimes a fixed letter, as --fix gives
            letter = draw(st.sampled_from(puzzle.letters))
            fixed = {letter: draw(st.integers(0, base - 1))}
            puzzle = parse(puzzle.text, base=base, leading_zeros=policy, fixed=fixed)
        return puzzle
    except PuzzleError:
        assume(False)
        raise


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_puzzles())
def test_random_puzzles_state_only_true_facts(puzzle: Puzzle) -> None:
    explanation = explain(puzzle)
    every = solutions(puzzle)
    check_facts(explanation, every)
    check_story(explanation, every)


def test_a_puzzle_with_a_letter_for_an_exponent_is_left_to_the_search() -> None:
    puzzle = parse("J ^ B = BUIF")
    explanation = explain(puzzle)
    assert [s.key for s in explanation.steps][0] == "not_a_sum"
    assert explanation.solution in solutions(puzzle)
    assert explanation.tally.open_letters == len(puzzle.letters)


def test_a_search_that_takes_too_long_is_said_to_stop() -> None:
    puzzle = parse("ABCDEFGHIJKLM + NOPQRSTUVWXYZ = ZYXWVUTSRQPONA", base=36)  # minutes
    explanation = explain(puzzle, seconds=0.2)
    assert explanation.solution is None and not explanation.count_complete
    assert explanation.steps[-1].key == "search_stopped"
    assert explanation.steps[-1].text() == (
        "The search found no solution within 0.2 s and stopped there, so whether there is one "
        "is still open."
    )


@pytest.mark.parametrize(
    "text", ["SEND + MORE = MONEY", "DONALD + GERALD = ROBERT", "AB * C = DE", "AB + DC = CBB"]
)
def test_the_kept_form_is_plain_json_and_renders_the_same_in_every_language(text: str) -> None:
    """What the job store keeps (as_data) gives back the same explanation in any language."""
    explanation = explain(parse(text, fixed={"E": 5} if text.startswith("SEND") else {}))
    kept = json.loads(json.dumps(explanation.as_data()))
    again = Explanation.from_data(kept)
    for table in (ENGLISH, JAPANESE, THAI):
        assert again.as_json(table) == explanation.as_json(table)
        assert again.lines(table) == explanation.lines(table)
    assert again.count == explanation.count and again.difficulty == explanation.difficulty
