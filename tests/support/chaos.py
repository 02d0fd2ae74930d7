"""Chaos scenarios shared by tests/chaos and bench/recovery.py: break something, time recovery.

Each scenario drives real processes (redis-server, celery workers) that the caller started and
returns what happened; the tests assert on it, the benchmark prints the times. No pytest here.
"""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import alphametic
from jobstore import Job, JobStore, Keys, Mode, State
from tests.support.processes import RedisServer, WorkerProcess
from tests.support.puzzles import encode

# ~1.5 s in a worker (99,152 ... 401,544 solutions span base 14 ... 16): killed mid-way.
MEDIUM = ("ABC + DEF = GHI", {"base": 15})
# Small distinct enumerations (a fraction of a second each) to fill a queue.
SMALL = [("ABC + DEF = GHI", {"base": base}) for base in (11, 12, 13)] + [
    ("SEND + MORE = MONEY", {"base": base}) for base in (14, 15, 16, 17)
]


# Settings that keep an enumeration whole (one task) or shard those estimated past about a
# second of work (2e6 reference nodes: alphametic.estimate; MEDIUM's listing is about 1e6).
WHOLE: dict[str, Any] = {"shard_threshold": 0}
SHARDING: dict[str, Any] = {"shard_threshold": 2e6, "shard_count": 8}
# Sharded under SHARDING (its listing estimated at 3e6), 720,720 solutions, ~3 s in a worker.
SHARDED = ("ABC + DEF = GHI", {"base": 17})


@dataclass
class Outcome:
    """A scenario's result: the jobs as they ended and seconds from the fault to the last end."""

    jobs: list[Job]
    recovery: float
    takeover: float = 0.0  # seconds from the fault to the first job's last attempt starting


@functools.cache
def _reference(text: str, options: str) -> tuple[str, ...]:
    """The engine's own compact solution list (cached per puzzle)."""
    puzzle = alphametic.parse(text, **json.loads(options))
    return tuple(encode(solution) for solution in alphametic.Search(puzzle).solutions())


def reference(text: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """The engine's compact solutions of this puzzle, in its deterministic order."""
    return _reference(text, json.dumps(dict(options), sort_keys=True))


def stored(store: JobStore, job_id: str) -> list[str]:
    """Every compact solution the job stored, in order."""
    _letters, items, total, truncated = store.compact(job_id, 0, 10**9)
    assert not truncated and total == len(items)
    return list(items)


def mismatch(store: JobStore, job: Job) -> str:
    """Why the job's stored list differs from the engine's ('' when identical)."""
    got, want = stored(store, job.id), reference(job.puzzle, job.options)
    if got == list(want) and job.solutions_found == len(want):
        return ""
    return (
        f"{job.puzzle} {job.options}: stored {len(got)} ({len(set(got))} distinct), "
        f"found {job.solutions_found}, engine {len(want)}"
    )


HANDED_BACK = ("stopped", "yielded")


def endings(workers: list[WorkerProcess], job_id: str) -> dict[str, list[str]]:
    """Per job id (the job's and its shards' "{id}.{n}"), the attempts that ran to an end,
    from the workers' logs, as "<attempt>: <outcome>" (a run that handed its job back, a
    stopping worker's or one yielding to others, did not end it)."""
    pattern = re.compile(rf"job ({re.escape(job_id)}(?:\.\d+)?) attempt (\d+) ended: (\w+)")
    found: dict[str, list[str]] = {}
    for worker in workers:
        for name, attempt, outcome in pattern.findall(worker.log()):
            if outcome not in HANDED_BACK:
                found.setdefault(name, []).append(f"{attempt}: {outcome}")
    return found


def completions(workers: list[WorkerProcess], job_id: str) -> list[str]:
    """Attempts of an unsharded job that ran to an end ("<attempt>: <outcome>"), once the
    current one is logged (a pool process logs just after its final write; give it 5 s)."""
    deadline = time.monotonic() + 5
    while not unstale(ends := endings(workers, job_id).get(job_id, [])):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    return ends


def ran_once(workers: list[WorkerProcess], job: Job) -> str:
    """'' when the job (or each of its shards) ended exactly once not stale, else why not."""
    ended = endings(workers, job.id)
    deadline = time.monotonic() + 5
    while not ended and time.monotonic() < deadline:
        # The pool process logs its line just after its final write: the test may look first.
        time.sleep(0.05)
        ended = endings(workers, job.id)
    if not ended:
        # A pool process that died between its final write and its log line leaves a finished
        # job without a line; attempt 1 (no run of it was lost) still proves it ran once.
        return "" if job.done and job.attempt == 1 else f"job {job.id} never ended"
    twice = {name: ends for name, ends in ended.items() if len(unstale(ends)) != 1}
    return f"ended other than once: {twice}" if twice else ""


def ended_once_current(workers: list[WorkerProcess], job: Job) -> str:
    """'' when the job (or each of its shards) logged exactly one ending and it is a current
    one (no stale run beside it: nothing lost its claim), else why not."""
    if why := ran_once(workers, job):
        return why
    ended = endings(workers, job.id)
    other = {name: ends for name, ends in ended.items() if len(ends) != 1}
    return f"ended more than once or stale: {other}" if other else ""


def unstale(ends: list[str]) -> list[str]:
    """The endings of attempts that were still current (their writes counted)."""
    return [end for end in ends if not end.endswith(": stale")]


def wait_until(
    predicate: Callable[[], object], timeout: float, what: str, interval: float = 0.005
) -> None:
    """Poll predicate() until truthy; raise TimeoutError after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not {what} after {timeout} s")
        time.sleep(interval)


def wait_done(store: JobStore, job_ids: list[str], timeout: float) -> list[Job]:
    """Wait until every job is terminal; return them (TimeoutError names the stuck ones)."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = [store.get(job_id) for job_id in job_ids]
        stuck = [j for j in jobs if j is None or not j.done]
        if not stuck:
            return [j for j in jobs if j is not None]
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(stuck)} jobs not done after {timeout} s: {stuck[:3]}")
        time.sleep(0.02)


