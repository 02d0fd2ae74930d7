"""The store's breaker always closes again, and /readyz says so while it is open (issue 31).

A call that times out opens the breaker: for a pause every call of the process answers 503 at
once, then one trial call goes to Redis. Before, a trial that raised anything but a timeout or
a connection error (a cancel by a client that does not hold the job: NotHeld) left the
breaker open for good: 503 to everything until the process restarted, while /readyz said
ready. Redis is frozen with SIGSTOP past the socket timeout to open it, honestly.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests

from jobstore import JobStore, NotHeld, Settings, Unavailable
from tests.support.chaos import wait_until
from tests.support.processes import RedisServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TIMEOUT = 2.0  # ALPHAMETIC_REDIS_TIMEOUT here: the breaker pauses as long after a timeout
ONE, OTHER = {"X-Forwarded-For": "203.0.113.7"}, {"X-Forwarded-For": "198.51.100.9"}


@contextmanager
def frozen(server: RedisServer) -> Iterator[None]:
    """Redis stopped (SIGSTOP: its sockets stay open, nothing answers); SIGCONT after."""
    assert server.pid is not None
    os.kill(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.pid, signal.SIGCONT)


def test_a_trial_that_raised_not_held_closes_the_breaker(
    settings: Settings, redis_factory: Callable[..., RedisServer], store_factory: Any
) -> None:
    """The JobStore: a read times out on a frozen Redis (the breaker opens), Redis resumes,
    the trial is a cancel by a client that does not hold the job (NotHeld): calls are
    answered again at once."""
    server = redis_factory()
    mine = settings.replace(redis_url=server.url, redis_timeout=TIMEOUT, key_prefix="breaker")
    store: JobStore = store_factory(mine)
    job = store.submit("enumerate", "SEND + MORE = MONEY", client="one")
    with frozen(server), pytest.raises(Unavailable):
        store.get(job.id)
    assert store.health()["breaker"] == "open"
    with pytest.raises(Unavailable):
        store.get(job.id)  # within the pause: refused at once
    time.sleep(TIMEOUT + 0.1)
    with pytest.raises(NotHeld):
        store.cancel(job.id, "other")  # the trial: Redis answered, with a refusal
    again = store.get(job.id)
    assert again is not None and again.id == job.id
    assert store.health()["breaker"] == "closed"


def test_readyz_is_not_ready_while_the_breaker_is_open(
    settings: Settings,
    redis_factory: Callable[..., RedisServer],
    worker_factory: Any,
    web_factory: Any,
) -> None:
    """gunicorn: a GET times out on a frozen Redis (503); /readyz then answers 503 saying the
    breaker is open; after a trial cancel by a non-holder (403) the API and /readyz are
    back (before: 503 to every call and no recovery)."""
    server = redis_factory()
    mine = settings.replace(redis_url=server.url, redis_timeout=TIMEOUT, key_prefix="breaker")
    worker_factory(mine, "solve,enumerate")
    web = web_factory(mine, env={"ALPHAMETIC_PROXY_HOPS": "1"})
    api = f"{web.url}/api/jobs"
    wait_until(lambda: ready(web.url).status_code == 200, 30, "ready", 0.2)
    posted = requests.post(api, json={"puzzle": "TO + GO = OUT"}, headers=ONE, timeout=15)
    assert posted.status_code == 202, posted.text
    job_id = posted.json()["id"]
    with frozen(server):
        assert requests.get(f"{api}/{job_id}", headers=ONE, timeout=15).status_code == 503
        answer = ready(web.url)
    body = answer.json()
    assert answer.status_code == 503 and body["breaker"] == "open", body
    assert any(reason.startswith("breaker open") for reason in body["reasons"]), body
    time.sleep(TIMEOUT + 0.1)
    refused = requests.post(f"{api}/{job_id}/cancel", json={}, headers=OTHER, timeout=15)
    assert refused.status_code == 403, refused.text  # NotHeld: the trial, answered by Redis
    assert requests.get(f"{api}/{job_id}", headers=ONE, timeout=15).status_code == 200
    # Ready again once the worker's next heartbeat is in (the freeze made it look silent).
    wait_until(lambda: ready(web.url).status_code == 200, 30, "ready again", 0.2)
    assert ready(web.url).json()["breaker"] == "closed"


def ready(url: str) -> requests.Response:
    """GET /readyz."""
    return requests.get(f"{url}/readyz", timeout=15)
