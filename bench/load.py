"""Load (chaos case 8): distinct jobs submitted over HTTP by concurrent clients to gunicorn.

Usage: python bench/load.py [--jobs 2000] [--clients 20] [--web-workers 2] [--concurrency 2]
Starts its own redis-server, one celery worker (both queues) and gunicorn with the rate limit
and the per-client cap lifted. Prints the submit rate, throughput (jobs/s from the first
submit to the last job finished) and p50/p99/max submit-to-finished latency (the job's
created and finished times as recorded in Redis).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import percentile  # noqa: E402

from jobstore import JobStore, Settings  # noqa: E402
from tests.support.load import (  # noqa: E402
    latencies,
    puzzles,
    states,
    submit_all,
    wait_terminal,
)
from tests.support.processes import RedisServer, WebServer, WorkerProcess  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the load once and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--concurrency", type=int, default=2, help="celery pool processes")
    args = parser.parse_args(argv)
    jobs = puzzles(args.jobs)
    server = RedisServer().start()
    settings = Settings(redis_url=server.url, key_prefix="bench-load")
    worker = WorkerProcess(settings, "solve,enumerate", concurrency=args.concurrency)
    limits = {
        "ALPHAMETIC_RATE_LIMIT": "1000000/minute",
        "ALPHAMETIC_READ_RATE_LIMIT": "1000000/minute",
        "ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "0",
    }
    web = WebServer(settings, workers=args.web_workers, env=limits)
    try:
        worker.wait_ready()
        web.wait_ready()
        store = JobStore(settings)
        began = time.monotonic()
        result = submit_all(web.url, jobs, args.clients)
        wait_terminal(store, result.ids, timeout=600)
        total = time.monotonic() - began
        final = states(store, result.ids)
        waits = latencies(store, result.ids)
        print(
            f"{len(jobs)} jobs, {args.clients} clients, gunicorn x{args.web_workers}, "
            f"celery -c {args.concurrency}"
        )
        print(f"  statuses: {dict(result.statuses)}   errors: {len(result.errors)}")
        print(f"  terminal: {dict((s, final.count(s)) for s in sorted(set(map(str, final))))}")
        print(f"  submit rate: {len(result.ids) / result.submit_seconds:7.1f} jobs/s")
        print(f"  throughput:  {len(result.ids) / total:7.1f} jobs/s ({total:.1f} s in all)")
        print(
            f"  submit->finished: p50 {percentile(waits, 50):.2f} s   "
            f"p99 {percentile(waits, 99):.2f} s   max {max(waits):.2f} s"
        )
    finally:
        web.cleanup()
        WorkerProcess.stop_all([worker])
        server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
