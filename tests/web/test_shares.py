"""A client's reservations are its own (issue 32, part 3): one client's 20 product
enumerations, each of which may store the cap of solutions, no longer refuse another client's
enumeration and compose job; the attacker is told 429 `storage_share`, with a Retry-After that
is the real wait for its own first job to end. A real gunicorn and a real worker on Redis with
`make run`'s maxmemory; each client sends from a loopback address of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jobstore import JobStore, Settings
from tests.support.processes import WebServer
from tests.support.shares import (
    ATTACKER,
    VICTIM,
    VICTIM_JOBS,
    Answer,
    cancel,
    products,
    submit,
)

pytestmark = pytest.mark.slow

SOFT = 6.0  # seconds of search each job may use: the attacker's jobs end by this limit
SLACK = 3  # seconds a Retry-After may be beyond the real wait (a loaded machine's clock)


@pytest.fixture()
def deployment(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> Iterator[tuple[str, JobStore]]:
    """gunicorn and one worker (two processes) on a Redis with make run's 1 GB maxmemory; no
    storage budget, so only the share of the watermark bounds a client's reservations."""
    settings = fresh_settings(
        max_stored_per_client=0, shard_threshold=0,
        enumerate_soft_limit=SOFT, enumerate_hard_limit=SOFT + 20,
    )  # fmt: skip
    store = JobStore(settings)
    before = store.redis.config_get("maxmemory")["maxmemory"]
    store.redis.config_set("maxmemory", "1gb")  # scripts/embedded_redis.py's
    web = WebServer(settings, env={"ALPHAMETIC_RATE_LIMIT": "10000/minute"})
    try:
        worker_factory(settings, "solve,enumerate", concurrency=2)
        yield web.wait_ready().url, store
    finally:
        web.cleanup()
        store.redis.config_set("maxmemory", before)


def _seen(answers: list[Answer]) -> list[tuple[int, str]]:
    """(status, code) of each answer, for the assertion messages."""
    return [(answer.status, answer.code) for answer in answers]


def test_one_clients_products_leave_another_clients_jobs_accepted(
    deployment: tuple[str, JobStore],
) -> None:
    url, store = deployment
    attack = [submit(url, ATTACKER, job) for job in products(20)]
    admitted = [answer.body["id"] for answer in attack if answer.status == 202]
    refused = [answer for answer in attack if answer.status != 202]
    # The attacker's own jobs run, as many as its share holds; the rest are its own refusals.
    assert admitted and refused, _seen(attack)
    assert all(a.status == 429 and a.code == "storage_share" for a in refused), _seen(attack)
    victim = [submit(url, VICTIM, job) for job in VICTIM_JOBS]
    assert [answer.status for answer in victim] == [202, 202], [a.body for a in victim]
    for answer in victim:  # not the attacker's wait: their search would slow its jobs
        cancel(url, VICTIM, answer.body["id"])
    # The 21st is the attacker's own refusal too, told to retry when its first job ends.
    another = products(21)[20]
    extra = submit(url, ATTACKER, another)
    asked = time.time()
    assert (extra.status, extra.code) == (429, "storage_share"), extra.body
    assert extra.body["field"] == "client" and extra.body["share"] > 0
    retry = extra.retry_after
    assert retry is not None and 1 <= retry <= SOFT + SLACK, retry
    # Retrying after each Retry-After is admitted once the first of its jobs has ended.
    waits, answer = [], extra
    while answer.status != 202:
        assert (answer.status, answer.code) == (429, "storage_share"), answer.body
        assert answer.retry_after is not None and answer.retry_after <= SOFT + SLACK
        waits.append(answer.retry_after)
        time.sleep(answer.retry_after)
        answer = submit(url, ATTACKER, another)
        assert len(waits) < 30, waits
    admitted_at = time.time()
    ends = [job.finished for job in map(store.get, admitted) if job and job.finished]
    assert ends, "admitted before any of the attacker's jobs ended"
    first_end = min(ends)
    # The first Retry-After was not beyond the real wait (the first job's end), and the retry
    # following the Retry-Afters came soon after that end.
    assert asked + retry <= first_end + SLACK, (retry, first_end - asked)
    assert admitted_at <= first_end + SOFT + SLACK, (admitted_at - first_end, waits)
    for job_id in [*admitted, answer.body["id"]]:
        cancel(url, ATTACKER, job_id)
