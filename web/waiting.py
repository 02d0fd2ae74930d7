"""Long polls: a request held until its job ends, within this process's wait slots and its
client's share of them, and let go as soon as its client hangs up."""

from __future__ import annotations

import select
import socket
import ssl
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from flask import current_app, request

from jobstore import Job
from web.clients import client_id
from web.store import store


class WaitSlots:
    """This process's long-poll slots: `total` at once, at most `per_client` of them per client
    (a client that sends more waits has the rest answered at once, as when all are taken)."""

    def __init__(self, total: int, per_client: int) -> None:
        """No slot held yet."""
        self.total = total
        self.per_client = per_client
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()

    def held(self) -> int:
        """How many slots are held now, by every client together."""
        with self._lock:
            return self._held.total()

    @contextmanager
    def hold(self, client: str) -> Iterator[bool]:
        """Hold one slot for the client while the block runs: whether one was free for it."""
        with self._lock:
            free = self._held[client] < self.per_client and self._held.total() < self.total
            if free:
                self._held[client] += 1
        try:
            yield free
        finally:
            if free:
                with self._lock:
                    self._held[client] -= 1
                    if self._held[client] <= 0:
                        del self._held[client]


def waited(job: Job, seconds: float) -> Job:
    """The job after waiting up to `seconds` for it to end (at once when no wait slot is free
    for this client, and as soon as the client hangs up)."""
    if job.done or seconds <= 0:
        return job
    with wait_slot() as free:
        return (store().wait(job.id, seconds, gone=hung_up()) if free else None) or job


@contextmanager
def wait_slot() -> Iterator[bool]:
    """Hold one of this process's slots for a long poll: whether one was free for this client
    (when none is, the request answers at once and the client polls)."""
    slots: WaitSlots = current_app.extensions["alphametic.wait_slots"]
    if slots.total <= 0 or slots.per_client <= 0:
        yield False
        return
    with slots.hold(client_id()) as free:
        yield free


def hung_up() -> Callable[[], bool] | None:
    """A look at whether this request's client has hung up (None when the server does not say
    which socket the request came on: then the wait runs its course)."""
    sock = request.environ.get("gunicorn.socket")
    # A TLS socket cannot peek: its bytes are records, not the next request's.
    if sock is None or isinstance(sock, ssl.SSLSocket):
        return None
    return lambda: _closed(sock)


def _closed(sock: socket.socket) -> bool:
    """Whether the client closed its connection: the socket reads end of file (or fails) now.

    Bytes waiting to be read are a pipelined next request, not a hang-up: they stay unread.
    """
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and not sock.recv(1, socket.MSG_PEEK)
    except (OSError, ValueError):
        return True
