"""JobStore.wait: woken by the `finished` channel on every way a job ends, not by its re-check.

RECHECK (the waiter's own periodic look) is raised to a minute here, so a wait that returns in
seconds can only have been woken by a published end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jobstore import Job, JobStore, Settings, State
from tests.support.processes import RedisServer

SLOW = 60.0  # seconds: far longer than any wait below may take


pytestmark = pytest.mark.usefixtures("no_recheck")


@pytest.fixture()
def waiting_store(
    store_factory: Callable[..., JobStore], fresh_settings: Callable[..., Settings]
) -> Iterator[JobStore]:
    """A store on settings of its own (no worker serves them unless a test starts one)."""
    made = store_factory(fresh_settings())
    yield made
    made.close()


def wait_in_thread(store: JobStore, job_id: str, timeout: float) -> Callable[[], Job | None]:
    """Start store.wait in a thread; the returned call joins it and gives its result."""
    result: list[Job | None] = []
    thread = threading.Thread(
        target=lambda: result.append(store.wait(job_id, timeout)), daemon=True
    )
    thread.start()
    time.sleep(0.3)  # let it register and block

    def join() -> Job | None:
        thread.join(SLOW / 2)
        assert not thread.is_alive(), "the waiter was not woken by a published end"
        return result[0]

    return join


def test_wait_returns_the_solved_job(
    waiting_store: JobStore, worker_factory: Callable[..., Any]
) -> None:
    """A solve finished by a real worker wakes the waiter with the final record."""
    job = waiting_store.submit("solve", "SEND + MORE = MONEY")
    join = wait_in_thread(waiting_store, job.id, SLOW)
    worker_factory(waiting_store.settings, queues="solve")
    done = join()
    assert done is not None and done.state is State.SUCCEEDED and done.solution


def test_cancel_of_a_queued_job_wakes_the_waiter(waiting_store: JobStore) -> None:
    """The cancel script publishes the end of a job no worker has taken."""
    job = waiting_store.submit("solve", "SEND + MORE = MONEY")
    join = wait_in_thread(waiting_store, job.id, SLOW)
    waiting_store.cancel(job.id)
    done = join()
    assert done is not None and done.state is State.CANCELED


def test_wait_gives_the_unfinished_job_after_its_timeout(waiting_store: JobStore) -> None:
    """With nobody to run it, the job comes back still queued once the time is up."""
    job = waiting_store.submit("solve", "SEND + MORE = MONEY")
    started = time.monotonic()
    still = waiting_store.wait(job.id, 0.5)
    assert still is not None and still.state is State.QUEUED
    assert 0.5 <= time.monotonic() - started < SLOW / 2


def test_wait_on_unknown_or_finished_jobs_answers_at_once(waiting_store: JobStore) -> None:
    """An unknown id gives None and a finished job itself, without waiting."""
    assert waiting_store.wait("no-such-job", SLOW) is None
    job = waiting_store.submit("solve", "SEND + MORE = MONEY")
    waiting_store.cancel(job.id)
    started = time.monotonic()
    done = waiting_store.wait(job.id, SLOW)
    assert done is not None and done.state is State.CANCELED
    assert time.monotonic() - started < SLOW / 2


def test_waiters_subscribe_again_after_a_redis_restart(
    redis_factory: Callable[..., RedisServer],
    store_factory: Callable[..., JobStore],
    settings: Settings,
) -> None:
    """After Redis comes back the subscriber listens again and wakes later waiters."""
    server = redis_factory()
    store = store_factory(settings.replace(redis_url=server.url, key_prefix="wait-restart"))
    try:
        first = store.submit("solve", "SEND + MORE = MONEY")
        store.cancel(first.id)
        assert store.wait(first.id, 1) is not None  # the subscriber is up
        server.restart()
        time.sleep(1.5)  # the subscriber retries every half second
        job = store.submit("solve", "TO + GO = OUT")
        join = wait_in_thread(store, job.id, SLOW)
        store.cancel(job.id)
        done = join()
        assert done is not None and done.state is State.CANCELED
    finally:
        store.close()


def test_a_wait_whose_client_has_gone_ends_at_once(waiting_store: JobStore) -> None:
    """`gone` is looked at every GONE_LOOK while nothing is published: once it says the
    client hung up, the wait ends (None) instead of holding on to its timeout."""
    job = waiting_store.submit("solve", "SEND + MORE = MONEY")  # no worker: it stays queued
    hung_up = threading.Event()
    threading.Timer(0.5, hung_up.set).start()
    started = time.monotonic()
    assert waiting_store.wait(job.id, SLOW, gone=hung_up.is_set) is None
    assert time.monotonic() - started < SLOW / 2
    still = waiting_store.wait(job.id, 0.3, gone=lambda: False)  # a client still there waits
    assert still is not None and still.state is State.QUEUED
