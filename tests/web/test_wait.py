"""Long polling: ?wait= on POST /api/jobs and GET /api/jobs/{id}, its bounds and its cap."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from tests.support.web import assert_problem

SLOW = 60.0


pytestmark = pytest.mark.usefixtures("no_recheck")


def test_post_with_wait_answers_with_the_finished_job(app: Flask, web_workers: Any) -> None:
    """One request: the 202 carries the solved job."""
    started = time.monotonic()
    response = app.test_client().post("/api/jobs?wait=20", json={"puzzle": "TO + GO = OUT"})
    assert response.status_code == 202
    body = response.get_json()
    assert body["state"] == "succeeded" and body["solution"] == {"T": 2, "O": 1, "G": 8, "U": 0}
    assert "Retry-After" not in response.headers
    assert time.monotonic() - started < SLOW / 2


def test_get_with_wait_answers_when_the_job_ends(app: Flask, web_workers: Any) -> None:
    """GET ?wait holds the answer until the enumeration has ended."""
    client = app.test_client()
    body = {"puzzle": "A + B = C", "mode": "enumerate", "options": {"base": 7}}
    job = client.post("/api/jobs", json=body).get_json()
    response = client.get(f"/api/jobs/{job['id']}?wait=20")
    assert response.status_code == 200
    assert response.get_json()["state"] == "succeeded"


def test_a_cancel_ends_a_waiting_get(idle_app: Callable[..., Flask]) -> None:
    """A queued job cancelled by another client wakes the request waiting on it."""
    app = idle_app()
    job = app.test_client().post("/api/jobs", json={"puzzle": "TO + GO = OUT"}).get_json()
    store = app.extensions["alphametic.store"]
    threading.Timer(0.5, store.cancel, args=(job["id"],)).start()
    started = time.monotonic()
    response = app.test_client().get(f"/api/jobs/{job['id']}?wait=30")
    assert response.get_json()["state"] == "canceled"
    assert time.monotonic() - started < SLOW / 2


def test_wait_runs_out_with_the_unfinished_status(idle_app: Callable[..., Flask]) -> None:
    """With no worker the job is still queued when the wait is over; Retry-After says poll."""
    app = idle_app()
    started = time.monotonic()
    response = app.test_client().post("/api/jobs?wait=0.5", json={"puzzle": "TO + GO = OUT"})
    assert response.status_code == 202 and response.get_json()["state"] == "queued"
    assert time.monotonic() - started >= 0.5
    assert response.headers["Retry-After"] == "1"


@pytest.mark.parametrize("config", [{"MAX_WAITERS": 0}, {"MAX_WAITERS": 1, "take_slot": True}])
def test_no_free_wait_slot_answers_at_once(
    idle_app: Callable[..., Flask], config: dict[str, Any]
) -> None:
    """Waiting disabled, or this process's wait slots all taken: the status comes at once."""
    take = config.pop("take_slot", False)
    app = idle_app(**config)
    with contextlib.ExitStack() as held:
        if take:  # another client's wait holds the one slot
            assert held.enter_context(app.extensions["alphametic.wait_slots"].hold("10.9.9.9"))
        started = time.monotonic()
        response = app.test_client().post("/api/jobs?wait=30", json={"puzzle": "TO + GO = OUT"})
    assert response.status_code == 202 and response.get_json()["state"] == "queued"
    assert time.monotonic() - started < SLOW / 2


@pytest.mark.parametrize("wait", ["-1", "abc", "nan", "inf", "31", ""])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_bad_wait_is_422(idle_app: Callable[..., Flask], method: str, wait: str) -> None:
    """wait must be a number of seconds from 0 to MAX_WAIT (30 by default)."""
    client = idle_app().test_client()
    if method == "POST":
        response = client.post(f"/api/jobs?wait={wait}", json={"puzzle": "TO + GO = OUT"})
    else:
        job = client.post("/api/jobs", json={"puzzle": "TO + GO = OUT"}).get_json()
        response = client.get(f"/api/jobs/{job['id']}?wait={wait}")
    assert assert_problem(response, 422)["field"] == "wait"


def test_openapi_documents_wait(app: Flask) -> None:
    """Both operations list the wait parameter with its bounds."""
    paths = app.test_client().get("/api/openapi.json").get_json()["paths"]
    for operation in (paths["/api/jobs"]["post"], paths["/api/jobs/{job_id}"]["get"]):
        (wait,) = [p for p in operation["parameters"] if p["name"] == "wait"]
        assert wait["schema"] == {"type": "number", "minimum": 0, "maximum": 30.0}
