"""Identical submissions share one job: each submitter holds it, and a cancel or delete by one
of several holders only lets go of it; a client that holds it not may do neither."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from jobstore import JobStore, NotHeld, Settings, State

PUZZLE = ("SEND + MORE = MONEY", {"base": 11})


def test_a_shared_queued_job_is_canceled_only_by_its_last_holder(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    """B lets go, C (never submitted it) is refused, A's cancel then cancels it."""
    store: JobStore = store_factory(fresh_settings(), wait_leftovers=False)  # no worker: queued
    first = store.submit("solve", *PUZZLE, client="A")
    again = store.submit("solve", *PUZZLE, client="A")  # the same client twice holds it once
    shared = store.submit("solve", *PUZZLE, client="B")
    assert first.id == again.id == shared.id and shared.clients == 2
    result = store.cancel(first.id, "B")
    assert result is not None
    job, changed = result
    assert changed and job.state is State.QUEUED and job.clients == 1 and not job.cancel_requested
    again_b = store.cancel(first.id, "B")  # a repeated cancel changes nothing
    assert again_b is not None and not again_b[1] and again_b[0].state is State.QUEUED
    assert store.submit("solve", *PUZZLE, client="B").clients == 2  # B holds it again
    assert store.cancel(first.id, "B")[1]  # type: ignore[index]  # and lets go again
    with pytest.raises(NotHeld):
        store.cancel(first.id, "C")
    ended = store.cancel(first.id, "A")
    assert ended is not None and ended[0].state is State.CANCELED and ended[1]
    with pytest.raises(NotHeld):
        store.cancel(first.id, "C")  # even once it ended
    anew = store.submit("solve", *PUZZLE, client="B")
    assert anew.id != first.id and anew.clients == 1  # a canceled job is not handed out


def test_an_operators_cancel_cancels_a_shared_job_outright(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    """Without a client (the admin, a revoke) the cancel is not a holder's."""
    store: JobStore = store_factory(fresh_settings(), wait_leftovers=False)
    job = store.submit("solve", *PUZZLE, client="A")
    store.submit("solve", *PUZZLE, client="B")
    result = store.cancel(job.id)
    assert result is not None and result[0].state is State.CANCELED


def test_a_shared_jobs_solutions_stay_until_its_last_holder_deletes_them(
    fresh_settings: Callable[..., Settings], worker_factory: Any, wait_job: Any
) -> None:
    """A's delete lets go (and gives A's budget back); B keeps the solutions; B's delete
    removes them; a deleted job is not handed out again."""
    settings = fresh_settings(shard_threshold=0)
    store = JobStore(settings)
    worker_factory(settings, "enumerate")
    job = wait_job(store, store.submit("enumerate", "ABC + DEF = GHI", client="A").id)
    assert job.state is State.SUCCEEDED and job.solutions_found == 1_088
    assert int(store.redis.get(store.keys.budget("A")) or 0) == 1_088
    assert store.submit("enumerate", "ABC + DEF = GHI", client="B").id == job.id
    with pytest.raises(NotHeld):
        store.delete(job.id, "C")
    assert store.delete(job.id, "A") == "withdrawn"
    kept = store.solutions(job.id, 0, 10)
    assert kept is not None and kept.total == 1_088
    assert int(store.redis.get(store.keys.budget("A")) or 0) == 0  # A's budget is back
    assert store.delete(job.id, "A") == "withdrawn"  # a repeated delete changes nothing
    assert int(store.redis.get(store.keys.budget("A")) or 0) == 0
    assert store.delete(job.id, "B") == "deleted"
    gone = store.solutions(job.id, 0, 10)
    assert gone is not None and gone.total == 0
    anew = store.submit("enumerate", "ABC + DEF = GHI", client="A")
    assert anew.id != job.id
    done = wait_job(store, anew.id)
    assert done.solutions_found == 1_088 and not done.deleted


def test_a_repeated_cancel_ends_a_job_whose_worker_was_lost(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """With its worker killed and none left, the job ends canceled once its lease runs out."""
    settings = fresh_settings(shard_threshold=0, lease_seconds=1.0, heartbeat_interval=0.5)
    store: JobStore = store_factory(settings, wait_leftovers=False)
    worker = worker_factory(settings, "enumerate")
    job = store.submit("enumerate", "A + B + C + D = E + F + G + H", {"base": 12})
    deadline = time.monotonic() + 30
    while (running := store.get(job.id)) is not None and running.progress <= 0.0:
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.05)
    worker.kill()  # whole worker gone: no heartbeat reaps the job
    first = store.cancel(job.id)
    assert first is not None and first[0].state is State.RUNNING  # its lease still runs
    time.sleep(1.2)
    again = store.cancel(job.id)
    assert again is not None and again[0].state is State.CANCELED, again
