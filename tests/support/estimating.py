"""An estimate storm (issue 32, part 6): many clients each ask `GET /api/estimate` for big
base-36 products, one after the other, while /healthz and another client's small solves are
timed. Shared by tests/web/test_estimate_storm.py and bench/attacks/estimates.py.

Each client is a loopback address of its own (tests.support.loopback). Every estimate is of a
puzzle never asked before (the web caches estimates), each a few tenths of a second of CPU in
the web process. A client that is refused (429) waits out its Retry-After, a second at most,
before it asks again: the storm is of estimates, not of refusals.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import dataclass, field

from tests.support.loopback import session
from tests.support.victims import small_solves

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
PROBE = "127.0.0.30"  # asks /healthz
SOLVER = "127.0.0.31"  # submits the small solves
TIMEOUT = 60.0  # seconds any one request may take


def estimating(index: int) -> str:
    """The address of the estimating client `index` (0-based): 127.0.1.x."""
    return f"127.0.1.{index + 1}"


def product(index: int) -> str:
    """The index-th big product: six letters times six is twelve, 18 distinct letters drawn as
    the index says (a puzzle of its own each, of the same shape and cost)."""
    words = "".join(random.Random(index).sample(LETTERS, 18))
    return f"{words[:6]} * {words[6:12]} = {words[12:]}"


@dataclass
class Figures:
    """What the storm measured: latencies in seconds and how the estimates were answered."""

    healthz: list[float] = field(default_factory=list)
    solves: list[tuple[float, str]] = field(default_factory=list)  # seconds, state
    answered: dict[int, int] = field(default_factory=dict)  # status -> estimate requests
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def run(url: str, clients: int, seconds: float) -> Figures:
    """The storm of `clients` estimating clients for `seconds`, /healthz asked every 20 ms and
    a small solve (`POST ?wait=30`) every 1.2 s meanwhile (under the default 60/minute)."""
    figures = Figures()
    stop = threading.Event()
    puzzles = itertools.count()
    threads = [
        threading.Thread(target=_estimates, args=(url, n, puzzles, figures, stop), daemon=True)
        for n in range(clients)
    ]
    threads += [
        threading.Thread(target=_healthz, args=(url, figures, stop), daemon=True),
        threading.Thread(target=_solves, args=(url, figures, stop), daemon=True),
    ]
    for thread in threads:
        thread.start()
    stop.wait(seconds)
    stop.set()
    for thread in threads:
        thread.join(TIMEOUT)
    return figures


def _estimates(
    url: str, index: int, puzzles: itertools.count[int], figures: Figures, stop: threading.Event
) -> None:
    """One client asking for estimates one after the other."""
    with session(estimating(index)) as http:
        while not stop.is_set():
            query = {"puzzle": product(next(puzzles)), "base": "36"}
            try:
                answer = http.get(f"{url}/api/estimate", params=query, timeout=TIMEOUT)
            except OSError as error:
                figures.errors.append(f"estimate: {error!r}")
                continue
            with figures.lock:
                figures.answered[answer.status_code] = (
                    figures.answered.get(answer.status_code, 0) + 1
                )
            if answer.status_code == 429:
                stop.wait(min(1.0, float(answer.headers.get("Retry-After", "1"))))
            elif answer.status_code != 200:
                figures.errors.append(f"estimate: {answer.status_code} {answer.text[:200]}")


def _healthz(url: str, figures: Figures, stop: threading.Event) -> None:
    """/healthz every 20 ms, timed."""
    with session(PROBE) as http:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                http.get(f"{url}/healthz", timeout=TIMEOUT).raise_for_status()
            except OSError as error:
                figures.errors.append(f"healthz: {error!r}")
            with figures.lock:
                figures.healthz.append(time.perf_counter() - started)
            stop.wait(0.02)


def _solves(url: str, figures: Figures, stop: threading.Event) -> None:
    """SOLVER's small solves (a base of their own each), timed to their answer."""
    small_solves(SOLVER, url, figures, lambda: not stop.is_set(), lambda: stop.wait(1.2))
