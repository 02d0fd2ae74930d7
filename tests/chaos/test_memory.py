"""Chaos on Redis's memory: a small maxmemory (noeviction) filled by big enumerations and by
others' data. Submits answer 503 with Retry-After (never 500), the workers' main processes
stay up and keep beating, cancel and DELETE keep working at the limit, a run waiting for
memory holds a bounded share of solutions unstored, and once memory is back every accepted
job finishes: none ends failed.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import redis
import requests
from kombu import Connection, Exchange, Producer, Queue

from jobstore import JobStore, Keys, Mode, Settings, State
from jobstore.workers import count_workers, silent_after
from tests.support.chaos import SHARDED, SHARDING, WHOLE, mismatch, wait_done, wait_until
from tests.support.memory import fill, hold_full, used
from tests.support.processes import RedisServer, WebServer, WorkerProcess
from worker import broker
from worker.run import HELD_MAX

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

MAXMEMORY = 30 * 1024 * 1024
# Big enumerations, each distinct (no dedup): 400,000 to millions of solutions, each job
# storing up to its cap (1,000,000 compact solutions of 9 characters: about 9 MB).
BIG = [("ABC + DEF = GHI", {"base": base}) for base in range(16, 30)]
HOLD = float(os.environ.get("OOM_HOLD", "6"))  # seconds Redis stays full at the end
LONG_COUNT = ("ABC + DEF = GHI", {"base": 36})  # seconds of search, nothing stored
LONG_COUNT_SOLUTIONS = 340_500_304  # `alphametic solve --count` (both engines)
FULL_SPELL = 8.0  # seconds Redis stays full under a storing enumeration (~3 s of search)


def submit(session: requests.Session, web: WebServer, puzzle: Any, mode: str) -> requests.Response:
    """POST one job to the API."""
    text, options = puzzle
    body = {"puzzle": text, "mode": mode, "options": options}
    return session.post(web.url + "/api/jobs", json=body, timeout=30)


def assert_refused(answer: requests.Response, where: str) -> None:
    """A refusal for lack of memory: 503 problem+json with Retry-After, never a 500."""
    assert answer.status_code == 503, (where, answer.status_code, answer.text[:300])
    assert answer.headers["Content-Type"].startswith("application/problem+json"), where
    assert int(answer.headers["Retry-After"]) > 0, where


def test_full_memory_is_bounded_and_recoverable(
    settings: Settings,
    redis_factory: Callable[..., RedisServer],
    worker_factory: Callable[..., WorkerProcess],
    store_factory: Callable[..., JobStore],
    web_factory: Callable[..., WebServer],
) -> None:
    """Redis at 30 MB, noeviction, the per-client budget off."""
    server = redis_factory()
    admin = redis.Redis.from_url(server.url)
    admin.config_set("maxmemory", str(MAXMEMORY))
    mine = settings.replace(
        redis_url=server.url,
        key_prefix=f"oom-{uuid.uuid4().hex[:8]}",
        max_stored_per_client=0,
        client_memory_share=1.0,  # one client fills the watermark here: no share of its own
        **SHARDING,
    )
    workers = [worker_factory(mine, "solve,enumerate") for _ in range(2)]
    store = store_factory(mine)
    web = web_factory(mine)
    session = requests.Session()

    # 1. A first enumeration ends (400,000 solutions stored): what DELETE frees later. Then
    # big ones until refused: admission counts what admitted ones may still store.
    first_id = submit(session, web, BIG[0], "enumerate").json()["id"]
    first = wait_done(store, [first_id], 90)[0]
    assert first.state is State.SUCCEEDED, first.to_dict()
    accepted: list[str] = [first_id]
    statuses: list[int] = []
    for puzzle in BIG[1:]:
        answer = submit(session, web, puzzle, "enumerate")
        statuses.append(answer.status_code)
        if answer.status_code == 202:
            accepted.append(answer.json()["id"])
        else:
            assert_refused(answer, f"enumerate {puzzle}")
        if statuses.count(503) >= 3:
            break
    print(f"submits: {statuses}; used {used(admin)} of {MAXMEMORY}")
    assert statuses.count(503) >= 3 and len(accepted) >= 2, statuses
    counted = submit(session, web, LONG_COUNT, "count")  # a count stores nothing: admitted
    assert counted.status_code == 202, counted.text
    accepted.append(counted.json()["id"])

    # 2. Someone else's data takes Redis to its limit while the big one stores.
    def storing() -> bool:
        job = store.get(accepted[1])
        return job is not None and (job.progress > 0 or job.done)

    wait_until(storing, 30, "the big enumeration storing", interval=0.01)
    junk = fill(admin, "a")
    running = [job.state.value for job in map(store.get, accepted) if job is not None]
    print(f"at the limit after {junk} junk keys: used {used(admin)}; jobs {running}")
    assert_refused(submit(session, web, BIG[-1], "enumerate"), "enumerate at the limit")
    small: list[int] = []  # a small job fits in whatever a worker's ack just freed, or not
    for mode in ("count", "solve") * 3:
        answer = submit(session, web, BIG[-1], mode)
        small.append(answer.status_code)
        if answer.status_code == 202:
            accepted.insert(-1, answer.json()["id"])
        else:
            assert_refused(answer, f"{mode} at the limit")
    print(f"count and solve at the limit: {small}")
    canceled = session.post(f"{web.url}/api/jobs/{accepted[-1]}/cancel", json={}, timeout=30)
    assert canceled.status_code == 200, canceled.text
    before = used(admin)
    deleted = session.delete(f"{web.url}/api/jobs/{first.id}", timeout=30)
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["deleted"] is not None
    freed = before - used(admin)
    print(f"DELETE freed {freed} bytes")
    assert freed > 1_000_000, (before, used(admin))

    # At the limit again for a while: workers keep their main processes, runs wait.
    fill(admin, "b")
    time.sleep(HOLD)
    assert_refused(submit(session, web, BIG[-2], "enumerate"), "enumerate, still full")
    for worker in workers:
        assert worker.alive(), worker.log()[-6000:]

    # 3. Memory back: every accepted job finishes, none failed.
    admin.config_set("maxmemory", str(4 * MAXMEMORY))
    ended = wait_done(store, accepted, 120)
    states = [(job.id[:8], job.mode.value, job.state.value, job.error) for job in ended]
    print(f"ended: {states}")
    if os.environ.get("OOM_LOGS"):
        for worker in workers:
            keep = ("WARN", "ERROR", "not run", "purged", "again", "cancel")
            lines = [line for line in worker.log().splitlines() if any(k in line for k in keep)]
            print("\n".join(lines)[-5000:])
    assert all(job.state is State.SUCCEEDED for job in ended[:-1]), states
    assert ended[-1].state in (State.CANCELED, State.SUCCEEDED), states
    for job in ended:  # refused batches were stored once memory was back, each exactly once
        if job.mode is Mode.ENUMERATE and not job.truncated and not job.deleted:
            assert mismatch(store, job) == ""
    for worker in workers:
        assert worker.alive(), worker.log()[-6000:]
        assert "Unrecoverable error" not in worker.log()
    refusals = "command not allowed when used memory"
    backoffs = sum(worker.log().count(refusals) for worker in workers)
    print(f"worker log lines of OOM refusals (backed off, retried): {backoffs}")
    again = submit(session, web, BIG[0], "count")
    assert again.status_code == 202, again.text
    wait_until(lambda: bool(store.get(again.json()["id"]).done), 60, "a new job runs")  # type: ignore[union-attr]
    assert " 500 " not in web.log() and "Traceback" not in web.log(), web.log()[-4000:]


def test_a_worker_waiting_out_a_full_redis_beats_on_and_keeps_its_job(
    settings: Settings,
    redis_factory: Callable[..., RedisServer],
    worker_factory: Callable[..., WorkerProcess],
    store_factory: Callable[..., JobStore],
) -> None:
    """Redis full for three times the silence after which a worker counts as gone, under a
    running count whose writes it refuses: the worker's heartbeat goes on (beat.lua runs at
    the limit), so it is counted alive throughout (ready, its messages not judged lost with
    it), its job is not taken over as lost, and once memory is back the job succeeds in its
    first attempt with its exact count. Before, every beat was refused: gone after 2.5 s."""
    server = redis_factory()
    admin = redis.Redis.from_url(server.url)
    prefix = f"oom-{uuid.uuid4().hex[:8]}"
    mine = settings.replace(redis_url=server.url, key_prefix=prefix, max_stored_per_client=0)
    worker = worker_factory(mine, "enumerate")
    store = store_factory(mine)
    job = store.submit("count", *LONG_COUNT)

    def counting() -> bool:
        now = store.get(job.id)
        return now is not None and now.progress > 0

    wait_until(counting, 30, "the count running", interval=0.01)
    hold_full(admin, "beats")
    silence = silent_after(mine.heartbeat_interval)
    full_until = time.monotonic() + 3 * silence
    alive: list[int] = []
    while time.monotonic() < full_until:
        alive.append(count_workers(admin, prefix, mine.heartbeat_interval)["enumerate"])
        time.sleep(0.2)
    with pytest.raises(redis.exceptions.OutOfMemoryError):  # full all along
        admin.set("one-more", "x")
    held = store.get(job.id)
    assert held is not None and held.state is State.RUNNING and held.attempt == 1, held
    assert "command not allowed when used memory" in worker.log()  # its writes were refused
    print(f"workers counted alive while full: {alive}")
    assert alive and set(alive) == {1}, alive

    admin.config_set("maxmemory", "0")
    done = wait_done(store, [job.id], 90)[0]
    assert done.state is State.SUCCEEDED and done.attempt == 1, done.to_dict()
    assert done.solutions_found == LONG_COUNT_SOLUTIONS, done.to_dict()
    assert "lost its worker" not in worker.log() and worker.alive(), worker.log()[-4000:]


def test_an_enumeration_waiting_out_a_full_redis_holds_a_bounded_share_unstored(
    settings: Settings,
    redis_factory: Callable[..., RedisServer],
    worker_factory: Callable[..., WorkerProcess],
    store_factory: Callable[..., JobStore],
) -> None:
    """Redis full for longer than a whole enumeration takes, while it stores: once its run
    holds HELD_MAX solutions that Redis refused, its search waits for memory (it holds no
    more: before, it searched on and held every solution up to the job's cap), the wait
    counting as no search time; once memory is back the job succeeds, each solution stored
    exactly once."""
    server = redis_factory()
    admin = redis.Redis.from_url(server.url)
    prefix = f"oom-{uuid.uuid4().hex[:8]}"
    mine = settings.replace(
        redis_url=server.url, key_prefix=prefix, max_stored_per_client=0, **WHOLE
    )
    worker = worker_factory(mine, "enumerate")
    store = store_factory(mine)
    job = store.submit("enumerate", *SHARDED)  # 720,720 solutions, ~3 s, one run

    def storing() -> bool:
        now = store.get(job.id)
        return now is not None and now.solutions_found > 0

    wait_until(storing, 30, "the enumeration storing", interval=0.01)
    hold_full(admin, "held")
    held = re.compile(r"Redis full, (\d+) solutions held unstored: the search waits")
    wait_until(lambda: bool(held.search(worker.log())), 30, "the search waiting", 0.1)
    time.sleep(FULL_SPELL)
    with pytest.raises(redis.exceptions.OutOfMemoryError):  # full all along
        admin.set("one-more", "x")
    counts = [int(n) for n in held.findall(worker.log())]
    print(f"held unstored when the search waited: {counts}")
    # HELD_MAX, and what the search found between two of its checks (a few ms of it).
    assert counts and max(counts) < HELD_MAX + 20_000, counts
    waiting = store.get(job.id)
    assert waiting is not None and waiting.state is State.RUNNING, waiting

    admin.config_set("maxmemory", "0")
    done = wait_done(store, [job.id], 90)[0]
    assert done.state is State.SUCCEEDED and done.attempt == 1, done.to_dict()
    assert mismatch(store, done) == ""
    ran = float(store.redis.hget(Keys(prefix).job(job.id), "ran") or 0)
    assert ran < FULL_SPELL, ran  # the search time: the wait for memory not in it
    assert worker.alive(), worker.log()[-4000:]


@pytest.mark.parametrize("requeue", [False, True], ids=["ack", "reject-requeue"])
def test_the_broker_hands_out_and_acks_at_the_memory_limit(
    redis_factory: Callable[..., RedisServer], requeue: bool
) -> None:
    """At Redis's memory limit kombu cannot keep its copy of a message handed out, nor put a
    rejected one back: the message is handed out all the same and nothing raises (Celery took
    the OOM error for an unrecoverable one and the worker's main process exited)."""
    server = redis_factory()
    admin = redis.Redis.from_url(server.url)
    with Connection(server.url, transport_options={"socket_timeout": 2}) as connection:
        channel = connection.channel()
        assert isinstance(channel, broker.Channel) and isinstance(channel.qos, broker.QoS)
        exchange = Exchange("full", type="direct")
        queue = Queue("full", exchange, routing_key="full", channel=channel)
        queue.declare()
        for n in range(2):
            Producer(channel).publish({"n": n}, exchange=exchange, routing_key="full")
        admin.config_set("maxmemory", str(used(admin) + 512 * 1024))
        fill(admin, "broker")
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            admin.set("one-more", "x" * 1024)
        message = queue.get(no_ack=False)
        assert message is not None and message.payload == {"n": 0}
        message.reject(requeue=True) if requeue else message.ack()
        admin.config_set("maxmemory", "0")
        following = queue.get(no_ack=False)
        assert following is not None and following.payload == {"n": 1}
        following.ack()
