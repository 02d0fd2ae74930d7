"""Chaos on Redis Sentinel: the master killed (kill -9) under a steady stream of submissions.

Master, one replica and three sentinels on loopback (tests/support/sentinel.py); real celery
workers and a real gunicorn, all following the master through REDIS_SENTINELS. Every script
write is confirmed by each replica connected to the master (WAIT n), so the one promoted has
them all. The promoted replica has no replica of its own: writes go on, degraded, and the
failover test revives the dead server as a supervisor would; at a floor of 0 the replica's own
death leaves the master accepting, and ALPHAMETIC_MIN_REPLICAS refuses writes below its floor.
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
from kombu import Connection

from jobstore import Job, JobStore, Keys, Mode, Settings, State, Unavailable
from jobstore.settings import ConfigError
from tests.support.chaos import (
    MEDIUM,
    SHARDED,
    SHARDING,
    running_shard,
    shard_count,
    succeeded_once,
    wait_until,
)
from tests.support.sentinel import SentinelSetup, Stream, following, taken_by_each

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

RECOVERY_LIMIT = 15.0  # seconds from the kill until the API accepts submissions again


@pytest.fixture()
def sentinel_setup(sentinel_factory: Callable[..., SentinelSetup]) -> SentinelSetup:
    """A started master, its replica and three sentinels, removed afterwards."""
    return sentinel_factory(replicas=1)


def test_master_killed_under_submissions_loses_no_accepted_job(
    settings: Settings,
    sentinel_setup: SentinelSetup,
    worker_factory: Any,
    web_factory: Any,
    store_factory: Any,
) -> None:
    """kill -9 of the master: 202 again within RECOVERY_LIMIT, each worker takes a fresh job,
    every accepted job succeeds, and none of them runs to success twice."""
    setup = sentinel_setup
    first_master = setup.master_port()
    mine = following(settings, setup)
    workers = [worker_factory(mine, "solve,enumerate", concurrency=2) for _ in range(2)]
    web = web_factory(mine)
    store: JobStore = store_factory(mine)
    stream = Stream(web.url)
    stream.start()
    try:
        wait_until(lambda: len(stream.accepted()) >= 20, 30, "20 submissions accepted", 0.05)
        dead = setup.kill_master()  # returns once the process is gone
        killed_at = time.monotonic()
        # Its supervisor brings the dead server back (empty) as the new master's replica.
        setup.revive(dead)
        revived = time.monotonic() - killed_at
        # 202 again for a submission sent after the kill, then a while of steady traffic.
        wait_until(
            lambda: any(a.sent > killed_at for a in stream.accepted()),
            RECOVERY_LIMIT + 15,
            "accepting submissions again",
            0.05,
        )
        back = min(a.received for a in stream.accepted() if a.sent > killed_at) - killed_at
        wait_until(
            lambda: sum(a.sent > killed_at + back for a in stream.accepted()) >= 20,
            30,
            "20 more submissions accepted after the failover",
            0.05,
        )
        # No consumer silently stopped at the failover: each worker takes a fresh job.
        taken_by_each(workers, stream, killed_at + back)
    finally:
        stream.end()
    print(
        f"\nsentinel failover: new master and the dead one revived as its replica "
        f"{revived:.2f} s, 202 again {back:.2f} s after kill -9; {stream.tally()}"
    )
    assert setup.master_port() != first_master, setup.logs()
    assert back <= RECOVERY_LIMIT, f"202 again only after {back:.1f} s"
    # The kill was felt: a master that is gone for a second refuses what it cannot take.
    refused = stream.refused()
    assert refused and all(a.status == 503 for a in refused), stream.tally()
    jobs = succeeded_once(store, workers, stream.job_ids(), timeout=90)
    assert any(job.mode is Mode.ENUMERATE for job in jobs)  # enumerations ran through it
    print(f"sentinel failover: {len(jobs)} accepted jobs all succeeded, each ran once")


def test_the_replica_killed_under_submissions_leaves_the_master_accepting(
    settings: Settings,
    sentinel_setup: SentinelSetup,
    worker_factory: Any,
    web_factory: Any,
    store_factory: Any,
) -> None:
    """kill -9 of the only replica, nobody bringing it back, at a floor of 0 (set): the master
    goes on accepting (each write confirmed by the replicas connected: none), the metric says
    0, and every accepted job succeeds. Before, every write waited for one replica: 503 for as
    long as the replica stayed dead, and jobs accepted before it stayed queued or running."""
    setup = sentinel_setup
    mine = following(settings, setup).replace(min_replicas=0)
    workers = [worker_factory(mine, "solve,enumerate", concurrency=2)]
    web = web_factory(mine)
    store: JobStore = store_factory(mine)
    stream = Stream(web.url, interval=0.1)
    stream.start()
    try:
        wait_until(lambda: len(stream.accepted()) >= 10, 30, "10 submissions accepted", 0.05)
        replica = setup.replicas[0]
        replica.stop(signal.SIGKILL)
        killed_at = time.monotonic()
        wait_until(
            lambda: sum(a.sent > killed_at + 3 for a in stream.accepted()) >= 20,
            30,
            "20 submissions accepted after the replica died",
            0.05,
        )
    finally:
        stream.end()
    late = [a.status for a in stream.answers if a.sent > killed_at + 3]
    assert late and all(status == 202 for status in late), late
    metrics = requests.get(f"{web.url}/metrics", timeout=10).text
    assert "alphametic_redis_replicas_connected 0.0" in metrics
    ready = requests.get(f"{web.url}/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json()["replicas"] == {"connected": 0, "floor": 0}
    succeeded_once(store, workers, stream.job_ids(), timeout=90)


def test_below_the_replica_floor_writes_are_refused_and_not_written(
    settings: Settings, sentinel_setup: SentinelSetup, store_factory: Any
) -> None:
    """ALPHAMETIC_MIN_REPLICAS above the replicas connected: a submission is refused
    (Unavailable: the API's 503) before anything is written; at the floor it is accepted."""
    setup = sentinel_setup
    base = following(settings, setup)
    strict: JobStore = store_factory(base.replace(min_replicas=2))
    with pytest.raises(Unavailable, match="1 replica.*2 required"):
        strict.submit("solve", "SEND + MORE = MONEY")
    assert not strict.redis.keys(f"{base.key_prefix}:job:*")  # nothing left behind
    assert strict.health()["replicas"] == {"connected": 1, "floor": 2}  # /readyz: not ready
    fine: JobStore = store_factory(base.replace(min_replicas=1))
    job = fine.submit("solve", "SEND + MORE = MONEY")
    assert fine.get(job.id) is not None
    assert fine.health()["replicas"] == {"connected": 1, "floor": 1}


@contextmanager
def frozen(setup: SentinelSetup) -> Iterator[None]:
    """The replica stopped (SIGSTOP) while still connected to the master: every write runs on
    the master and WAIT 1 times out (NotReplicated); SIGCONT afterwards."""
    proc = setup.replicas[0].proc
    assert proc is not None
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(proc.pid, signal.SIGCONT)


def in_sync(setup: SentinelSetup) -> bool:
    """The replica has every write of the master (after a freeze)."""
    master = setup.master.client().info("replication")
    replica = setup.replicas[0].client().info("replication")
    return bool(master["master_repl_offset"] == replica["slave_repl_offset"])


def test_a_submit_no_replica_confirmed_says_the_job_may_exist(
    settings: Settings, sentinel_setup: SentinelSetup, web_factory: Any
) -> None:
    """A submission whose create script ran on the master but that no replica confirmed is
    answered 503 saying so: the body names the job (`job_id`, `may_exist`), a retry of the
    same submission finds it (202, that id), and it counts against the client's cap once."""
    setup = sentinel_setup
    mine = following(settings, setup)
    # No worker: the jobs stay queued, each counting against the client's cap of 2.
    web = web_factory(mine, env={"ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "2"})
    url = web.url + "/api/jobs"
    body = {"puzzle": "SEND + MORE = MONEY", "mode": "enumerate"}
    with frozen(setup):
        answer = requests.post(url, json=body, timeout=15)
    assert answer.status_code == 503, answer.text
    problem = answer.json()
    assert problem["may_exist"] is True and problem["job_id"], problem
    assert int(answer.headers["Retry-After"]) > 0
    wait_until(lambda: in_sync(setup), 15, "the replica caught up", 0.1)
    again = requests.post(url, json=body, timeout=15)
    assert again.status_code == 202 and again.json()["id"] == problem["job_id"], again.text
    other = requests.post(url, json={**body, "puzzle": "TO + GO = OUT"}, timeout=15)
    assert other.status_code == 202, other.text  # the first counted once: room for one more
    third = requests.post(url, json={**body, "puzzle": "ONE + ONE = TWO"}, timeout=15)
    assert third.status_code == 429, third.text
    # Refused before the script ran (below the floor): nothing written, and the body says so.
    strict = web_factory(mine.replace(min_replicas=2))
    refused = requests.post(strict.url + "/api/jobs", json={"puzzle": "A + B = CD"}, timeout=15)
    assert refused.status_code == 503 and refused.json()["may_exist"] is False, refused.text


def submitted(store: JobStore, mode: str, puzzle: str, options: dict[str, Any]) -> str:
    """The id of a submission, accepted or unconfirmed (Unavailable: it may exist)."""
    try:
        return store.submit(mode, puzzle, options).id
    except Unavailable as error:
        assert error.may_exist and error.job_id, error
        return error.job_id


def shard_records(store: JobStore, job: Job) -> list[dict[str, str]]:
    """The raw records of a sharded job's shards (store.get hides shards)."""
    keys = Keys(store.prefix)
    count = shard_count(store, job.id)
    return [store.redis.hgetall(keys.job(f"{job.id}.{i}")) for i in range(count)]


def test_writes_no_replica_confirmed_spend_no_attempt_and_stop_no_shard(
    settings: Settings,
    sentinel_setup: SentinelSetup,
    worker_factory: Any,
    store_factory: Any,
) -> None:
    """The replica frozen for a while under running jobs (a sharded enumeration among them):
    every claim and write the master ran is unconfirmed (NotReplicated). Nothing of it costs
    a job: every job succeeds with its attempt 1 (a claim resent by its pool process is that
    same claim: claim.lua; counting it as a worker lost, the jobs claimed while frozen ended
    at attempt 3 or failed), no shard is judged purged or stopped, and each ran to success
    once."""
    setup = sentinel_setup
    mine = following(settings, setup).replace(**SHARDING)
    workers = [worker_factory(mine, mode, concurrency=2) for mode in ("enumerate", "solve")]
    store: JobStore = store_factory(mine)
    sharded = store.submit("enumerate", *SHARDED)
    medium = store.submit("enumerate", *MEDIUM)
    solves = [store.submit("solve", "SEND + MORE = MONEY", {"base": b}) for b in (11, 12)]
    wait_until(lambda: running_shard(store, sharded.id), 30, "a shard running")
    with frozen(setup):
        # Claimed, run and ended while no replica confirms anything.
        late = [submitted(store, "solve", "TO + GO = OUT", {"base": b}) for b in range(11, 17)]
        time.sleep(8)
    ids = [job.id for job in (sharded, medium, *solves)] + late
    jobs = succeeded_once(store, workers, ids, timeout=90)
    log = workers[0].log() + workers[1].log()
    # The premise, or "no attempt spent" below proves nothing: claims were made while frozen
    # and went unconfirmed (claimed again by the same pool process: worker/tasks.py).
    unconfirmed = [job_id for job_id in late if f"job {job_id}: no confirmed claim" in log]
    assert unconfirmed, "no claim went unconfirmed while the replica was frozen"
    assert [job.attempt for job in jobs] == [1] * len(jobs), [j.to_dict() for j in jobs]
    records = shard_records(store, jobs[0])
    assert records and all(r["state"] == State.SUCCEEDED for r in records), records
    assert [r["attempt"] for r in records] == ["1"] * len(records), records
    assert "purged" not in log and "shard was stopped" not in log, log[-4000:]


def test_sentinel_workers_config_names_the_master(settings: Settings) -> None:
    """The broker follows the sentinels by name, keeps the key prefix, REDIS_URL's database
    and password, and times out its sockets (a frozen master must not hang a publish)."""
    from worker.broker import SentinelTransport
    from worker.celery_app import celery_config

    mine = settings.replace(
        redis_url="redis://:secret@127.0.0.1:1/7",
        redis_sentinels="127.0.0.1:26379, [::1]:26380",
        redis_sentinel_password="sentinel-secret",
    )
    config = celery_config(mine)
    assert config["broker_url"] == (
        "sentinel://:secret@127.0.0.1:26379/7;sentinel://:secret@[::1]:26380/7"
    )
    options = config["broker_transport_options"]
    assert options["master_name"] == "mymaster"
    assert options["global_keyprefix"] == f"{settings.key_prefix}:broker:"
    assert options["socket_timeout"] == mine.redis_timeout
    assert options["sentinel_kwargs"]["password"] == "sentinel-secret"
    assert options["sentinel_kwargs"]["socket_timeout"] > 0
    # kombu picks the transport that survives closing a channel after the master died.
    assert Connection(config["broker_url"]).get_transport_cls() is SentinelTransport
    assert "master_name" not in celery_config(settings)["broker_transport_options"]
    assert celery_config(settings)["broker_url"] == settings.redis_url
    for wrong in ("127.0.0.1", "127.0.0.1:port", ":26379", "h:70000"):
        with pytest.raises(ConfigError, match="REDIS_SENTINELS"):
            settings.replace(redis_sentinels=wrong)
    environ = {**settings.env(), "REDIS_SENTINELS": "127.0.0.1:26379"}
    assert Settings.from_env(environ).sentinels == [("127.0.0.1", 26379)]
    assert mine.env()["REDIS_SENTINELS"] == mine.redis_sentinels  # what subprocesses get
