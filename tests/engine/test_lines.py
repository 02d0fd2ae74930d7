"""Puzzles over several lines: where a new line ends an equation and where it is a space."""

from __future__ import annotations

import pytest

from alphametic import PuzzleError, count, parse

READINGS = [
    ("SEND\n+ MORE\n= MONEY", "SEND + MORE = MONEY"),  # no '=' yet: the lines are one sum
    ("A + B = C\nC * D = EA", "A + B = C; C * D = EA"),
    ("A + B = C\n- D = E - F", "A + B = C; -D = E - F"),  # a sign starts a new equation
    ("A + B = C\n+ D = E", "A + B = C; D = E"),
    ("A + B = C\n* D", "A + B = C * D"),  # no equation starts with '*', '/', '^' or '='
    ("A + B = C\n/ D", "A + B = C / D"),
    ("AB = C\n^ 2", "AB = C ^ 2"),
    ("A + B = C\n= D", "A + B = C = D"),
    ("(A +\nB) * C = D", "(A + B) * C = D"),  # inside parentheses
    ("A + B =\nC", "A + B = C"),  # after an operator
]


@pytest.mark.parametrize(("text", "canonical"), READINGS, ids=[r[1] for r in READINGS])
def test_new_lines_read_as_documented(text: str, canonical: str) -> None:
    """The canonical text shows how the lines were read."""
    assert parse(text).text == canonical


def test_a_signed_line_is_solved_as_its_own_equation() -> None:
    """`A + B = C` over `-D = E - F` has the solutions of the two equations with ';'."""
    assert count(parse("A + B = C\n- D = E - F")) == count(parse("A + B = C; -D = E - F")) == 200


@pytest.mark.parametrize("text", ["A + B = C\n- D", "A + B = C\r\n  + D", "A * B = C\n- D"])
def test_a_lone_signed_line_without_equals_is_an_error(text: str) -> None:
    """`- D` on its own line after a complete equation is an equation without '='."""
    with pytest.raises(PuzzleError, match="no '='"):
        parse(text)
