"""Slow clients (issue 14): the server as `make run` starts it stays responsive and bounded.

300 stalled sockets (partial headers, partial bodies, answers never read) delay neither
/healthz nor a submit by more than 100 ms and are closed by the server; chunked bodies over the
cap get 413 and deeply nested JSON 422; long polling, /readyz and cancel work under its worker.
"""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from jobstore import Settings
from scripts.run import web_argv
from tests.support.load import puzzles
from tests.support.processes import WebServer, WorkerProcess
from tests.support.stalls import (
    BLOCKED_REQUESTS,
    open_stalled,
    stalled_sockets,
    timed_get,
    timed_submit,
    watch_closes,
    watching,
)
from web.bodies import BODY_SECONDS, IO_SECONDS, MAX_JSON_DEPTH

PROBLEM = "application/problem+json"
STALLED = 300
HEADER_SECONDS = 5.0  # scripts/webserver.py keepalive: the whole header must arrive within it
SLACK = 5.0  # seconds of scheduling noise allowed on top of a deadline
CAP = 64 * 1024  # ALPHAMETIC_MAX_BODY's default


@pytest.fixture(scope="module")
def server(web_settings: Settings, web_workers: WorkerProcess) -> Iterator[WebServer]:
    """The web server exactly as `make run` starts it (WEB_CONCURRENCY=2), on the test Redis."""
    web = WebServer(
        web_settings,
        env={
            "ALPHAMETIC_RATE_LIMIT": "10000/minute",
            "ALPHAMETIC_READ_RATE_LIMIT": "100000/minute",
        },
        command=lambda port: web_argv(port, 2),
    )
    try:
        yield web.wait_ready(60)
    finally:
        web.cleanup()


def probe(port: int, texts: list[str]) -> tuple[list[float], list[float]]:
    """Time one /healthz and one POST ?wait per puzzle; assert each answered as it should."""
    health, submits = [], []
    for text in texts:
        seconds, status = timed_get(port, "/healthz")
        assert status == 200, f"/healthz failed after {seconds:.2f} s"
        health.append(seconds)
        seconds, status = timed_submit(port, text)
        assert status == 202, f"the submit of {text!r} failed after {seconds:.2f} s"
        submits.append(seconds)
    return health, submits


@pytest.mark.slow
def test_stalled_sockets_neither_delay_requests_nor_stay_open(server: WebServer) -> None:
    """With 300 sockets stalled, /healthz and a submit stay within 100 ms; the server drops them."""
    texts = [text for mode, text in puzzles(120, seed=1414) if mode == "solve"]
    probe(server.port, texts[:5])  # warm both processes: imports, connections, the subscriber
    quiet = probe(server.port, texts[5:25])
    with stalled_sockets(server.port, STALLED) as held:
        with watching(held, BODY_SECONDS + HEADER_SECONDS + 2 * SLACK) as still_open:
            time.sleep(1.0)  # the readers' requests are answered (into unread buffers)
            loaded = probe(server.port, texts[25:45])
        answers = {k: {s.answer[:12] for s in held if s.kind == k} for k in ("headers", "body")}
        worst = {s.kind: max(t.closed_after or 0 for t in held if t.kind == s.kind) for s in held}
    for name, before, during in zip(("/healthz", "submit"), quiet, loaded, strict=True):
        delay = statistics.median(during) - statistics.median(before)
        assert delay < 0.1, f"{name}: median {1000 * delay:.0f} ms slower with stalled sockets"
        assert max(during) < 1.0, f"{name}: {max(during):.2f} s with stalled sockets"
    assert not still_open, f"{len(still_open)} stalled sockets still open: {worst}"
    assert worst["headers"] < HEADER_SECONDS + SLACK, worst
    # 408 after BODY_SECONDS; gunicorn then waits up to keep-alive for the rest, and closes.
    assert worst["body"] < BODY_SECONDS + HEADER_SECONDS + SLACK, worst
    assert worst["reader"] < HEADER_SECONDS + SLACK, worst  # answered, then idle: keep-alive
    assert answers["headers"] == {b""}, answers  # closed without an answer
    assert answers["body"] == {b"HTTP/1.1 408"}, answers


