"""Case 8: 2,000 distinct jobs over HTTP from 20 concurrent clients to gunicorn (2 processes):
every job accepted, every one terminal, none lost, no server error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from worker.config import Settings
from worker.testing import WebServer

from .load import check_over_http, puzzles, states, submit_all, wait_terminal

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
