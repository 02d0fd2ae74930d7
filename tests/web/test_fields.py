"""A bad option is reported on its own field: `field` in the API, under the field in the form."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.support.web import assert_problem, submit_form

# (options, form fields, the API's field, the form field it is shown under, words it says)
CASES = [
    ({"base": 37}, {"base": "37"}, "options.base", "base", "from 2 to 36"),
    ({"base": 1}, {"base": "1"}, "options.base", "base", "from 2 to 36"),
    (
        {"leading_zeros": "never"},
        {"leading_zeros": "never"},
        "options.leading_zeros",
        "leading_zeros",
        "rules for leading zeros",
    ),
    ({"fixed": {"E": 10}}, {"fixed": "E=10"}, "options.fixed.E", "fixed", "only has the digits"),
    (
        {"base": 16, "fixed": {"E": 16}},
        {"base": "16", "fixed": "E=16"},
        "options.fixed.E",
        "fixed",
        "0 to 15",
    ),
    ({"fixed": {"Z": 1}}, {"fixed": "Z=1"}, "options.fixed.Z", "fixed", "does not occur"),
    ({"fixed": {"E": 5, "M": 5}}, {"fixed": "E=5 M=5"}, "options.fixed", "fixed", "both given 5"),
]


def post_job(client: FlaskClient, body: dict[str, Any]) -> Any:
    """POST a job request to the API."""
    return client.post("/api/jobs", json=body)


@pytest.mark.parametrize(("options", "form", "field", "shown", "words"), CASES)
def test_api_names_the_option(
    client: FlaskClient, options: dict[str, Any], form: Any, field: str, shown: str, words: str
) -> None:
    problem = assert_problem(
        post_job(client, {"puzzle": "SEND + MORE = MONEY", **{}, "options": options}), 422
    )
    assert problem["field"] == field, problem
    assert "position" not in problem or problem["position"] is None


@pytest.mark.parametrize(("options", "form", "field", "shown", "words"), CASES)
def test_form_shows_the_error_under_its_field(
    client: FlaskClient, options: Any, form: dict[str, str], field: str, shown: str, words: str
) -> None:
    response = submit_form(client, puzzle="SEND + MORE = MONEY", **form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    error = re.search(rf'<p class="error" id="{shown}-error" role="alert">(.*?)</p>', page, re.S)
    assert error and words in error.group(1), page[page.find("<form") :][:3000]
    assert 'id="puzzle-error"' not in page
    assert f'aria-describedby="{shown}-error"' in page
    for name, value in form.items():
        if name != "leading_zeros":  # a select offers only its own choices
            assert f'value="{value}"' in page  # what the person typed stays in the form


def test_form_fixed_digits_that_cannot_be_read(client: FlaskClient) -> None:
    response = submit_form(client, puzzle="SEND + MORE = MONEY", fixed="E is five")
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and 'id="fixed-error"' in page
    assert "letter=digit pairs" in page


def test_form_fixed_digits_are_used(client: FlaskClient, web_workers: Any) -> None:
    response = submit_form(client, puzzle="SEND + MORE = MONEY", fixed="m=1, O=0")
    assert response.status_code == 303
    job_page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "known digits: M=1, O=0" in job_page


def fixed_error(response: Any) -> str:
    """The message shown under the form's "fixed" field ('' when there is none)."""
    page = response.get_data(as_text=True)
    found = re.search(r'<p class="error" id="fixed-error" role="alert">(.*?)</p>', page, re.S)
    return found.group(1) if found else ""


# Digits to Python but not to the JSON API: '²'.isdigit() holds but int('²') raises; int()
# reads the Arabic-Indic and the fullwidth five, and '1_0' as 10.
NOT_ASCII = ["E=²", "E=٥", "E=1_0", "E²", "E=⁵"]


@pytest.mark.parametrize("fixed", NOT_ASCII)
@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "letter=digit pairs"), ("ja", "「文字=数字」"), ("th", "ตัวอักษร=ตัวเลข")],
)
def test_form_refuses_digits_that_are_not_ascii(
    client: FlaskClient, fixed: str, lang: str, words: str
) -> None:
    client.get(f"/?lang={lang}")
    response = submit_form(client, puzzle="SEND+MORE=MONEY", fixed=fixed)
    assert response.status_code == 422
    assert words in fixed_error(response)
    assert 'id="puzzle-error"' not in response.get_data(as_text=True)


@pytest.mark.parametrize("fixed", NOT_ASCII)
def test_estimate_refuses_digits_that_are_not_ascii_as_the_api_does(
    client: FlaskClient, fixed: str
) -> None:
    query = {"puzzle": "SEND+MORE=MONEY", "fixed": fixed}
    problem = assert_problem(client.get("/api/estimate", query_string=query), 422)
    body = {"puzzle": "SEND+MORE=MONEY", "options": {"fixed": {"E": fixed.lstrip("E=")}}}
    api = assert_problem(post_job(client, body), 422)
    assert problem["field"] == api["field"] == "options.fixed"
    assert problem["type"] == api["type"] == "/api/problems/invalid-request"
    assert "int()" not in problem["detail"]


@pytest.mark.parametrize("fixed", ["Ｅ＝５、Ｍ＝１", "E=5、M=1", "ｅ５ ｍ１", "E=5，M=1"])
def test_full_width_fixed_digits_and_japanese_commas_are_read(
    client: FlaskClient, fixed: str
) -> None:
    query = {"puzzle": "SEND＋MORE＝MONEY", "fixed": fixed}
    response = client.get("/api/estimate", query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["options"]["fixed"] == {"E": 5, "M": 1}


def test_a_letter_fixed_twice_is_refused_as_the_api_does(client: FlaskClient) -> None:
    body = {"puzzle": "SEND + MORE = MONEY", "options": {"fixed": {"E": 5, "e": 6}}}
    api = assert_problem(post_job(client, body), 422)
    query = {"puzzle": "SEND + MORE = MONEY", "fixed": "E=5, E=6"}
    estimate = assert_problem(client.get("/api/estimate", query_string=query), 422)
    assert estimate["field"] == api["field"] == "options.fixed"
    assert estimate["detail"] == api["detail"] == "letter E is fixed twice, to 5 and 6"
    response = submit_form(client, puzzle="SEND + MORE = MONEY", fixed="A=1, A=2")
    assert response.status_code == 422
    assert "A is given two digits, 1 and 2." in fixed_error(response)


def test_a_letter_given_the_same_digit_twice_is_fine(client: FlaskClient, web_workers: Any) -> None:
    response = submit_form(client, puzzle="SEND + MORE = MONEY", fixed="M=1, m=1")
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "known digits: M=1" in page


def test_base_is_read_in_ascii_digits_only(client: FlaskClient) -> None:
    for base in ("1_0", "١٠", "１０"):
        response = submit_form(client, puzzle="SEND + MORE = MONEY", base=base)
        assert response.status_code == 422 and 'id="base-error"' in response.get_data(as_text=True)
        query = {"puzzle": "SEND + MORE = MONEY", "base": base}
        problem = assert_problem(client.get("/api/estimate", query_string=query), 422)
        assert problem["field"] == "options.base"
