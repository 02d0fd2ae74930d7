"""Chaos figures of issue 13: stop -> resume, a frozen Redis, a partition, PID namespaces.

Usage: python bench/chaos.py [stop] [freeze] [partition] [pidns]     (all four by default)
Each part starts its own redis-server, celery workers (and gunicorn) on production defaults
unless it says otherwise, prints its figures with the machine load (`uptime`), and stops
everything it started. `partition` and `pidns` need root (they are skipped, saying why).
  stop       a long enumeration (one whole job) whose worker gets SIGTERM 40 % in; then a new
             worker resumes it; against an uninterrupted run of the same job
  freeze     Redis SIGSTOPped 10 s, 8 s, then 10 s with 8 clients per call, under gunicorn
             (2 x 8 threads) while a job runs: slowest answer of POST /api/jobs,
             GET /api/jobs/{id}, /readyz (and /healthz)
  partition  two hosts (tests/support/hosts.py); the one running the job is cut off
  pidns      two workers in PID namespaces of their own sharing one host name: re-queues
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jobstore import Job, JobStore, Keys, Settings, State  # noqa: E402
from tests.support.chaos import wait_done, wait_until  # noqa: E402
from tests.support.frozen import freeze, probe, show  # noqa: E402
from tests.support.hosts import Network, missing, named, partition  # noqa: E402
from tests.support.processes import RedisServer, WebServer, WorkerProcess  # noqa: E402
from tests.support.puzzles import all_compact, engine_list  # noqa: E402

# 2,580,480 solutions, ~10 s of search with storing on two quiet cores.
LONG: tuple[str, dict[str, Any]] = ("A + B + C + D + E = F + G + H + I", {"base": 12})
# 763,200 solutions, several seconds: the partition's job (as in tests/chaos/test_hosts.py).
CUT: tuple[str, dict[str, Any]] = ("A + B + C + D + E = F + G + H + I", {"base": 11})
# 290,304 solutions, a few seconds.
MID: tuple[str, dict[str, Any]] = ("A + B + C + D = E + F + G + H", {"base": 11})
_engine: dict[str, list[str]] = {}
# One whole job (no shards), every solution of LONG stored (the default cap is 1,000,000).
WHOLE: dict[str, Any] = {"shard_threshold": 0, "max_stored_solutions": 3_000_000}
# Redelivery reasons of a lost worker (claim.lua); "stopped" and "yielded" are hand-backs.
LOST = ("lease", "dead_holder")


def uptime() -> str:
    """The machine's load as `uptime` prints it."""
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def settings_on(server: RedisServer, **changes: Any) -> Settings:
    """Production defaults on this server, under a prefix of their own."""
    prefix = f"chaos-{uuid.uuid4().hex[:8]}"
    return Settings().replace(redis_url=server.url, key_prefix=prefix, **changes)


def exact(store: JobStore, job: Job, puzzle: tuple[str, dict[str, Any]]) -> str:
    """'identical' when the job's list is the engine's, else how it differs."""
    key = repr(puzzle)
    if key not in _engine:
        _engine[key] = engine_list(*puzzle)
    got, want = all_compact(store, job.id), _engine[key]
    if got == want and job.solutions_found == len(want):
        return f"identical ({len(got):,})"
    return f"DIFFERENT: stored {len(got):,} ({len(set(got)):,} distinct), engine {len(want):,}"


def raw(store: JobStore, job_id: str, name: str) -> str:
    """One field of the job's record as stored."""
    return str(store.redis.hget(Keys(store.prefix).job(job_id), name) or "")


def running_past(store: JobStore, job_id: str, progress: float) -> bool:
    """Whether the job runs and has passed `progress`."""
    job = store.get(job_id)
    return job is not None and job.state is State.RUNNING and job.progress >= progress


def queued(store: JobStore, job_id: str) -> bool:
    """Whether the job is queued (handed back by its stopping worker)."""
    job = store.get(job_id)
    return job is not None and job.state is State.QUEUED


def uninterrupted(server: RedisServer) -> Job:
    """LONG run once by one worker, nothing done to it."""
    settings = settings_on(server, **WHOLE)
    worker = WorkerProcess(settings, "enumerate").wait_ready(60)
    try:
        store = JobStore(settings)
        (job,) = wait_done(store, [store.submit("enumerate", *LONG).id], 600)
    finally:
        WorkerProcess.stop_all([worker])
    print(f"  uninterrupted: {(job.finished or 0) - job.created:.2f} s wall, search "
          f"{raw(store, job.id, 'ran')} s, {exact(store, job, LONG)}")  # fmt: skip
    return job


