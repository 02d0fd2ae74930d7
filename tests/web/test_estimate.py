"""The estimate endpoint, and the form's warning before an enumeration that would hit a cap."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask.testing import FlaskClient

from jobstore import Mode
from tests.support.web import assert_problem, submit_form

COUNT_MODE = "count" in {mode.value for mode in Mode}


def estimate(client: FlaskClient, **query: str) -> Any:
    """GET /api/estimate with these query arguments."""
    return client.get("/api/estimate", query_string=query)


def test_small_puzzle_is_counted_exactly(client: FlaskClient) -> None:
    body = estimate(client, puzzle="ABC + DEF = GHI").get_json()
    assert body["exact"] is True and body["solutions"] == 1088
    assert not body["exceeds_time_limit"] and not body["exceeds_storage_cap"]


def test_huge_puzzle_is_bounded_and_flagged(client: FlaskClient) -> None:
    started = time.monotonic()
    # 8,166,684 solutions: even the native core counts them for about half a second.
    body = estimate(client, puzzle="SEND + MORE + GOLD = MONEY", base="36").get_json()
    assert time.monotonic() - started < 2  # bounded: about a tenth of a second of counting
    assert body["exact"] is False and body["solutions"] > body["storage_cap"]
    assert body["exceeds_storage_cap"] is True


def test_estimate_reports_bad_fields(client: FlaskClient) -> None:
    assert assert_problem(estimate(client, puzzle="A + B = C", base="40"), 422)["field"] == (
        "options.base"
    )
    assert assert_problem(estimate(client, puzzle="A + B = C", fixed="Z=1"), 422)["field"] == (
        "options.fixed.Z"
    )
    assert assert_problem(estimate(client, puzzle="A + B ="), 422)["field"] == "puzzle"


def test_form_warns_before_a_huge_enumeration(client: FlaskClient) -> None:
    fields = {"puzzle": "CP + IS + FUN = TRUE", "mode": "enumerate", "base": "36"}
    response = submit_form(client, **fields)
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="size-warning" role="alert"' in page
    assert 'id="enumerate-anyway"' in page
    assert ('id="count-instead"' in page) is COUNT_MODE


def test_form_does_not_warn_for_a_small_enumeration(client: FlaskClient, web_workers: Any) -> None:
    response = submit_form(client, puzzle="ODD + ODD = EVEN", mode="enumerate")
    assert response.status_code == 303


@pytest.mark.skipif(not COUNT_MODE, reason="the job store has no count mode yet")
def test_count_instead_submits_a_count_job(client: FlaskClient, web_workers: Any) -> None:
    fields = {"puzzle": "CP + IS + FUN = TRUE", "mode": "enumerate", "base": "36"}
    response = submit_form(client, **fields, instead="count")
    assert response.status_code == 303
    job = client.get("/api" + response.headers["Location"]).get_json()
    assert job["mode"] == "count"
    client.post(f"/api/jobs/{job['id']}/cancel", json={})
