"""Heads too long for gunicorn itself: the server as `make run` starts it answers them as the
API's problem+json (scripts/webworker.py), as the app answers those under gunicorn's caps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

import scripts.webworker as webworker
from jobstore import Settings
from scripts.run import web_argv
from scripts.webserver import limit_request_field_size, limit_request_line
from tests.support.processes import WebServer
from web.bodies import MAX_HEADER_FIELD, MAX_REQUEST_LINE
from web.errors.problems import SLUGS, TITLES, ProblemCode

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(web_settings: Settings) -> Iterator[WebServer]:
    """The web server exactly as `make run` starts it, on the test Redis."""
    web = WebServer(web_settings, command=lambda port: web_argv(port, 1))
    try:
        yield web.wait_ready(60)
    finally:
        web.cleanup()


def problem_of(answer: requests.Response, status: int) -> dict[str, Any]:
    """The problem+json body of an answer with this status."""
    assert answer.status_code == status, answer.text[:300]
    assert answer.headers["Content-Type"] == PROBLEM, answer.headers
    body: dict[str, Any] = answer.json()
    return body


def test_a_request_line_too_long_for_gunicorn_is_the_apis_problem(server: WebServer) -> None:
    """Over gunicorn's 8190 bytes the answer is the app's own 414 problem (its code), not
    gunicorn's HTML page: the same body as for a line the app refuses under that cap."""
    path = "/api/jobs/00000000-0000-0000-0000-000000000000"
    by_app = requests.get(f"{server.url}{path}?pad={'x' * (MAX_REQUEST_LINE + 10)}", timeout=10)
    over = requests.get(f"{server.url}{path}?pad={'x' * (limit_request_line + 10)}", timeout=10)
    body = problem_of(over, 414)
    assert body["code"] == ProblemCode.REQUEST_LINE_TOO_LONG, body
    assert body == problem_of(by_app, 414)
    assert "URI Too Long" not in over.text  # gunicorn's page said that
    assert requests.get(f"{server.url}/healthz", timeout=10).status_code == 200


def test_a_header_too_large_for_gunicorn_is_the_apis_problem(server: WebServer) -> None:
    """A header line over gunicorn's own cap is the app's 431 problem (its code)."""
    url = f"{server.url}/api/jobs/00000000-0000-0000-0000-000000000000"
    by_app = requests.get(url, headers={"X-Pad": "p" * (MAX_HEADER_FIELD + 10)}, timeout=10)
    over = requests.get(url, headers={"X-Pad": "p" * (limit_request_field_size + 10)}, timeout=10)
    body = problem_of(over, 431)
    assert body["code"] == ProblemCode.HEADER_TOO_LARGE, body
    expected = {k: v for k, v in problem_of(by_app, 431).items() if k != "detail"}
    assert {k: v for k, v in body.items() if k != "detail"} == expected


def test_the_workers_copies_are_the_apps() -> None:
    """scripts/webworker.py cannot import the app: its texts are copies, kept equal here."""
    assert webworker.MAX_REQUEST_LINE == MAX_REQUEST_LINE
    assert webworker.MAX_HEADER_FIELD == MAX_HEADER_FIELD
    for status, (_reason, slug, title, _detail) in webworker.PROBLEMS.items():
        assert (slug, title) == (SLUGS[status], TITLES[status])
