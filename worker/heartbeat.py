"""Worker heartbeats in Redis, and the sweeps that re-queue jobs whose worker died.

Each worker's main process runs a thread (a Celery bootstep) that every heartbeat_interval
seconds announces it in the registry of every queue it consumes (jobstore/workers.py), as long
as its consumer proves it still takes messages (worker/canary.py); a worker whose consumer is
lost stops, so that its supervisor starts it anew.

The same thread runs the job store's sweeps (jobstore/sweep.py): a running job whose lease
expired, or whose holder is a process of this machine that no longer exists (worker/holder.py
tells), is sent to its queue again at once; a queued job whose message went astray gets a new
one.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import bootsteps
from celery.worker import state as worker_state

from jobstore import QUEUES, Settings
from jobstore.connection import UNREACHABLE
from jobstore.handle import own_handle
from jobstore.sweep import reap, resend_lost
from jobstore.workers import beat, withdraw

from . import canary
from .holder import holder_is_dead

log = logging.getLogger(__name__)
POOL_WATCH_INTERVAL = 0.5  # seconds


class Heartbeat(bootsteps.StartStopStep):
    """Worker bootstep running the heartbeat thread in the worker's main process."""

    label = "alphametic heartbeat"

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        """Prepare the step (the thread starts in start())."""
        super().__init__(worker, **kwargs)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Its own canary queue, consumed beside whatever -Q names (before the consumer starts).
        settings: Settings = worker.app.conf.alphametic_settings
        declared = canary.canary_declaration(worker.hostname, settings.heartbeat_interval)
        worker.app.amqp.queues.select_add(declared)

    def start(self, worker: Any) -> None:
        """Start beating for the queues this worker consumes."""
        settings: Settings = worker.app.conf.alphametic_settings
        ours = list(QUEUES)
        consumed = list(worker.app.amqp.queues.consume_from or ours)
        queues = [q for q in consumed if q in ours] or ours
        self._queues, self._hostname = queues, worker.hostname
        self._store = own_handle(settings)
        self._worker = worker
        canary.WATCH = self._watch = canary.ConsumerWatch(settings.heartbeat_interval)
        self._thread = threading.Thread(
            target=self._run, args=(settings,), name="alphametic-heartbeat", daemon=True
        )
        self._thread.start()

    def _run(self, settings: Settings) -> None:
        """Beat and sweep until stopped; Redis being away only delays the next round."""
        while not self._stop.is_set():
            try:
                beat(self._store, self._hostname, self._queues)
                if not self._consumer_live():
                    canary.stop_lost_consumer(self._watch)
                    return
                reap(self._store, holder_is_dead)
                resend_lost(self._store)
            except UNREACHABLE as error:
                # Redis, the broker too, is away: a canary sent before cannot come back until
                # it returns, so the consumer's proof waits for it (an outage longer than the
                # canary's deadline is not a lost consumer).
                self._watch.away()
                log.warning("heartbeat failed: %s", error)
            except Exception:  # noqa: BLE001 (the thread must survive anything, and say so)
                log.exception("heartbeat round failed")
            self._stop.wait(settings.heartbeat_interval)

    def _consumer_live(self) -> bool:
        """Whether the consumer took a message lately, or could take none (a full pool);
        sends this worker a canary when one is due (worker/canary.py)."""
        worker = self._worker
        full = len(worker_state.reserved_requests) >= max(1, int(worker.concurrency or 1))
        return self._watch.live(full, lambda: canary.send_canary(worker.app, self._hostname))

    def stop(self, worker: Any) -> None:
        """Stop beating and withdraw this worker from the heartbeat sets."""
        self._stop.set()
        if self._thread is None:
            return
        self._thread.join(timeout=2)
        try:
            withdraw(self._store, self._hostname, self._queues)
        except UNREACHABLE:
            pass


class PoolWatch(bootsteps.StartStopStep):
    """Worker bootstep: notice a pool process that died mid-job within half a second.

    billiard learns of a dead pool process from its sentinel, but when the sentinel fires
    before the process can be reaped only its 5 s maintain_pool timer notices; until then the
    dead process's slot stays busy and the job's message waits (measured: 4.6 s).
    """

    label = "alphametic pool watch"
    requires = ("celery.worker.components:Pool",)

    def start(self, worker: Any) -> None:
        """Call the pool's maintain_pool from the event loop every POOL_WATCH_INTERVAL s."""
        pool, hub = getattr(worker.pool, "_pool", None), getattr(worker, "hub", None)
        if hub is not None and pool is not None and hasattr(pool, "maintain_pool"):
            hub.call_repeatedly(POOL_WATCH_INTERVAL, pool.maintain_pool)
