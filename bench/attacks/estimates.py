"""Estimate storm (issue 32, part 6): 40 clients each ask `GET /api/estimate` for big base-36
products one after the other, while /healthz is asked every 20 ms and another client submits
small solves (`POST ?wait=30`). `make run`'s web server (two gevent gunicorn processes,
scripts/webserver.py, its default settings) and workers (one solve, two enumerate processes).
Each client is a loopback address of its own.

Usage: python bench/attacks/estimates.py [--clients 40] [--seconds 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import machine, percentile, system  # noqa: E402

from scripts.run import web_argv  # noqa: E402
from tests.support import estimating  # noqa: E402
from tests.support.processes import WebServer  # noqa: E402


def main() -> None:
    """Run one storm and print the victims' figures with the machine's load."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=40, help="estimating clients")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the storm lasts")
    args = parser.parse_args()
    print(machine())
    with system("attack-estimates", (("solve", 1), ("enumerate", 2))) as s:
        web = WebServer(s.settings, command=lambda port: web_argv(port, 2))
        try:
            figures = estimating.run(web.wait_ready().url, args.clients, args.seconds)
        finally:
            web.cleanup()
    health = figures.healthz
    print(f"estimates asked by {args.clients} clients, by answer: {figures.answered}")
    print(
        f"healthz: median {statistics.median(health) * 1000:.0f} ms, "
        f"p99 {percentile(health, 99) * 1000:.0f} ms, max {max(health) * 1000:.0f} ms "
        f"({len(health)} requests)"
    )
    solves = [seconds for seconds, _ in figures.solves]
    if solves:
        states = sorted({state for _, state in figures.solves})
        print(
            f"small solves (submit to answer): median {statistics.median(solves) * 1000:.0f} ms, "
            f"max {max(solves) * 1000:.0f} ms ({len(solves)}, states {states})"
        )
    if figures.errors:
        print(f"errors: {figures.errors[:5]}")
    print(machine())


if __name__ == "__main__":
    main()
