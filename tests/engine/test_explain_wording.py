"""What the explanation says follows the puzzle's options and what was actually found."""

from __future__ import annotations

import pytest

import alphametic.explain as explain_module
from alphametic import parse
from alphametic.explain import explain
from alphametic.explain_ja import JAPANESE
from alphametic.explain_text import ENGLISH
from alphametic.explain_th import THAI

TABLES = {"en": ENGLISH, "ja": JAPANESE, "th": THAI}


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
        ("ABC + DEF = GHI", "solutions_many"),
        ("NORTH * WEST = EAST * SOUTH", "solution_at_least_one"),
    ],
)
def test_explain_says_at_least_when_counting_runs_out_of_time(
    monkeypatch: pytest.MonkeyPatch, text: str, key: str
) -> None:
    monkeypatch.setattr(explain_module, "_COUNT_SECONDS", 0.0)  # the count stops at once
    explanation = explain(parse(text))
    assert not explanation.count_complete and explanation.steps[-1].key == key
    line = explanation.lines()[-2]
    assert line.startswith("The puzzle has at least ") and "more than" not in line
    if key == "solutions_many":
        assert f"at least {explanation.count} solutions;" in line and explanation.count > 1
