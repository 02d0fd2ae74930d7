"""Parsing puzzle text and options into a Puzzle, and every kind of bad input."""

from __future__ import annotations

import pytest

from alphametic import MAX_CHARS, MAX_TERMS, LeadingZeros, Puzzle, PuzzleError, from_words, parse


def test_classic_puzzle_parses_to_canonical_form() -> None:
    puzzle = parse("SEND + MORE = MONEY")
    assert puzzle.text == "SEND + MORE = MONEY"
    assert puzzle.left == ((1, "SEND"), (1, "MORE"))
    assert puzzle.right == ((1, "MONEY"),)
    assert puzzle.letters == ("D", "E", "M", "N", "O", "R", "S", "Y")
    assert puzzle.base == 10
    assert puzzle.leading_zeros is LeadingZeros.MULTI_LETTER
    assert dict(puzzle.fixed) == {}


@pytest.mark.parametrize(
    "text",
    ["send+more==money", "  Send  +\tMore ==   Money ", "SEND+MORE=MONEY", "sEnD + mOrE = MoNeY"],
)
def test_spacing_case_and_double_equals_normalise(text: str) -> None:
    assert parse(text).text == "SEND + MORE = MONEY"
    assert parse(text) == parse("SEND + MORE = MONEY")


def test_coefficients_of_send_more_money() -> None:
    coef = parse("SEND + MORE = MONEY").coefficients()
    assert coef == {"S": 1000, "E": 91, "N": -90, "D": 1, "M": -9000, "O": -900, "R": 10, "Y": -1}
    assert sum(coef[k] * v for k, v in dict(S=9, E=5, N=6, D=7, M=1, O=0, R=8, Y=2).items()) == 0


def test_minus_terms_and_terms_on_both_sides_reduce_to_one_equation() -> None:
    moved = parse("MONEY - MORE = SEND")
    assert moved.text == "MONEY - MORE = SEND"
    assert moved.left == ((1, "MONEY"), (-1, "MORE"))
    negated = {k: -v for k, v in parse("SEND + MORE = MONEY").coefficients().items()}
    assert moved.coefficients() == negated
    both = parse("A + B = C + D")
    assert both.coefficients() == {"A": 1, "B": 1, "C": -1, "D": -1}
    assert parse("-A + B = -C").text == "-A + B = -C"
    assert parse("-A + B = -C").coefficients() == {"A": -1, "B": 1, "C": 1}
    assert parse("+A = B").text == "A = B"


def test_letter_repeated_across_words_sums_its_places() -> None:
    assert parse("AA + A = BA").coefficients() == {"A": 11 + 1 - 1, "B": -10}


def test_coefficients_use_the_base() -> None:
    assert parse("AB = BA", base=16).coefficients() == {"A": 16 - 1, "B": 1 - 16}


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("multi-letter", {"I", "B"}),
        ("every-word", {"I", "B", "A"}),
        ("allow", set()),
        (LeadingZeros.EVERY_WORD, {"I", "B", "A"}),
    ],
)
def test_nonzero_letters_follow_the_policy(policy: str, expected: set[str]) -> None:
    puzzle = parse("I + BB = ILL - A", leading_zeros=policy)
    assert puzzle.nonzero_letters() == expected
    assert puzzle.options()["leading_zeros"] == LeadingZeros(policy).value


def test_options_are_json_able_and_fixed_letters_are_normalised() -> None:
    puzzle = parse("send + more = money", base=12, leading_zeros="allow", fixed={"e": 5, "S": 9})
    assert puzzle.options() == {"base": 12, "leading_zeros": "allow", "fixed": {"E": 5, "S": 9}}
    assert puzzle.fixed["E"] == 5
    assert list(puzzle.fixed) == ["E", "S"]


def test_puzzle_is_frozen_and_hashable() -> None:
    one = parse("A + B = C", fixed={"A": 1})
    two = parse("a+b==c", fixed={"a": 1})
    assert one == two and hash(one) == hash(two)
    assert len({one, two, parse("A + B = C")}) == 2
    with pytest.raises(AttributeError):
        one.base = 11  # type: ignore[misc]


def _error(text: str, **options: object) -> PuzzleError:
    """Return the PuzzleError that parsing text raises."""
    with pytest.raises(PuzzleError) as info:
        parse(text, **options)  # type: ignore[arg-type]
    return info.value


