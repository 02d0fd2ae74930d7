"""Explanations under a stream of small jobs (issue 32, part 5): how long a hard puzzle's
explanation takes to be ready (server side: asked to finished), quiet and while another client
posts a small enumeration a second (within its rate), and how often its worker gave it back.

Two setups, each with the production web server (one gevent gunicorn process) and one solve
worker process:
- one: one enumerate process (the one the small jobs wait for; tests/web/test_explain_stream.py);
- busy: make run's two enumerate processes on two cores, the other one busy with a count of
  minutes from a third client (its shards take turns), as a system in use is.

Usage: python bench/attacks/explain.py [one|busy ...] [--runs N]   (default: both, 3 pairs each)
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import machine, system  # noqa: E402

from scripts.run import web_argv  # noqa: E402
from tests.support import explain_stream  # noqa: E402
from tests.support.processes import WebServer  # noqa: E402

SETUPS = {"one": 1, "busy": 2}  # enumerate processes


def measure(setup: str, runs: int) -> None:
    """Print `runs` pairs of explanations (quiet, then under the stream, in turns) and the
    median ratio."""
    workers = (("solve", 1), ("enumerate", SETUPS[setup]))
    with system(f"explain-{setup}", workers, max_stored_per_client=0) as s:
        # The default rate limit (60/minute): the stream keeps within it.
        env = {"ALPHAMETIC_PROXY_HOPS": "1"}
        web = WebServer(s.settings, env=env, command=lambda port: web_argv(port, 1))
        try:
            url = web.wait_ready().url
            with ExitStack() as stack:
                if setup == "busy":
                    stack.enter_context(explain_stream.busy(url))
                measured = explain_stream.pairs(url, s.store, runs)
        finally:
            web.cleanup()
    for pair in measured:
        print(f"{setup}: {pair}")
    print(f"{setup}: median under the stream / median quiet = {explain_stream.ratio(measured):.2f}")


def main() -> None:
    """Run the setups asked for and print their figures with the machine's load."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("setups", nargs="*", help="one, busy (default: both)")
    parser.add_argument("--runs", type=int, default=3, help="pairs of explanations per setup")
    args = parser.parse_args()
    unknown = set(args.setups) - set(SETUPS)
    if unknown or not 1 <= args.runs <= 10:
        parser.error(f"setups are {', '.join(SETUPS)}; runs 1 to 10 (not {unknown or args.runs})")
    print(machine())
    print(f"an explanation not ready after {explain_stream.TIMEOUT:.0f} s shows as inf")
    for setup in args.setups or SETUPS:
        measure(setup, args.runs)
    print(machine())


if __name__ == "__main__":
    main()
