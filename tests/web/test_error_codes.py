"""Engine errors by code on the web: every code said in Japanese and Thai, and carried by the
API's problem+json (so are the codes of every other problem)."""

from __future__ import annotations

import ast
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from alphametic import ErrorCode, PuzzleError
from tests.support.errors import raised
from tests.support.processes import ROOT
from tests.support.web import assert_problem, submit_form
from web.errors import puzzle
from web.errors.problems import SLUGS, ProblemCode
from web.pages import forms

# A sentence in the language's own script: kana or kanji, Thai letters.
SCRIPTS = {"ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]"), "th": re.compile(r"[\u0e00-\u0e7f]")}


def page_message(exc: PuzzleError) -> str:
    """What the form page says of an engine error (web.pages.views.create_job picks so)."""
    if exc.field == "puzzle":
        return forms.puzzle_message(exc)
    return forms.option_message(exc)


@pytest.mark.parametrize("lang", ["ja", "th"])
def test_every_engine_error_code_is_translated(app: Flask, lang: str) -> None:
    """The whole code table: each code, raised by the engine, said in the page's language."""
    assert set(puzzle.SAYINGS) == set(ErrorCode)
    for code in ErrorCode:
        exc = raised(code)
        with app.test_request_context("/?lang=en"):
            english = puzzle.message(exc)
        with app.test_request_context(f"/?lang={lang}"):
            said = page_message(exc)
            alone = puzzle.message(exc)
        assert alone != english, f"{code}: no {lang} translation of {english!r}"
        assert SCRIPTS[lang].search(alone), f"{code}: {alone!r} is not in {lang}"
        assert alone in said and exc.message not in said, (code, said)


@pytest.mark.parametrize("code", list(ErrorCode))
def test_english_pages_say_plain_sentences_too(app: Flask, code: ErrorCode) -> None:
    """English pages get the same plain sentences as ja and th, not the engine's raw text."""
    exc = raised(code)
    with app.test_request_context("/?lang=en"):
        said = page_message(exc)
        alone = puzzle.message(exc)
    where = "" if exc.position is None else f"Character {exc.position + 1}: "
    assert said == where + alone
    assert exc.message not in said
    assert not re.search(r"\bfixed\b", said), "the field is called Known digits"


@pytest.mark.parametrize(
    ("fixed", "field"), [("E=12", "fixed"), ("Z=1", "fixed"), ("E=1, M=1", "fixed")]
)
def test_the_pages_say_option_errors_by_code(client: FlaskClient, fixed: str, field: str) -> None:
    client.get("/?lang=th")
    response = submit_form(client, puzzle="SEND + MORE = MONEY", fixed=fixed)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    error = re.search(rf'id="{field}-error" role="alert">(.*?)</p>', page, re.S)
    assert error is not None and SCRIPTS["th"].search(error.group(1)), page
    assert not re.search(r"outside base|does not occur|both fixed", error.group(1))


@pytest.mark.parametrize(
    ("body", "code", "field", "position"),
    [
        ({"puzzle": 'SEND + M"ORE = MONEY'}, "unexpected_character", "puzzle", 8),
        ({"puzzle": "SEND + MORE"}, "no_equals", "puzzle", None),
        ({"puzzle": "A = B", "options": {"base": 37}}, "base_out_of_range", "options.base", ...),
        (
            {"puzzle": "SEND + MORE = MONEY", "options": {"fixed": {"Z": 1}}},
            "fixed_letter_absent",
            "options.fixed.Z",
            ...,
        ),
        (
            {"puzzle": "SEND + MORE = MONEY", "options": {"fixed": {"E": 5, "M": 5}}},
            "digit_fixed_twice",
            "options.fixed",
            ...,
        ),
    ],
)
def test_a_puzzle_errors_problem_carries_its_code(
    client: FlaskClient, body: dict[str, Any], code: str, field: str, position: Any
) -> None:
    problem = assert_problem(client.post("/api/jobs", json=body), 422)
    assert problem["type"] == "/api/problems/puzzle-error"
    assert (problem["code"], problem["field"]) == (code, field)
    if position is ...:  # an option's problem has no position, as before
        assert "position" not in problem
    else:
        assert problem["position"] == position


def test_an_estimates_puzzle_error_carries_its_code(client: FlaskClient) -> None:
    response = client.get("/api/estimate", query_string={"puzzle": "A = B", "fixed": "A=1 A=2"})
    problem = assert_problem(response, 422)
    assert (problem["code"], problem["field"]) == ("letter_fixed_twice", "options.fixed")
    assert problem["detail"] == "letter A is fixed twice, to 1 and 2"


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "code"),
    [
        ("post", "/api/jobs", {"json": {"puzzle": 5}}, 422, "invalid_request"),
        ("post", "/api/jobs", {"data": "x", "content_type": "text/plain"}, 415,
         "unsupported_media_type"),
        ("get", "/api/jobs/00000000-0000-4000-8000-000000000000", {}, 404, "unknown_job"),
        ("get", "/api/nothing-here", {}, 404, "not_found"),
        ("put", "/api/jobs", {}, 405, "method_not_allowed"),
    ],
)  # fmt: skip
def test_every_other_problem_has_the_code_of_its_type(
    client: FlaskClient, method: str, path: str, kwargs: dict[str, Any], status: int, code: str
) -> None:
    problem = assert_problem(getattr(client, method)(path, **kwargs), status)
    assert problem["code"] == code


def _slugs_in_web() -> set[str]:
    """Every problem slug the web names: slug="..." at a call, and the status table."""
    found = set(SLUGS.values())
    for path in sorted((ROOT / "web").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.keyword) and node.arg == "slug":
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    found.add(node.value.value)
    return found


def test_every_problem_slug_has_a_code_and_codes_do_not_clash() -> None:
    slugs = _slugs_in_web()
    assert "invalid-request" in slugs and "too-many-jobs" in slugs  # the scan sees them
    # "puzzle-error" always carries the engine's code (web.api.jobs._puzzle_problem).
    assert slugs - {"puzzle-error"} <= {code.slug for code in ProblemCode}
    assert not {c.value for c in ProblemCode} & {c.value for c in ErrorCode}


def test_the_openapi_problem_schema_describes_code(client: FlaskClient) -> None:
    problem = client.get("/api/openapi.json").get_json()["components"]["schemas"]["Problem"]
    assert "code" in problem["required"]
    assert problem["properties"]["code"]["type"] == "string"
