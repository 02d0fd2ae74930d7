"""The registry of live workers: heartbeats per queue, and how many are alive.

Each worker's main process writes its name, scored by the time, into the sorted set of every
queue it consumes (worker/heartbeat.py calls beat() every heartbeat_interval seconds). The
health check counts members seen within the last three intervals: one ZCOUNT per queue
(~0.1 ms) instead of `celery inspect ping`, which waits a full timeout.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import redis

from .keys import Keys
from .model import QUEUES
from .settings import Settings


def alive_since(interval: float) -> float:
    """The time after which a heartbeat counts as recent (three intervals and a second)."""
    return time.time() - 3 * interval - 1


def count_workers(client: redis.Redis, prefix: str, interval: float) -> dict[str, int]:
    """Number of workers per queue whose heartbeat is recent."""
    since = alive_since(interval)
    keys = Keys(prefix)
    with client.pipeline(transaction=False) as pipe:
        for queue in QUEUES:
            pipe.zcount(keys.workers(queue), since, "+inf")
        counts = pipe.execute()
    return {queue: int(n) for queue, n in zip(QUEUES, counts, strict=True)}


def beat(client: redis.Redis, settings: Settings, name: str, queues: Sequence[str]) -> None:
    """Write one heartbeat for every queue and drop members long silent."""
    now = time.time()
    keep = max(60, int(10 * settings.heartbeat_interval))
    keys = Keys(settings.key_prefix)
    with client.pipeline(transaction=False) as pipe:
        for queue in queues:
            key = keys.workers(queue)
            pipe.zadd(key, {name: now})
            pipe.zremrangebyscore(key, "-inf", now - keep)
            pipe.expire(key, keep)
        pipe.execute()


def withdraw(client: redis.Redis, settings: Settings, name: str, queues: Sequence[str]) -> None:
    """Take a stopping worker out of its queues' heartbeat sets."""
    keys = Keys(settings.key_prefix)
    for queue in queues:
        client.zrem(keys.workers(queue), name)
