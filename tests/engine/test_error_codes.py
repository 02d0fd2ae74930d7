"""Engine errors: one stable code per fault, one English sentence per code, raised at one place."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest

import alphametic
from alphametic import ErrorCode, PuzzleError
from alphametic.language.errors import ENGLISH
from tests.support.errors import EXAMPLES, raised

ENGINE = Path(alphametic.__file__).resolve().parent


def raise_sites() -> list[tuple[str, str]]:
    """(code, file:line) of every PuzzleError(...) raised in the engine (errors.py, which
    defines it, only rebuilds pickled ones)."""
    sites = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path == ENGINE / "language" / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "PuzzleError"):
                continue
            where = f"{path.relative_to(ENGINE)}:{node.lineno}"
            first = node.args[0] if node.args else None
            # A code written out at the call: ErrorCode.NAME (no variable, no string).
            assert (
                isinstance(first, ast.Attribute)
                and isinstance(first.value, ast.Name)
                and first.value.id == "ErrorCode"
            ), f"{where}: PuzzleError's first argument must be ErrorCode.<NAME>"
            sites.append((ErrorCode[first.attr].value, where))
    return sites


def test_codes_are_stable_snake_case_and_distinct() -> None:
    values = [member.value for member in ErrorCode.__members__.values()]
    assert len(values) == len(set(values)), "two names share a code"
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", value) for value in values)


def test_every_code_has_an_english_sentence() -> None:
    assert set(ENGLISH) == set(ErrorCode)
    assert all(sentence.strip() for sentence in ENGLISH.values())


def test_different_raise_sites_use_different_codes_and_every_code_is_raised() -> None:
    sites = raise_sites()
    seen: dict[str, str] = {}
    for code, where in sites:
        assert code not in seen, f"{code} is raised at {seen[code]} and at {where}"
        seen[code] = where
    assert set(seen) == {code.value for code in ErrorCode}


def test_every_code_has_an_example() -> None:
    assert set(EXAMPLES) == set(ErrorCode)


@pytest.mark.parametrize("code", list(ErrorCode))
def test_each_example_raises_its_code_with_its_english(code: ErrorCode) -> None:
    exc = raised(code)
    assert exc.code is code
    assert exc.message == ENGLISH[code].format(**exc.params)
    where = "" if exc.position is None else f" at character {exc.position + 1}"
    assert str(exc) == exc.message + where
    assert exc.field == "puzzle" or exc.field.startswith(("options.", "words"))
    copy = pickle.loads(pickle.dumps(exc))
    assert (copy.code, copy.params, copy.position, copy.field) == (
        exc.code,
        exc.params,
        exc.position,
        exc.field,
    )
    assert str(copy) == str(exc)


@pytest.mark.parametrize(
    ("code", "message", "field"),
    [
        (ErrorCode.UNEXPECTED_CHARACTER, "unexpected character '\"' (U+0022): use words of "
         "letters, numbers, + - * / ^ ( ), = and ; or new lines at character 9", "puzzle"),
        (ErrorCode.COMBINING_MARK, "the combining mark U+0E36 (THAI CHARACTER SARA UE) is not "
         "a symbol: each symbol is one letter, so write the puzzle's words without vowel, tone "
         "or accent marks at character 3", "puzzle"),
        (ErrorCode.TOO_MANY_TERMS, "the puzzle has more than 1,000 terms at character 4001",
         "puzzle"),
        (ErrorCode.POWER_TOO_LARGE, "this power is too large to evaluate sensibly (up to about "
         "39,996 bits; the cap is 4,096) at character 7", "puzzle"),
        (ErrorCode.BASE_OUT_OF_RANGE, "the base must be from 2 to 36, not 37", "options.base"),
        (ErrorCode.UNKNOWN_POLICY, "unknown leading-zero policy 'never' (choose one of: "
         "multi-letter, allow, every-word)", "options.leading_zeros"),
        (ErrorCode.FIXED_DIGIT_OUTSIDE_BASE, "digit 12 fixed for E is outside base 10 (0 to 9)",
         "options.fixed.E"),
        (ErrorCode.FIXED_LETTER_ABSENT, "fixed letter Z does not occur in the puzzle",
         "options.fixed.Z"),
        (ErrorCode.LETTER_FIXED_TWICE, "letter E is fixed twice, to 5 and 6", "options.fixed"),
        (ErrorCode.LEADING_LETTER_FIXED_TO_ZERO, "S cannot be fixed to 0: it starts a word and "
         "the leading-zero policy is multi-letter", "options.fixed"),
    ],
)  # fmt: skip
def test_english_wording_and_field_are_kept(code: ErrorCode, message: str, field: str) -> None:
    exc = raised(code)
    assert (str(exc), exc.field) == (message, field)


def test_option_values_are_checked_before_the_text_and_fixed_letters_after() -> None:
    """The order the JSON API has always answered in: values, the puzzle, then fixed letters."""
    with pytest.raises(PuzzleError) as bad_value:
        alphametic.parse("A = = B", fixed={"A": 99})
    assert bad_value.value.code is ErrorCode.FIXED_DIGIT_OUTSIDE_BASE
    with pytest.raises(PuzzleError) as bad_text:
        alphametic.parse("A = = B", fixed={"Z": 1})
    assert bad_text.value.field == "puzzle"
    with pytest.raises(PuzzleError) as absent:
        alphametic.parse("SEND + MORE = MONEY", fixed={"E": 5, "e": 6, "Z": 1})
    assert absent.value.code is ErrorCode.FIXED_LETTER_ABSENT
