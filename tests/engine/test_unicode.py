"""Puzzle text as people type it (issue 24): full-width forms, any script's letters, marks.

Every case's solutions are checked against an independent brute force over its ASCII
transliteration: itertools.permutations of the digits, the equations evaluated with Python
ints by the small evaluator below (no eval of any text), the leading-zero rule applied to
words of two or more characters that start with a letter.
"""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path

import pytest

import alphametic
from alphametic import ErrorCode, PuzzleError
from alphametic.language.folding import display_width, fold
from alphametic.render import caret, render_sum
from tests.support.typed import CASES, Typed

_TOKEN = re.compile(r"[A-Z0-9]+|[-+*;=]")


def _equations(ascii_text: str) -> list[list[list[tuple[str, list[str]]]]]:
    """Equations -> sides -> signed products of operands (each operand a word or number)."""
    equations = []
    for equation in ascii_text.split(";"):
        sides = []
        for side in equation.split("="):
            terms: list[tuple[str, list[str]]] = []
            op = "+"
            for token in _TOKEN.findall(side):
                if token in ("+", "-", "*"):
                    op = token
                elif op == "*":
                    terms[-1][1].append(token)
                else:
                    terms.append((op, [token]))
            sides.append(terms)
        equations.append(sides)
    return equations


Operand = tuple[int, tuple[tuple[int, int], ...]]  # constant part, (letter index, weight)


def _operand(word: str, index: dict[str, int]) -> Operand:
    """A word or number as its constant part and its letters' place values (base 10)."""
    constant, places = 0, []
    for power, char in enumerate(reversed(word)):
        if char.isdigit():
            constant += int(char) * 10**power
        else:
            places.append((index[char], 10**power))
    return constant, tuple(places)


def _side(terms: list[tuple[str, list[Operand]]], perm: tuple[int, ...]) -> int:
    """The value of one side under an assignment: a sum of signed products."""
    total = 0
    for sign, operands in terms:
        product = 1
        for constant, places in operands:
            product *= constant + sum(perm[i] * weight for i, weight in places)
        total += product if sign == "+" else -product
    return total


@functools.cache
def brute_force(ascii_text: str) -> frozenset[tuple[tuple[str, int], ...]]:
    """Every solution of an ASCII puzzle, found by trying every assignment of digits."""
    letters = sorted(set(re.findall(r"[A-Z]", ascii_text)))
    index = {letter: i for i, letter in enumerate(letters)}
    equations = [
        [[(sign, [_operand(w, index) for w in words]) for sign, words in side] for side in eq]
        for eq in _equations(ascii_text)
    ]
    words = [w for w in re.findall(r"[A-Z0-9]+", ascii_text) if not w.isdigit()]
    leading = {index[w[0]] for w in words if len(w) >= 2 and w[0].isalpha()}
    found = set()
    for perm in itertools.permutations(range(10), len(letters)):
        if any(perm[i] == 0 for i in leading):
            continue
        if all(all(_side(side, perm) == _side(eq[0], perm) for side in eq[1:]) for eq in equations):
            found.add(tuple(zip(letters, perm, strict=True)))
    return frozenset(found)


def test_the_brute_force_knows_send_more_money() -> None:
    solutions = brute_force("SEND+MORE=MONEY")
    assert len(solutions) == 1
    assert dict(next(iter(solutions))) == {
        "S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2,
    }  # fmt: skip
    assert len(brute_force("A+B=C;A*B=D")) == len(
        {
            (a, b)
            for a in range(10)
            for b in range(10)
            if len({a, b, a + b, a * b}) == 4 and a * b < 10
        }
    )


