"""Recovery times of the chaos cases 1, 2 and 4: fault -> job succeeded again.

Usage: python bench/recovery.py [--runs 3]
Starts its own redis-servers and celery workers with the production defaults (lease 10 s,
heartbeat 2 s, visibility timeout derived from the hard limits: 2,500 s). Per case it prints
"takeover" (fault -> the job's new attempt starts) and "recovered" (fault -> the job's
recorded finish), p50 and max over the runs; an uninterrupted run of the same job is the
baseline the re-run adds to.
  case 1: kill -9 of the pool process running the job
  case 2: kill -9 of the whole worker running it, a second worker alive
  case 4: Redis (append-only) restarted while it runs, with 11 more jobs queued
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jobstore import (  # noqa: E402
    JobStore,
    Settings,  # noqa: E402
    State,
)
from tests.support.chaos import (  # noqa: E402
    SMALL,
    Outcome,
    kill_child,
    kill_whole_worker,
    restart_redis,
    wait_done,
)
from tests.support.processes import RedisServer, WorkerProcess  # noqa: E402

# Distinct variants of the chaos tests' MEDIUM job (identical submissions would be reused).
VARIANTS = [
    ("ABC + DEF = GHI", {"base": base, "leading_zeros": policy})
    for base in (15, 16)
    for policy in ("multi-letter", "allow", "every-word")
]
SOLVES = [("SEND + MORE = MONEY", {"base": base}) for base in (10, 11, 12, 13)]


def settings_on(server: RedisServer) -> Settings:
    """Production defaults on this server, under a prefix of their own."""
    return Settings(redis_url=server.url, key_prefix=f"bench-{uuid.uuid4().hex[:8]}")


def case_1(runs: int) -> list[Outcome]:
    """kill -9 the pool process mid-job, `runs` times on one worker."""
    server = RedisServer().start()
    settings = settings_on(server)
    worker = WorkerProcess(settings, "enumerate").wait_ready()
    try:
        store = JobStore(settings)
        return [kill_child(store, store.submit("enumerate", *VARIANTS[i]).id) for i in range(runs)]
    finally:
        WorkerProcess.stop_all([worker])
        server.cleanup()


def case_2(runs: int) -> list[Outcome]:
    """kill -9 the whole worker running the job while another is alive; replace it after."""
    server = RedisServer().start()
    settings = settings_on(server)
    workers = [WorkerProcess(settings, "enumerate") for _ in range(2)]
    started = list(workers)
    results = []
    try:
        for worker in workers:
            worker.wait_ready()
        store = JobStore(settings)
        for i in range(runs):
            job = store.submit("enumerate", *VARIANTS[i])
            outcome, victim = kill_whole_worker(store, job.id, workers)
            results.append(outcome)
            workers.remove(victim)
            workers.append(WorkerProcess(settings, "enumerate").wait_ready())
            started.append(workers[-1])
        return results
    finally:
        WorkerProcess.stop_all(started)
        server.cleanup()


def case_4(runs: int) -> list[Outcome]:
    """Restart Redis under one running and 11 queued jobs; a fresh server per run."""
    results = []
    for i in range(runs):
        server = RedisServer(appendonly=True).start()
        settings = settings_on(server)
        worker = WorkerProcess(settings, "solve,enumerate", concurrency=2).wait_ready()
        try:
            store = JobStore(settings)
            ids = [store.submit("enumerate", *VARIANTS[i]).id]
            ids += [store.submit("enumerate", *job).id for job in SMALL]
            ids += [store.submit("solve", *job).id for job in SOLVES]
            outcome = restart_redis(server, store, ids)
            assert all(job.state is State.SUCCEEDED for job in outcome.jobs), outcome.jobs
            results.append(outcome)
        finally:
            WorkerProcess.stop_all([worker])
            server.cleanup()
    return results


def baseline() -> float:
    """Seconds an uninterrupted run of the first variant takes (started -> finished)."""
    server = RedisServer().start()
    settings = settings_on(server)
    worker = WorkerProcess(settings, "enumerate").wait_ready()
    try:
        store = JobStore(settings)
        (job,) = wait_done(store, [store.submit("enumerate", *VARIANTS[0]).id], 60)
        return job.elapsed or 0.0
    finally:
        WorkerProcess.stop_all([worker])
        server.cleanup()


def report(name: str, outcomes: list[Outcome]) -> None:
    """Print takeover and recovery p50/max in seconds, and each run's last job to finish."""
    for label, values in (
        ("takeover", [o.takeover for o in outcomes]),
        ("recovered", [o.recovery for o in outcomes]),
    ):
        print(
            f"{name:<34} {label:>9}: p50 {statistics.median(values):5.2f} s"
            f"   max {max(values):5.2f} s   (n={len(values)})"
        )
    for number, outcome in enumerate(outcomes, 1):
        last = max(outcome.jobs, key=lambda job: job.finished or 0.0)
        waited = (last.started or last.created) - last.created
        print(
            f"    run {number}: {outcome.recovery:5.2f} s, last {last.mode.value} {last.puzzle} "
            f"{last.options} attempt {last.attempt}, queued {waited:.2f} s"
        )


def main(argv: list[str] | None = None) -> int:
    """Run the three cases and print their recovery times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="faults per case (at most 6)")
    args = parser.parse_args(argv)
    runs = max(1, min(args.runs, len(VARIANTS)))
    began = time.monotonic()
    print(f"uninterrupted run of the job: {baseline():.2f} s")
    cases: list[tuple[str, Callable[[int], list[Outcome]]]] = [
        ("case 1: kill -9 pool process", case_1),
        ("case 2: kill -9 whole worker", case_2),
        ("case 4: Redis restart (AOF)", case_4),
    ]
    for name, case in cases:
        report(name, case(runs))
    print(f"(bench took {time.monotonic() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
