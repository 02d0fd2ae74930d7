"""The cap on unfinished jobs per client (ALPHAMETIC_MAX_QUEUED_PER_CLIENT) on real Redis."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis

from jobstore import ConfigError, JobStore, Settings, State, TooManyJobs

PUZZLES = ["SEND + MORE = MONEY", "TWO + TWO = FOUR", "ODD + ODD = EVEN", "NUM + BER = PLAY"]


def job_keys(settings: Settings) -> list[str]:
    """The job records under this settings' prefix."""
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    return list(client.scan_iter(f"{settings.key_prefix}:job:*"))


@pytest.fixture()
def capped(fresh_settings: Callable[..., Settings], store_factory: Callable[..., Any]) -> Any:
    """A store with a cap of 2 on its own queues, which no worker consumes: jobs stay queued."""
    return store_factory(fresh_settings(max_queued_per_client=2))


def test_third_unfinished_job_is_refused_before_anything_is_queued(capped: JobStore) -> None:
    first = capped.submit("solve", PUZZLES[0], client="203.0.113.7")
    capped.submit("solve", PUZZLES[1], client="203.0.113.7")
    with pytest.raises(TooManyJobs) as refused:
        capped.submit("solve", PUZZLES[2], client="203.0.113.7")
    assert refused.value.cap == 2 and "at most 2 unfinished jobs" in str(refused.value)
    assert len(job_keys(capped.settings)) == 2  # no record for the refused job
    assert first.state is State.QUEUED


def test_cancelling_a_job_frees_its_place(capped: JobStore) -> None:
    first = capped.submit("solve", PUZZLES[0], client="a")
    capped.submit("solve", PUZZLES[1], client="a")
    result = capped.cancel(first.id)
    assert result is not None and result[0].state is State.CANCELED
    assert capped.submit("solve", PUZZLES[2], client="a").state is State.QUEUED
    with pytest.raises(TooManyJobs):
        capped.submit("solve", PUZZLES[3], client="a")


def test_an_identical_submission_does_not_count(capped: JobStore) -> None:
    first = capped.submit("solve", PUZZLES[0], client="a")
    second = capped.submit("solve", PUZZLES[1], client="a")
    assert capped.submit("solve", PUZZLES[0], client="a").id == first.id  # at the cap: reused
    assert capped.submit("solve", PUZZLES[1].lower(), client="a").id == second.id


def test_clients_are_counted_apart(capped: JobStore) -> None:
    for puzzle in PUZZLES[:2]:
        capped.submit("solve", puzzle, client="a")
    for puzzle in PUZZLES[2:]:
        capped.submit("solve", puzzle, client="b")  # "a" being full does not stop "b"
    for client in ("a", "b"):
        with pytest.raises(TooManyJobs):
            capped.submit("enumerate", PUZZLES[0], client=client)
    capped.submit("enumerate", PUZZLES[0])  # no client: not capped (internal callers)


def test_zero_means_no_cap(
    fresh_settings: Callable[..., Settings], store_factory: Callable[..., Any]
) -> None:
    store = store_factory(fresh_settings(max_queued_per_client=0))
    jobs = [store.submit("solve", puzzle, client="a") for puzzle in PUZZLES]
    assert len({job.id for job in jobs}) == len(PUZZLES)


def test_a_finished_job_frees_its_place(
    settings: Settings,
    celery_workers: Any,
    store_factory: Callable[..., Any],
    wait_job: Callable[..., Any],
) -> None:
    # The session workers consume these queues, so the first job really runs to the end.
    store = store_factory(settings.replace(max_queued_per_client=1))
    client = f"finished-{id(store)}"
    done = wait_job(store, store.submit("solve", "AB + BA = CC", {"base": 7}, client=client).id)
    assert done.state is State.SUCCEEDED
    follow = store.submit("solve", "AB + BA = CC", {"base": 8}, client=client)
    assert follow.id != done.id


def test_cap_comes_from_the_environment() -> None:
    settings = Settings.from_env({"ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "7"})
    assert settings.max_queued_per_client == 7
    assert Settings().max_queued_per_client == 20
    with pytest.raises(ConfigError, match="ALPHAMETIC_MAX_QUEUED_PER_CLIENT"):
        Settings.from_env({"ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "-1"})
