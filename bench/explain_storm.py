"""Explain storm (issue 21): four clients ask for 24 hard explanations in a loop while /healthz
and small solves are timed; `make run`'s workers (one solve, two enumerate processes) and the
production web server (one gevent gunicorn process, scripts/webserver.py).

Usage: python bench/explain_storm.py [--seconds 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import machine, system  # noqa: E402

from scripts.run import web_argv  # noqa: E402
from tests.support import storm  # noqa: E402
from tests.support.processes import WebServer  # noqa: E402


def main() -> None:
    """Run one storm and print its figures with the machine's load."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the storm lasts")
    args = parser.parse_args()
    print(machine())
    workers = (("solve", 1), ("enumerate", 2))
    with system("explain-storm", workers, max_stored_per_client=0) as s:
        env = {"ALPHAMETIC_PROXY_HOPS": "1", "ALPHAMETIC_RATE_LIMIT": "10000/minute"}
        web = WebServer(s.settings, env=env, command=lambda port: web_argv(port, 1))
        try:
            url = web.wait_ready().url
            jobs = storm.hard_jobs(url, clients=4)
            figures = storm.run(url, jobs, args.seconds)
        finally:
            web.cleanup()
    health = figures.healthz
    print(
        f"healthz: p50 {storm.percentile(health, 0.5) * 1000:.0f} ms, "
        f"p99 {storm.percentile(health, 0.99) * 1000:.0f} ms, "
        f"max {max(health) * 1000:.0f} ms ({len(health)} requests)"
    )
    small = figures.small
    print(
        f"small solves (submit to answer): p50 {statistics.median(small) * 1000:.0f} ms, "
        f"max {max(small) * 1000:.0f} ms ({len(small)})"
    )
    print(f"explanation requests: {figures.asked}, worked out: {len(figures.explained)}")
    if figures.errors:
        print(f"errors: {figures.errors[:5]}")
    print(machine())


if __name__ == "__main__":
    main()
