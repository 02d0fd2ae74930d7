"""Difficulty labels agree with how people rate well-known puzzles (tests/data list)."""

from __future__ import annotations

import json
from pathlib import Path

from alphametic import parse
from alphametic.explain.difficulty import LABELS, Difficulty, rate
from alphametic.explain.walkthrough import Tally, explain

CALIBRATION = Path(__file__).resolve().parent.parent / "data" / "difficulty-calibration.json"
ORDER = [name for name, _ in LABELS]


def test_labels_match_the_calibration_list() -> None:
    puzzles = json.loads(CALIBRATION.read_text())["puzzles"]
    assert len(puzzles) >= 50
    misses = []
    for item in puzzles:
        got = explain(parse(item["puzzle"])).difficulty
        gap = abs(ORDER.index(got.label) - ORDER.index(item["label"]))
        assert gap <= 1, (item, got)
        if gap:
            misses.append((item["puzzle"], item["label"], got))
    assert len(misses) <= len(puzzles) // 10, misses
    assert {item["label"] for item in puzzles} == set(ORDER)


def test_classics_are_ordered_by_how_hard_people_find_them() -> None:
    scores = [
        explain(parse(text)).difficulty.score
        for text in (
            "I + BB = ILL",
            "SEND + MORE = MONEY",
            "FORTY + TEN + TEN = SIXTY",
            "DONALD + GERALD = ROBERT",
            "SATURN + URANUS + NEPTUNE + PLUTO = PLANETS",
        )
    ]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)


def test_rating_grows_with_cases_and_open_letters() -> None:
    plain = rate(Tally(deductions=10))
    split = rate(Tally(deductions=10, branches=3, depth=1))
    left = rate(Tally(deductions=10, branches=3, depth=1, open_letters=8, capped=True))
    assert plain.score < split.score < left.score
    assert plain == Difficulty(10, "easy") and left.label == "fiendish"
