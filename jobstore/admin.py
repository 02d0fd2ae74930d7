"""What an operator asks of the store: jobs listed by state, mode and client; re-queues; figures;
and the count of wrong admin tokens each client address sent (the web's throttle).

Read by web/admin/api.py and web/ops/metrics.py. Every job id is in the sorted set Keys.jobs
(scored by creation time); a record that expired leaves its id behind, so listing prunes such
ids as it meets them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import transitions
from .connection import connect, guarded
from .keys import Keys
from .messages import task_message
from .model import QUEUES, Job, Mode
from .rates import Rate, rate_keys
from .settings import Settings
from .shards import shard_id
from .store import JobStore
from .transitions import Requeued
from .workers import alive_since, count_workers

SCAN_BATCH = 200  # ids read per round trip while listing
SCAN_LIMIT = 10_000  # ids one listing call looks at at most (a filter that rarely matches)
# Wrong admin tokens one client address may send per window before every try it makes, right or
# wrong, is refused unheard until the window ends.
TOKEN_TRIES = Rate(10, 60, "10 per 1 minute")


def jobs_key(keys: Keys) -> str:
    """The sorted set of every job id, scored by creation time."""
    return keys.jobs


def queue_lists(keys: Keys, mode: Mode) -> list[str]:
    """The broker's lists of a mode's messages, the first-served one first."""
    return keys.lanes(mode)


@dataclass(frozen=True)
class Filter:
    """Which jobs a listing shows: any combination of state, mode and client ('' = any)."""

    state: str = ""
    mode: str = ""
    client: str = ""

    def matches(self, record: dict[str, str]) -> bool:
        """Whether a raw job record passes the filter."""
        return all(
            not wanted or record.get(name) == wanted
            for name, wanted in (
                ("state", self.state),
                ("mode", self.mode),
                ("client", self.client),
            )
        )


@dataclass(frozen=True)
class Listing:
    """One page of jobs, newest first, and the cursor of the next page (None at the end)."""

    items: list[dict[str, Any]]
    next: str | None  # the creation time (score) the next page starts at, inclusive
    total: int  # job ids in the set (any state), expired ones not yet pruned included


def describe(record: dict[str, str]) -> dict[str, Any]:
    """A job's status body for operators: the API's, plus its client and holder."""
    body = Job.from_hash(record).to_dict()
    body.update(client=record.get("client", ""), holder=record.get("holder", ""))
    return body


def _records(store: JobStore, before: float) -> Iterator[tuple[float, dict[str, str]]]:
    """(creation time, record) of stored jobs created at or before `before`, newest first.

    Scores, not ranks, are the cursor: new jobs arriving between two pages shift ranks but not
    scores. Ids whose record expired are pruned on the way.
    """
    key = jobs_key(store.keys)
    top, seen = (repr(before) if math.isfinite(before) else "+inf"), 0
    while seen < SCAN_LIMIT:
        rows = store.redis.zrevrangebyscore(key, top, "-inf", 0, SCAN_BATCH, withscores=True)
        if not rows:
            return
        with store.redis.pipeline(transaction=False) as pipe:
            for job_id, _score in rows:
                pipe.hgetall(store.keys.job(job_id))
            records = pipe.execute()
        gone = [job_id for (job_id, _), record in zip(rows, records, strict=True) if not record]
        if gone:
            store.redis.zrem(key, *gone)
        for (_job_id, score), record in zip(rows, records, strict=True):
            if record:
                yield score, record
        seen += len(rows)
        top = f"({rows[-1][1]!r}"  # strictly older than the last one read
        if len(rows) < SCAN_BATCH:
            return


def list_jobs(store: JobStore, where: Filter, cursor: float = math.inf, limit: int = 50) -> Listing:
    """Up to `limit` jobs matching `where`, newest first, created at or before `cursor`."""
    items: list[dict[str, Any]] = []
    following: str | None = None
    for score, record in _records(store, cursor):
        if record.get("parent") or not where.matches(record):
            continue
        if len(items) == limit:
            following = repr(score)
            break
        items.append(describe(_merged(store, record)))
    return Listing(items, following, int(store.redis.zcard(jobs_key(store.keys))))


def _merged(store: JobStore, record: dict[str, str]) -> dict[str, str]:
    """A running sharded parent's record with its shards' progress summed in."""
    if not record.get("shards") or record.get("state") != "running":
        return record
    from .shards import merged

    return merged(store.handle, record)


def requeue(store: JobStore, job_id: str) -> tuple[Requeued, str]:
    """Start a failed job over under the same id: (REQUEUED, mode) or (why not, state)."""
    for _ in range(3):
        fields = store.redis.hmget(store.keys.job(job_id), "mode", "shards", "dedup", "lane")
        mode, shards, dedup, lane = fields
        if mode is None:
            return Requeued.GONE, ""
        ids = [shard_id(job_id, i) for i in range(int(shards or 0))]
        message = task_message(Mode(mode), job_id, store.settings.ttl, int(lane or 0))
        requeue = transitions.Requeue(
            store.keys, job_id, Mode(mode), int(lane or 0), dedup or "", ids, shards or "",
            time.time(), message, store.settings.ttl,
        )  # fmt: skip
        found, detail = store.scripts.call(requeue)
        status = Requeued(found)
        if status is not Requeued.CHANGED:
            return status, str(detail)
    return Requeued.CHANGED, ""


def running_by_holder(store: JobStore) -> dict[str, list[dict[str, Any]]]:
    """Running jobs (those with a lease) grouped by the worker node holding them."""
    job_ids = store.redis.zrange(store.keys.leases, 0, -1)
    with store.redis.pipeline(transaction=False) as pipe:
        for job_id in job_ids:
            pipe.hmget(store.keys.job(job_id), "holder", "mode", "puzzle", "progress", "attempt")
        rows = pipe.execute()
    result: dict[str, list[dict[str, Any]]] = {}
    for job_id, (holder, mode, puzzle, progress, attempt) in zip(job_ids, rows, strict=True):
        if holder is None:
            continue
        node, _, process = (holder or "").partition("|")
        entry = {"id": job_id, "mode": mode, "puzzle": puzzle, "holder": holder,
                 "process": process, "progress": float(progress or 0),
                 "attempt": int(attempt or 0)}  # fmt: skip
        result.setdefault(node, []).append(entry)
    return result


def workers(store: JobStore) -> list[dict[str, Any]]:
    """Every worker node seen recently: its queues, last heartbeat and current jobs."""
    since = alive_since(store.settings.heartbeat_interval)
    running = running_by_holder(store)
    nodes: dict[str, dict[str, Any]] = {}
    for mode in Mode:
        for name, seen in store.redis.zrangebyscore(
            store.keys.workers(mode.queue), since, "+inf", withscores=True
        ):
            node = nodes.setdefault(name, {"name": name, "queues": [], "last_seen": seen})
            node["queues"].append(mode.queue)
            node["last_seen"] = max(node["last_seen"], seen)
    for name, node in nodes.items():
        node["jobs"] = running.get(name, [])
    return sorted(nodes.values(), key=lambda node: str(node["name"]))


def worker_alive(name: str, settings: Settings | None = None) -> bool:
    """Whether worker node `name` sent a heartbeat lately (the compose healthcheck asks)."""
    settings = settings or Settings.from_env()
    client = connect(settings)
    since = alive_since(settings.heartbeat_interval)
    keys = Keys(settings.key_prefix)
    try:
        with client.pipeline(transaction=False) as pipe:
            for queue in QUEUES:
                pipe.zscore(keys.workers(queue), name)
            seen = pipe.execute()
    finally:
        client.close()
    return any(score is not None and float(score) >= since for score in seen)


def queues(store: JobStore) -> dict[str, dict[str, int]]:
    """Per queue: messages waiting in the broker's list and workers alive."""
    alive = count_workers(store.redis, store.prefix, store.settings.heartbeat_interval)
    with store.redis.pipeline(transaction=False) as pipe:
        for mode in Mode:
            for key in queue_lists(store.keys, mode):
                pipe.llen(key)
        lengths = iter(pipe.execute())
    result = {}
    for mode in Mode:
        waiting = sum(int(next(lengths)) for _ in queue_lists(store.keys, mode))
        result[mode.queue] = {"messages": waiting, "workers": alive.get(mode.queue, 0)}
    return result