@pytest.mark.parametrize("case", CASES, ids=[case.ascii for case in CASES])
def test_typed_puzzle_has_the_solutions_of_its_transliteration(case: Typed) -> None:
    """Also the check of the shared table's counts, which the web tests take as known."""
    puzzle = alphametic.parse(case.text)
    expected = brute_force(case.ascii)
    assert set(puzzle.letters) == (set(case.names) or set(re.findall("[A-Z]", case.ascii)))
    assert alphametic.count(puzzle) == len(expected) == case.solutions
    got = {tuple(sorted(case.transliterate(found).items())) for found in alphametic.solve(puzzle)}
    assert got == expected


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("SEND＋MORE＝MONEY", "SEND + MORE = MONEY"),
        ("ｓｅｎｄ　＋　ｍｏｒｅ　＝　ｍｏｎｅｙ", "SEND + MORE = MONEY"),
        ("いち＋いち＝にい", "いち + いち = にい"),
        ("イチ＋イチ＝ニイ", "イチ + イチ = ニイ"),
        ("ｲﾁ＋ｲﾁ＝ﾆｲ", "イチ + イチ = ニイ"),
        ("ｶﾞｷﾞ + ｷﾞｶﾞ = ｸﾞｸﾞ", "ガギ + ギガ = ググ"),
        ("αβ + βα = γγ", "ΑΒ + ΒΑ = ΓΓ"),
        ("ς + σ = Σα", "Σ + Σ = ΣΑ"),
        ("école + e = ÉCOLE", "ÉCOLE + E = ÉCOLE"),
        ("e\u0301cole + e = ÉCOLE", "ÉCOLE + E = ÉCOLE"),
        ("ß + ss = SSS", "ß + SS = SSS"),
        ("（ＡＢ－Ｃ）／Ｄ＝Ｅ＾２", "(AB - C) / D = E ^ 2"),
        ("A − B = C", "A - B = C"),
    ],
)
def test_the_canonical_text_keeps_the_typed_symbols_folded(typed: str, canonical: str) -> None:
    """Full-width and half-width typing give one canonical text (so one job)."""
    assert alphametic.parse(typed, base=36).text == canonical


def test_hiragana_and_katakana_are_different_symbols() -> None:
    puzzle = alphametic.parse("いち + イチ = にい")
    assert puzzle.letters == ("い", "ち", "に", "イ", "チ")


def test_a_base_36_puzzle_may_use_more_than_26_symbols() -> None:
    symbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "αβγδεζηθικ"
    text = " + ".join(symbols[:-1]) + " = " + symbols[-1] + symbols[0]
    puzzle = alphametic.parse(text, base=36)
    assert len(puzzle.letters) == 36
    assert alphametic.parse(text.replace("κ", "λ"), base=36).letters[-1] == "Λ"
    with pytest.raises(PuzzleError) as info:
        alphametic.parse(text + " + μ", base=36)
    assert info.value.code is ErrorCode.TOO_MANY_LETTERS


def test_fixed_letters_are_compared_after_folding() -> None:
    assert dict(alphametic.parse("ａｂ = ｃｂ", fixed={"ｃ": 1}).fixed) == {"C": 1}
    assert dict(alphametic.parse("αβ + βα = γγ", fixed={"α": 1}).fixed) == {"Α": 1}
    assert dict(alphametic.parse("いち＋いち＝にい", fixed={"い": 2}).fixed) == {"い": 2}
    for key in ("ab", "1", "\u0e34", "", "㍿"):
        with pytest.raises(PuzzleError) as info:
            alphametic.parse("いち＋いち＝にい", fixed={key: 1})
        assert info.value.code is ErrorCode.FIXED_LETTER_INVALID


def test_words_of_from_words_are_folded() -> None:
    puzzle = alphametic.from_words(["ＳＥＮＤ", "more"], "ｍｏｎｅｙ")
    assert puzzle.text == "SEND + MORE = MONEY"
    assert alphametic.from_words(["いち", "いち"], "にい").text == "いち + いち = にい"


