"""Odd input is a 4xx naming its field: non-ASCII numbers, huge JSON integers, upper-case ids."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from jobstore import JobStore
from tests.support.processes import wait_job
from tests.support.web import assert_problem, submit_form

# int() reads all of these; none is a number written in the digits 0-9.
NOT_ASCII = ["1_0", "١٠", "１０", "²", "+5", "1e1"]
HUGE = "9" * 5000  # past Python's 4,300 digits of a str -> int conversion


@pytest.fixture(scope="module")
def done_job(app: Any, job_store: JobStore, web_workers: Any) -> str:
    """An ended enumeration with two solutions."""
    body = {"puzzle": "ODD + ODD = EVEN", "mode": "enumerate"}
    job_id: str = app.test_client().post("/api/jobs", json=body).get_json()["id"]
    assert wait_job(job_store, job_id).state == "succeeded"
    return job_id


@pytest.mark.parametrize("name", ["offset", "limit"])
@pytest.mark.parametrize("value", NOT_ASCII)
def test_page_arguments_take_ascii_digits_only(
    client: FlaskClient, done_job: str, name: str, value: str
) -> None:
    response = client.get(f"/api/jobs/{done_job}/solutions", query_string={name: value})
    problem = assert_problem(response, 422)
    assert problem["field"] == name and name in problem["detail"]


def test_page_arguments_in_ascii_digits_still_work(client: FlaskClient, done_job: str) -> None:
    body = client.get(f"/api/jobs/{done_job}/solutions?offset=1&limit=10").get_json()
    assert body["offset"] == 1 and body["limit"] == 10 and len(body["items"]) == 1


@pytest.mark.parametrize(
    ("options", "field"),
    [
        (f'{{"base": {HUGE}}}', "options.base"),
        (f'{{"base": -{HUGE}}}', "options.base"),
        (f'{{"fixed": {{"E": {HUGE}}}}}', "options.fixed.E"),
    ],
)
def test_a_huge_json_integer_is_named_by_its_field(
    client: FlaskClient, options: str, field: str
) -> None:
    body = f'{{"puzzle": "SEND + MORE = MONEY", "options": {options}}}'
    response = client.post("/api/jobs", data=body, content_type="application/json")
    problem = assert_problem(response, 422)
    assert problem["field"] == field
    assert field in problem["detail"] and "5000 digits" in problem["detail"]
    assert "sys." not in problem["detail"] and "int" not in problem["detail"]


def test_a_huge_json_integer_as_the_whole_body(client: FlaskClient) -> None:
    response = client.post("/api/jobs", data=HUGE, content_type="application/json")
    assert assert_problem(response, 422)["field"] == "body"


def test_a_huge_number_in_a_query_or_form_names_its_field(
    client: FlaskClient, done_job: str
) -> None:
    query = {"puzzle": "SEND + MORE = MONEY", "base": HUGE}
    assert assert_problem(client.get("/api/estimate", query_string=query), 422)["field"] == (
        "options.base"
    )
    response = client.get(f"/api/jobs/{done_job}/solutions", query_string={"offset": HUGE})
    assert assert_problem(response, 422)["field"] == "offset"
    page = submit_form(client, puzzle="SEND + MORE = MONEY", fixed=f"E={HUGE}")
    assert page.status_code == 422 and 'id="fixed-error"' in page.get_data(as_text=True)


@pytest.mark.parametrize(
    "path",
    ["/api/jobs/{id}", "/api/jobs/{id}/solutions", "/api/jobs/{id}/grid",
     "/api/jobs/{id}/export?format=jsonl", "/api/jobs/{id}/explain?wait=30", "/jobs/{id}"],
)  # fmt: skip
def test_an_upper_case_id_names_the_same_job(client: FlaskClient, done_job: str, path: str) -> None:
    response = client.get(path.format(id=done_job.upper()))
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    text = response.get_data(as_text=True)
    assert done_job.upper() not in text  # bodies and links name the job by its canonical id
    if "export" not in path and "explain" not in path:
        assert done_job in text