def redis_figures(store: JobStore) -> dict[str, float]:
    """The storage figures of Redis the system relies on (memory, persistence, replicas)."""
    memory, persistence = store.redis.info("memory"), store.redis.info("persistence")
    replication = store.redis.info("replication")
    figures = {
        "connected_slaves": replication.get("connected_slaves", 0),
        "used_memory": memory.get("used_memory", 0),
        "maxmemory": memory.get("maxmemory", 0),
        "aof_enabled": persistence.get("aof_enabled", 0),
        "aof_last_write_ok": 1 if persistence.get("aof_last_write_status") == "ok" else 0,
        "aof_current_size": persistence.get("aof_current_size", 0),
        "rdb_changes_since_last_save": persistence.get("rdb_changes_since_last_save", 0),
    }
    return {name: float(value) for name, value in figures.items()}


def basic_stats(store: JobStore) -> dict[str, Any]:
    """The figures readable without the transitions' counters (before JobStore.stats exists)."""
    found = queues(store)
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.zcard(store.keys.queued)
        pipe.zcard(store.keys.leases)
        queued, running = pipe.execute()
    return {
        "submitted": {},
        "finished": {},
        "redeliveries": {},
        "rejected": {},
        "histograms": {"duration": {}, "queue_wait": {}, "cancel_latency": {}},
        "jobs": {"queued": int(queued), "running": int(running)},
        "queue_messages": {name: q["messages"] for name, q in found.items()},
        "workers": {name: q["workers"] for name, q in found.items()},
        "redis": redis_figures(store),
    }


