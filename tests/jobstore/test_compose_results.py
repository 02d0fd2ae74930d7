"""A compose job's results in the real job store: each stored once by its puzzle text (a run
resumed at a set of addends finds that set's results again), in order, up to the cap, and
only by the run that holds the job."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import redis

from jobstore import JobStore, Mode, Settings, State
from jobstore.attempt import Attempt
from jobstore.compose import encode
from jobstore.handle import Handle


@pytest.fixture()
def quiet(fresh_settings: Callable[..., Settings], store_factory: Any) -> Any:
    """A store on a database no worker consumes, with a cap of three results."""
    return store_factory(fresh_settings(max_compose_results=3), wait_leftovers=False)


def claimed(store: JobStore) -> tuple[str, Attempt]:
    """A compose job queued and claimed by a run of this test (no worker behind it)."""
    job = store.queue(store.admit_compose(["AB", "BA", "CC"], {"base": 6}))
    client = redis.Redis.from_url(store.settings.redis_url, decode_responses=True)
    attempt = Attempt(Handle.of(client, store.settings), job.id)
    assert attempt.claim("test|x|1", mode=Mode.COMPOSE).status == "run"
    return job.id, attempt


def result(text: str) -> tuple[str, str]:
    """A result as a run stores it."""
    return text, encode(text, [{"A": 1}], {"score": 1, "label": "easy"})


def test_a_result_found_again_is_stored_once_in_first_order(quiet: JobStore) -> None:
    job_id, attempt = claimed(quiet)
    assert attempt.store_composed([result("A + A = B"), result("A + B = C")]) == (1, 2)
    # A resumed run finds its set's results again: only the new one is added.
    assert attempt.store_composed([result("A + B = C"), result("B + B = C")]) == (1, 3)
    items, total = quiet.composed(job_id, 0, 10)
    assert [item["puzzle"] for item in items] == ["A + A = B", "A + B = C", "B + B = C"]
    assert total == 3 and items[0] == json.loads(result("A + A = B")[1])
    assert quiet.composed(job_id, 1, 1) == ([items[1]], 3)


def test_a_result_past_the_cap_truncates_the_job(quiet: JobStore) -> None:
    job_id, attempt = claimed(quiet)
    found = [result(f"{a} + {a} = B") for a in "CDE"]
    assert attempt.store_composed(found) == (1, 3)
    assert attempt.store_composed([result("C + C = B")]) == (1, 3)  # known: no room needed
    assert attempt.store_composed([result("F + F = B")]) == (2, 3)
    job = quiet.get(job_id)
    assert job is not None and job.truncated and job.truncated_reason == "cap"


def test_a_run_that_lost_the_job_stores_nothing(quiet: JobStore) -> None:
    job_id, attempt = claimed(quiet)
    # A run with the same claim number (a claim lost in a failover handed it out twice) is
    # another run all the same: its results are refused.
    twin = Attempt(Handle.of(attempt.client, quiet.settings), job_id)
    twin.claims, twin.token = attempt.claims, f"{attempt.claims}:twin"
    assert twin.store_composed([result("A + A = B")]) == (0, 0)
    quiet.cancel(job_id)
    client = redis.Redis.from_url(quiet.settings.redis_url, decode_responses=True)
    client.hset(quiet.keys.job(job_id), "state", State.CANCELED.value)
    assert attempt.store_composed([result("A + A = B")]) == (0, 0)
    assert quiet.composed(job_id, 0, 10) == ([], 0)


def test_results_count_against_the_clients_storage_budget(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    store = store_factory(fresh_settings(max_stored_per_client=2), wait_leftovers=False)
    job = store.queue(store.admit_compose(["AB", "BA", "CC"], {}), client="budgeted")
    client = redis.Redis.from_url(store.settings.redis_url, decode_responses=True)
    attempt = Attempt(Handle.of(client, store.settings), job.id)
    assert attempt.claim("test|x|1", mode=Mode.COMPOSE).status == "run"
    assert attempt.store_composed([result(f"{a} + {a} = B") for a in "CDE"]) == (2, 2)
    now = store.get(job.id)
    assert now is not None and now.truncated_reason == "budget"
    assert store.storage_left("budgeted") == 0
