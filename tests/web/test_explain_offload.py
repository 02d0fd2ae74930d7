"""Explanations are a worker's work, asked for through the API: queued once, charged to the
client that asked, one at a time per client, and shown on the job page once ready.

Each test has a deployment of its own (fresh settings) whose workers it starts itself: with no
enumerate worker (the explanations' queue) an explanation stays queued, so what the API and the
page say meanwhile is seen every time, not only when the worker happens to be slow.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from jobstore import JobStore, Settings, State
from jobstore.explanations import LANE, QUEUE_MODE, TASK
from tests.support.processes import wait_job
from tests.support.web import assert_problem, make_app

REFRESH = '<noscript><meta http-equiv="refresh" content="2"></noscript>'
# A search of minutes (no 13 + 13 letters in base 36 solve it quickly): its explanation takes
# the whole of the worker's 2 s CPU budget for the search, whatever the machine.
LONG = "ABCDEFGHIJKLM + NOPQRSTUVWXYZ = ZYXWVUTSRQPONA"


@pytest.fixture()
def deployment(fresh_settings: Callable[..., Settings]) -> tuple[Settings, JobStore]:
    """Settings and a store of a deployment of this test's own (no workers yet)."""
    settings = fresh_settings(max_stored_per_client=0)
    return settings, JobStore(settings)


def app_on(settings: Settings, **config: Any) -> Flask:
    """The app on these settings."""
    return make_app(settings, **config)


def create(client: FlaskClient, puzzle: str, **options: Any) -> str:
    """Queue a solve and return its id."""
    response = client.post("/api/jobs", json={"puzzle": puzzle, "options": options})
    assert response.status_code == 202, response.get_data(as_text=True)
    job_id: str = response.get_json()["id"]
    return job_id


def pending_schema(app: Flask) -> dict[str, Any]:
    """The served schema of the 202 answer, with its components."""
    document = app.test_client().get("/api/openapi.json").get_json()
    operation = document["paths"]["/api/jobs/{job_id}/explain"]["get"]
    body = operation["responses"]["202"]["content"]["application/json"]["schema"]
    return {**body, "components": document["components"]}


def test_the_first_request_queues_it_for_a_worker_and_answers_202(
    deployment: tuple[Settings, JobStore],
) -> None:
    settings, store = deployment
    app = app_on(settings)
    client = app.test_client()
    job_id = create(client, "SEND + MORE = MONEY")
    for _ in range(3):  # asked again while queued: still the one explanation, queued once
        response = client.get(f"/api/jobs/{job_id}/explain")
        assert response.status_code == 202 and response.headers["Retry-After"] == "1"
        body = response.get_json()
        Draft202012Validator(pending_schema(app)).validate(body)
        assert body["state"] == "queued" and body["job"] == job_id
    messages = store.redis.lrange(store.keys.lane(QUEUE_MODE, LANE), 0, -1)
    assert sum(TASK in message for message in messages) == 1
    assert store.redis.hget(store.keys.stats, "explained:asked") == "1"
    # Waiting (as ?wait= does) answers when the time is up, still 202.
    started = time.monotonic()
    response = client.get(f"/api/jobs/{job_id}/explain?wait=0.5")
    assert response.status_code == 202 and 0.4 < time.monotonic() - started < 5


def test_a_client_waits_for_one_explanation_at_a_time(
    deployment: tuple[Settings, JobStore],
) -> None:
    settings, _store = deployment
    client = app_on(settings).test_client()
    first, second = create(client, "SEND + MORE = MONEY"), create(client, "TO + GO = OUT")
    assert client.get(f"/api/jobs/{first}/explain").status_code == 202
    body = assert_problem(client.get(f"/api/jobs/{second}/explain"), 429)
    assert body["type"].endswith("/explanation-busy") and body["field"] == "job_id"
    other = app_on(settings).test_client()  # the same client (127.0.0.1): busy too
    assert other.get(f"/api/jobs/{second}/explain").status_code == 429
    assert client.get(f"/api/jobs/{first}/explain").status_code == 202  # its own: as it was


def test_asking_for_an_explanation_counts_against_the_rate_limit(
    deployment: tuple[Settings, JobStore],
) -> None:
    settings, _store = deployment
    client = app_on(settings, RATE_LIMIT="2/minute").test_client()
    job_id = create(client, "SEND + MORE = MONEY")  # 1 of 2
    assert client.get(f"/api/jobs/{job_id}/explain").status_code == 202  # 2 of 2: the work
    assert client.get(f"/api/jobs/{job_id}/explain").status_code == 202  # a look: not counted
    response = client.post("/api/jobs", json={"puzzle": "TO + GO = OUT"})
    assert_problem(response, 429)


def test_the_job_page_says_it_is_worked_out_then_shows_the_steps(
    deployment: tuple[Settings, JobStore], worker_factory: Any
) -> None:
    settings, store = deployment
    client = app_on(settings).test_client()
    worker_factory(settings, "solve")  # runs the job, not the explanation (enumerate queue)
    job_id = create(client, "SEND + MORE = MONEY")
    assert wait_job(store, job_id).state is State.SUCCEEDED
    for lang in ("en", "ja"):
        page = client.get(f"/jobs/{job_id}?lang={lang}").get_data(as_text=True)
        section = page[page.index('<section class="explain"') :]
        section = section[: section.index("</section>")]
        assert 'id="explain-pending"' in section and "<li" not in section
        assert f'data-poll="/api/jobs/{job_id}/explain?wait=5"' in section
        assert REFRESH in page  # without JavaScript the page refreshes until the steps come
    worker_factory(settings, "enumerate")
    steps = client.get(f"/api/jobs/{job_id}/explain?wait=30").get_json()["steps"]
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert len(re.findall(r'<li class="step', page)) == len(steps) > 3
    assert REFRESH not in page and 'id="explain-pending"' not in page


@pytest.mark.slow
def test_a_small_job_does_not_wait_for_an_explanation(
    deployment: tuple[Settings, JobStore], worker_factory: Any
) -> None:
    """The only enumerate worker gives a long explanation back for a small enumeration."""
    settings, store = deployment
    client = app_on(settings).test_client()
    long_job = create(client, LONG, base=36)
    client.post(f"/api/jobs/{long_job}/cancel", json={})  # its explanation is what counts
    worker_factory(settings, "enumerate")
    assert client.get(f"/api/jobs/{long_job}/explain").status_code == 202
    key = store.keys.explanation(long_job)
    deadline = time.monotonic() + 30
    while store.redis.hget(key, "state") != "running":
        assert time.monotonic() < deadline, "the explanation never started"
        time.sleep(0.02)
    small = store.submit("enumerate", "ODD + ODD = EVEN")
    done = wait_job(store, small.id, timeout=30)
    assert done.state is State.SUCCEEDED
    # It ran while the explanation, 2 s of CPU at least, still waited to be worked out again.
    assert store.redis.hget(key, "state") in ("queued", "running")
    assert int(store.redis.hget(store.keys.stats, "explained:yielded") or 0) >= 1
    response = client.get(f"/api/jobs/{long_job}/explain?wait=30")
    assert response.status_code == 200
    assert response.get_json()["steps"][-1]["key"] == "search_stopped"