@pytest.mark.parametrize(
    ("text", "position", "words"),
    [
        ("", None, "empty"),
        ("   \t ", None, "empty"),
        ("SEND + MORE", None, "no '='"),
        ("A === B", 2, "'===' is not an operator"),
        ("A = (B + C", 4, "'(' without a matching ')'"),
        ("A = B + C)", 9, "')' without a matching '('"),
        ("A = ()", 5, "')' without a matching '(' or with nothing inside"),
        ("A * = B", 4, "empty term before '='"),
        ("* A = B", 0, "empty term before '*'"),
        ("A ^ = B", 4, "empty term before '='"),
        ("A = B *", 7, "empty term at the end"),
        ("A = B * ; C = D", 8, "empty term at the end of this equation"),
        ("A / 0 = B", 2, "division by the literal 0"),
        ("A / (0) = B", 2, "division by the literal 0"),
        ("A ^ 9999 = B", 2, "too large to evaluate"),
        ("AB ^ CDE = F", 3, "too large to evaluate"),
        ("A = B; C", 7, "this equation has no '='"),
        ("A = B C", 6, "operator"),
        ("1 + 2 = 3", None, "no letters"),
        ("(" * 60 + "A" + ")" * 60 + " = B", 50, "nested more than 50"),
        ("A + + B = C", 4, "empty term"),
        ("A + B = C +", 11, "empty term"),
        ("A + B =", 7, "empty term"),
        ("= B", 0, "empty term"),
        ("A + = B", 4, "empty term"),
        ("--A = B", 1, "empty term"),
        ("A B = C", 2, "operator"),
        ("A & B = C", 2, "unexpected character '&'"),
        ("A % B = C", 2, "unexpected character '%'"),
        ("ÉCOLE = A!", 9, "unexpected character '!'"),
        ("A + B = C\x00", 9, "unexpected character"),
    ],
)
def test_bad_text_names_the_problem_and_position(
    text: str, position: int | None, words: str
) -> None:
    error = _error(text)
    assert words in error.message
    assert error.position == position
    assert isinstance(error, ValueError)
    if position is not None:
        assert str(error).endswith(f" at character {position + 1}")  # counted from 1


def test_more_letters_than_the_base() -> None:
    error = _error("ABCDEFGHIJ = K")
    assert error.message == "11 distinct letters but base 10 has only 10 digits"
    assert parse("ABCDEFGHIJ = K", base=11).letters[-1] == "K"
    assert "base 2" in _error("A + B = C", base=2).message


def test_caps_on_characters_and_terms() -> None:
    too_long = "A + " * (MAX_CHARS // 4) + "B = C"
    error = _error(too_long)
    assert str(MAX_CHARS) in error.message.replace(",", "") and error.position == MAX_CHARS
    too_many = " + ".join(["A"] * MAX_TERMS) + " = B"
    assert len(too_many) < MAX_CHARS
    assert "terms" in _error(too_many).message
    assert len(parse(" + ".join(["A"] * (MAX_TERMS - 1)) + " = B").left) == MAX_TERMS - 1


def test_not_a_string_is_a_puzzle_error() -> None:
    assert "string" in _error(42).message  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"base": 1}, "from 2 to 36"),
        ({"base": 37}, "from 2 to 36"),
        ({"base": True}, "integer"),
        ({"base": "10"}, "integer"),
        ({"leading_zeros": "sometimes"}, "unknown leading-zero policy"),
        ({"leading_zeros": None}, "unknown leading-zero policy"),
        ({"fixed": {"Z": 1}}, "Z does not occur"),
        ({"fixed": {"E": 10}}, "outside base 10"),
        ({"fixed": {"E": -1}}, "outside base 10"),
        ({"fixed": {"E": "5"}}, "integer"),
        ({"fixed": {"E": 5.0}}, "integer"),
        ({"fixed": {"EE": 5}}, "one letter"),
        ({"fixed": {"1": 5}}, "one letter"),
        ({"fixed": {"E": 5, "N": 5}}, "both fixed to 5"),
        ({"fixed": {"E": 5, "e": 6}}, "fixed twice"),
        ({"fixed": {"S": 0}}, "S cannot be fixed to 0"),
        ({"fixed": ["E", 5]}, "map letters"),
        ({"fixed": []}, "map letters"),
        ({"fixed": "E=5"}, "map letters"),
    ],
)
def test_bad_options(options: dict[str, object], words: str) -> None:
    assert words in _error("SEND + MORE = MONEY", **options).message


def test_fixed_zero_allowed_where_the_policy_allows_it() -> None:
    assert parse("SEND + MORE = MONEY", leading_zeros="allow", fixed={"S": 0}).fixed["S"] == 0
    assert parse("A + BC = DE", fixed={"A": 0}).fixed == {"A": 0}
    assert "A cannot" in _error("A + BC = DE", leading_zeros="every-word", fixed={"A": 0}).message


def test_from_words_matches_parse() -> None:
    built = from_words(["send", "MORE"], "money", base=12, fixed={"E": 5})
    assert built == parse("SEND + MORE = MONEY", base=12, fixed={"E": 5})
    assert isinstance(built, Puzzle)


@pytest.mark.parametrize(
    ("words", "result", "message"),
    [
        ([], "A", "at least one"),
        ("SEND", "MONEY", "list"),
        (["A+B"], "C", "word 1"),
        (["A", ""], "C", "word 2"),
        (["A", 5], "C", "word 2"),
        (["A"], "C1", "result"),
        (["ABCDEF", "GHIJK"], "AB", "11 distinct letters"),
    ],
)
def test_from_words_rejects_bad_words(words: object, result: object, message: str) -> None:
    with pytest.raises(PuzzleError, match=message):
        from_words(words, result)  # type: ignore[arg-type]