def stop_resume() -> None:
    """(a) SIGTERM to the worker 40 % into a long job; a new worker resumes it."""
    print(f"\n(a) stop -> resume   [{uptime()}]")
    server = RedisServer().start()
    settings = settings_on(server, **WHOLE)
    store = JobStore(settings)
    started = [WorkerProcess(settings, "enumerate")]
    try:
        uninterrupted(server)
        started[0].wait_ready(60)
        job = store.submit("enumerate", *LONG)
        wait_until(lambda: running_past(store, job.id, 0.4), 600, "40 % done", interval=0.01)
        before = store.get(job.id)
        signalled = time.monotonic()
        started[0].proc.send_signal(signal.SIGTERM)
        wait_until(lambda: queued(store, job.id), 60, "the job handed back")
        back = time.monotonic() - signalled
        started[0].proc.wait(60)
        stopped, down_at = time.monotonic() - signalled, time.time()
        after = store.get(job.id)
        assert before is not None and after is not None
        print(f"  SIGTERM at progress {before.progress:.3f} (attempt {before.attempt}): handed "
              f"back in {back:.2f} s, worker exited in {stopped:.2f} s; job {after.state.value}"
              f" at progress {after.progress:.3f}, attempt {after.attempt}")  # fmt: skip
        started.append(WorkerProcess(settings, "enumerate").wait_ready(60))
        up_at = time.time()
        (done,) = wait_done(store, [job.id], 600)
        wall = (down_at - done.created) + (done.finished or 0) - up_at
        print(f"  resumed: {done.state.value}, attempt {done.attempt}, {wall:.2f} s wall "
              f"without the {up_at - down_at:.2f} s with no worker, search "
              f"{raw(store, job.id, 'ran')} s, {exact(store, done, LONG)}")  # fmt: skip
    finally:
        WorkerProcess.stop_all(started)
        server.cleanup()


def frozen_redis(seconds: float, clients: int) -> None:
    """(b) Redis SIGSTOPped for `seconds` under gunicorn while a whole job runs."""
    print(f"\n(b) SIGSTOP'd Redis for {seconds:.0f} s, {clients} clients per API call   "
          f"[{uptime()}]")  # fmt: skip
    server = RedisServer().start()
    settings = settings_on(server, **WHOLE)
    limits = {
        "ALPHAMETIC_RATE_LIMIT": "1000000/minute",
        "ALPHAMETIC_READ_RATE_LIMIT": "1000000/minute",
        "ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "0",
    }
    workers = [WorkerProcess(settings, q) for q in ("solve", "enumerate")]
    web = WebServer(settings, workers=2, env=limits)  # gunicorn 2 processes x 8 threads
    try:
        for worker in workers:
            worker.wait_ready(60)
        web.wait_ready(60)
        store = JobStore(settings)
        job = store.submit("enumerate", *LONG)
        wait_until(lambda: running_past(store, job.id, 0.1), 600, "the job running")
        before = store.get(job.id)
        assert before is not None and server.pid is not None
        print(f"  before: /readyz {probe(web.port, 'GET', '/readyz', 0)[1]}, job attempt "
              f"{before.attempt} at progress {before.progress:.3f}")  # fmt: skip
        answers = freeze(server.pid, web.port, job.id, seconds, clients)
        show(answers, settings.redis_timeout + 1)
        (done,) = wait_done(store, [job.id], 600)
        print(f"  after: job {done.state.value}, attempt {done.attempt} (was "
              f"{before.attempt}), redeliveries {store.stats()['redeliveries']}, "
              f"{exact(store, done, LONG)}")  # fmt: skip
    finally:
        web.cleanup()
        WorkerProcess.stop_all(workers)
        server.cleanup()


def frozen_thrice() -> None:
    """(b) Freezes as long as the lease (10 s) and shorter (8 s), then 10 s with a crowd
    (8 clients per API call: more than a gunicorn process has threads)."""
    for seconds, clients in ((10.0, 2), (8.0, 2), (10.0, 8)):
        frozen_redis(seconds, clients)


