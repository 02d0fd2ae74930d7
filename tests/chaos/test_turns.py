"""Many users, one system: small jobs never wait for big ones, and big ones take turns.

One solve and one enumerate worker process (as `make run` starts by default), real jobs. The
speed targets themselves are measured by bench/fairness.py; these tests show the scheduling.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from jobstore import JobStore, Settings, State
from jobstore.model import FIRST, band_of
from tests.support.chaos import wait_until
from tests.support.puzzles import MISJUDGING, misjudged_products

pytestmark = pytest.mark.slow

# About 94 minutes of enumeration in base 16: sharded, it keeps the enumerate worker busy.
HUGE = ("A + B + C + D + E = F + G + H + I", {"base": 16})
# No solution (22 distinct digits sum to an odd number), and a search of minutes to prove it.
ENDLESS = ("A + B + C + D + E + F + G + H + I + J + K = L + M + N + O + P + Q + R + S + T + U + V",
           {"base": 22})  # fmt: skip
# Another long enumeration, to take turns with HUGE.
OTHER = ("A + B + C + D + E = F + G + H + I", {"base": 15})
# Long solves whose size the submit-time estimate misses (it puts them in the first lane).
MISJUDGED = misjudged_products(4)


def running(store: JobStore, job_id: str) -> bool:
    """Whether the job has started (a sharded one: split and its shards under way)."""
    job = store.get(job_id)
    return job is not None and job.state is State.RUNNING and job.progress > 0


@pytest.fixture()
def busy(fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any) -> Any:
    """A store whose only solve and enumerate workers are busy with a long job each."""
    settings = fresh_settings(shard_window=2, time_slice=1.0)
    worker_factory(settings, "solve")
    worker_factory(settings, "enumerate")
    store = store_factory(settings)
    huge = store.submit("enumerate", *HUGE)
    endless = store.submit("solve", *ENDLESS)
    wait_until(lambda: running(store, huge.id) and running(store, endless.id), 60, "both busy")
    yield store, huge, endless
    for job in (huge, endless):
        store.cancel(job.id)


def test_small_jobs_pass_a_big_enumeration_and_a_long_solve(busy: Any, wait_job: Any) -> None:
    """A small solve and a small enumeration finish in seconds while both workers are busy."""
    store, huge, endless = busy
    for mode, puzzle in (("solve", "SEND + MORE = MONEY"), ("enumerate", "ODD + ODD = EVEN")):
        submitted = time.monotonic()
        done = wait_job(store, store.submit(mode, puzzle).id, timeout=20)
        took = time.monotonic() - submitted
        assert done.state is State.SUCCEEDED and took < 5, (mode, took)
    # The long ones were only paused: still running, not failed, not an attempt spent.
    for job_id in (huge.id, endless.id):
        job = store.get(job_id)
        assert job is not None and not job.done and job.attempt == 1, job.to_dict()
    assert store.stats()["redeliveries"].get("yielded", 0) >= 1


def test_two_big_enumerations_take_turns(busy: Any) -> None:
    """A second big enumeration progresses while the first still runs."""
    store, huge, _endless = busy
    other = store.submit("enumerate", *OTHER)
    wait_until(lambda: running(store, other.id), 60, "the second enumeration started")
    first = store.get(huge.id)
    second = store.get(other.id)
    assert first is not None and second is not None
    time.sleep(4)
    first_after, second_after = store.get(huge.id), store.get(other.id)
    assert first_after is not None and second_after is not None
    # Both move: neither waits for the other to end.
    assert first_after.progress > first.progress and second_after.progress > second.progress
    store.cancel(other.id)


def test_queued_jobs_know_their_place(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    """With no worker, queued jobs report positions; a small job goes ahead of a big one."""
    store = store_factory(fresh_settings())
    big = store.submit("enumerate", *HUGE)
    assert big.queue_position == 1 and big.expected_start is not None  # the submit's answer
    small = [store.submit("enumerate", p) for p in ("ODD + ODD = EVEN", "TO + GO = OUT")]
    assert [job.queue_position for job in small] == [1, 2]
    positions = [store.get(job.id).queue_position for job in (*small, big)]
    assert positions == [1, 2, 3]
    waiting = store.get(big.id)
    assert waiting is not None and waiting.expected_start is not None
    assert waiting.to_dict()["queue_position"] == 3 and waiting.to_dict()["expected_start"]


def test_the_eta_of_a_job_that_will_not_finish_in_time_is_its_limit(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    store_factory: Any,
    wait_job: Any,
) -> None:
    """A search far longer than its limit says when it will stop, never a later end."""
    settings = fresh_settings(enumerate_soft_limit=6, enumerate_hard_limit=20, shard_threshold=0)
    worker_factory(settings, "enumerate")
    store = store_factory(settings)
    job = store.submit("enumerate", *HUGE)
    seen = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = store.get(job.id)
        assert now is not None
        if now.done:
            break
        if now.state is State.RUNNING and now.eta is not None:
            seen.append((now.eta, now.limit_at, now.progress))
            assert now.eta <= 6.5, now.to_dict()
        time.sleep(0.2)
    assert seen, "no ETA while running"
    assert any(limit_at is not None for _, limit_at, _ in seen)
    progress = [p for _, _, p in seen]
    assert progress == sorted(progress) and progress[-1] > 0  # it rises on a hopeless search
    done = wait_job(store, job.id, timeout=30)
    assert done.state is State.FAILED and done.error == "time limit"


def test_solves_misjudged_small_do_not_hold_up_a_small_one(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any, wait_job: Any
) -> None:
    """One client's long solves estimated small each give way after a fraction of a second,
    so another client's small solve queued behind them runs within seconds, not after one
    time slice per job ahead of it."""
    settings = fresh_settings(time_slice=2.0, **MISJUDGING)
    worker_factory(settings, "solve")
    store = store_factory(settings)
    long = [store.submit("solve", text, {"base": 22}, client="a") for text in MISJUDGED]
    # The first is misjudged small; once it has yielded out of FIRST (0.25 s in), its client's
    # later ones go with the big jobs (lanes.py), which is what a slow submitter here sees.
    assert band_of(long[0].lane)[0] == FIRST, "the estimate no longer misjudges"
    wait_until(lambda: running(store, long[0].id), 30, "the first long solve running")
    submitted = time.monotonic()
    small = wait_job(store, store.submit("solve", "TOO + TOO = FOUR", client="b").id, timeout=30)
    took = time.monotonic() - submitted
    # Before: each long solve ahead kept the worker for its 2 s slice (8 s here).
    assert small.state is State.SUCCEEDED and took < 4.0, took
    # None ended or spent an attempt (those behind the small one's turn have not started yet).
    moved = [store.get(job.id) for job in long]
    assert all(job is not None and not job.done and job.attempt <= 1 for job in moved), moved
    for job in long:
        store.cancel(job.id)
