"""/api/estimate under real gunicorn: a client's estimates run one at a time (CPU bounded)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

from tests.support.web import PROBLEM

# Distinct puzzles (the web process caches estimates), each counting for the whole budget.
PUZZLES = [("NORTH * WEST = EAST * SOUTH", base) for base in range(11, 17)]


def test_a_client_gets_one_estimate_at_a_time(live_server: str) -> None:
    """Estimates sent at once by one client: one runs, the others are refused with a 429 that
    says when to come back; once it has answered, the next is answered again."""
    start = threading.Barrier(len(PUZZLES))

    def ask(puzzle: tuple[str, int]) -> Any:
        start.wait()
        query = {"puzzle": puzzle[0], "base": str(puzzle[1])}
        return requests.get(f"{live_server}/api/estimate", params=query, timeout=60)

    with ThreadPoolExecutor(len(PUZZLES)) as pool:
        answers = list(pool.map(ask, PUZZLES))
    statuses = sorted(answer.status_code for answer in answers)
    assert 200 in statuses and 429 in statuses, statuses
    for answer in answers:
        if answer.status_code == 429:
            body = answer.json()
            assert answer.headers["Content-Type"] == PROBLEM
            assert body["type"].endswith("/busy") and body["field"] == "client"
            assert 1 <= int(answer.headers["Retry-After"]) <= 10
    again = {"puzzle": "TWO * SIX = TWELVE", "base": "13"}
    assert requests.get(f"{live_server}/api/estimate", params=again, timeout=60).status_code == 200
