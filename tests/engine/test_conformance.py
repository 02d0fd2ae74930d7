"""The exercism alphametics cases (copied into tests/data) and known answers, in first mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from alphametic import Search, count, parse, render_line, solve

# Every test here runs on both engines (tests/engine/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")

CASES_FILE = Path(__file__).resolve().parent.parent / "data" / "exercism-alphametics.json"
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))["cases"]


def test_the_copied_suite_is_complete() -> None:
    assert len(CASES) == 10
    assert any(case["puzzle"].count("+") == 198 for case in CASES)
    assert sum(case["expected"] is None for case in CASES) == 2


@pytest.mark.parametrize("case", CASES, ids=[case["description"] for case in CASES])
def test_exercism_case_first_mode(case: dict[str, Any]) -> None:
    puzzle = parse(case["puzzle"])
    first = next(solve(puzzle), None)
    assert first == case["expected"]
    if first is not None:
        left, right = render_line(puzzle, first).split(" | ")[1].split(" = ")
        assert sum(int(n) for n in left.split(" + ")) == int(right)


@pytest.mark.parametrize(
    ("text", "options", "expected"),
    [
        ("SEND + MORE = MONEY", {}, 1),
        ("AB + DC = CBB", {}, 0),
        ("BASE + BALL = GAMES", {}, 1),
        ("BASE + BALL = GAMES", {"leading_zeros": "allow"}, 3),
        ("NUM + BER = PLAY", {}, 96),
        ("FORTY + TEN + TEN = SIXTY", {}, 1),
        ("MONEY - MORE = SEND", {}, 1),
        ("SEND + MORE = MONEY", {"base": 11}, 3),
    ],
)
def test_known_counts(text: str, options: dict[str, Any], expected: int) -> None:
    puzzle = parse(text, **options)
    assert count(puzzle) == expected
    assert sum(1 for _ in Search(puzzle).solutions()) == expected


def test_base_ball_games_solutions() -> None:
    allowed = parse("BASE + BALL = GAMES", leading_zeros="allow")
    lines = {render_line(allowed, s).split(" | ")[1] for s in solve(allowed)}
    assert "2461 + 2455 = 04916" in lines and "7483 + 7455 = 14938" in lines
    strict = parse("BASE + BALL = GAMES")
    assert [render_line(strict, s) for s in solve(strict)] == [
        "BASE + BALL = GAMES | 7483 + 7455 = 14938"
    ]


def test_fixed_letter_and_every_word_policy_restrict_solutions() -> None:
    assert count(parse("SEND + MORE = MONEY", fixed={"E": 4})) == 0
    assert count(parse("SEND + MORE = MONEY", fixed={"E": 5})) == 1
    one_letter = parse("A + B + C = DE", leading_zeros="every-word")
    assert all(s["A"] != 0 for s in solve(one_letter))
    assert count(parse("A + B + C = DE")) > count(one_letter)
