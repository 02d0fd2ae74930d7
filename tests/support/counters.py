"""Polling a job's counters as a client would, and what must hold of them at every read."""

from __future__ import annotations

import time
from typing import Any

from jobstore import JobStore, State


def watch(store: JobStore, job_ids: list[str], timeout: float) -> list[list[tuple[Any, ...]]]:
    """Poll the jobs until all have ended: (state, progress, found, stored) per poll; the
    stored count is read first, so stored <= found must hold at every poll."""
    seen: list[list[tuple[Any, ...]]] = [[] for _ in job_ids]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for rows, job_id in zip(seen, job_ids, strict=True):
            stored = store.compact(job_id, 0, 0)[2]
            job = store.get(job_id)
            assert job is not None
            rows.append((job.state, job.progress, job.solutions_found, stored))
        if all(rows[-1][0] in (State.SUCCEEDED, State.FAILED, State.CANCELED) for rows in seen):
            return seen
        time.sleep(0.05)
    raise AssertionError(f"not finished in {timeout} s: {[rows[-1] for rows in seen]}")


def assert_counters_only_rise(rows: list[tuple[Any, ...]]) -> None:
    """Progress, found and stored never go down, and stored <= found, at every poll."""
    for before, after in zip(rows, rows[1:], strict=False):
        assert after[1] >= before[1] and after[2] >= before[2] and after[3] >= before[3], (
            before,
            after,
        )
    assert all(stored <= found for _s, _p, found, stored in rows), rows
