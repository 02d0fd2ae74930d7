"""Issue 32's reservation attack, shared by tests/web/test_shares.py and
bench/attacks/reservations.py: one client's product enumerations with no estimate (each may
store the cap of solutions) and another client's enumeration and compose job, sent over HTTP
from loopback addresses of their own (each its own client)."""

from __future__ import annotations

import http.client
import json
import random
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

# 26 Latin and 10 Greek capitals: the 36 letters of a base-36 product that uses every digit.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZΑΒΓΔΕΖΗΘΙΚ"
ATTACKER = "127.0.0.2"
VICTIM = "127.0.0.3"
# The victim's own storing jobs: a product as large as the attacker's (it too may store the
# cap) and a compose job.
VICTIM_JOBS: tuple[dict[str, Any], ...] = (
    {"mode": "enumerate", "puzzle": "ABCDEFGHIJ * KLMNOPQRS = TUVWXYZΑΒΓΔΕΖΗΘ",
     "options": {"base": 36}},
    {"mode": "compose", "words": ["ODD", "ODD", "EVEN", "TWO", "FOUR", "ONE", "NINE"]},
)  # fmt: skip


def product(seed: int) -> str:
    """`ABCDEFGHI * JKLMNOPQR = STUVWXYZΑΒΓΔΕΖΗΘΙΚ` with its 36 letters shuffled by `seed`."""
    letters = list(LETTERS)
    random.Random(seed).shuffle(letters)
    word = "".join(letters)
    return f"{word[:9]} * {word[9:18]} = {word[18:]}"


def products(count: int, seed: int = 32) -> list[dict[str, Any]]:
    """`count` distinct product enumerations in base 36 (no two share a job)."""
    return [
        {"mode": "enumerate", "puzzle": product(seed * 1000 + i), "options": {"base": 36}}
        for i in range(count)
    ]


@dataclass
class Answer:
    """One HTTP answer: status, headers, the JSON body, and the seconds it took."""

    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    seconds: float

    @property
    def code(self) -> str:
        """The problem's `code` ('' for a job accepted)."""
        return str(self.body.get("code", ""))

    @property
    def retry_after(self) -> int | None:
        """The Retry-After header as seconds (None when absent)."""
        value = self.headers.get("retry-after")
        return int(value) if value is not None else None


def send(base_url: str, source: str, method: str, path: str, body: Any = None) -> Answer:
    """One request from the loopback address `source` (the client's identity) to the server."""
    where = urlsplit(base_url)
    connection = http.client.HTTPConnection(
        where.hostname or "127.0.0.1", where.port, timeout=60, source_address=(source, 0)
    )
    started = time.monotonic()
    try:
        headers = {"Content-Type": "application/json"}
        connection.request(method, path, json.dumps(body) if body is not None else "", headers)
        response = connection.getresponse()
        raw = response.read()
        seconds = time.monotonic() - started
        found = {name.lower(): value for name, value in response.getheaders()}
        parsed = json.loads(raw) if raw.strip().startswith(b"{") else {}
        return Answer(response.status, found, parsed, seconds)
    finally:
        connection.close()


def submit(base_url: str, source: str, job: dict[str, Any]) -> Answer:
    """POST one job from `source`."""
    return send(base_url, source, "POST", "/api/jobs", job)


def cancel(base_url: str, source: str, job_id: str) -> Answer:
    """Cancel one of `source`'s jobs."""
    return send(base_url, source, "POST", f"/api/jobs/{job_id}/cancel", {})
