"""A stalled Sentinel master's late replies: every call still reads its own (issue 31).

A call that times out on a stopped master (SIGSTOP) leaves its reply on the way. redis-py 8's
Sentinel connection kept such a connection in its pool, connected, so the next call on it,
sent before the master resumed (SIGCONT), read the first call's reply: a job read by id got
another job's record, a script another script's answer. Here each path of the job store
(the web's JobStore, its waiters, a worker's handle with its heartbeats, a script call)
times out once on the stopped master, then a second call, on other keys, is sent while it is
still stopped and answered once it resumes: it must get its own value, and so must reads of
both keys afterwards. The sentinels are told to wait a minute before judging the master down:
no failover, the same master throughout.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from jobstore import JobStore, Settings, Unavailable
from jobstore.handle import own_handle
from jobstore.keys import Keys
from jobstore.model import QUEUES
from jobstore.transitions import Cancel, CancelFound
from jobstore.workers import beat, count_workers
from tests.support.processes import wait_for
from tests.support.sentinel import Node, SentinelSetup, following

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

TIMEOUT = 1.5  # ALPHAMETIC_REDIS_TIMEOUT here; the store's breaker pauses as long after one
SENT = 0.6  # seconds the second call has to send before the master resumes (< TIMEOUT)
GONE = "00000000-0000-4000-8000-000000000000"  # a job id no one submitted


@pytest.fixture()
def setup(sentinel_factory: Callable[..., SentinelSetup]) -> Iterator[SentinelSetup]:
    """A master, its replica and three sentinels that never judge it down in this test."""
    started = sentinel_factory(replicas=1, down_after_ms=60_000)
    first = started.master_port()
    yield started
    assert started.master_port() == first, "a failover: the stall was meant to be short"


@pytest.fixture()
def mine(settings: Settings, setup: SentinelSetup) -> Settings:
    """Settings following the setup's sentinels, with short timeouts and heartbeats that
    stay recent through every stall."""
    return following(settings, setup).replace(redis_timeout=TIMEOUT, heartbeat_interval=30)


def across_a_stall(
    master: Node, first: Callable[[], Any], second: Callable[[], Any], warm: Callable[[], Any]
) -> Any:
    """Call `warm` (the call itself then has what it reads first); stop the master; `first`
    times out; once the store's breaker lets a call through again, `second` is sent while
    the master is still stopped, and the master resumes before it times out. Returns what
    `second` got (before: the reply `first` waited for)."""
    assert master.proc is not None
    warm()
    got: dict[str, Any] = {}

    def send() -> None:
        try:
            got["value"] = second()
        except Exception as error:  # noqa: BLE001 (reported by the assertion below)
            got["error"] = error
        got["at"] = time.monotonic()

    os.kill(master.proc.pid, signal.SIGSTOP)
    try:
        with pytest.raises((Unavailable, redis.exceptions.TimeoutError)):
            first()
        time.sleep(TIMEOUT + 0.1)  # the breaker's pause
        thread = threading.Thread(target=send, daemon=True)
        thread.start()
        time.sleep(SENT)
    finally:
        os.kill(master.proc.pid, signal.SIGCONT)
    resumed = time.monotonic()
    thread.join(30)
    assert "error" not in got, f"the second call failed: {got.get('error')!r}"
    print(f"\nread after SIGCONT: {1000 * (got['at'] - resumed):.0f} ms")
    return got["value"]


def test_the_store_reads_each_job_its_own_record(
    mine: Settings, setup: SentinelSetup, store_factory: Callable[..., JobStore]
) -> None:
    """The web's store: a job read by id while another's read timed out is that job."""
    store = store_factory(mine)
    a = store.submit("enumerate", "SEND + MORE = MONEY")
    b = store.submit("enumerate", "TO + GO = OUT")
    job = across_a_stall(
        setup.master, lambda: store.get(a.id), lambda: store.get(b.id), lambda: store.get(a.id)
    )
    assert job is not None and (job.id, job.puzzle) == (b.id, b.puzzle)
    for expected in (a, b, a):
        again = store.get(expected.id)
        assert again is not None and again.id == expected.id


def test_a_waiting_request_reads_its_own_job(
    mine: Settings, setup: SentinelSetup, store_factory: Callable[..., JobStore]
) -> None:
    """The waiters: a long-poll of one ended job while another's timed out returns that
    job; the subscriber still wakes the right waiter, with its record, afterwards."""
    store = store_factory(mine)
    a = store.submit("enumerate", "SEND + MORE = MONEY")
    b = store.submit("enumerate", "TO + GO = OUT")
    store.cancel(a.id)
    store.cancel(b.id)
    job = across_a_stall(
        setup.master,
        lambda: store.wait(a.id, 1.0),
        lambda: store.wait(b.id, 1.0),
        lambda: store.wait(a.id, 0.1),  # the subscriber is listening before the stall
    )
    assert job is not None and (job.id, job.state.value) == (b.id, "canceled")
    for expected in (a, b):
        again = store.wait(expected.id, 1.0)
        assert again is not None and again.id == expected.id
    publisher = setup.master.client()
    with store.waiters().watch("other") as other, store.waiters().watch("mine") as watch:
        publisher.publish(Keys(mine.key_prefix).finished, "mine\n" + json.dumps({"id": "mine"}))
        assert watch.event.wait(10) and watch.record == {"id": "mine"}
        assert not other.event.is_set()


def test_a_workers_handle_reads_each_key_its_own_value(
    mine: Settings, setup: SentinelSetup
) -> None:
    """A worker's handle: the live workers counted while a heartbeat timed out are the
    live workers, and each job record read afterwards is its own."""
    handle = own_handle(mine)
    beat(handle, "solver", ["solve"])
    beat(handle, "both", QUEUES)
    live = {"solve": 2, "enumerate": 1}

    def counted() -> dict[str, int]:
        return count_workers(handle.client, mine.key_prefix, mine.heartbeat_interval)

    assert counted() == live
    keys = handle.keys
    handle.client.hset(keys.job("a"), mapping={"id": "a"})
    handle.client.hset(keys.job("b"), mapping={"id": "b"})
    seen = across_a_stall(setup.master, lambda: beat(handle, "solver", ["solve"]), counted, counted)
    assert seen == live
    assert handle.client.hgetall(keys.job("a")) == {"id": "a"}
    assert handle.client.hgetall(keys.job("b")) == {"id": "b"}
    assert counted() == live


def test_a_script_gets_its_own_answer(
    mine: Settings, setup: SentinelSetup, store_factory: Callable[..., JobStore]
) -> None:
    """A script call (a transition, with its WAIT): a cancel of an unknown job while a
    cancel of a queued one timed out answers gone, not the other's queued."""
    store = store_factory(mine)
    queued = store.submit("enumerate", "SEND + MORE = MONEY")
    handle = own_handle(mine)

    def cancel(job_id: str) -> CancelFound:
        return CancelFound(handle.scripts.call(Cancel(handle.keys, job_id, time.time()))[0])

    # Warmed by a script call, the first one reads no replica count (a fresh one is kept):
    # it times out in its pipeline (SCRIPT EXISTS, then the script and its WAIT).
    found = across_a_stall(
        setup.master, lambda: cancel(queued.id), lambda: cancel(GONE), lambda: cancel(GONE)
    )
    assert found is CancelFound.GONE
    # Whether the first one's script was sent before it timed out or not, the job's own:
    assert cancel(queued.id) in (CancelFound.QUEUED, CancelFound.DONE)
    assert cancel(queued.id) is CancelFound.DONE
    assert cancel(GONE) is CancelFound.GONE