def stats(store: JobStore) -> dict[str, Any]:
    """JobStore.stats() when the store has it, else basic_stats; Redis figures added."""
    reader = getattr(store, "stats", None)
    figures: dict[str, Any] = reader() if callable(reader) else basic_stats(store)
    figures.setdefault("redis", {})
    for name, value in redis_figures(store).items():
        figures["redis"].setdefault(name, value)
    return figures


@dataclass(frozen=True)
class TokenTries:
    """A client's refused admin tokens in the current window, and the seconds left in it."""

    count: int
    seconds_left: int

    @property
    def locked(self) -> bool:
        """Whether the client has used up its tries: nothing it sends is checked."""
        return self.count >= TOKEN_TRIES.amount


def _tries_key(store: JobStore, client: str) -> str:
    """The counter of a client's wrong admin tokens (a rate counter of a kind of its own)."""
    return rate_keys(store.prefix, f"admin-token:{client}", [TOKEN_TRIES])[0]


@guarded
def token_tries(store: JobStore, client: str) -> TokenTries:
    """The client's refused admin tokens so far in this window (read only)."""
    key = _tries_key(store, client)
    count, ttl = store.redis.pipeline(transaction=False).get(key).ttl(key).execute()
    return TokenTries(int(count or 0), max(int(ttl), 0))


@guarded
def refuse_token(store: JobStore, client: str) -> TokenTries:
    """Count one refused admin token of the client (a fixed window starts at its first)."""
    key = _tries_key(store, client)
    pipe = store.redis.pipeline(transaction=True)
    pipe.set(key, 0, ex=TOKEN_TRIES.seconds, nx=True).incr(key).ttl(key)
    _, count, ttl = pipe.execute()
    return TokenTries(int(count), max(int(ttl), 1))
