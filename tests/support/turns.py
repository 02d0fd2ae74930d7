"""Clients with jobs misjudged small, and another client's small solves (issue 21): the
scenarios tests/chaos/test_client_turns.py checks and bench/fairness.py measures."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import alphametic
from jobstore import JobStore, State
from jobstore.lanes import lane_for
from jobstore.model import FIRST
from tests.support.puzzles import PRODUCT_BASE, misjudged_products

# Small solves (a few milliseconds of search), distinct so that none is a dedup hit.
SMALL = [
    (text, {"base": base})
    for text in ("SEND + MORE = MONEY", "TO + GO = OUT")
    for base in range(10, 37)
]


def small_latency(store: JobStore, index: int, client: str = "small") -> float:
    """Seconds from submitting a small solve to its answer (woken by the finished channel)."""
    started = time.monotonic()
    job = store.submit("solve", *SMALL[index % len(SMALL)], client=client)
    done = store.wait(job.id, 60)
    took = time.monotonic() - started
    assert done is not None and done.state is State.SUCCEEDED, done
    return took


def submit_products(store: JobStore, client: str, texts: list[str]) -> list[str]:
    """Submit products for one client; the estimate must put each among the small jobs."""
    small = store.settings.small_search
    for text in texts:
        assert lane_for(alphametic.parse(text, **PRODUCT_BASE), small) == FIRST, "not misjudged"
    return [store.submit("solve", text, PRODUCT_BASE, client=client).id for text in texts]


@contextmanager
def streams(store: JobStore, clients: str, keep: int = 5) -> Iterator[list[BaseException]]:
    """While inside: each client (a letter) submits one misjudged product a second and
    cancels its oldest beyond `keep` (within rate and cap); yields the errors seen."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def submitter(client: str, seed: int) -> None:
        """One client's stream of products."""
        live: list[str] = []
        texts = iter(misjudged_products(600, seed=seed))
        try:
            while not stop.is_set():
                live += submit_products(store, client, [next(texts)])
                if len(live) > keep:
                    store.cancel(live.pop(0), client=client)
                stop.wait(1.0)
        except BaseException as error:  # noqa: BLE001 (the caller reports it)
            errors.append(error)

    threads = [
        threading.Thread(target=submitter, args=(client, 200 + k), daemon=True)
        for k, client in enumerate(clients)
    ]
    for thread in threads:
        thread.start()
    try:
        yield errors
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def sample(store: JobStore, seconds: float = 0, count: int = 0, pause: float = 1.0) -> list[float]:
    """Small solves one after another for `seconds` (or `count` of them): their latencies.

    Each after a pause, so that the worker has taken a long job again when it comes (one sent
    the moment the last answer arrived would beat the worker's next pop to the queue).
    """
    took: list[float] = []
    deadline = time.monotonic() + seconds
    while (len(took) < count) if count else (time.monotonic() < deadline):
        time.sleep(pause)
        took.append(small_latency(store, len(took)))
    return took
