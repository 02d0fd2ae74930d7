"""Workers of their own: the soft time limit, and a re-run after the pool process dies."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import Any

from jobstore import Settings, State
from tests.support.puzzles import LONG, holds

# 401,544 solutions, a few seconds with storing them: long enough to be killed mid-way.
MEDIUM = ("ABC + DEF = GHI", {"base": 16})
MEDIUM_COUNT = 401_544


def test_soft_limit_fails_job_with_partial_results(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any, wait_job: Any
) -> None:
    """A 1 s soft limit ends a long enumeration failed "time limit", keeping what it found."""
    # Whole (not sharded): its own task is the one that fails.
    settings = fresh_settings(
        enumerate_soft_limit=1.0, enumerate_hard_limit=10.0, shard_threshold=0
    )
    worker = worker_factory(settings, "enumerate")
    store = store_factory(settings)
    job = wait_job(store, store.submit("enumerate", *LONG).id, timeout=20)
    assert job.state is State.FAILED and job.error == "time limit"
    # Celery (and so Flower and `celery events`) sees a failure with the reason.
    deadline = time.monotonic() + 5
    while "raised expected: JobFailed('time limit')" not in worker.log():
        assert time.monotonic() < deadline, worker.log()[-2000:]
        time.sleep(0.05)
    assert 0.9 <= job.elapsed < 3.0 and 0.0 < job.progress < 1.0
    page = store.solutions(job.id, 0, 100)
    # The native core can find more than the store keeps within the second: it then keeps
    # the first max_stored_solutions and says the list is cut.
    kept = min(job.solutions_found, settings.max_stored_solutions)
    assert page is not None and page.total == kept > 0
    assert page.truncated is (job.solutions_found > settings.max_stored_solutions)
    assert all(holds(LONG[0], LONG[1], s) for s in page.items)


def test_killed_pool_process_reruns_without_duplicates(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any, wait_job: Any
) -> None:
    """kill -9 of the pool process mid-job: the job re-runs (attempt 2) and its list is exact."""
    settings = fresh_settings()
    worker = worker_factory(settings, "enumerate")
    store = store_factory(settings)
    job = store.submit("enumerate", *MEDIUM)

    def stored_count(job_id: str) -> int:
        return int(store.compact(job_id, 0, 0)[2])

    wait_job(store, job.id, lambda j: j.state is State.RUNNING and stored_count(j.id) > 0)
    (child,) = worker.children()
    assert store.get(job.id).state is State.RUNNING
    os.kill(child, signal.SIGKILL)
    done = wait_job(store, job.id, timeout=30)
    assert done.state is State.SUCCEEDED and done.attempt == 2, done.to_dict()
    _letters, stored, total, _truncated = store.compact(job.id, 0, MEDIUM_COUNT + 1)
    assert done.solutions_found == total == len(stored) == len(set(stored)) == MEDIUM_COUNT


def test_dead_worker_job_is_taken_over_by_another(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any, wait_job: Any
) -> None:
    """kill -9 of a whole worker mid-job: a live worker takes over once the lease expires."""
    settings = fresh_settings(lease_seconds=1.5, heartbeat_interval=0.3)
    first = worker_factory(settings, "enumerate")
    store = store_factory(settings)
    job = store.submit("enumerate", *MEDIUM)
    wait_job(store, job.id, lambda j: j.state is State.RUNNING)
    second = worker_factory(settings, "enumerate", wait=False)
    first.kill()  # parent and pool child at once: the message stays unacknowledged
    second.wait_ready()
    started = time.monotonic()
    done = wait_job(store, job.id, timeout=30)
    assert done.state is State.SUCCEEDED and done.attempt == 2, done.to_dict()
    assert done.solutions_found == MEDIUM_COUNT and time.monotonic() - started < 20
    _letters, stored, total, _truncated = store.compact(job.id, 0, MEDIUM_COUNT + 1)
    assert total == len(set(stored)) == MEDIUM_COUNT
