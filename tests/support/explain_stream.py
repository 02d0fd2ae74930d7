"""An explanation asked for while another client posts a small enumeration a second (issue 32,
part 5): how long it takes to be ready, quiet and under that stream. Shared by
tests/web/test_explain_stream.py and bench/attacks/explain.py.

The web server must trust one proxy hop (ALPHAMETIC_PROXY_HOPS=1): the asker and the streaming
client are X-Forwarded-For addresses of their own; its rate limit is the default, 60/minute,
and the stream keeps within it. The ready time is the server's own: from the request that
queued the explanation (its `asked`) to the worker's end of it (`finished`), both written in
Redis, so a loaded client's wall clock adds nothing. On a machine whose load comes and goes
(2 s of CPU took 4 to 12 s there), one explanation quiet and one under the stream can land in
different loads: pairs() measures them in turns, and the medians are compared.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests

from jobstore import JobStore
from tests.support import storm

# Long searches: each explanation uses the worker's whole CPU budget for the search (2 s), after
# deductions of a few ms; distinct ones, so each is worked out afresh.
HARD = storm.HARD[:-1]
# A count of minutes that keeps make run's other enumerate process busy meanwhile (its shards
# take turns), as a system in use has: a small job then waits for the explaining process too.
BIG = storm.HARD[-1]
SMALL = "ODD + ODD = EVEN"  # a small enumeration (the FIRST band), posted fresh every time
ASKER, STREAMER, BUSY = "10.0.7.1", "10.0.7.2", "10.0.7.3"
PERIOD = 1.05  # seconds between the stream's posts: within 60/minute
TIMEOUT = 60.0  # seconds an explanation may take before the wait gives up (inf)


@dataclass
class Ready:
    """How one explanation went: seconds from asked to ready (server side), and give-backs."""

    seconds: float
    yielded: int  # the worker gave it back this many times (the stats' explained:yielded)


@dataclass
class Stream:
    """What the stream posted: the statuses of its posts (202 each, within its rate)."""

    statuses: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Pair:
    """One explanation quiet, then another one under the stream, and what the stream posted."""

    quiet: Ready
    loud: Ready
    posted: Stream

    def __str__(self) -> str:
        """One line of figures."""
        statuses = sorted(set(self.posted.statuses))
        return (
            f"quiet {self.quiet.seconds:.2f} s, under the stream {self.loud.seconds:.2f} s "
            f"(given back {self.loud.yielded} times; {len(self.posted.statuses)} posts, "
            f"statuses {statuses}, errors {self.posted.errors[:2]})"
        )


def pairs(url: str, store: JobStore, count: int) -> list[Pair]:
    """Up to `count` pairs, in turns (HARD's puzzles, each once); stops after one whose
    explanation under the stream was not ready within TIMEOUT."""
    measured: list[Pair] = []
    for turn in range(count):
        quiet_puzzle, loud_puzzle = HARD[2 * turn], HARD[2 * turn + 1]
        quiet_job, loud_job = hard_job(url, *quiet_puzzle), hard_job(url, *loud_puzzle)
        quiet = ready(url, store, quiet_job)
        with stream(url) as posted:
            loud = ready(url, store, loud_job)
        measured.append(Pair(quiet, loud, posted))
        if loud.seconds == float("inf"):
            break
    return measured


def ratio(measured: list[Pair]) -> float:
    """The median ready time under the stream over the median quiet one."""
    quiet = statistics.median(pair.quiet.seconds for pair in measured)
    return statistics.median(pair.loud.seconds for pair in measured) / quiet


def hard_job(url: str, puzzle: str, base: int) -> str:
    """Submit a hard puzzle as the asker's solve and cancel it (its explanation is what counts)."""
    headers = {"X-Forwarded-For": ASKER}
    body: dict[str, Any] = {"puzzle": puzzle, "options": {"base": base}}
    created = requests.post(f"{url}/api/jobs", json=body, headers=headers, timeout=30)
    created.raise_for_status()
    job_id: str = created.json()["id"]
    requests.post(f"{url}/api/jobs/{job_id}/cancel", json={}, headers=headers, timeout=30)
    return job_id


def ready(url: str, store: JobStore, job_id: str) -> Ready:
    """Ask for the job's explanation and wait for it; how long the server took to have it."""
    headers = {"X-Forwarded-For": ASKER}
    yielded = _yielded(store)
    deadline = time.monotonic() + TIMEOUT
    with requests.Session() as session:
        while time.monotonic() < deadline:
            answer = session.get(
                f"{url}/api/jobs/{job_id}/explain?wait=5", headers=headers, timeout=30
            )
            if answer.status_code == 200:
                break
            assert answer.status_code == 202, answer.text
        else:
            return Ready(float("inf"), _yielded(store) - yielded)
    asked, finished = store.redis.hmget(store.keys.explanation(job_id), "asked", "finished")
    return Ready(float(finished) - float(asked), _yielded(store) - yielded)


def _yielded(store: JobStore) -> int:
    """How many times workers gave an explanation back so far."""
    return int(store.redis.hget(store.keys.stats, "explained:yielded") or 0)


@contextmanager
def busy(url: str) -> Iterator[str]:
    """Keep the workers busy with BIG's count from a client of its own while the block runs."""
    headers = {"X-Forwarded-For": BUSY}
    puzzle, base = BIG
    body: dict[str, Any] = {"puzzle": puzzle, "mode": "count", "options": {"base": base}}
    created = requests.post(f"{url}/api/jobs", json=body, headers=headers, timeout=30)
    created.raise_for_status()
    job_id: str = created.json()["id"]
    try:
        yield job_id
    finally:
        requests.post(f"{url}/api/jobs/{job_id}/cancel", json={}, headers=headers, timeout=30)


@contextmanager
def stream(url: str) -> Iterator[Stream]:
    """Post a small enumeration every PERIOD seconds from STREAMER while the block runs."""
    posted = Stream()
    stop = threading.Event()

    def post() -> None:
        headers = {"X-Forwarded-For": STREAMER}
        body: dict[str, Any] = {"puzzle": SMALL, "mode": "enumerate", "fresh": True}
        with requests.Session() as session:
            while not stop.is_set():
                try:
                    answer = session.post(f"{url}/api/jobs", json=body, headers=headers, timeout=30)
                    posted.statuses.append(answer.status_code)
                except requests.RequestException as error:
                    posted.errors.append(repr(error))
                stop.wait(PERIOD)

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    try:
        time.sleep(2 * PERIOD)  # the stream is on before the explanation is asked for
        yield posted
    finally:
        stop.set()
        thread.join(30)
