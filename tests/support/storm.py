"""The explain storm (issue 21): clients ask for hard explanations in a loop over HTTP while
/healthz and small solves are timed. Shared by tests/web/test_explain_storm.py and
bench/explain_storm.py.

The web server must trust one proxy hop (ALPHAMETIC_PROXY_HOPS=1): each storming client is an
X-Forwarded-For address of its own, so their explanations are worked out side by side.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

# Long searches (13 + 13 letters in base 35 or 36): each explanation uses the worker's whole
# 2 s CPU budget for the search. 24 distinct puzzles (the result word rotated, two bases).
_RIGHT = "ZYXWVUTSRQPON"
HARD = [
    (f"ABCDEFGHIJKLM + NOPQRSTUVWXYZ = {_RIGHT[k:] + _RIGHT[:k]}A", base)
    for base in (36, 35)
    for k in range(12)
]
# Small solves, each a job of its own (another base): a search of a few hundred nodes.
SMALL = [("TO + GO = OUT", base) for base in range(10, 37)]
SMALL_CLIENT = "10.0.9.1"
TIMEOUT = 60  # seconds any one request may take


@dataclass
class Storm:
    """What a storm measured: latencies in seconds, and how the explanations went."""

    healthz: list[float] = field(default_factory=list)
    small: list[float] = field(default_factory=list)
    asked: int = 0  # explanation requests made
    explained: set[str] = field(default_factory=set)  # jobs whose explanation came back 200
    errors: list[str] = field(default_factory=list)


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of the values lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def hard_jobs(url: str, clients: int) -> list[tuple[str, str]]:
    """Submit the HARD puzzles as solves, spread over `clients` clients, and cancel them at
    once (their explanations are what the storm asks for): (client address, job id) each."""
    jobs = []
    with requests.Session() as session:
        for index, (puzzle, base) in enumerate(HARD):
            client = f"10.0.8.{index % clients + 1}"
            headers = {"X-Forwarded-For": client}
            body: dict[str, Any] = {"puzzle": puzzle, "options": {"base": base}}
            created = session.post(f"{url}/api/jobs", json=body, headers=headers, timeout=TIMEOUT)
            created.raise_for_status()
            job_id = created.json()["id"]
            session.post(f"{url}/api/jobs/{job_id}/cancel", json={}, headers=headers, timeout=30)
            jobs.append((client, job_id))
    return jobs


def run(url: str, jobs: list[tuple[str, str]], seconds: float, enough: int = 1) -> Storm:
    """Storm for `seconds` (and on, up to TIMEOUT, until `enough` explanations came back):
    every client asks for each of its jobs' explanations in turn, again and again."""
    storm = Storm()
    stop = threading.Event()
    clients = sorted({client for client, _ in jobs})
    loops: list[Callable[[], None]] = [
        functools.partial(_ask_loop, url, c, [j for k, j in jobs if k == c], storm, stop)
        for c in clients
    ]
    loops += [lambda: _healthz_loop(url, storm, stop), lambda: _small_loop(url, storm, stop)]
    threads = [threading.Thread(target=loop, daemon=True) for loop in loops]
    for thread in threads:
        thread.start()
    started = time.monotonic()
    while time.monotonic() - started < seconds or (
        len(storm.explained) < enough and time.monotonic() - started < TIMEOUT
    ):
        time.sleep(0.1)
    stop.set()
    for thread in threads:
        thread.join(TIMEOUT)
    return storm


def _ask_loop(
    url: str, client: str, job_ids: list[str], storm: Storm, stop: threading.Event
) -> None:
    """One client asking for its jobs' explanations in a loop."""
    headers = {"X-Forwarded-For": client}
    with requests.Session() as session:
        while not stop.is_set():
            for job_id in job_ids:
                if stop.is_set():
                    return
                try:
                    answer = session.get(
                        f"{url}/api/jobs/{job_id}/explain", headers=headers, timeout=TIMEOUT
                    )
                except requests.RequestException as error:
                    storm.errors.append(repr(error))
                    continue
                storm.asked += 1
                if answer.status_code == 200:
                    storm.explained.add(job_id)
                elif answer.status_code not in (202, 429):
                    storm.errors.append(f"{answer.status_code} {answer.text[:200]}")
            stop.wait(0.05)


def _healthz_loop(url: str, storm: Storm, stop: threading.Event) -> None:
    """/healthz every 20 ms, timed."""
    with requests.Session() as session:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                session.get(f"{url}/healthz", timeout=TIMEOUT).raise_for_status()
            except requests.RequestException as error:
                storm.errors.append(repr(error))
            storm.healthz.append(time.perf_counter() - started)
            stop.wait(0.02)


def _small_loop(url: str, storm: Storm, stop: threading.Event) -> None:
    """A small solve every half second from a client of its own, timed to its answer."""
    headers = {"X-Forwarded-For": SMALL_CLIENT}
    with requests.Session() as session:
        for puzzle, base in SMALL:
            if stop.is_set():
                return
            body: dict[str, Any] = {"puzzle": puzzle, "options": {"base": base}}
            started = time.perf_counter()
            try:
                answer = session.post(
                    f"{url}/api/jobs?wait=30", json=body, headers=headers, timeout=TIMEOUT
                )
                state = answer.json().get("state")
            except (requests.RequestException, ValueError) as error:
                storm.errors.append(repr(error))
                continue
            if state != "succeeded":
                storm.errors.append(f"small solve {base}: {state}")
            storm.small.append(time.perf_counter() - started)
            stop.wait(0.5)
