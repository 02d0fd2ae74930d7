"""Cancel latency: request -> job `canceled`, p50 and max over N running enumerate jobs.

Usage: python bench/cancel.py [--runs 20] [--redis-url URL]
Without --redis-url (or REDIS_URL) it starts its own redis-server and one enumerate worker;
with one it starts a worker against that Redis (use --no-worker if workers already run).
Two figures per cancel: "observed" (the client polls get() every 1 ms until it reads canceled)
and "recorded" (the job's finished time minus the cancel request time, both in Redis).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jobstore import (  # noqa: E402
    JobStore,
    Settings,  # noqa: E402
    State,
)
from tests.support.processes import RedisServer, WorkerProcess, wait_for  # noqa: E402

# Runs for many minutes with steadily rising progress: always running when cancelled.
LONG = ("A + B + C + D + E = F + G + H + I", {"base": 16})


def measure(store: JobStore, runs: int, warmup: float) -> tuple[list[float], list[float]]:
    """Start, then cancel, `runs` long jobs one after another; return both latency lists."""
    observed, recorded = [], []
    for _ in range(runs):
        job_id = store.submit("enumerate", *LONG).id

        def running(job_id: str = job_id) -> bool:
            job = store.get(job_id)
            return job is not None and job.state is State.RUNNING

        wait_for(running, 30, what="job to run")
        time.sleep(warmup)
        start = time.time()
        result = store.cancel(job_id)
        assert result is not None and result[1], "cancel changed nothing"
        while True:
            current = store.get(job_id)
            assert current is not None
            if current.done:
                break
            time.sleep(0.001)
        observed.append(time.time() - start)
        assert current.state is State.CANCELED and current.finished and current.cancel_requested
        recorded.append(current.finished - current.cancel_requested)
    return observed, recorded


def report(name: str, values: list[float]) -> None:
    """Print p50 and max in milliseconds."""
    p50 = statistics.median(values) * 1000
    print(f"{name:>9}: p50 {p50:6.1f} ms   max {max(values) * 1000:6.1f} ms   (n={len(values)})")


def main() -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=float, default=0.3, help="seconds a job runs first")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""))
    parser.add_argument("--no-worker", action="store_true")
    args = parser.parse_args()
    server = None if args.redis_url else RedisServer().start()
    url = args.redis_url or server.url  # type: ignore[union-attr]
    settings = Settings.from_env().replace(redis_url=url, key_prefix="alphametic-bench-cancel")
    worker = None if args.no_worker else WorkerProcess(settings, "enumerate").wait_ready()
    try:
        observed, recorded = measure(JobStore(settings), args.runs, args.warmup)
    finally:
        if worker is not None:
            worker.cleanup()
        if server is not None:
            server.cleanup()
    print(f"cancel latency over {args.runs} running enumerate jobs ({LONG[0]}, base 16)")
    report("observed", observed)
    report("recorded", recorded)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
