"""The Japanese and Thai step tables: the keys and placeholders of ENGLISH, and they render."""

from __future__ import annotations

import json
import string
from collections import Counter
from pathlib import Path

import pytest

from alphametic import parse
from alphametic.explain.ja import JAPANESE
from alphametic.explain.text import ENGLISH, render
from alphametic.explain.th import THAI
from alphametic.explain.walkthrough import explain

DATA = Path(__file__).resolve().parent.parent / "data"
EXERCISM = json.loads((DATA / "exercism-alphametics.json").read_text())["cases"]
PRODUCTS = [
    "TWO * TWO = SQUARE",
    "ABCD / EF = GH",
    "NAUGHT ^ 2 = ZERO ^ 3",
    "PI * R ^ 2 / 2 = AREA",
    "WRIGHT + WRIGHT = TO * FLY + FLIGHT",
]
PUZZLES = ["SEND + MORE = MONEY"] + [str(case["puzzle"]) for case in EXERCISM] + PRODUCTS
TABLES = {"ja": JAPANESE, "th": THAI}


def fields(template: str) -> Counter[tuple[str, str]]:
    """Return the (field name, format spec) pairs of a str.format template, with counts."""
    return Counter(
        (name, spec or "")
        for _text, name, spec, _conversion in string.Formatter().parse(template)
        if name is not None
    )


@pytest.mark.parametrize("code", TABLES)
def test_table_has_every_key_and_nothing_else(code: str) -> None:
    assert set(TABLES[code]) == set(ENGLISH)


@pytest.mark.parametrize("code", TABLES)
def test_placeholders_and_specs_match_english(code: str) -> None:
    table = TABLES[code]
    for key, english in ENGLISH.items():
        assert set(fields(table[key])) == set(fields(english)), key


@pytest.mark.parametrize("code", TABLES)
def test_sentences_are_translated(code: str) -> None:
    table = TABLES[code]
    for key, english in ENGLISH.items():
        literal = "".join(text for text, *_ in string.Formatter().parse(english))
        if any(char.isalpha() for char in literal):  # not a bare "{name} = {value}"
            assert table[key] != english, f"{code}: {key} is still English"


@pytest.mark.parametrize("code", TABLES)
def test_send_more_money_renders(code: str) -> None:
    explanation = explain(parse("SEND + MORE = MONEY"))
    lines = explanation.lines(TABLES[code])
    english = explanation.lines()
    assert len(lines) == len(english)
    assert all(ours != theirs for ours, theirs in zip(lines, english, strict=True))
    assert "9567 + 1085 = 10652" in lines[-2]
    assert not any("{" in line or "}" in line for line in lines)
    expected = {"ja": "一の位", "th": "หลักหน่วย"}[code]
    assert expected in lines[1]  # the column layout names the units column


@pytest.mark.parametrize("code", TABLES)
@pytest.mark.parametrize("puzzle", PUZZLES)
def test_every_step_renders(code: str, puzzle: str) -> None:
    explanation = explain(parse(puzzle), seconds=2.0)
    body = explanation.as_json(TABLES[code])
    texts = [step["text"] for step in body["steps"]] + explanation.lines(TABLES[code])
    for text in texts:
        assert text and "{" not in text and "}" not in text, text


@pytest.mark.parametrize("code", TABLES)
def test_every_template_renders_with_made_up_parameters(code: str) -> None:
    """Keys the puzzles above never reach (mod, subset, ...) render too, in any base."""
    sample: dict[str, object] = {
        "facts": [["E", [5]], ["N", [3, 4, 5, 6]], ["c2", [0, 1]]],
        "letters": ["M", "S"],
        "digits": [2, 3],
        "failed": [7],
        "values": [1, 2, 3],
        "known": ["M = 1", "c4 = 1"],
        "label": "fiendish",
    }
    numbers = {"first": 1, "column": 3, "n": 9, "seconds": 2.5}
    for key, english in ENGLISH.items():
        names = {name for name, _spec in fields(english)}
        params = {name: sample.get(name, numbers.get(name, 4)) for name in names}
        for base in (10, 16):
            text = render(key, params, TABLES[code], base)
            assert "{" not in text and "}" not in text and "'" not in text, (key, text)


def test_readme_shows_the_current_explanation() -> None:
    """The README's example is what `alphametic explain "SEND + MORE = MONEY"` prints today."""
    readme = (DATA.parents[1] / "README.md").read_text(encoding="utf-8")
    shown = readme.split('$ .venv/bin/alphametic explain "SEND + MORE = MONEY"\n', 1)[1]
    printed = explain(parse("SEND + MORE = MONEY")).lines()
    assert shown.split("\n```", 1)[0].splitlines() == printed
