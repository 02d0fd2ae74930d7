"""Load driver shared by tests/chaos/test_load.py and bench/load.py: many distinct jobs
submitted over HTTP by concurrent clients, then followed until every one is terminal."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import requests

import alphametic
from jobstore import JobStore, Keys

TERMINAL = ("succeeded", "failed", "canceled")


def puzzles(count: int, seed: int = 6) -> list[tuple[str, str]]:
    """`count` distinct small (mode, puzzle) pairs: random word sums over at most 8 letters.

    Distinct normalised texts, so no submission is answered with an earlier job; one in four
    is an enumeration, so both queues get work.
    """
    rng = random.Random(seed)
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    while len(found) < count:
        letters = rng.sample("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 8)
        a, b, c = (
            "".join(rng.choice(letters) for _ in range(n)) for n in (rng.choice((2, 3)), 3, 3)
        )
        text = alphametic.parse(f"{a} + {b} = {c}").text
        if text not in seen:
            seen.add(text)
            found.append(("enumerate" if len(found) % 4 == 0 else "solve", text))
    return found


@dataclass
class LoadResult:
    """What the clients saw: job ids accepted, status counts, and the wall time."""

    ids: list[str] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    submit_seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def chunks(items: list[tuple[str, str]], parts: int) -> Iterator[list[tuple[str, str]]]:
    """Deal the items round-robin into `parts` lists."""
    for start in range(parts):
        yield items[start::parts]


def submit_all(
    url: str, jobs: list[tuple[str, str]], clients: int, result: LoadResult | None = None
) -> LoadResult:
    """Submit every job with `clients` threads, each its own requests.Session.

    Pass `result` to watch it fill from another thread (under result.lock).
    """
    result = result if result is not None else LoadResult()

    def client(mine: list[tuple[str, str]]) -> None:
        with requests.Session() as session:
            for mode, text in mine:
                try:
                    answer = session.post(
                        url + "/api/jobs", json={"puzzle": text, "mode": mode}, timeout=30
                    )
                except requests.RequestException as error:
                    with result.lock:
                        result.errors.append(f"{text}: {error}")
                    continue
                with result.lock:
                    result.statuses[answer.status_code] += 1
                    if answer.status_code == 202:
                        result.ids.append(answer.json()["id"])
                    else:
                        result.errors.append(f"{text}: {answer.status_code} {answer.text[:200]}")

    threads = [threading.Thread(target=client, args=(part,)) for part in chunks(jobs, clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.submit_seconds = time.monotonic() - started
    return result


def states(store: JobStore, ids: list[str]) -> list[str | None]:
    """Every job's state in one pipelined round trip (None for an unknown id)."""
    client = store.redis
    with client.pipeline(transaction=False) as pipe:
        for job_id in ids:
            pipe.hget(Keys(store.prefix).job(job_id), "state")
        return list(pipe.execute())


def wait_terminal(store: JobStore, ids: list[str], timeout: float) -> float:
    """Wait until every job is terminal; return the seconds waited (TimeoutError if not)."""
    started = time.monotonic()
    while True:
        pending = [s for s in states(store, ids) if s not in TERMINAL]
        if not pending:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{len(pending)} jobs not terminal: {Counter(pending)}")
        time.sleep(0.1)


def check_over_http(url: str, ids: list[str], clients: int) -> Counter[str]:
    """GET every job over HTTP (concurrently); count the states, or the status when not 200."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def client(mine: list[str]) -> None:
        with requests.Session() as session:
            for job_id in mine:
                answer = session.get(f"{url}/api/jobs/{job_id}", timeout=30)
                what = answer.json()["state"] if answer.status_code == 200 else answer.status_code
                with lock:
                    seen[str(what)] += 1

    parts = [ids[start::clients] for start in range(clients)]
    threads = [threading.Thread(target=client, args=(part,)) for part in parts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen


def latencies(store: JobStore, ids: list[str]) -> list[float]:
    """Submit-to-finished seconds of every job (created and finished as recorded in Redis)."""
    client = store.redis
    with client.pipeline(transaction=False) as pipe:
        for job_id in ids:
            pipe.hmget(Keys(store.prefix).job(job_id), "created", "finished")
        rows = pipe.execute()
    return [float(finished) - float(created) for created, finished in rows]
