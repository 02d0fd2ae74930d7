"""Proof that a worker's consumer still takes messages, and an exit when it no longer does.

A Celery worker can stop consuming after a broker reconnect or a Sentinel failover while its
main process, pool and heartbeat thread all carry on (a known failure mode, reported against
Celery 5.5-5.6 with Redis and Sentinel): its heartbeat then says it is alive while it takes
nothing. So the heartbeat beats only while the consumer proves itself: it received a message
(any task: the task_received signal, in the main process) within CANARY_IDLE, or every pool
process is busy (with prefetch off a full pool takes nothing, rightly). An idle worker sends a
canary task message to a queue of its own (CANARY_QUEUE + its node name), which only its own
consumer reads; a canary the broker accepted but that is not taken within CANARY_DEADLINE
while a pool process was free means the consumer is lost: the worker logs why and stops
(SIGTERM: a warm shutdown hands running jobs back), so its supervisor starts it anew, and it
is killed outright if that shutdown hangs. A canary that could not be sent (the broker away)
proves nothing either way: that is an outage, which a restart would not cure. A canary queue
expires (canary_declaration), so a worker gone with a canary untaken leaves nothing for good.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from celery.signals import task_received
from kombu import Exchange, Queue

log = logging.getLogger(__name__)

CANARY_TASK = "alphametic.canary"
CANARY_QUEUE = "canary."  # + the worker's node name: one queue per worker
EXIT_GRACE = 60.0  # seconds a warm shutdown may take before the worker is killed outright


def canary_queue(node: str) -> str:
    """The queue only this worker consumes, for its canaries."""
    return CANARY_QUEUE + node


def canary_declaration(node: str, interval: float) -> Queue:
    """This worker's canary queue as declared: it expires (kombu's x-expires) once nothing was
    sent to it or taken from it for expires_after(interval), so a gone worker leaves no list
    behind for good; kombu's live consumers sweep its binding table an hour or more later."""
    name = canary_queue(node)
    return Queue(name, Exchange(name), routing_key=name, expires=expires_after(interval))


def idle_after(interval: float) -> float:
    """Seconds without a message after which an idle worker sends itself a canary."""
    return max(5.0, 5 * interval)


def deadline_after(interval: float) -> float:
    """Seconds a sent canary may wait, with a pool process free, before the consumer counts
    as lost."""
    return max(10.0, 8 * interval)


def expires_after(interval: float) -> float:
    """Seconds a canary queue's list lives on untouched: well past a canary's deadline, by
    when a live worker has taken it or stopped."""
    return 2 * (idle_after(interval) + deadline_after(interval))


class ConsumerWatch:
    """When this worker's consumer last took a message, and the canary it waits for."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle = idle_after(interval)
        self.deadline = deadline_after(interval)
        self.clock = clock
        self.taken = clock()  # a fresh consumer counts as proven
        self.waiting_since: float | None = None  # a canary sent and not taken yet
        self._lock = threading.Lock()

    def took(self) -> None:
        """The consumer received a message (a job's or a canary)."""
        with self._lock:
            self.taken = self.clock()
            self.waiting_since = None

    def away(self) -> None:
        """The broker (Redis) cannot be reached: the consumer can take nothing, through no
        fault of its own, so its proof starts over once the broker answers again."""
        with self._lock:
            self.taken = self.clock()
            self.waiting_since = None

    def live(self, full: bool, send: Callable[[], bool]) -> bool:
        """Whether the consumer is proven now; sends a canary when one is due (`send` returns
        whether the broker accepted it). `full`: every pool process is busy."""
        now = self.clock()
        with self._lock:
            if full:
                self.taken, self.waiting_since = now, None  # nothing to take: no fault of it
                return True
            if now - self.taken < self.idle:
                return True
            waiting = self.waiting_since
        if waiting is None:
            if send():
                with self._lock:
                    if self.waiting_since is None and self.clock() - self.taken >= self.idle:
                        self.waiting_since = now
            return True
        return now - waiting < self.deadline


WATCH: ConsumerWatch | None = None  # the main process's, set by the heartbeat bootstep


@task_received.connect
def _received(**_: Any) -> None:
    """Every message the consumer hands on proves it (main process only)."""
    if WATCH is not None:
        WATCH.took()


def send_canary(app: Any, node: str) -> bool:
    """Publish a canary to this worker's own queue; False when the broker did not take it."""
    queue = canary_queue(node)
    try:
        app.send_task(CANARY_TASK, args=[uuid.uuid4().hex], queue=queue, routing_key=queue)
    except Exception as error:  # noqa: BLE001 (any broker failure: no proof either way)
        log.warning("canary not sent (the broker is away?): %s", error)
        return False
    return True


def stop_lost_consumer(watch: ConsumerWatch) -> None:
    """Log why, then stop this worker so its supervisor starts it anew."""
    silent = watch.clock() - watch.taken
    log.error(
        "consumer lost: it took no message for %.0f s, not even its own canary with a pool "
        "process free; stopping the worker so its supervisor restarts it",
        silent,
    )
    os.kill(os.getpid(), signal.SIGTERM)
    killer = threading.Timer(EXIT_GRACE, lambda: os.kill(os.getpid(), signal.SIGKILL))
    killer.daemon = True
    killer.start()