@pytest.mark.slow
def test_a_reader_whose_answers_pile_up_is_dropped(server: WebServer) -> None:
    """A client that never reads ~4 MB of answers is disconnected once a write waits too long."""
    reader = open_stalled(server.port, "reader", BLOCKED_REQUESTS)
    try:
        still_open = watch_closes([reader], IO_SECONDS + 3 * SLACK)
    finally:
        reader.sock.close()
    assert not still_open, "the server still writes to a client that reads nothing"
    # Not the keep-alive close of an idle connection: a write that waited IO_SECONDS.
    assert reader.closed_after is not None and reader.closed_after > IO_SECONDS


def post_chunked(port: int, pieces: list[bytes]) -> tuple[int, dict[str, str], bytes]:
    """POST /api/jobs with a chunked JSON body; (status, headers, body) of the answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        headers = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
        conn.request("POST", "/api/jobs", body=iter(pieces), headers=headers, encode_chunked=True)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def job_request(puzzle: str) -> bytes:
    """A valid job request body."""
    return json.dumps({"puzzle": puzzle, "mode": "solve"}).encode()


def test_a_chunked_body_over_the_cap_is_refused(server: WebServer) -> None:
    """A valid job followed by padding past the cap: 413 problem+json (it used to be cut, 202)."""
    padding = [b" " * 8192] * (CAP // 8192 + 1)
    status, headers, raw = post_chunked(server.port, [job_request("TO + GO = OUT"), *padding])
    assert status == 413, raw
    assert headers["Content-Type"] == PROBLEM
    body = json.loads(raw)
    assert body["status"] == 413 and str(CAP) in body["detail"]


def test_a_chunked_body_under_the_cap_is_read_whole(server: WebServer) -> None:
    """The same job with padding just under the cap is accepted (the body is not cut)."""
    job = job_request("SO + SO = TOO")
    padding = b" " * (CAP - len(job))
    status, _, raw = post_chunked(server.port, [job, padding[:30000], padding[30000:]])
    assert status == 202, raw
    assert json.loads(raw)["puzzle"] == "SO + SO = TOO"


@pytest.mark.parametrize("depth", [1000, MAX_JSON_DEPTH + 1])
def test_deeply_nested_json_is_422(server: WebServer, depth: int) -> None:
    """Nesting past the limit answers 422 naming the body (not 500 from the parser)."""
    response = requests.post(
        f"{server.url}/api/jobs",
        data=b"[" * depth + b"]" * depth,
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert response.status_code == 422, response.text
    assert response.headers["Content-Type"] == PROBLEM
    assert response.json()["field"] == "body"
    assert "nested" in response.json()["detail"]


def test_nesting_inside_strings_is_not_counted(server: WebServer) -> None:
    """Brackets inside a JSON string are text: the request is judged on its fields."""
    body = {"puzzle": "[" * 200 + "A + B = C", "mode": "solve"}
    response = requests.post(f"{server.url}/api/jobs", json=body, timeout=10)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "puzzle"


def test_readyz_and_long_polls_work_under_the_server(server: WebServer) -> None:
    """/readyz answers, POST ?wait returns the finished job, and a cancel wakes waiting GETs."""
    assert requests.get(f"{server.url}/readyz", timeout=10).status_code == 200
    (text,) = [t for m, t in puzzles(12, seed=1415) if m == "solve"][:1]
    done = requests.post(f"{server.url}/api/jobs?wait=10", json={"puzzle": text}, timeout=15)
    assert done.status_code == 202 and done.json()["state"] == "succeeded", done.text
    body: dict[str, Any] = {
        "puzzle": "A + B + C + D + E = F + G + H + I",
        "mode": "enumerate",
        "options": {"base": 17},
    }
    job = requests.post(f"{server.url}/api/jobs", json=body, timeout=10).json()
    seen: list[tuple[str, float]] = []

    def wait() -> None:
        started = time.monotonic()
        answer = requests.get(f"{server.url}/api/jobs/{job['id']}?wait=20", timeout=30).json()
        seen.append((answer["state"], time.monotonic() - started))

    waiters = [threading.Thread(target=wait) for _ in range(2)]
    for thread in waiters:
        thread.start()
    time.sleep(1.0)  # both requests are waiting now
    cancelled = requests.post(f"{server.url}{job['links']['cancel']}", json={}, timeout=10)
    assert cancelled.status_code == 200, cancelled.text
    for thread in waiters:
        thread.join(30)
    assert [state for state, _ in seen] == ["canceled", "canceled"], seen
    assert all(seconds < 5 for _, seconds in seen), seen
