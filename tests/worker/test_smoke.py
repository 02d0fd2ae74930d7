"""Smoke test of the shared fixtures: a solve job runs on the session workers."""

from __future__ import annotations

from typing import Any

from worker.jobs import JobStore, State


def test_solve_job_on_session_workers(store: JobStore, celery_workers: Any, wait_job: Any) -> None:
    """SEND + MORE = MONEY succeeds with its one solution."""
    job = wait_job(store, store.submit("solve", "SEND + MORE = MONEY").id)
    assert job.state is State.SUCCEEDED
    assert job.solution == {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}