def test_after_a_timeout_writes_go_to_the_master_the_sentinels_name(
    settings: Settings, sentinel_factory: Callable[..., SentinelSetup]
) -> None:
    """The master stopped long enough for a failover: once one call timed out, no pooled
    connection to the deposed master is used again. Resumed, it still takes writes for a
    moment (until the sentinels make it a replica, which throws them away); every write
    sent then goes to the new master."""
    setup = sentinel_factory(replicas=1)
    old = setup.master
    assert old.proc is not None and setup.master_port() == old.port
    mine = following(settings, setup).replace(redis_timeout=TIMEOUT)
    handle = own_handle(mine)
    pool_size = 4
    # Several connections in the pool, all to the master of the time.
    threads = [
        threading.Thread(target=handle.client.blpop, args=(f"nothing-{n}", 0.3))
        for n in range(pool_size)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    os.kill(old.proc.pid, signal.SIGSTOP)
    try:
        with pytest.raises(redis.exceptions.TimeoutError):
            handle.client.get("before")
        wait_for(lambda: setup.master_port() != old.port, 30, 0.1, "a new master")
    finally:
        os.kill(old.proc.pid, signal.SIGCONT)
    for n in range(2 * pool_size):
        handle.client.set(f"after-{n}", str(n))
    new = Node.client_at(setup.master_port())
    assert new.mget([f"after-{n}" for n in range(2 * pool_size)]) == [
        str(n) for n in range(2 * pool_size)
    ]
