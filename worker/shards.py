"""Sharded enumeration, the worker's side: splitting a big job, and running one shard.

A job whose estimated search tree (alphametic.estimate) reaches settings.shard_threshold is
split by the digits of the first letters of the search order (alphametic.shards), with the
depth chosen so there are about settings.shard_count shards; each shard's task is the ordinary
enumerate task. The shard records, and how the parent is read and ended as one job, are the
store's side: jobstore/shards.py. Shards are sent biggest first, a few at a time
(settings.shard_window): each one that ends sends the next, so jobs take turns.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import redis

import alphametic
from alphametic.search import NODES_PER_SECOND
from jobstore import Job, Keys, Mode, Settings
from jobstore.attempt import Attempt
from jobstore.lanes import turn_keys
from jobstore.lua import scripts_for
from jobstore.messages import task_message
from jobstore.model import TURNS
from jobstore.shards import finish, parent_of, shard_id, stop

from .run import STOPPED, YIELDED, Run

HANDED_BACK = (STOPPED, YIELDED, "stale")

log = logging.getLogger(__name__)

MAX_DEPTH = 4  # letters fixed per shard at most (the top of the tree is cheap to walk)


def size(puzzle: alphametic.Puzzle, threshold: float, listing: bool = True) -> float:
    """The estimated search (reference nodes) when it reaches the threshold, else 0 (0: never).

    A listing also pays for every solution it hands out (alphametic.seconds(enumerate=True)):
    an enumeration of 720,720 solutions whose count takes 20 ms is still seconds of work, which
    shards share. Cheap first, since every enumerate job asks: no estimate when even every
    assignment of distinct digits would stay below it, and a 4-probe estimate far below it
    settles small ones (a full one costs a few milliseconds, more than many small searches).
    """
    if threshold <= 0:
        return 0.0
    assignments, product = 1, 1
    for k in range(len(puzzle.letters)):
        product *= puzzle.base - k
        assignments += product
    if assignments < threshold:
        return 0.0
    per_second = NODES_PER_SECOND
    if alphametic.seconds(puzzle, enumerate=listing, probes=4) * per_second < threshold / 4:
        return 0.0
    nodes = alphametic.seconds(puzzle, enumerate=listing) * per_second
    return nodes if nodes >= threshold else 0.0


def plan(
    settings: Settings, puzzle: alphametic.Puzzle, listing: bool = True
) -> list[tuple[tuple[int, ...], float]]:
    """The shards (prefix, share) of a big puzzle, or [] when it should run whole (a count
    hands out no solutions: only its search counts)."""
    nodes = size(puzzle, settings.shard_threshold, listing)
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


def split(settings: Settings, attempt: Attempt, job: Job) -> bool:
    """Shard the claimed parent job and send its first shards; False = run it whole instead."""
    puzzle = alphametic.parse(job.puzzle, **job.options)
    parts = plan(settings, puzzle, listing=job.mode.stores)
    if not parts:
        return False
    client, keys = attempt.client, Keys(settings.key_prefix)
    ids = [shard_id(job.id, i) for i in range(len(parts))]
    order = sorted(range(len(ids)), key=lambda i: -parts[i][1])  # biggest first (stable)
    args: list[Any] = [attempt.claims, repr(time.time()), settings.ttl, len(parts)]
    args += [",".join(ids[i] for i in order), TURNS]
    for sid, (digits, share) in zip(ids, parts, strict=True):
        args += [sid, ",".join(map(str, digits)), repr(share)]
    status = scripts_for(client).run("split", [keys.job(job.id), *map(keys.job, ids)], args)
    if status == "canceled":
        return False  # the whole run sees the cancel flag at once and ends canceled
    if status == "stale":
        return True
    log.info("job %s: split into %d shards", job.id, len(ids))
    # A re-delivered parent ("exists") sends on from where the first delivery stopped.
    dispatch(client, settings, job.id, job.mode, settings.shard_window)
    scripts_for(client).run("release", [keys.job(job.id), keys.leases], [attempt.claims, job.id])
    return True


def dispatch(client: redis.Redis, settings: Settings, parent: str, mode: Mode, count: int) -> int:
    """Send the messages of a sharded job's next `count` shards; returns how many were sent."""
    keys = Keys(settings.key_prefix)
    sent = 0
    while sent < count:
        order, released, owner = client.hmget(keys.job(parent), "order", "released", "client")
        ids = (order or "").split(",")
        index = int(released or 0)
        if not order or index >= len(ids):
            return sent
        message = task_message(mode, ids[index], settings.ttl, TURNS)
        # Its parent's client takes the turn (jobstore/lanes.py).
        shard = [keys.job(parent), keys.queued, keys.job(ids[index])]
        shard += turn_keys(keys, mode, TURNS, owner or "")
        args = [ids[index], message, repr(time.time()), settings.ttl, TURNS]
        status = scripts_for(client).run("dispatch", shard, args)
        if status == 0:
            return sent
        sent += status == 1
    return sent


def run_shard(settings: Settings, attempt: Attempt, shard: Job, record: dict[str, str]) -> str:
    """Run one claimed shard (its prefix); settle it if it ended.

    The job's time limit counts the search time of all its shards (the parent's `ran`, kept by
    update.lua): the shard stops when that reaches the limit, so sharding spreads the job's
    search over workers without lengthening it, and time its shards wait never counts.
    """
    client, keys = attempt.client, Keys(settings.key_prefix)
    job_ran = client.hget(keys.job(shard.parent), "ran")
    run = Run(settings, attempt, shard, record)
    run.limit_by(float(job_ran or 0))
    outcome = "failed"
    try:
        outcome = run.execute()
    finally:
        if outcome not in HANDED_BACK:
            settle(client, settings, shard.id, outcome)
    return outcome


def settle(client: redis.Redis, settings: Settings, job_id: str, outcome: str) -> str:
    """After a shard ends: finish its parent if every shard is terminal, else send the next
    shard; returns the parent's state.

    A failed shard (time limit, attempts used up) fails the whole job: its siblings are
    stopped at once instead of each running into the same wall.
    """
    parent = parent_of(job_id)
    if parent is None:
        return ""
    if outcome == "failed":
        stop(client, settings, parent, user=False)
    state = finish(client, settings, parent)
    if state == "running":
        mode = client.hget(Keys(settings.key_prefix).job(parent), "mode")
        dispatch(client, settings, parent, Mode(mode or Mode.ENUMERATE), 1)
    return state