def cut_off() -> None:
    """(c) Two hosts; the one running CUT is cut off; takeover and refused late writes."""
    print(f"\n(c) partition -> takeover   [{uptime()}]")
    reason = missing()
    if reason:
        print(f"  skipped: {reason}")
        return
    server, network = RedisServer().start(), Network()
    try:
        hosts = {name: network.add(name) for name in ("hosta", "hostb")}
        network.serve(server)
        for lease, beat in [(2.0, 0.5)] * 3 + [(10.0, 2.0)] * 2:
            settings = settings_on(server, shard_threshold=0, lease_seconds=lease,
                                   heartbeat_interval=beat)  # fmt: skip
            workers = {
                name: WorkerProcess(
                    host.settings(settings), "enumerate", name=f"w@{name}", wrap=host.wrap()
                )  # fmt: skip
                for name, host in hosts.items()
            }
            try:
                for worker in workers.values():
                    worker.wait_ready(60)
                store = JobStore(settings)
                cut = partition(store, store.submit("enumerate", *CUT).id, hosts, workers, 120)
            finally:
                WorkerProcess.stop_all(list(workers.values()))
            print(f"  lease {lease:4.1f} s, heartbeat {beat} s: takeover {cut.takeover:5.2f} s "
                  f"(bound {lease + beat:4.1f} s; lease left at the cut {cut.lease_left:4.2f} s"
                  f") by {cut.new_host}, progress {cut.cut_progress:.3f} -> resumed at "
                  f"{cut.resumed_from:.3f}; link back -> cut-off run stale in {cut.refused:.2f} s"
                  f" {cut.stale_ends} (the new run still running then: {cut.running_then}); "
                  f"job {cut.job.state.value} attempt {cut.job.attempt}, "
                  f"{exact(store, cut.job, CUT)}")  # fmt: skip
    finally:
        network.cleanup()
        server.cleanup()


def pid_namespaces() -> None:
    """(d) Two workers in PID namespaces of their own with one host name: no re-queues."""
    print(f"\n(d) PID-namespace workers sharing a host name   [{uptime()}]")
    reason = missing()
    if reason:
        print(f"  skipped: {reason}")
        return
    server = RedisServer().start()
    settings = settings_on(server)  # production defaults: lease 10 s, heartbeat 2 s, sharding
    wrap = named("samehost")
    workers = [WorkerProcess(settings, "enumerate", name=f"same{n}@samehost", wrap=wrap)
               for n in range(2)]  # fmt: skip
    try:
        for worker in workers:
            worker.wait_ready(60)
        store = JobStore(settings)
        # A long sharded job and six whole ones: ~30 s of sweeps (every 2 s) by both workers.
        puzzles = [LONG] + [
            (MID[0], {"base": b, "leading_zeros": z})
            for b in (10, 11)
            for z in ("allow", "every-word", "multi-letter")
        ]
        began = time.monotonic()
        jobs = wait_done(store, [store.submit("enumerate", *p).id for p in puzzles], 600)
        holders = {raw(store, j.id, "holder").split("|")[3] for j in jobs if j.shards == 0}
        counts = store.stats()["redeliveries"]
        lost = sum(int(counts.get(why, 0)) for why in LOST)
        print(f"  {len(jobs)} jobs ({sum(j.shards for j in jobs)} shards) in "
              f"{time.monotonic() - began:.1f} s: states {sorted({j.state.value for j in jobs})}"
              f", attempts {sorted({j.attempt for j in jobs})}; re-queued as lost (lease, "
              f"dead_holder): {lost} (must be 0); all redeliveries {counts}; PID namespaces of "
              f"the whole-job holders {len(holders)}")  # fmt: skip
    finally:
        WorkerProcess.stop_all(workers)
        server.cleanup()


PARTS: dict[str, Callable[[], None]] = {
    "stop": stop_resume,
    "freeze": frozen_thrice,
    "partition": cut_off,
    "pidns": pid_namespaces,
}


def main(argv: list[str] | None = None) -> int:
    """Run the parts asked for (all by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help=f"some of: {' '.join(PARTS)} (default: all)")
    chosen = parser.parse_args(argv).parts or list(PARTS)
    unknown = [name for name in chosen if name not in PARTS]
    if unknown:
        parser.error(f"unknown part {unknown}; choose from {' '.join(PARTS)}")
    began = time.monotonic()
    for name in chosen:
        PARTS[name]()
    print(f"\n(bench took {time.monotonic() - began:.0f} s)   [{uptime()}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