@pytest.mark.parametrize(
    ("typed", "code", "position", "char"),
    [
        ("いち＋いち！＝にい", ErrorCode.UNEXPECTED_CHARACTER, 5, "！"),
        ("ＳＥＮＤ＋ＭＯＲＥ＝ＭＯＮＥＹ、", ErrorCode.UNEXPECTED_CHARACTER, 15, "、"),
        ("㍿ + ＡＢ ＠ = Ｃ", ErrorCode.UNEXPECTED_CHARACTER, 7, "＠"),
        ("ｶﾞｷﾞ + ｷﾞｶﾞ = ｸﾞｸﾞ ?", ErrorCode.UNEXPECTED_CHARACTER, 19, "?"),
        ("SEND　＋　MORE　＝", ErrorCode.TERM_MISSING_AT_END, 13, None),
        ("いち＋＋いち＝にい", ErrorCode.TERM_MISSING_BEFORE, 3, None),
        ("いち いち＝にい", ErrorCode.MISSING_OPERATOR, 3, None),
        ("（いち＋いち＝にい", ErrorCode.UNCLOSED_OPEN, 0, None),
        ("หนึ่ง + A = B", ErrorCode.COMBINING_MARK, 2, "\u0e36"),
        ("กิ + A = B", ErrorCode.COMBINING_MARK, 1, "\u0e34"),
        ("\u0301A = B", ErrorCode.COMBINING_MARK, 0, "\u0301"),
    ],
)
def test_errors_point_at_the_typed_character(
    typed: str, code: ErrorCode, position: int, char: str | None
) -> None:
    with pytest.raises(PuzzleError) as info:
        alphametic.parse(typed)
    assert (info.value.code, info.value.position) == (code, position)
    if char is not None:
        assert info.value.params["char"] == char == typed[position]
        assert info.value.params["codepoint"] == f"U+{ord(char):04X}"
        assert f"U+{ord(char):04X}" in info.value.message


def test_a_combining_mark_is_named_never_dropped() -> None:
    with pytest.raises(PuzzleError) as info:
        alphametic.parse("ก่ + ก = ข")
    assert info.value.params["name"] == "THAI CHARACTER MAI EK"
    assert "U+0E48" in str(info.value)


def test_folding_maps_every_folded_character_back() -> None:
    assert fold("SEND + MORE = MONEY") == ("SEND + MORE = MONEY", None)
    assert fold("いち + いち = にい") == ("いち + いち = にい", None)
    folded, origin = fold("㍿＋Ａ")
    assert folded == "株式会社+A"
    assert origin == (0, 0, 0, 0, 1, 2, 3)


def test_display_width_counts_wide_characters_twice() -> None:
    assert display_width("SEND") == 4
    assert display_width("いち＋") == 6
    assert display_width("หนึ่ง") == 3
    assert caret("いち＋いち！＝にい", 5) == ("いち＋いち！＝にい", 10)
    assert caret("A = B\nいち＋！", 9) == ("いち＋！", 6)
    assert caret("หนึ่ง + A", 2) == ("หนึ่ง + A", 1)


def test_the_column_sum_aligns_wide_symbols_by_display_width() -> None:
    puzzle = alphametic.parse("いち＋いち＝にい")
    shown = render_sum(puzzle, {"い": 2, "ち": 1, "に": 4})
    assert shown.splitlines() == [
        "  い ち      2 1",
        "+ い ち    + 2 1",
        "-------    -----",
        "  に い      4 2",
    ]
    widths = {display_width(line.split("    ")[0]) for line in shown.splitlines()}
    assert widths == {7}


def test_superscripts_and_fractions_are_refused_not_read_as_digits() -> None:
    for typed, position in (("A² + B² = C²", 1), ("½A = B", 0), ("A₂ = B", 1)):
        with pytest.raises(PuzzleError) as info:
            alphametic.parse(typed)
        assert info.value.code is ErrorCode.UNEXPECTED_CHARACTER
        assert info.value.position == position


@pytest.mark.parametrize(
    ("typed", "ascii_text", "count"),
    [("いち + いち = にい", "IC+IC=NI", 4), ("กข + ขก = คค", "AB+BA=CC", 32)],
)
def test_the_famous_puzzles_in_their_own_script_have_the_counts_shown(
    typed: str, ascii_text: str, count: int
) -> None:
    """The ja and th pages' own famous puzzles (web/pages/views.py LOCAL_FAMOUS, whose notes
    tests/web/test_unicode.py checks against the engine) and the README's table rows."""
    assert alphametic.count(alphametic.parse(typed)) == len(brute_force(ascii_text)) == count
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert f"| `{typed}` | {count} |" in readme
