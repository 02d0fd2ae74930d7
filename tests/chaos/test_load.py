"""Case 8: 2,000 distinct jobs over HTTP from 20 concurrent clients to gunicorn (2 processes):
every job accepted, every one terminal, none lost, no server error; and a gunicorn process
killed under load loses no accepted job."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from jobstore import Settings
from tests.support.chaos import wait_until
from tests.support.load import (
    LoadResult,
    check_over_http,
    puzzles,
    states,
    submit_all,
    wait_terminal,
)
from tests.support.processes import WebServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
JOBS, CLIENTS = 2_000, 20


def test_2000_distinct_jobs_from_20_clients_all_finish(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    web_factory: Callable[..., WebServer],
    store_factory: Any,
) -> None:
    """All 2,000 are accepted (202), reach a terminal state, and none is lost or errs."""
    settings = fresh_settings()
    worker_factory(settings, "solve,enumerate", concurrency=2)
    web = web_factory(settings, workers=2)
    jobs = puzzles(JOBS)
    assert len({text for _mode, text in jobs}) == JOBS
    result = submit_all(web.url, jobs, CLIENTS)
    assert result.errors == [] and dict(result.statuses) == {202: JOBS}
    assert len(set(result.ids)) == JOBS, "two submissions were answered with one job"
    store = store_factory(settings)
    wait_terminal(store, result.ids, timeout=120)
    assert set(states(store, result.ids)) == {"succeeded"}
    seen = check_over_http(web.url, result.ids, CLIENTS)
    assert dict(seen) == {"succeeded": JOBS}
    assert " 500 " not in web.log() and "Traceback" not in web.log()


def test_web_process_killed_under_load_loses_no_accepted_job(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    web_factory: Callable[..., WebServer],
    store_factory: Any,
) -> None:
    """kill -9 of a gunicorn worker process while 10 clients submit: requests in flight fail
    (connection errors, never a 5xx), the master replaces it, and every job that got a 202
    finishes."""
    settings = fresh_settings()
    worker_factory(settings, "solve,enumerate", concurrency=2)
    web = web_factory(settings, workers=2)
    result = LoadResult()
    clients = threading.Thread(target=submit_all, args=(web.url, puzzles(400, 9), 10, result))
    clients.start()
    try:
        wait_until(lambda: len(result.ids) >= 100, 60, "100 jobs accepted", interval=0.01)
        (victim, _other) = web.children()
        os.kill(victim, signal.SIGKILL)
        with result.lock:
            at_kill = len(result.ids)
    finally:
        clients.join(120)
    assert set(result.statuses) == {202}, result.statuses  # failures are connection errors
    assert len(result.ids) + len(result.errors) == 400
    assert len(result.ids) > at_kill + 100, "no recovery after the kill"
    wait_until(lambda: len(web.children()) == 2 and victim not in web.children(), 30, "respawn")
    # Clients retry what failed: the same puzzle again must give a job that finishes too.
    failed = [text.split(": ", 1)[0] for text in result.errors]
    retried = submit_all(web.url, [(mode, t) for mode, t in puzzles(400, 9) if t in failed], 5)
    assert retried.errors == [] and len(retried.ids) == len(failed)
    store = store_factory(settings)
    wait_terminal(store, result.ids + retried.ids, timeout=60)
    assert set(states(store, result.ids + retried.ids)) == {"succeeded"}
