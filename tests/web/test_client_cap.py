"""The cap on unfinished jobs per client: 429 problem+json from the API, 429 form page."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests
from flask import Flask

from jobstore import JobStore, Settings
from tests.support.web import assert_problem, make_app
from tests.support.web import submit_form as submit

PUZZLES = ["SEND + MORE = MONEY", "TWO + TWO = FOUR", "ODD + ODD = EVEN"]


@pytest.fixture()
def capped(fresh_settings: Callable[..., Settings]) -> Iterator[Callable[..., Flask]]:
    """Factory(**config): apps with a cap of 2 on queues no worker reads (jobs stay queued)."""
    settings = fresh_settings(max_queued_per_client=2)
    yield lambda **config: make_app(settings, **config)
    store = JobStore(settings)
    for key in store.redis.scan_iter(store.keys.job("*")):
        store.cancel(key.rsplit(":", 1)[1])


def post(app: Flask, puzzle: str, **headers: str) -> Any:
    """POST a solve job to the API."""
    return app.test_client().post("/api/jobs", json={"puzzle": puzzle}, headers=headers)


def retry_after(response: Any) -> int:
    """The Retry-After seconds of a reply."""
    return int(response.headers["Retry-After"])


def test_api_answers_429_with_the_cap(capped: Callable[..., Flask]) -> None:
    app = capped()
    first = post(app, PUZZLES[0])
    assert [first.status_code, post(app, PUZZLES[1]).status_code] == [202, 202]
    refused = post(app, PUZZLES[2])
    problem = assert_problem(refused, 429)
    assert problem["type"] == "/api/problems/too-many-jobs" and problem["cap"] == 2
    assert "at most 2 unfinished jobs" in problem["detail"]
    assert retry_after(refused) == 1  # its first job is small: it ends a moment after it starts
    again = post(app, PUZZLES[0])  # identical to a queued job: answered with it, not counted
    assert again.status_code == 202 and again.get_json()["id"] == first.get_json()["id"]
    cancel = app.test_client().post(first.get_json()["links"]["cancel"], json={})
    assert cancel.get_json()["state"] == "canceled"
    assert post(app, PUZZLES[2]).status_code == 202  # a cancelled job frees its place


def test_form_shows_the_cap_next_to_the_form(capped: Callable[..., Flask]) -> None:
    client = capped().test_client()
    for puzzle in PUZZLES[:2]:
        assert submit(client, puzzle=puzzle).status_code == 303
    refused = submit(client, puzzle=PUZZLES[2])
    assert refused.status_code == 429 and refused.mimetype == "text/html"
    assert retry_after(refused) == 1
    page = refused.get_data(as_text=True)
    assert 'id="queue-error" role="alert"' in page and "at most 2 unfinished jobs" in page
    assert f">\n{html.escape(PUZZLES[2])}</textarea>" in page  # the form keeps what was typed


def test_retry_after_is_when_the_clients_first_job_can_end(
    capped: Callable[..., Flask],
) -> None:
    """At the cap, Retry-After is the seconds until the first of the client's jobs can end:
    a big job queued needs its whole time limit of search, not the old fixed 5 s."""
    app = capped()
    for digit in (1, 2):  # two distinct big products (no estimate: their time limit's search)
        options = {"base": 30, "fixed": {"A": digit}}
        body = {"puzzle": "ABCDEFGHI * JKLMNOPQR = STUVWXYZ", "options": options}
        assert app.test_client().post("/api/jobs", json=body).status_code == 202
    refused = post(app, PUZZLES[0])
    assert_problem(refused, 429)
    limit = app.extensions["alphametic.settings"].solve_soft_limit  # searched from the start
    assert retry_after(refused) == limit > 5


def test_clients_are_told_apart_as_the_rate_limiter_does(capped: Callable[..., Flask]) -> None:
    proxied = capped(PROXY_HOPS=1)
    one, other = {"X-Forwarded-For": "203.0.113.7"}, {"X-Forwarded-For": "198.51.100.9"}
    assert [post(proxied, p, **one).status_code for p in PUZZLES] == [202, 202, 429]
    assert post(proxied, PUZZLES[2], **other).status_code == 202  # another client, same proxy
    direct = capped()  # no trusted proxy: a forged header does not make a new client
    others = ["NUM + BER = PLAY", "BILL + GATES = GREAT", "ABC + DEF = GHI"]  # not deduplicated
    forged = [post(direct, p, **{"X-Forwarded-For": f"192.0.2.{i}"}) for i, p in enumerate(others)]
    assert [r.status_code for r in forged] == [202, 202, 429]


def test_openapi_names_the_cap(capped: Callable[..., Flask]) -> None:
    document = capped().test_client().get("/api/openapi.json").get_json()
    assert "at most 2 unfinished jobs per client" in document["info"]["description"]
    assert (
        "too-many-jobs" in document["paths"]["/api/jobs"]["post"]["responses"]["429"]["description"]
    )


def test_real_server_applies_the_default_cap(live_server: str, web_settings: Settings) -> None:
    # gunicorn runs with the default cap (20) and one worker of two processes: long jobs pile
    # up queued until the cap answers 429; earlier tests' unfinished jobs may count too.
    session = requests.Session()
    accepted: list[str] = []
    try:
        for base in range(16, 37):
            body: dict[str, Any] = {
                "puzzle": "A + B + C + D + E = F + G + H + I",
                "mode": "enumerate",
                "options": {"base": base},
            }
            response = session.post(live_server + "/api/jobs", json=body, timeout=10)
            if response.status_code != 202:
                break
            accepted.append(response.json()["links"]["cancel"])
        assert response.status_code == 429, response.text
        assert response.headers["Content-Type"] == "application/problem+json"
        assert response.json()["cap"] == 20
        # Until the first can end: at most an enumeration's search time, a sharded one's.
        assert 1 <= retry_after(response) <= web_settings.search_budget("enumerate", sharded=True)
        assert 0 < len(accepted) <= 20
    finally:
        for link in accepted:
            session.post(live_server + link, json={}, timeout=10)
