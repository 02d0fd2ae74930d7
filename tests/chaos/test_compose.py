"""A compose job whose worker stops (warm shutdown) or dies (kill -9) mid-run resumes from its
checkpoint on another worker and ends with exactly the results of an uninterrupted run, each
stored once; a canceled one keeps what it found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jobstore import JobStore, Settings, State
from tests.support.chaos import wait_until
from tests.support.processes import wait_job
from tests.support.web import make_app
from tests.support.words import composed_texts, long_words

pytestmark = pytest.mark.slow


def every_result(store: JobStore, job_id: str) -> list[str]:
    """The puzzle texts of every result the job stored, in stored order."""
    _, total = store.composed(job_id, 0, 1)
    items, _ = store.composed(job_id, 0, max(total, 1))
    return [item["puzzle"] for item in items]


@pytest.mark.parametrize("how", ["warm shutdown", "kill -9"])
def test_a_stopped_compose_job_resumes_with_the_same_results(
    how: str,
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    store_factory: Any,
) -> None:
    settings = fresh_settings(lease_seconds=3.0, shard_threshold=0)  # one whole job
    store = store_factory(settings)
    worker = worker_factory(settings, "enumerate")
    words = long_words()
    job = store.queue(store.admit_compose(list(words), {}))

    def under_way() -> bool:
        now = store.get(job.id)
        return now is not None and now.state is State.RUNNING and now.solutions_found >= 5

    wait_until(under_way, 60, "the compose job under way")
    if how == "kill -9":
        worker.kill()
    else:
        worker.terminate()
    stopped = store.get(job.id)
    assert stopped is not None and not stopped.done and 0 < stopped.progress < 1, stopped
    worker_factory(settings, "enumerate")
    seen = [stopped.progress]

    def ended() -> bool:
        now = store.get(job.id)
        assert now is not None
        seen.append(now.progress)
        return bool(now.done)

    wait_until(ended, 120, "the compose job ended", interval=0.05)
    done = store.get(job.id)
    assert done is not None and done.state is State.SUCCEEDED, done
    assert min(seen) >= stopped.progress  # it resumed at its checkpoint, not from the start
    if how == "kill -9":
        assert done.attempt == 2  # a lost worker spends an attempt
    stored = every_result(store, job.id)
    assert len(stored) == len(set(stored)) == done.solutions_found  # none stored twice
    assert set(stored) == composed_texts(words)


def test_a_canceled_compose_job_keeps_its_results(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = fresh_settings(shard_threshold=0)
    store = store_factory(settings)
    worker_factory(settings, "enumerate")
    words = long_words()
    job = store.queue(store.admit_compose(list(words), {}))
    wait_until(lambda: (store.get(job.id) or job).solutions_found >= 3, 60, "results stored")
    running = store.get(job.id)
    assert running is not None and 0 < running.progress < 1
    assert running.eta is not None and running.eta > 0  # an ETA from its pace so far
    store.cancel(job.id)
    done = wait_job(store, job.id, timeout=30)
    assert done.state is State.CANCELED and done.progress < 1
    stored = every_result(store, job.id)
    assert len(stored) == done.solutions_found >= 3
    assert set(stored) <= composed_texts(words)


def test_a_compose_job_ends_at_its_results_cap(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = fresh_settings(shard_threshold=0, max_compose_results=5)
    store = store_factory(settings)
    worker_factory(settings, "enumerate")
    job = store.queue(store.admit_compose(list(long_words()), {}))
    done = wait_job(store, job.id, timeout=60)
    assert done.state is State.SUCCEEDED and done.progress < 1, done  # it stopped there
    assert done.truncated and done.truncated_reason == "cap"
    stored = every_result(store, job.id)
    assert len(stored) == 5 and done.solutions_found == 6  # one more found, no room for it
    assert set(stored) <= composed_texts(long_words())


def test_a_long_compose_job_takes_turns_with_a_small_job(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = fresh_settings(shard_threshold=0, time_slice=0.5)
    store = store_factory(settings)
    worker_factory(settings, "enumerate")
    long = store.queue(store.admit_compose(list(long_words()), {}))
    wait_until(lambda: (store.get(long.id) or long).state is State.RUNNING, 30, "composing")
    small = store.submit("enumerate", "ODD + ODD = EVEN")
    done = wait_job(store, small.id, timeout=10)
    assert done.state is State.SUCCEEDED
    still = store.get(long.id)
    assert still is not None and not still.done  # the small job did not wait for its end
    ended = wait_job(store, long.id, timeout=120)
    assert ended.state is State.SUCCEEDED
    assert set(every_result(store, long.id)) == composed_texts(long_words())


def test_a_compose_job_at_its_time_limit_fails_keeping_its_results(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = fresh_settings(shard_threshold=0, enumerate_soft_limit=0.5)
    store = store_factory(settings)
    worker_factory(settings, "enumerate")
    job = store.queue(store.admit_compose(list(long_words()), {}))
    done = wait_job(store, job.id, timeout=60)
    assert done.state is State.FAILED and done.error == "time limit" and done.progress < 1
    stored = every_result(store, job.id)
    assert len(stored) == done.solutions_found > 0
    assert set(stored) <= composed_texts(long_words())


def test_a_compose_job_stores_within_its_clients_budget_and_gives_it_back(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = fresh_settings(shard_threshold=0, max_stored_per_client=4)
    store = store_factory(settings)
    worker_factory(settings, "enumerate")
    job = store.queue(store.admit_compose(list(long_words()), {}), client="writer")
    done = wait_job(store, job.id, timeout=60)
    assert done.state is State.SUCCEEDED and done.truncated and done.truncated_reason == "budget"
    assert len(every_result(store, job.id)) == 4 and store.storage_left("writer") == 0
    page = make_app(settings).test_client().get(f"/jobs/{job.id}").get_data(as_text=True)
    assert "storage budget was used up, with 4 puzzles kept" in page
    assert store.delete(job.id, "writer") == "deleted"
    assert every_result(store, job.id) == [] and store.storage_left("writer") == 4
