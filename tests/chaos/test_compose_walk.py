"""A compose job whose every sum is pruned still looks at its flags: canceled through the API
it ends within a second, and another client's small enumeration is done within two seconds
after; a list whose sets of addends no run could walk is refused (422), never crashed on.

Real gunicorn, real Redis, two real enumerate worker processes (`make run` on two cores), the
service's default time limits and sharding.
"""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from alphametic.compose import groups
from jobstore import Job, JobStore, Settings, State
from jobstore.shards import shard_id
from tests.support.chaos import wait_until
from tests.support.processes import WebServer

pytestmark = pytest.mark.slow

# The service's own limits (the session's are shorter): a list is refused by them.
DEFAULT_LIMITS = {"enumerate_soft_limit": 1_800.0, "enumerate_hard_limit": 1_900.0}
ATTACKER, VICTIM = "198.51.100.7", "203.0.113.9"
SMALL = {"mode": "enumerate", "puzzle": "SEND + MORE = MONEY"}


def three_letter_words(count: int, seed: int = 32) -> list[str]:
    """Distinct random three-letter words: ten of them add up to four digits, so with ten
    addends every sum is pruned (no word of the list is long enough to be its result)."""
    pick = random.Random(seed)
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(pick.choice(string.ascii_uppercase) for _ in range(3)))
    return sorted(words)


def parts(store: JobStore, job_id: str) -> list[Job]:
    """The job and each of its shards (a sharded job's work is theirs), as stored now."""
    job = store.get(job_id)
    assert job is not None
    # A shard is no job of its own (JobStore.get says None): its record, read whole.
    keys = [store.keys.job(shard_id(job_id, i)) for i in range(job.shards)]
    return [job, *(Job.from_hash(store.redis.hgetall(key)) for key in keys)]


def post(server: WebServer, path: str, client: str, body: dict[str, Any]) -> requests.Response:
    """POST JSON as this client (its address through the one trusted proxy)."""
    headers = {"X-Forwarded-For": client}
    return requests.post(f"{server.url}{path}", json=body, headers=headers, timeout=30)


@pytest.fixture()
def system(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    web_factory: Callable[..., WebServer],
    store_factory: Any,
) -> tuple[WebServer, JobStore]:
    """A web server behind one trusted proxy and two enumerate worker processes."""
    settings = fresh_settings(**DEFAULT_LIMITS)
    worker_factory(settings, "enumerate", concurrency=2)
    server = web_factory(settings, env={"ALPHAMETIC_PROXY_HOPS": "1"})
    return server, store_factory(settings)


def test_a_pruned_compose_job_cancels_at_once_and_frees_its_workers(
    system: tuple[WebServer, JobStore],
) -> None:
    server, store = system
    words = three_letter_words(30)  # 635,745,396 sets of ten addends: admitted, all pruned
    assert groups(words, 10) > 10**8
    answer = post(server, "/api/jobs", ATTACKER, {"mode": "compose", "words": words,
                                                  "options": {"addends": 10}})  # fmt: skip
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["id"]

    def walking() -> bool:
        job = store.get(job_id)
        return job is not None and job.state is State.RUNNING

    wait_until(walking, 60, "the compose job running")
    time.sleep(3)  # its shards deep in their walks over pruned sets
    assert post(server, f"/api/jobs/{job_id}/cancel", ATTACKER, {}).status_code == 200
    victim = post(server, "/api/jobs?wait=20", VICTIM, SMALL)
    assert victim.status_code == 202, victim.text
    victim_id = victim.json()["id"]
    wait_until(lambda: all(p.done for p in parts(store, job_id)), 60, "its every shard ended")
    wait_until(lambda: bool((store.get(victim_id) or _never()).done), 60, "the small job done")
    canceled, *shards = parts(store, job_id)
    assert canceled.state is State.CANCELED and canceled.cancel_requested is not None, canceled
    # Server-side: from the cancel's request to the end of the job and of its every shard
    # (the old walk ended the job's record at once, its shards never), and the victim's life.
    assert len(shards) == canceled.shards > 1
    assert all(part.finished is not None for part in (canceled, *shards))
    latest = max(part.finished or 0.0 for part in (canceled, *shards))
    assert latest - canceled.cancel_requested <= 1.0, (canceled, shards)
    small = store.get(victim_id)
    assert small is not None
    assert small.state is State.SUCCEEDED and small.solutions_found == 1, small
    assert small.finished is not None and small.finished - small.created <= 2.0, small


def test_a_list_no_run_could_walk_is_refused_not_crashed_on(
    system: tuple[WebServer, JobStore],
) -> None:
    server, _ = system
    for count in (100, 700, 2000):
        body = {"mode": "compose", "words": three_letter_words(count), "options": {"addends": 10}}
        answer = post(server, "/api/jobs", ATTACKER, body)
        assert answer.status_code == 422, answer.text
        assert answer.headers["Content-Type"].startswith("application/problem+json")
        problem = answer.json()
        assert (problem["field"], problem["code"]) == ("options.addends", "sets_out_of_reach")
    answer = post(server, "/api/jobs", VICTIM, SMALL)  # the service is as it was
    assert answer.status_code == 202, answer.text


def _never() -> Any:
    """A job that is never found (the wait_until lambdas read a missing job as an error)."""
    raise AssertionError("the job is gone")