def succeeded_once(
    store: JobStore, workers: list[WorkerProcess], ids: list[str], timeout: float
) -> list[Job]:
    """Wait for the jobs to end; check each is there, succeeded, ran to success once, and (an
    enumeration) stored exactly its solutions. Returns them."""
    jobs = wait_done(store, ids, timeout=timeout)
    assert len(jobs) == len(ids), "an accepted job is gone"
    failed = [(j.puzzle, j.options, j.state, j.error) for j in jobs if j.state != State.SUCCEEDED]
    assert not failed, failed
    twice = [why for job in jobs if (why := ran_once(workers, job))]
    assert not twice, twice
    wrong = [why for job in jobs if job.mode is Mode.ENUMERATE and (why := mismatch(store, job))]
    assert not wrong, wrong
    return jobs


def running_with_output(store: JobStore, job_id: str) -> Job | None:
    """The job if it runs and has stored solutions already, else None."""
    job = store.get(job_id)
    if job is None or job.state is not State.RUNNING:
        return None
    return job if store.compact(job_id, 0, 0)[2] > 0 else None


def holder_pid(job: Job | str) -> int:
    """The pid of the pool process holding a job (worker/holder.py names it 5th)."""
    holder = job if isinstance(job, str) else job.holder
    return int(holder.split("|")[4])


def finished_after(jobs: list[Job], fault: float) -> float:
    """Seconds from the fault (epoch) to the last job's recorded finish."""
    return max(j.finished or fault for j in jobs) - fault


def outcome(store: JobStore, jobs: list[Job], fault: float) -> Outcome:
    """The outcome, with the takeover time read from the first job's run_started field."""
    started = store.redis.hget(Keys(store.prefix).job(jobs[0].id), "run_started")
    return Outcome(jobs, finished_after(jobs, fault), float(started or fault) - fault)


def kill_child(store: JobStore, job_id: str, timeout: float = 30) -> Outcome:
    """kill -9 the pool process running the job mid-way; wait for the job to end."""
    wait_until(lambda: running_with_output(store, job_id), timeout, "running with output")
    job = store.get(job_id)
    assert job is not None
    fault = time.time()
    os.kill(holder_pid(job), signal.SIGKILL)
    return outcome(store, wait_done(store, [job_id], timeout), fault)


def kill_whole_worker(
    store: JobStore, job_id: str, workers: list[WorkerProcess], timeout: float = 30
) -> tuple[Outcome, WorkerProcess]:
    """kill -9 the whole worker (main and pool) running the job; return it with the outcome."""
    wait_until(lambda: running_with_output(store, job_id), timeout, "running with output")
    job = store.get(job_id)
    assert job is not None
    (victim,) = [w for w in workers if holder_pid(job) in w.children()]
    fault = time.time()
    victim.kill()
    return outcome(store, wait_done(store, [job_id], timeout), fault), victim


def shard_count(store: JobStore, job_id: str) -> int:
    """Number of shards the job was split into (0: it runs whole)."""
    return int(store.redis.hget(Keys(store.prefix).job(job_id), "shards") or 0)


def running_shard(store: JobStore, job_id: str) -> Job | None:
    """The running shard of the job that has come least far, if any (one round trip)."""
    names = [f"{job_id}.{index}" for index in range(shard_count(store, job_id))]
    with store.redis.pipeline(transaction=False) as pipe:
        for name in names:
            pipe.hgetall(Keys(store.prefix).job(name))
        shards = [Job.from_hash(data) for data in pipe.execute() if data]
    running = [shard for shard in shards if shard.state is State.RUNNING and shard.holder]
    return min(running, key=lambda shard: shard.progress, default=None)


def kill_shard_worker(
    store: JobStore, job_id: str, workers: list[WorkerProcess], timeout: float = 30
) -> tuple[Outcome, WorkerProcess, str]:
    """kill -9 the whole worker running one of the job's shards; return the outcome, that
    worker and the shard's id if it was still running after the kill ('' if it had ended)."""
    wait_until(lambda: running_shard(store, job_id), timeout, "a shard running")
    shard = running_shard(store, job_id)
    assert shard is not None
    (victim,) = [w for w in workers if holder_pid(shard) in w.children()]
    fault = time.time()
    victim.kill()
    after = store.redis.hgetall(Keys(store.prefix).job(shard.id))  # get() hides shards
    cut = shard.id if after.get("state") == State.RUNNING else ""
    jobs = wait_done(store, [job_id], timeout)
    return Outcome(jobs, finished_after(jobs, fault)), victim, cut


def restart_redis(
    server: RedisServer, store: JobStore, job_ids: list[str], timeout: float = 60
) -> Outcome:
    """Restart Redis (append-only: it keeps everything) while the jobs queue and run."""
    wait_until(lambda: running_with_output(store, job_ids[0]), timeout, "first job running")
    fault = time.time()
    server.restart()
    return outcome(store, wait_done(store, job_ids, timeout), fault)
