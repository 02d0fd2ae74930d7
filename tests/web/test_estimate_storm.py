"""An estimate storm leaves the web tier responsive (issue 32, part 6): 40 clients each ask for
estimates of big base-36 products one after the other, on `make run`'s web server (two gevent
gunicorn processes, its default settings) and workers (one solve, two enumerate processes),
each client a loopback address of its own. Each process works out ALPHAMETIC_MAX_ESTIMATES (1)
at once and answers the rest 429 `busy` at once. Before, every estimate ran side by side in the
web processes: /healthz took 0.15-0.6 s (median), up to 2.4 s, and a small solve 3-9 s.
bench/attacks/estimates.py prints the same figures.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jobstore import Settings
from scripts.run import web_argv
from tests.support import estimating
from tests.support.processes import WebServer

pytestmark = pytest.mark.slow

CLIENTS = 40
HEALTHZ_MEDIAN = 0.3  # seconds: the bound
SMALL_MEDIAN = 1.0  # seconds from submit to a small solve's answer: the bound


@pytest.fixture()
def server(fresh_settings: Callable[..., Settings], worker_factory: Any) -> Iterator[WebServer]:
    """make run's web server and workers, on a deployment of their own."""
    settings = fresh_settings(max_stored_per_client=0)
    worker_factory(settings, "solve")
    worker_factory(settings, "enumerate", concurrency=2)
    web = WebServer(settings, command=lambda port: web_argv(port, 2))
    try:
        yield web.wait_ready()
    finally:
        web.cleanup()


def test_an_estimate_storm_leaves_healthz_and_small_solves_quick(server: WebServer) -> None:
    figures = estimating.run(server.url, CLIENTS, seconds=15)
    health = figures.healthz
    solves = [seconds for seconds, _ in figures.solves]
    median = statistics.median(health) if health else float("inf")
    small = statistics.median(solves) if solves else float("inf")
    summary = (
        f"healthz median {median:.3f} max {max(health, default=0):.3f} ({len(health)}); "
        f"small solves median {small:.3f} max {max(solves, default=0):.3f} ({len(solves)}); "
        f"estimates by answer {figures.answered}; errors {figures.errors[:3]}"
    )
    print(summary)  # the figures (pytest -s)
    assert not figures.errors, summary
    assert {state for _, state in figures.solves} == {"succeeded"}, summary
    assert median <= HEALTHZ_MEDIAN and small <= SMALL_MEDIAN, summary
    # The estimates were worked out meanwhile, and the rest refused rather than run at once.
    assert figures.answered.get(200, 0) >= 10 and figures.answered.get(429, 0) > 0, summary
