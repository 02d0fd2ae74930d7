"""The admin API refuses malformed listing and bulk arguments with a 422 naming the field."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from jobstore import JobStore, Settings
from tests.support.processes import wait_job
from tests.support.web import assert_problem, make_app

ADMIN_TOKEN = "test-admin-token-web-input-0123456789"
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(scope="module")
def admin(web_settings: Settings) -> FlaskClient:
    """A test client of an app with the admin token set."""
    return make_app(web_settings, ADMIN_TOKEN=ADMIN_TOKEN).test_client()


@pytest.fixture(scope="module")
def three_jobs(job_store: JobStore, web_workers: Any) -> Iterator[tuple[str, list[str]]]:
    """(client, ids oldest first) of three ended solves of a client of their own."""
    client = f"admin-input-{uuid.uuid4().hex[:8]}"
    digits = random.sample(range(10_000, 99_999), 3)  # distinct puzzles: none deduplicated
    ids = [job_store.submit("solve", f"A + B = {n}", client=client).id for n in digits]
    for job_id in ids:
        wait_job(job_store, job_id)
    yield client, ids


def listing(admin: FlaskClient, **query: str) -> Any:
    """GET /admin/api/jobs with these query arguments."""
    return admin.get("/admin/api/jobs", query_string=query, headers=AUTH)


@pytest.mark.parametrize(
    "cursor", ["garbage", "-1", "1e999", "nan", "inf", "+inf", "1_0", "١٠", "0x10", " "]
)
def test_a_bad_cursor_is_422(admin: FlaskClient, cursor: str) -> None:
    problem = assert_problem(listing(admin, cursor=cursor), 422)
    assert problem["field"] == "cursor" and "cursor" in problem["detail"]


@pytest.mark.parametrize("limit", ["-1", "0", "501", "ten", "1_0", "١٠", "2.5"])
def test_a_bad_limit_is_422(admin: FlaskClient, limit: str) -> None:
    problem = assert_problem(listing(admin, limit=limit), 422)
    assert problem["field"] == "limit" and "limit" in problem["detail"]


def test_the_page_refuses_a_bad_cursor_too(admin: FlaskClient) -> None:
    assert assert_problem(admin.get("/admin?cursor=garbage", headers=AUTH), 422)["field"] == (
        "cursor"
    )


def test_next_pages_on(admin: FlaskClient, three_jobs: tuple[str, list[str]]) -> None:
    client, ids = three_jobs
    seen: list[str] = []
    query = {"client": client, "limit": "2"}
    while True:
        page = listing(admin, **query).get_json()
        seen += [job["id"] for job in page["items"]]
        if page["next"] is None:
            break
        query["cursor"] = page["next"]
    assert seen == ids[::-1]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"filter": {"client": 5}}, "filter.client"),
        ({"filter": {"state": ["queued"]}}, "filter.state"),
        ({"filter": {"state": "lost"}}, "filter.state"),
        ({"filter": {"mode": "fast"}}, "filter.mode"),
        ({"filter": {"clinet": "10.0.0.7"}}, "filter"),  # misspelt: not "cancel everything"
        ({"filter": "queued"}, "filter"),
        ({"ids": "all"}, "ids"),
        ([1, 2], "body"),
    ],
)
def test_a_bad_bulk_cancel_is_422(admin: FlaskClient, body: Any, field: str) -> None:
    response = admin.post("/admin/api/jobs/cancel", json=body, headers=AUTH)
    assert assert_problem(response, 422)["field"] == field


def test_a_bulk_cancel_nested_past_the_parser_is_422(admin: FlaskClient) -> None:
    body = '{"ids": ' + "[" * 5000 + "]" * 5000 + "}"
    response = admin.post(
        "/admin/api/jobs/cancel", data=body, content_type="application/json", headers=AUTH
    )
    assert assert_problem(response, 422)["field"] == "body"


def test_an_upper_case_id_names_the_same_job(
    admin: FlaskClient, three_jobs: tuple[str, list[str]]
) -> None:
    job_id = three_jobs[1][0]
    answer = admin.post(f"/admin/api/jobs/{job_id.upper()}/cancel", headers=AUTH)
    assert answer.status_code == 200 and answer.get_json()["result"] == "unchanged"
    bulk = admin.post("/admin/api/jobs/cancel", json={"ids": [job_id.upper()]}, headers=AUTH)
    assert bulk.get_json()["results"] == {job_id.upper(): "unchanged"}
    assert assert_problem(
        admin.post(f"/admin/api/jobs/{job_id.upper()}/requeue", headers=AUTH), 409
    )["detail"].endswith("(this one is succeeded).")


def test_admin_api_errors_are_problems(admin: FlaskClient) -> None:
    assert_problem(admin.get("/admin/api/jobs/cancel", headers=AUTH), 405)
    assert_problem(admin.get("/admin/api/no-such-thing", headers=AUTH), 404)
