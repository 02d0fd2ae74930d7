"""Hung-up long polls take no other client's wait (issue 32, part 4), on `make run`'s web server
(two gevent gunicorn processes, its default settings) with a real solve worker; each client a
loopback address of its own. Before: 16 `?wait=30` of one client that hung up after 2 s held
every slot for 30 s, so every other client's `?wait` answered at once and `POST ?wait=30` came
back `queued`. bench/attacks/waits.py prints the same figures.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from jobstore import Settings
from scripts.run import web_argv
from tests.support import hangups
from tests.support.loopback import session
from tests.support.processes import WebServer

pytestmark = pytest.mark.slow

WAIT = 5.0  # seconds each victim's long poll asks for: the issue's


@pytest.fixture()
def deployment(fresh_settings: Callable[..., Settings], worker_factory: Any) -> Settings:
    """Settings of a deployment of their own with one solve worker (no enumerate worker: the
    enumeration waited on stays queued)."""
    settings = fresh_settings()
    worker_factory(settings, "solve")
    return settings


@contextmanager
def serving(settings: Settings, processes: int, env: dict[str, str]) -> Iterator[str]:
    """make run's web server on these settings; its URL."""
    web = WebServer(settings, env=env, command=lambda port: web_argv(port, processes))
    try:
        yield web.wait_ready().url
    finally:
        web.cleanup()


def test_hung_up_waits_of_one_client_leave_others_their_long_polls(deployment: Settings) -> None:
    with serving(deployment, 2, {}) as url:
        figures = hangups.run(url, seconds=6, wait=WAIT)
    waited = sorted(seconds for seconds, _ in figures.waits)
    short = [s for s in waited if s < WAIT * 0.99]
    summary = (
        f"{figures.attacks} attacks; {len(waited)} victims' waits, {len(short)} short of "
        f"{WAIT:g} s (shortest {waited[0] if waited else None}); solves "
        f"{[(round(s, 3), state) for s, state in figures.solves]}; errors {figures.errors[:3]}"
    )
    print(summary)  # pytest -s
    assert figures.attacks >= 48 and not figures.errors, summary  # three rounds of 16 at least
    assert len(waited) >= len(hangups.VICTIMS), summary
    # Every victim got a real long poll: it waited its 5 s (the job stays queued).
    assert waited[0] >= WAIT * 0.99, summary
    assert {state for _, state in figures.waits} == {"queued"}, summary
    assert figures.solves and {state for _, state in figures.solves} == {"succeeded"}, summary


def test_a_client_that_hangs_up_frees_its_wait_slots_at_once(deployment: Settings) -> None:
    """Two slots in all, both taken by one client's waits: another client's wait answers at
    once; as soon as the first client hangs up, the other one's waits are long polls again."""
    env = {"ALPHAMETIC_MAX_WAITERS": "2", "ALPHAMETIC_CLIENT_WAITERS": "2"}
    with serving(deployment, 1, env) as url:
        job_id = hangups.queued_job(url)
        attack = threading.Thread(
            target=hangups.attack_round, args=(url, job_id, 2, 4.0, hangups.ATTACKER)
        )
        attack.start()
        with session(hangups.VICTIMS[0]) as http:
            time.sleep(1.5)  # the attacker's two waits hold both slots
            started = time.perf_counter()
            held = http.get(f"{url}/api/jobs/{job_id}?wait=3", timeout=60)
            answered = time.perf_counter() - started
            attack.join(60)  # it hung up
            time.sleep(0.5)
            started = time.perf_counter()
            freed = http.get(f"{url}/api/jobs/{job_id}?wait=3", timeout=60)
            waited = time.perf_counter() - started
    assert held.json()["state"] == "queued" and answered < 1.5, answered  # no slot was free
    assert freed.json()["state"] == "queued" and waited >= 3 * 0.99, waited  # a real wait
