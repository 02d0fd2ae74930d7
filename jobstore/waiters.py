"""Waiting for jobs to end without polling: one subscriber per process wakes every waiter.

Every Lua script that ends a job publishes its id on the `finished` channel (Keys); a
worker's final write adds the whole record ("id\n{json}"), so its waiters need not read it
again. A web process keeps one pub/sub connection for all its waiting requests, whatever their
number; each waiter registers a Watch under its job id before it reads the job, so an end
published between the read and the wait still wakes it. Pub/sub delivery is best-effort (a
reconnect can drop messages), so waiters also look again every RECHECK seconds and all are
woken after a reconnect: a lost message costs a little latency, never a missed end. A waiter
given a look at its client (`gone`) checks it every GONE_LOOK seconds meanwhile, so a request
whose client hung up stops waiting at once instead of holding its slot to the end.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import redis

from .connection import UNREACHABLE, connect
from .keys import Keys
from .settings import Settings

log = logging.getLogger(__name__)

RECHECK = 1.0  # seconds between a waiter's own looks at its job, messages or not
SUBSCRIBE_TIMEOUT = 2.0  # seconds the first waiter gives the subscriber to start listening
GONE_LOOK = 0.2  # seconds between a waiter's looks at whether its client is still there


class Watch:
    """One waiting request: its event, and the ended job's record when the message had it."""

    __slots__ = ("event", "record")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.record: dict[str, str] | None = None

    def pause(self, seconds: float, gone: Callable[[], bool] | None = None) -> bool:
        """Wait up to `seconds` for the event, looking every GONE_LOOK whether `gone()`:
        whether the waiter's client has gone (then at once)."""
        if gone is None:
            self.event.wait(seconds)
            return False
        deadline = time.monotonic() + seconds
        while not self.event.wait(max(0.0, min(deadline - time.monotonic(), GONE_LOOK))):
            if gone():
                return True
            if time.monotonic() >= deadline:
                break
        return False


class Waiters:
    """The Watches of this process's waiting requests, keyed by job id, and their subscriber."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.channel = Keys(settings.key_prefix).finished
        self._lock = threading.Lock()
        self._watches: dict[str, set[Watch]] = {}
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = 0

    @contextmanager
    def watch(self, job_id: str) -> Iterator[Watch]:
        """A Watch set whenever job_id is published as ended (register before reading)."""
        self._start()
        watch = Watch()
        with self._lock:
            self._watches.setdefault(job_id, set()).add(watch)
        try:
            yield watch
        finally:
            with self._lock:
                watches = self._watches.get(job_id, set())
                watches.discard(watch)
                if not watches:
                    self._watches.pop(job_id, None)

    def close(self) -> None:
        """Stop the subscriber thread (it also dies with the process: it is a daemon)."""
        self._stop.set()
        if self._thread is not None and self._pid == os.getpid():
            self._thread.join(5)

    def _start(self) -> None:
        """Start the subscriber in this process once (a forked child starts its own)."""
        with self._lock:
            started = self._pid != os.getpid() or not (self._thread and self._thread.is_alive())
            if started:
                self._pid = os.getpid()
                self._ready.clear()
                self._stop.clear()
                self._thread = threading.Thread(
                    target=self._listen, name="alphametic-waiters", daemon=True
                )
                self._thread.start()
        if started:
            # Only the first waiter gives it time to subscribe; while Redis is away later
            # waiters do not queue up here, and their own RECHECK covers any gap.
            self._ready.wait(SUBSCRIBE_TIMEOUT)

    def _wake(self, job_id: str | None, record: dict[str, str] | None = None) -> None:
        """Wake one job's waiters, handing them its record (every waiter when job_id is None)."""
        with self._lock:
            if job_id is None:
                groups = list(self._watches.values())
            else:
                groups = [self._watches.get(job_id, set())]
            for watches in groups:
                for watch in watches:
                    watch.record = record
                    watch.event.set()

    def _listen(self) -> None:
        """Subscribe and dispatch messages until closed, reconnecting after failures."""
        while not self._stop.is_set():
            client: redis.Redis | None = None
            try:
                client = connect(self.settings)
                pubsub = client.pubsub()
                pubsub.subscribe(self.channel)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=0.5)
                    if message is None:
                        continue
                    if message["type"] == "subscribe":
                        self._ready.set()
                        self._wake(None)  # ends published while we were away were missed
                    elif message["type"] == "message":
                        job_id, _, record = str(message["data"]).partition("\n")
                        self._wake(job_id, json.loads(record) if record else None)
            except Exception as error:  # noqa: BLE001 (Redis away, or worse: keep serving)
                level = logging.WARNING if isinstance(error, UNREACHABLE) else logging.ERROR
                log.log(
                    level, "waiters: lost the %s subscription (%r); retrying", self.channel, error
                )
                self._stop.wait(0.5)
            finally:
                if client is not None:
                    client.close()
