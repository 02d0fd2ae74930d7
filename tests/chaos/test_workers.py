"""Chaos on workers: kill -9 of a pool process or a whole worker, warm and cold shutdown,
early broker redelivery and a poison job. Every job ends exactly once in effect, with the
engine's own solution list (no duplicates, nothing missing)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from jobstore import Keys, Settings, State
from tests.support.chaos import (
    MEDIUM,
    SHARDED,
    SHARDING,
    WHOLE,
    completions,
    endings,
    holder_pid,
    kill_child,
    kill_shard_worker,
    kill_whole_worker,
    mismatch,
    ran_once,
    running_with_output,
    shard_count,
    wait_done,
    wait_until,
)
from tests.support.processes import ROOT
from worker.canary import (
    ConsumerWatch,
    canary_queue,
    deadline_after,
    expires_after,
    idle_after,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
# 3,237,624 solutions, 4-9 s in a worker (machines differ): outlives a 2 s visibility timeout.
LONGER = ("ABC + DEF = GHI", {"base": 20})


# An enumeration of 790,272 solutions: seconds of search and storing in a worker.
LASTING: tuple[str, dict[str, int]] = ("A + B + C + D = E + F + G + H", {"base": 12})


def test_killed_pool_process_reruns_within_5_s(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 1: kill -9 of the pool process mid-job -> attempt 2 succeeds within 5 s, exact list."""
    settings = fresh_settings()
    worker = worker_factory(settings, "enumerate")
    store = store_factory(settings)
    job = store.submit("enumerate", *MEDIUM)
    outcome = kill_child(store, job.id)
    (done,) = outcome.jobs
    assert done.state is State.SUCCEEDED and done.attempt == 2, done.to_dict()
    assert outcome.recovery < 5.0, f"took {outcome.recovery:.1f} s after the kill"
    assert mismatch(store, done) == ""
    assert completions([worker], job.id) == ["2: succeeded"]


