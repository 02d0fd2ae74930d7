"""Slow clients on loopback: sockets that stall a web server, and probes timed while they do.

Three kinds of stalled socket (issue 14): one that sends part of its request headers, one that
sends its headers and 5 of 100 body bytes, and one that asks for many responses but never
reads them (a small receive buffer, so the server's writes block). Used by
tests/web/test_slow_clients.py and bench/slowclients.py.
"""

from __future__ import annotations

import http.client
import itertools
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

KINDS = ("headers", "body", "reader")
PARTIAL_HEADERS = (
    b"POST /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
)
PARTIAL_BODY = PARTIAL_HEADERS + b"Content-Length: 100\r\n\r\n" + b'{"puz'
# A reader asks for a static file (5 KB) and reads none of it. Over loopback the kernel buffers
# ~3 MB of unread answers before the server's write blocks: BLOCKED_REQUESTS pipelined copies
# get there (a blocked reader); a few more per socket would only measure the server's CPU.
READER_REQUESTS = 2
BLOCKED_REQUESTS = 800
READER_REQUEST = b"GET /static/job.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
CONNECT_TIMEOUT = 5.0
TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8  # linux/tcp_states.h: reset by the peer; the peer sent FIN


@dataclass
class Stalled:
    """One stalled socket, its kind and when it was opened."""

    kind: str
    sock: socket.socket
    opened: float = field(default_factory=time.monotonic)
    closed_after: float | None = None  # seconds from open until the server closed it
    answer: bytes = b""  # what the server sent before closing (readers read nothing)


def open_stalled(port: int, kind: str, requests: int = READER_REQUESTS) -> Stalled:
    """Open one socket to 127.0.0.1:port and stall it in the given way."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if kind == "reader" and requests > READER_REQUESTS:
        # A tiny receive window: the answers pile up in the server's buffers, then its write
        # blocks. (A small reader's answers fit in its own buffer, so the server's FIN shows.)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(CONNECT_TIMEOUT)
    sock.connect(("127.0.0.1", port))
    if kind == "headers":
        sock.sendall(PARTIAL_HEADERS)
    elif kind == "body":
        sock.sendall(PARTIAL_BODY)
    else:
        sock.sendall(READER_REQUEST * requests)
    sock.setblocking(False)
    return Stalled(kind, sock)


@contextmanager
def stalled_sockets(port: int, count: int) -> Iterator[list[Stalled]]:
    """Hold `count` stalled sockets (the three kinds in turn); close them all afterwards."""
    held: list[Stalled] = []
    try:
        for kind in itertools.islice(itertools.cycle(KINDS), count):
            held.append(open_stalled(port, kind))
        yield held
    finally:
        for stalled in held:
            stalled.sock.close()


def _tcp_state(sock: socket.socket) -> int:
    """The kernel's TCP state of the socket (Linux TCP_INFO's first byte)."""
    return int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0])


def _server_closed(stalled: Stalled) -> bool:
    """Whether the server has closed this socket (a reader's answers are left unread)."""
    if stalled.kind == "reader":
        # The server's FIN or reset shows in the state; reading would end the stall.
        return _tcp_state(stalled.sock) in (TCP_CLOSE, TCP_CLOSE_WAIT)
    readable, _, _ = select.select([stalled.sock], [], [], 0)
    if not readable:
        return False
    try:
        while True:
            data = stalled.sock.recv(65536)
            if not data:
                return True
            stalled.answer += data
    except BlockingIOError:
        return False
    except OSError:
        return True


def watch_closes(held: list[Stalled], within: float) -> list[Stalled]:
    """Poll until every socket is closed by the server or `within` seconds pass; the open ones."""
    deadline = time.monotonic() + within
    while True:
        now = time.monotonic()
        for stalled in held:
            if stalled.closed_after is None and _server_closed(stalled):
                stalled.closed_after = now - stalled.opened
        still_open = [s for s in held if s.closed_after is None]
        if not still_open or now > deadline:
            return still_open
        time.sleep(0.05)


@contextmanager
def watching(held: list[Stalled], within: float) -> Iterator[list[Stalled]]:
    """Watch for closes in a thread while the block runs; then the sockets still open."""
    still_open: list[Stalled] = []
    thread = threading.Thread(target=lambda: still_open.extend(watch_closes(held, within)))
    thread.start()
    try:
        yield still_open
    finally:
        thread.join()


def timed_get(port: int, path: str, timeout: float = 5.0) -> tuple[float, int]:
    """GET on a fresh connection: (seconds, status); status 0 when it failed or timed out."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    started = time.perf_counter()
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return time.perf_counter() - started, response.status
    except (OSError, http.client.HTTPException):
        return time.perf_counter() - started, 0
    finally:
        conn.close()


def timed_submit(
    port: int, puzzle: str, wait: float = 10, timeout: float = 15.0
) -> tuple[float, int]:
    """POST /api/jobs?wait= of one puzzle on a fresh connection: (seconds, status), 0 on failure."""
    body = json.dumps({"puzzle": puzzle, "mode": "solve"})
    headers = {"Content-Type": "application/json"}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    started = time.perf_counter()
    try:
        conn.request("POST", f"/api/jobs?wait={wait:g}", body=body, headers=headers)
        response = conn.getresponse()
        answer = json.loads(response.read() or b"{}")
        ok = response.status == 202 and answer.get("state") == "succeeded"
        return time.perf_counter() - started, response.status if ok else 0
    except (OSError, http.client.HTTPException, ValueError):
        return time.perf_counter() - started, 0
    finally:
        conn.close()
