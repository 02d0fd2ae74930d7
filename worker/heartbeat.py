"""Worker heartbeats in Redis, and the sweep that re-queues jobs whose worker died.

Each worker's main process runs a thread (a Celery bootstep) that every heartbeat_interval
seconds announces it in the registry of every queue it consumes (jobstore/workers.py).

The same thread sweeps {prefix}:leases: a running job whose lease (renewed with every progress
write) has expired lost its worker, so it is sent to its queue again at once, instead of
waiting for the broker's visibility timeout; so is one whose holder is a process of this
machine that no longer exists (a worker killed whole, or its pool process killed mid-job).
The claim script then starts a new attempt and the old one, should it still be alive, is
stale and can no longer write.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from celery import bootsteps

from jobstore import QUEUES, Keys, Mode, Settings
from jobstore.connection import UNREACHABLE, connect
from jobstore.lua import scripts_for
from jobstore.messages import task_message
from jobstore.shards import finish, parent_of, stop
from jobstore.workers import beat, silent_after, withdraw

from .holder import holder_is_dead

log = logging.getLogger(__name__)
POOL_WATCH_INTERVAL = 0.5  # seconds


def reap(client: redis.Redis, settings: Settings, limit: int = 50) -> list[str]:
    """Re-queue running jobs whose lease expired or whose holder died here; returns their ids."""
    now = time.time()
    keys = Keys(settings.key_prefix)
    renewed = repr(now + settings.lease_seconds)
    expired = client.zrangebyscore(keys.leases, "-inf", now, 0, limit)
    candidates = [(job_id, "") for job_id in expired]
    candidates += dead_holders(client, settings, limit)
    requeued = []
    for job_id, dead in candidates:
        found = message_for(client, settings, job_id)
        if found is None:
            client.zrem(keys.leases, job_id)
            continue
        _mode, lane_key, waiting, message = found
        args = [repr(now), renewed, job_id, dead, message]
        reaped = [keys.job(job_id), keys.leases, lane_key, waiting]
        if scripts_for(client).run("reap", reaped, args):
            why = f"its holder {dead} is dead" if dead else "lease expired"
            log.warning("job %s lost its worker (%s): re-queued", job_id, why)
            requeued.append(job_id)
    return requeued


def resend_lost(client: redis.Redis, settings: Settings, limit: int = 100) -> list[str]:
    """Send again the messages of jobs queued a while whose queue is empty; their ids.

    A message popped by a worker whose connection then dropped (a Redis restart) is parked
    unacknowledged until the broker's visibility timeout (40 min by default). With prefetch
    disabled a worker pops a message only to run it at once, so a job still queued two
    heartbeats after its message went out, with nothing left in its queue and its message
    parked, lost it: it is sent again (a needless re-send costs only a refused duplicate
    delivery). A message found nowhere went with a worker lost since it was sent (its link was
    cut while it waited in its pop), so it is sent again, or else it was purged: resend.lua
    ends its job canceled "purged".
    """
    now = time.time()
    keys = Keys(settings.key_prefix)
    cutoff = now - max(2.0, 2 * settings.heartbeat_interval)
    # A message sent before Redis last started may have been popped by a reply lost in the
    # restart: such a job is sent again, never judged purged (resend.lua).
    started = now - int(client.info("server").get("uptime_in_seconds", 0)) + 1
    resent = []
    for job_id in client.zrangebyscore(keys.queued, "-inf", cutoff, 0, limit):
        found = message_for(client, settings, job_id)
        if found is None:
            client.zrem(keys.queued, job_id)
            continue
        mode, lane_key, _waiting, message = found
        job_keys = [keys.queued, keys.job(job_id), lane_key, keys.unacked, keys.leases]
        job_keys += [keys.stats, keys.workers(mode.queue), *keys.lanes(mode)]
        args = [job_id, repr(now), repr(cutoff), settings.ttl, message, keys.finished]
        args += [repr(started), repr(silent_after(settings.heartbeat_interval))]
        outcome = scripts_for(client).run("resend", job_keys, args)
        if outcome == 1:
            log.warning("job %s queued but its queue is empty: message sent again", job_id)
            resent.append(job_id)
        elif outcome == 2:
            log.warning("job %s: its message was purged from the queue: canceled", job_id)
        elif outcome == 3:
            parent = parent_of(job_id)
            if parent is not None:
                log.warning("job %s: a shard's message was purged: job canceled", parent)
                stop(client, settings, parent, user=True)
                finish(client, settings, parent)
    return resent


def message_for(
    client: redis.Redis, settings: Settings, job_id: str
) -> tuple[Mode, str, str, str] | None:
    """(mode, lane list, its waiting set, a new task message) for sending a job again, or None
    when it is gone."""
    keys = Keys(settings.key_prefix)
    mode, lane = client.hmget(keys.job(job_id), "mode", "lane")
    if mode is None:
        return None
    lane_no = int(lane or 0)
    message = task_message(Mode(mode), job_id, settings.ttl, lane_no)
    return Mode(mode), keys.lane(Mode(mode), lane_no), keys.waiting(Mode(mode), lane_no), message


def dead_holders(client: redis.Redis, settings: Settings, limit: int) -> list[tuple[str, str]]:
    """(job id, holder) of leased jobs held by a process of this machine that no longer exists.

    A whole worker killed on this machine is then noticed within one heartbeat interval
    instead of one lease; holders on other machines are left to their lease.
    """
    keys = Keys(settings.key_prefix)
    job_ids = client.zrange(keys.leases, 0, limit - 1)
    with client.pipeline(transaction=False) as pipe:
        for job_id in job_ids:
            pipe.hget(keys.job(job_id), "holder")
        holders = pipe.execute()
    return [(j, h) for j, h in zip(job_ids, holders, strict=True) if h and holder_is_dead(h)]


class Heartbeat(bootsteps.StartStopStep):
    """Worker bootstep running the heartbeat thread in the worker's main process."""

    label = "alphametic heartbeat"

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        """Prepare the step (the thread starts in start())."""
        super().__init__(worker, **kwargs)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, worker: Any) -> None:
        """Start beating for the queues this worker consumes."""
        settings: Settings = worker.app.conf.alphametic_settings
        ours = list(QUEUES)
        consumed = list(worker.app.amqp.queues.consume_from or ours)
        queues = [q for q in consumed if q in ours] or ours
        self._queues, self._hostname = queues, worker.hostname
        self._client = connect(settings)
        self._thread = threading.Thread(
            target=self._run, args=(settings,), name="alphametic-heartbeat", daemon=True
        )
        self._thread.start()

    def _run(self, settings: Settings) -> None:
        """Beat and sweep until stopped; Redis being away only delays the next round."""
        while not self._stop.is_set():
            try:
                beat(self._client, settings, self._hostname, self._queues)
                reap(self._client, settings)
                resend_lost(self._client, settings)
            except UNREACHABLE as error:
                log.warning("heartbeat failed: %s", error)
            except Exception:  # noqa: BLE001 (the thread must survive anything, and say so)
                log.exception("heartbeat round failed")
            self._stop.wait(settings.heartbeat_interval)

    def stop(self, worker: Any) -> None:
        """Stop beating and withdraw this worker from the heartbeat sets."""
        self._stop.set()
        if self._thread is None:
            return
        self._thread.join(timeout=2)
        settings: Settings = worker.app.conf.alphametic_settings
        try:
            withdraw(self._client, settings, self._hostname, self._queues)
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
