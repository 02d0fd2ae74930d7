"""A frozen Redis under a web server: Redis SIGSTOPped while threads time API calls.

A stopped process keeps its sockets open and answers nothing, so every call waits for its
socket timeout, unlike a dead Redis that refuses connections at once (issue 13, item 7).
`freeze()` holds Redis stopped for a while as threads send each call again and again on new
connections, and returns every answer timed; `show()` prints the slowest. Used by
bench/chaos.py; no pytest here.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import statistics
import threading
import time

# Calls timed while Redis is frozen: (label, method, path; {id} is the running job).
CALLS = [
    ("POST /api/jobs", "POST", "/api/jobs"),
    ("GET /api/jobs/{id}", "GET", "/api/jobs/{id}"),
    ("GET /readyz", "GET", "/readyz"),
    ("GET /healthz", "GET", "/healthz"),
]
Answer = tuple[float, int, str]  # seconds, status (0: no answer), content type (or the error)


def probe(port: int, method: str, path: str, n: int) -> Answer:
    """One request on a new connection, timed."""
    body = json.dumps({"puzzle": "TO + GO = OUT", "options": {"base": 10 + n % 27}})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    began = time.monotonic()
    try:
        headers = {"Content-Type": "application/json"} if method == "POST" else {}
        conn.request(method, path, body=body if method == "POST" else None, headers=headers)
        reply = conn.getresponse()
        reply.read()
        return time.monotonic() - began, reply.status, reply.getheader("Content-Type", "")
    except OSError as error:
        return time.monotonic() - began, 0, type(error).__name__
    finally:
        conn.close()


def hammer(port: int, method: str, path: str, until: float, out: list[Answer]) -> None:
    """Send one call again and again until `until` (monotonic), keeping every answer."""
    n = 0
    while time.monotonic() < until:
        n += 1
        out.append(probe(port, method, path, n))


def freeze(
    pid: int, port: int, job_id: str, seconds: float, clients: int = 2
) -> dict[str, list[Answer]]:
    """SIGSTOP Redis for `seconds` while `clients` threads per API call (one for /healthz)
    send it again and again; SIGCONT."""
    answers: dict[str, list[Answer]] = {label: [] for label, _, _ in CALLS}
    os.kill(pid, signal.SIGSTOP)
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(target=hammer, args=(port, method, path.format(id=job_id), until, got))
        for (label, method, path), got in zip(CALLS, answers.values(), strict=True)
        for _ in range(1 if label.endswith("healthz") else clients)
    ]
    try:
        for thread in threads:
            thread.start()
        time.sleep(max(0.0, until - time.monotonic()))
    finally:
        os.kill(pid, signal.SIGCONT)
    for thread in threads:
        thread.join(180)
    return answers


def show(answers: dict[str, list[Answer]], target: float) -> None:
    """Print, per call, the count, slowest and median answer and the kinds of answers."""
    for label, got in answers.items():
        times = [a[0] for a in got]
        kinds = sorted({f"{status} {kind.split(';')[0]}" for _, status, kind in got})
        slowest = max(got, default=(0.0, 0, ""))
        waited = sum(1 for t in times if t >= 1.0)
        print(f"  {label:<20} n={len(got):4}  slowest {slowest[0]:6.2f} s ({slowest[1]})  "
              f"p50 {statistics.median(times or [0]):5.3f} s  {waited} took >= 1 s  {kinds}  "
              f"{'within' if slowest[0] <= target else 'OVER'} {target:.0f} s")  # fmt: skip
