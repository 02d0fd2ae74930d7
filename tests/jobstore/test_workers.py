"""The worker registry: heartbeats count a worker alive; a stopping worker reads as gone."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import redis

from jobstore import Keys, Settings
from jobstore.handle import Handle
from jobstore.workers import alive_since, beat, count_workers, silent_after, withdraw
from tests.support.memory import fill, used
from tests.support.processes import RedisServer


def test_a_withdrawn_worker_is_not_counted_but_stays_on_record_as_just_gone(
    fresh_settings: Callable[..., Settings],
) -> None:
    """Withdrawal keeps the name, with a last beat reading as silent since now (resend.lua)."""
    settings = fresh_settings(heartbeat_interval=0.5)
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    keys = Keys(settings.key_prefix)
    beat(Handle.of(client, settings), "w1@a", ["solve", "enumerate"])
    beat(Handle.of(client, settings), "w2@b", ["solve"])
    counted = count_workers(client, settings.key_prefix, settings.heartbeat_interval)
    assert (counted["solve"], counted["enumerate"]) == (2, 1)
    before = time.time()
    withdraw(Handle.of(client, settings), "w1@a", ["solve", "enumerate"])
    withdraw(Handle.of(client, settings), "never-beat@c", ["solve"])  # not added by a withdrawal
    counted = count_workers(client, settings.key_prefix, settings.heartbeat_interval)
    assert (counted["solve"], counted["enumerate"]) == (1, 0)
    for queue in ("solve", "enumerate"):
        score = client.zscore(keys.workers(queue), "w1@a")
        silence = silent_after(settings.heartbeat_interval)
        assert score is not None and before - silence - 0.01 <= score < alive_since(0.5)
    assert client.zscore(keys.workers("solve"), "never-beat@c") is None
    client.close()


def test_a_worker_beats_and_withdraws_at_the_memory_limit(
    settings: Settings, redis_factory: Callable[..., RedisServer]
) -> None:
    """Redis at its maxmemory (noeviction) refuses plain writes, and once refused every
    script not declared allow-oom: a worker waiting out a full Redis still beats (it is not
    judged gone) and a stopping one still withdraws."""
    server = redis_factory()
    mine = settings.replace(redis_url=server.url, heartbeat_interval=0.5)
    client = redis.Redis.from_url(server.url, decode_responses=True)
    keys = Keys(mine.key_prefix)
    beat(Handle.of(client, mine), "w1@a", ["solve"])
    first = client.zscore(keys.workers("solve"), "w1@a")
    client.config_set("maxmemory", str(used(client) + 256 * 1024))
    fill(client, "w")
    with pytest.raises(redis.exceptions.OutOfMemoryError):  # what a beat was: refused
        client.zadd(keys.workers("solve"), {"w1@a": time.time()})
    time.sleep(0.01)
    beat(Handle.of(client, mine), "w1@a", ["solve"])
    beaten = client.zscore(keys.workers("solve"), "w1@a")
    assert first is not None and beaten is not None and beaten > first
    assert count_workers(client, mine.key_prefix, 0.5)["solve"] == 1
    withdraw(Handle.of(client, mine), "w1@a", ["solve"])
    assert count_workers(client, mine.key_prefix, 0.5)["solve"] == 0
    client.close()