def test_whole_worker_killed_survivor_takes_over_within_30_s(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 2: kill -9 of a whole worker; the other finishes the job long before the broker
    would redeliver it (default lease and visibility timeout)."""
    settings = fresh_settings(heartbeat_interval=2.0)
    assert settings.lease_seconds == 10 and settings.visibility_timeout > 600
    workers = [worker_factory(settings, "enumerate", wait=False) for _ in range(2)]
    for worker in workers:
        worker.wait_ready()
    store = store_factory(settings)
    job = store.submit("enumerate", *MEDIUM)
    outcome, victim = kill_whole_worker(store, job.id, workers)
    (done,) = outcome.jobs
    assert not victim.alive() and victim.children() == []
    assert done.state is State.SUCCEEDED and done.attempt == 2, done.to_dict()
    assert outcome.recovery < 30.0, f"took {outcome.recovery:.1f} s after the kill"
    assert mismatch(store, done) == ""
    assert completions(workers, job.id) == ["2: succeeded"]
    (survivor,) = [w for w in workers if w is not victim]
    assert f"job {job.id} lost its worker" in survivor.log()


def test_whole_worker_killed_mid_sharded_job_loses_no_shard(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 2c: kill -9 of a whole worker running a shard of a sharded enumeration: the other
    worker re-runs that shard alone; the merged list is the engine's, each shard ran once."""
    settings = fresh_settings(**SHARDING)
    workers = [worker_factory(settings, "enumerate", wait=False) for _ in range(2)]
    for worker in workers:
        worker.wait_ready()
    store = store_factory(settings)
    job = store.submit("enumerate", *SHARDED)
    outcome, _victim, cut = kill_shard_worker(store, job.id, workers)
    (done,) = outcome.jobs
    assert done.state is State.SUCCEEDED, done.to_dict()
    assert shard_count(store, job.id) > 1
    assert mismatch(store, done) == ""
    assert ran_once(workers, done) == ""
    if cut:  # the shard was killed mid-run (not just after its last write): it ran again
        wait_until(lambda: cut in endings(workers, job.id), 5, "the re-run's line logged")
        assert endings(workers, job.id)[cut] == ["2: succeeded"]
    assert outcome.recovery < 30.0


def test_frozen_worker_loses_its_lease_and_its_late_writes_are_refused(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 2b: a worker frozen (SIGSTOP) mid-job is alive but silent: once its lease expires
    the other worker re-runs the job; thawed, the old attempt is stale and writes nothing."""
    settings = fresh_settings(lease_seconds=2.0, heartbeat_interval=0.5)
    workers = [worker_factory(settings, "enumerate", wait=False) for _ in range(2)]
    for worker in workers:
        worker.wait_ready()
    store = store_factory(settings)
    job = store.submit("enumerate", *MEDIUM)
    wait_until(lambda: running_with_output(store, job.id), 30, "running with output")
    running = store.get(job.id)
    assert running is not None
    (frozen,) = [w for w in workers if holder_pid(running) in w.children()]
    group = [frozen.pid, *frozen.children()]
    for pid in group:
        os.kill(pid, signal.SIGSTOP)
    try:
        wait_until(lambda: store.get(job.id).attempt == 2, 20, "taken over")
    finally:
        for pid in group:
            os.kill(pid, signal.SIGCONT)
    (done,) = wait_done(store, [job.id], 30)
    time.sleep(1.0)  # let the thawed attempt try its writes
    assert done.state is State.SUCCEEDED and done.attempt == 2, done.to_dict()
    assert mismatch(store, done) == ""
    ended = completions(workers, job.id)
    assert "2: succeeded" in ended and all(e in ("1: stale", "2: succeeded") for e in ended)
    assert store.get(job.id).to_dict() == done.to_dict()


def test_warm_shutdown_hands_the_running_job_back(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 3a: SIGTERM mid-job -> the worker hands the job back at once (attempt 1, progress
    kept) and exits; the next worker resumes it."""
    settings = fresh_settings(shard_threshold=0)
    worker = worker_factory(settings, "enumerate")
    store = store_factory(settings)
    # Seconds of search and storing (MEDIUM could end before the hand-back under load).
    job = store.submit("enumerate", *LASTING)
    wait_until(lambda: running_with_output(store, job.id), 30, "running with output")
    worker.proc.send_signal(signal.SIGTERM)
    assert worker.proc.wait(30) == 0
    back = store.get(job.id)
    assert back is not None and back.state is State.QUEUED and back.attempt == 1
    second = worker_factory(settings, "enumerate")
    (done,) = wait_done(store, [job.id], 30)
    assert done.state is State.SUCCEEDED and done.attempt == 1
    assert mismatch(store, done) == ""
    assert completions([worker, second], job.id) == ["1: succeeded"]


def test_cold_shutdown_requeues_the_running_job(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 3b: SIGTERM then SIGQUIT (cold shutdown) mid-job -> the job goes back to the
    queue (handed back, or after its lease if the cold shutdown came first) and another
    worker finishes it."""
    settings = fresh_settings(shard_threshold=0)
    first = worker_factory(settings, "enumerate")
    store = store_factory(settings)
    # Seconds of search and storing: MEDIUM, 0.23 s in a worker on the native core, ended
    # before the signals on an idle machine.
    job = store.submit("enumerate", *LASTING)
    wait_until(lambda: running_with_output(store, job.id), 30, "running with output")
    first.proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    first.proc.send_signal(signal.SIGQUIT)
    first.proc.wait(30)
    assert store.get(job.id).state in (State.QUEUED, State.RUNNING)
    second = worker_factory(settings, "enumerate")
    (done,) = wait_done(store, [job.id], 30)
    assert done.state is State.SUCCEEDED and done.attempt in (1, 2), done.to_dict()
    assert mismatch(store, done) == ""
    assert completions([first, second], job.id) == [f"{done.attempt}: succeeded"]


def test_visibility_timeout_shorter_than_the_job_still_one_run(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 5: the broker redelivers a 5 s job after 2 s; the duplicate is refused as busy."""
    settings = fresh_settings(
        broker_visibility_timeout=2.0, max_stored_solutions=4_000_000, **WHOLE
    )
    worker = worker_factory(settings, "enumerate", concurrency=2)
    store = store_factory(settings)
    job = store.submit("enumerate", *LONGER)
    (done,) = wait_done(store, [job.id], 60)
    assert done.state is State.SUCCEEDED and done.attempt == 1, done.to_dict()
    assert done.elapsed is not None and done.elapsed > 3.0, "the job was too short to tell"
    assert mismatch(store, done) == ""
    assert completions([worker], job.id) == ["1: succeeded"]
    assert f"job {job.id} busy" in worker.log(), "the broker never redelivered the job"


def test_poison_job_fails_after_3_attempts(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Case 6: a job whose process dies every time it runs ends failed after 3 attempts."""
    settings = fresh_settings()
    assert settings.max_attempts == 3
    worker = worker_factory(settings, "enumerate")
    store = store_factory(settings)
    job = store.submit("enumerate", *MEDIUM)
    for attempt in (1, 2, 3):

        def running(attempt: int = attempt) -> bool:
            current = store.get(job.id)
            return (
                current is not None
                and current.state is State.RUNNING
                and (current.attempt == attempt)
            )

        wait_until(running, 30, f"running attempt {attempt}")
        os.kill(holder_pid(store.get(job.id)), signal.SIGKILL)
    (done,) = wait_done(store, [job.id], 30)
    assert done.state is State.FAILED and done.attempt == 3, done.to_dict()
    assert done.error == "gave up after 3 attempts (worker lost)"
    time.sleep(1.0)  # later deliveries of the job must not start it again
    after = store.get(job.id)
    assert after is not None and after.to_dict() == done.to_dict()
    assert completions([worker], job.id) == []


def control(settings: Settings, *command: str) -> subprocess.CompletedProcess[str]:
    """`celery -A worker control ...` against the settings' broker."""
    env = {**os.environ, **settings.env(), "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "celery", "-A", "worker", "control", *command]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_consumer_watch_sends_a_canary_when_idle_and_judges_one_not_taken() -> None:
    """An idle consumer is proven by a canary it takes; one not taken by the deadline, with
    a pool process free, means it is lost; a full pool proves it (it may take nothing); a
    canary the broker refused proves nothing either way."""
    now = [0.0]
    watch = ConsumerWatch(0.5, clock=lambda: now[0])
    sent: list[float] = []

    def send() -> bool:
        sent.append(now[0])
        return True

    now[0] = watch.idle - 0.1
    assert watch.live(False, send) and not sent  # took one lately (it started)
    now[0] = watch.idle + 0.1
    assert watch.live(False, send) and sent == [now[0]]  # idle: a canary goes out
    now[0] += 1
    watch.took()  # ...and it came back
    now[0] += watch.idle + watch.deadline - 1
    assert watch.live(False, send) and len(sent) == 2
    now[0] += watch.deadline - 0.5
    assert watch.live(False, send) and len(sent) == 2  # still within its deadline
    now[0] += 1
    assert not watch.live(False, send)  # not taken with a pool process free: lost
    assert watch.live(True, send)  # a full pool takes nothing, rightly
    now[0] += watch.idle + watch.deadline + 1
    assert watch.live(False, lambda: False) and watch.live(False, lambda: False)  # no broker
    # A canary sent, then the broker away past its deadline: no proof either way, and the
    # deadline counts again from the broker's return.
    watch.took()
    now[0] += watch.idle + 0.1
    assert watch.live(False, send)  # a canary goes out...
    now[0] += watch.deadline + 5
    watch.away()  # ...and Redis went away meanwhile (the heartbeat could not beat)
    now[0] += watch.idle + 0.1
    assert watch.live(False, send)  # back: a fresh canary, not a verdict on the old one
    now[0] += watch.deadline - 0.5
    assert watch.live(False, send)
    now[0] += 1
    assert not watch.live(False, send)  # that one not taken either: lost


def test_a_worker_whose_consumer_takes_nothing_stops_and_an_idle_one_does_not(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> None:
    """A worker that consumes no more (its consumers cancelled, as a consumer lost after a
    reconnect would be) stops by itself within its canary's deadline, saying why, so that its
    supervisor restarts it; a worker merely idle for as long goes on (its canaries taken).
    The canary the stopped one left untaken expires with its queue."""
    mine = fresh_settings()
    stuck = worker_factory(mine, "solve")
    idle = worker_factory(mine, "enumerate")
    name = stuck.name.replace("%h", socket.gethostname())
    for queue in ("solve", canary_queue(name)):
        result = control(mine, "cancel_consumer", queue, "-d", name)
        assert result.returncode == 0 and "OK" in result.stdout, result
    limit = idle_after(mine.heartbeat_interval) + deadline_after(mine.heartbeat_interval) + 10
    wait_until(lambda: not stuck.alive(), limit, "the stuck worker stopped", 0.2)
    assert "consumer lost" in stuck.log(), stuck.log()[-3000:]
    assert idle.alive() and "consumer lost" not in idle.log()
    assert "alphametic.canary" in idle.log()  # it sent itself canaries and took them
    # The stuck worker is gone with its last canary untaken: its list goes by itself, and its
    # binding table is one kombu's live consumers sweep (no permanent binding).
    client = redis.Redis.from_url(mine.redis_url, decode_responses=True)
    broker = Keys(mine.key_prefix).broker
    left = client.pttl(broker + canary_queue(name))
    assert 0 < left <= expires_after(mine.heartbeat_interval) * 1000, left
    assert not client.exists(broker + "_kombu.binding_permanent." + canary_queue(name))
    assert client.zscore(broker + "_kombu.binding_deadlines", canary_queue(name))


def test_a_run_that_raises_fails_its_job_at_once_with_the_reason(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """A job whose run raises an unexpected error (here its record's puzzle, corrupted in
    Redis after it was checked, no longer parses) ends failed by that run, with the error as
    its reason and the traceback in the log: not left running for the lease sweep to re-queue
    until "gave up after 3 attempts (worker lost)", nor queued for the resend sweep."""
    settings = fresh_settings()
    store = store_factory(settings)
    job = store.submit("solve", "SEND + MORE = MONEY", {"base": 12})
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    client.hset(store.keys.job(job.id), "puzzle", "SEND + MORE =")
    worker = worker_factory(settings, "solve")
    (done,) = wait_done(store, [job.id], 60)
    assert (done.state, done.attempt) == (State.FAILED, 1), done.to_dict()
    assert done.error == "PuzzleError: empty term at the end of the puzzle at character 14"
    assert done.started is not None and done.finished is not None
    # Ended by its run (server-side times), not by a sweep after its lease (10 s) ran out.
    assert done.finished - done.started < settings.lease_seconds / 2, done.to_dict()
    log = worker.log()
    assert f"job {job.id} attempt 1 raised" in log and "Traceback" in log, log[-4000:]
    time.sleep(2.0)  # nothing runs it again
    after = store.get(job.id)
    assert after is not None and after.to_dict() == done.to_dict()


def test_a_shard_that_raises_fails_its_whole_job_with_the_reason(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """A shard whose run raises (its record's puzzle corrupted in Redis while it waits) fails
    its whole job at once with that error, its siblings stopped: every shard ends, and the job
    does not end "gave up after 3 attempts (worker lost)" after its lease sweeps."""
    settings = fresh_settings(**SHARDING, shard_window=1)  # shards sent one at a time
    store = store_factory(settings)
    keys = Keys(settings.key_prefix)
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    job = store.submit("enumerate", *SHARDED)
    worker_factory(settings, "enumerate")
    wait_until(lambda: shard_count(store, job.id) > 0, 30, "the job split")
    shards = [keys.job(f"{job.id}.{i}") for i in range(shard_count(store, job.id))]
    waiting = [key for key in shards if client.hget(key, "state") == "queued"]
    assert waiting, "every shard ran before the test could corrupt one"
    for key in waiting:
        client.hset(key, "puzzle", "ABC + DEF =")
    (done,) = wait_done(store, [job.id], 60)
    reason = "PuzzleError: empty term at the end of the puzzle at character 12"
    assert (done.state, done.error) == (State.FAILED, reason), done.to_dict()

    def every_shard_ended() -> bool:
        states = [client.hget(key, "state") for key in shards]
        return all(state in ("succeeded", "failed", "canceled") for state in states)

    wait_until(every_shard_ended, 30, "every shard ended")
    assert max(int(client.hget(key, "attempt") or 0) for key in shards) == 1
