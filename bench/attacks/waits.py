"""Hung-up long polls (issue 32, part 4): one client sends 16 `GET /api/jobs/{id}?wait=30` and
hangs up after 2 s, round after round, while four other clients long-poll `?wait=5` and a fifth
submits small solves with `?wait=30`. `make run`'s web server (two gevent gunicorn processes,
scripts/webserver.py, its default settings) and one solve worker (the job waited on is an
enumeration no worker serves: it stays queued). Each client is a loopback address of its own.

Prints how long the victims' waits took (a real long poll takes its 5 s; one with no slot free
answers at once) and how their small solves came back.

Usage: python bench/attacks/waits.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import machine, system  # noqa: E402

from scripts.run import web_argv  # noqa: E402
from tests.support import hangups  # noqa: E402
from tests.support.processes import WebServer  # noqa: E402

WAIT = 5.0  # seconds each victim's long poll asks for


def main() -> None:
    """Run the attack once and print the victims' figures with the machine's load."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the attack lasts")
    args = parser.parse_args()
    print(machine())
    with system("attack-waits", (("solve", 1),)) as s:
        web = WebServer(s.settings, command=lambda port: web_argv(port, 2))
        try:
            figures = hangups.run(web.wait_ready().url, args.seconds, wait=WAIT)
        finally:
            web.cleanup()
    waited = [seconds for seconds, _ in figures.waits]
    real = sum(1 for seconds in waited if seconds >= WAIT - 0.05)
    print(f"attack: {figures.attacks} hung-up ?wait=30 requests from one client")
    if waited:
        print(
            f"victims' ?wait={WAIT:g}: {real} of {len(waited)} waited their {WAIT:g} s; "
            f"median {statistics.median(waited):.3f} s, min {min(waited):.3f} s; "
            f"states {dict(Counter(state for _, state in figures.waits))}"
        )
    solves = [seconds for seconds, _ in figures.solves]
    if solves:
        print(
            f"small solves POST ?wait=30: median {statistics.median(solves):.3f} s, "
            f"max {max(solves):.3f} s; states {dict(Counter(s for _, s in figures.solves))}"
        )
    if figures.errors:
        print(f"errors: {figures.errors[:5]}")
    print(machine())


if __name__ == "__main__":
    main()
