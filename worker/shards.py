"""Sharded enumeration, the worker's side: splitting a big job, and running one shard.

A job whose estimated search tree (alphametic.estimate) reaches settings.shard_threshold is
split by the digits of the first letters of the search order (alphametic.shards), with the
depth chosen so there are about settings.shard_count shards; each shard's task is the ordinary
enumerate task. The shard records, and how the parent is read and ended as one job, are the
store's side: jobstore/shards.py. Shards are sent biggest first; the broker queue is FIFO.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import redis

import alphametic
from jobstore import Job, Keys, Mode, Settings
from jobstore.attempt import Attempt
from jobstore.lua import scripts_for
from jobstore.shards import finish, parent_of, shard_id, stop

from .run import Run

log = logging.getLogger(__name__)

MAX_DEPTH = 4  # letters fixed per shard at most (the top of the tree is cheap to walk)


def size(puzzle: alphametic.Puzzle, threshold: float) -> float:
    """The estimated search tree (nodes) when it reaches the threshold, else 0 (0: never).

    Cheap first, since every enumerate job asks: no estimate when even every assignment of
    distinct digits would stay below it, and a 4-probe estimate far below it settles small ones
    (a full 24-probe one costs a few milliseconds, more than many small searches).
    """
    if threshold <= 0:
        return 0.0
    assignments, product = 1, 1
    for k in range(len(puzzle.letters)):
        product *= puzzle.base - k
        assignments += product
    if assignments < threshold or alphametic.estimate(puzzle, probes=4) < threshold / 4:
        return 0.0
    nodes = alphametic.estimate(puzzle)
    return nodes if nodes >= threshold else 0.0


def plan(settings: Settings, puzzle: alphametic.Puzzle) -> list[tuple[tuple[int, ...], float]]:
    """The shards (prefix, share) of a big puzzle, or [] when it should run whole."""
    nodes = size(puzzle, settings.shard_threshold)
    if not nodes:
        return []
    # About shard_count shards, but none much below a quarter of the threshold's work: each
    # shard costs a task hand-off, which on a busy machine can take tens of milliseconds.
    target = max(2.0, min(settings.shard_count, nodes / (settings.shard_threshold / 4)))
    best: list[tuple[tuple[int, ...], float]] = []
    for depth in range(1, min(MAX_DEPTH, len(puzzle.letters) - 1) + 1):
        parts = alphametic.shards(puzzle, depth)
        # Nearest to the target on a log scale: dozens per worker, not thousands.
        if not best or abs(math.log(len(parts) / target)) < abs(math.log(len(best) / target)):
            best = parts
        if len(parts) >= target:
            break
    return best if len(best) >= 2 else []


def split(app: Any, settings: Settings, attempt: Attempt, job: Job) -> bool:
    """Shard the claimed parent job and send its shard tasks; False = run it whole instead."""
    puzzle = alphametic.parse(job.puzzle, **job.options)
    parts = plan(settings, puzzle)
    if not parts:
        return False
    client, keys = attempt.client, Keys(settings.key_prefix)
    ids = [shard_id(job.id, i) for i in range(len(parts))]
    args: list[Any] = [attempt.number, repr(time.time()), settings.ttl]
    args += [repr(time.time() + settings.soft_limit(Mode.ENUMERATE)), len(parts)]
    for sid, (digits, share) in zip(ids, parts, strict=True):
        args += [sid, ",".join(map(str, digits)), repr(share)]
    status = scripts_for(client).run("split", [keys.job(job.id), *map(keys.job, ids)], args)
    if status == "canceled":
        return False  # the whole run sees the cancel flag at once and ends canceled
    if status == "stale":
        return True
    shares = [share for _, share in parts]
    if status == "exists":  # a re-delivered parent: resend what never started, in order
        ids = queued(client, settings, job.id)
        shares = [0.0] * len(ids)
    log.info("job %s: split into %d shards", job.id, len(ids))
    # Watched by the sweep like every submitted job: a shard message lost is sent again.
    client.zadd(keys.queued, dict.fromkeys(ids, time.time()))
    client.expire(keys.queued, settings.ttl)
    order = sorted(range(len(ids)), key=lambda i: -shares[i])  # biggest first (stable)
    mode = Mode.ENUMERATE
    for i in order:
        app.send_task(mode.task, args=[ids[i]], queue=mode.queue, expires=settings.ttl)
    scripts_for(client).run("release", [keys.job(job.id), keys.leases], [attempt.number, job.id])
    return True


def queued(client: redis.Redis, settings: Settings, parent: str) -> list[str]:
    """Ids of the parent's shards still queued (in index order)."""
    keys = Keys(settings.key_prefix)
    n = int(client.hget(keys.job(parent), "shards") or 0)
    ids = [shard_id(parent, i) for i in range(n)]
    with client.pipeline(transaction=False) as pipe:
        for sid in ids:
            pipe.hget(keys.job(sid), "state")
        states = pipe.execute()
    return [sid for sid, state in zip(ids, states, strict=True) if state == "queued"]


def run_shard(settings: Settings, attempt: Attempt, shard: Job) -> str:
    """Run one claimed shard (its prefix, the parent's deadline, its share of the cap)."""
    client, keys = attempt.client, Keys(settings.key_prefix)
    deadline = client.hget(keys.job(shard.parent), "deadline")
    # Solutions of earlier shards already known come before this shard's: store only what can
    # still fall within the first max_stored_solutions of the merged list.
    with client.pipeline(transaction=False) as pipe:
        for i in range(shard.index):
            pipe.hmget(keys.job(shard_id(shard.parent, i)), "state", "found")
        before = sum(int(found or 0) for state, found in pipe.execute() if state == "succeeded")
    own = settings.replace(max_stored_solutions=max(0, settings.max_stored_solutions - before))
    attempt.settings = own
    run = Run(own, attempt, shard)
    if deadline:
        run.deadline = min(run.deadline, time.monotonic() + float(deadline) - time.time())
    outcome = "failed"
    try:
        outcome = run.execute()
    finally:
        settle(client, settings, shard.id, outcome)
    return outcome


def settle(client: redis.Redis, settings: Settings, job_id: str, outcome: str) -> str:
    """After a shard ends: finish its parent if every shard is terminal; returns its state.

    A failed shard (time limit, attempts used up) fails the whole job: its siblings are
    stopped at once instead of each running into the same wall.
    """
    parent = parent_of(job_id)
    if parent is None:
        return ""
    if outcome == "failed":
        stop(client, settings, parent, user=False)
    return finish(client, settings, parent)
