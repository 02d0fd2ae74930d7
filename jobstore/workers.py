"""The registry of live workers: heartbeats per queue, and how many are alive.

Each worker's main process writes its name, scored by the time, into the sorted set of every
queue it consumes (worker/heartbeat.py calls beat() every heartbeat_interval seconds). The
health check counts members seen within the last three intervals: one ZCOUNT per queue
(~0.1 ms) instead of `celery inspect ping`, which waits a full timeout. A beat is a script
(beat.lua) that runs even when Redis is at its memory limit.

A worker restarted under the same name (`-n`, as compose's restart policy keeps it) is the
same member again, counted once. No sweep judges a message by these heartbeats: a restarted
worker never reads as silent, so a message lost with its first run would have been judged
purged; a message found nowhere is sent again instead (jobstore/sweep.py), and a lost run's
job is taken over by its holder, which names the process (worker/holder.py), not the worker.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import redis

from .handle import Handle
from .keys import Keys
from .model import QUEUES
from .transitions import Beat


def silent_after(interval: float) -> float:
    """Seconds without a heartbeat after which a worker counts as gone (three intervals and a
    second)."""
    return 3 * interval + 1


def alive_since(interval: float) -> float:
    """The time after which a heartbeat counts as recent."""
    return time.time() - silent_after(interval)


def count_workers(client: redis.Redis, prefix: str, interval: float) -> dict[str, int]:
    """Number of workers per queue whose heartbeat is recent."""
    since = alive_since(interval)
    keys = Keys(prefix)
    with client.pipeline(transaction=False) as pipe:
        for queue in QUEUES:
            pipe.zcount(keys.workers(queue), since, "+inf")
        counts = pipe.execute()
    return {queue: int(n) for queue, n in zip(QUEUES, counts, strict=True)}


def beat(handle: Handle, name: str, queues: Sequence[str]) -> None:
    """Write one heartbeat for every queue and drop members long silent (beat.lua: even at
    Redis's memory limit, where a worker waiting out a full Redis must not look gone)."""
    now = time.time()
    keep = max(60, int(10 * handle.settings.heartbeat_interval))
    _run(handle, Beat(handle.keys, name, queues, now, now - keep, keep))


def withdraw(handle: Handle, name: str, queues: Sequence[str]) -> None:
    """Have a stopping worker count as gone at once (readiness): its last heartbeat is set to
    read as silent, and beat() drops it later like any silent member."""
    score = time.time() - silent_after(handle.settings.heartbeat_interval) - 0.001
    _run(handle, Beat(handle.keys, name, queues, score, 0.0, 0, withdraw=True))


def _run(handle: Handle, beat: Beat) -> None:
    """Run a heartbeat's script in a pipeline of its own: a beat needs no replica's
    confirmation (a new master hears from every live worker within one interval)."""
    with handle.client.pipeline(transaction=False) as pipe:
        handle.scripts.call(beat, pipe)
        pipe.execute()
