"""Rendering a solution as a column sum, a table and one line."""

from __future__ import annotations

import pytest

from alphametic import parse, render_line, render_sum, render_table

SEND = parse("SEND + MORE = MONEY")
SEND_DICT = {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}
SEND_COMPACT = tuple(SEND_DICT[letter] for letter in SEND.letters)


def test_line_form() -> None:
    assert render_line(SEND, SEND_DICT) == "SEND + MORE = MONEY | 9567 + 1085 = 10652"


def test_compact_tuple_renders_like_the_dict() -> None:
    assert SEND_COMPACT == (7, 5, 1, 6, 0, 8, 9, 2)
    assert render_line(SEND, SEND_COMPACT) == render_line(SEND, SEND_DICT)
    assert render_sum(SEND, SEND_COMPACT) == render_sum(SEND, SEND_DICT)
    assert render_table(SEND, list(SEND_COMPACT)) == render_table(SEND, SEND_DICT)


def test_column_sum_is_aligned_with_digits_beside() -> None:
    assert render_sum(SEND, SEND_DICT).splitlines() == [
        "  S E N D      9 5 6 7",
        "+ M O R E    + 1 0 8 5",
        "---------    ---------",
        "M O N E Y    1 0 6 5 2",
    ]


def test_column_sum_with_minus_terms_on_both_sides() -> None:
    puzzle = parse("-A + BC = D - EF")
    solution = dict(A=1, B=2, C=3, D=4, E=0, F=5)
    lines = render_sum(puzzle, solution).splitlines()
    assert lines == [
        "  - A      - 1",
        "+ B C    + 2 3",
        "-----    -----",
        "    D        4",
        "- E F    - 0 5",
    ]
    assert len({len(line) for line in lines}) == 1


def test_table_lists_letters_alphabetically() -> None:
    assert render_table(SEND, SEND_DICT).splitlines() == [
        "letter | D E M N O R S Y",
        "digit  | 7 5 1 6 0 8 9 2",
    ]


def test_digits_above_nine_use_letters_in_bigger_bases() -> None:
    puzzle = parse("AB + C = DE", base=16)
    solution = {"A": 10, "B": 15, "C": 1, "D": 11, "E": 0}
    assert render_line(puzzle, solution) == "AB + C = DE | AF + 1 = B0"
    assert "A F" in render_sum(puzzle, solution)


def test_leading_zero_is_shown_when_allowed() -> None:
    puzzle = parse("BASE + BALL = GAMES", leading_zeros="allow")
    solution = dict(B=2, A=4, S=6, E=1, L=5, G=0, M=9)
    assert render_line(puzzle, solution) == "BASE + BALL = GAMES | 2461 + 2455 = 04916"


@pytest.mark.parametrize(
    ("solution", "message"),
    [
        ({"S": 9}, "no digit for"),
        ((1, 2, 3), "needs 8 digits"),
        ((1, 2, 3, 4, 5, 6, 7, 10), "outside base 10"),
    ],
)
def test_malformed_solution_is_a_value_error(solution: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render_line(SEND, solution)  # type: ignore[arg-type]


def test_a_product_is_drawn_with_digits_under_its_letters() -> None:
    puzzle = parse("TWO * TWO = SQUARE")
    solution = dict(T=8, W=5, O=4, S=7, Q=2, U=9, A=3, R=1, E=6)
    assert render_sum(puzzle, solution).splitlines() == [
        "TWO × TWO = SQUARE",
        "854 × 854 = 729316",
    ]
    assert render_line(puzzle, solution) == "TWO * TWO = SQUARE | 854 * 854 = 729316"


def test_several_equations_one_per_line_with_their_numbers() -> None:
    puzzle = parse("A + A = B\nB * C = AB; ABC / 4 = C ^ 2 - 1", leading_zeros="allow")
    solution = {"A": 1, "B": 2, "C": 6}
    assert render_sum(puzzle, solution).splitlines() == [
        "A + A = B",
        "1 + 1 = 2",
        "B × C = AB",
        "2 × 6 = 12",
        "ABC ÷ 4 = C ^ 2 - 1",
        "126 ÷ 4 = 6 ^ 2 - 1",
    ]
    assert (
        render_line(puzzle, solution).split(" | ")[1]
        == "1 + 1 = 2; 2 * 6 = 12; 126 / 4 = 6 ^ 2 - 1"
    )
