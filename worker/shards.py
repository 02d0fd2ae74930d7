"""Sharded enumeration: a big enumerate job split into many shard tasks on the enumerate queue.

A job whose estimated search tree (alphametic.estimate) reaches settings.shard_threshold is
split by the digits of the first letters of the search order (alphametic.shards), with the
depth chosen so there are about settings.shard_count shards. Each shard is a job record of its
own, id "{parent}.{index}", with the parent's puzzle plus `parent`, `index`, `prefix` and
`share` fields, so claiming, leases, attempts, batched solutions and the lease sweep all work
for it unchanged; its task is the ordinary enumerate task. The parent record gets `shards`
(their number) and `deadline` (the parent's time limit, which every shard honours), and stays
`running` until every shard is terminal: then settle() writes its final state (failed if any
shard failed, else canceled if any was, else succeeded) and totals. Reads merge the shards:
see worker/shardview.py. Shards are sent biggest first; the broker queue is FIFO.
"""

from __future__ import annotations

import logging
import math
import time
from typing import TYPE_CHECKING, Any

import redis

import alphametic

from .config import Settings
from .records import Job, key_for
from .shardscripts import CANCEL_TREE, FINISH, RELEASE, SPLIT

if TYPE_CHECKING:
    from .attempt import Attempt

log = logging.getLogger(__name__)

MAX_DEPTH = 4  # letters fixed per shard at most (the top of the tree is cheap to walk)


def shard_id(parent: str, index: int) -> str:
    """The id of a parent's index-th shard (in search order)."""
    return f"{parent}.{index}"


def parent_of(job_id: str) -> str | None:
    """The parent's id when job_id names a shard, else None (job ids are uuid4s: no dot)."""
    parent, dot, index = job_id.rpartition(".")
    return parent if dot and parent and index.isdigit() else None


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
    client, prefix = attempt.client, settings.key_prefix
    ids = [shard_id(job.id, i) for i in range(len(parts))]
    args: list[Any] = [attempt.number, repr(time.time()), settings.ttl]
    args += [repr(time.time() + settings.soft_limit("enumerate")), len(parts)]
    for sid, (digits, share) in zip(ids, parts, strict=True):
        args += [sid, ",".join(map(str, digits)), repr(share)]
    keys = [key_for(prefix, "job", job.id), *(key_for(prefix, "job", sid) for sid in ids)]
    status = client.eval(SPLIT, len(keys), *keys, *args)
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
    watched = key_for(prefix, "queued")
    client.zadd(watched, dict.fromkeys(ids, time.time()))
    client.expire(watched, settings.ttl)
    from .celery_app import TASK_NAMES

    order = sorted(range(len(ids)), key=lambda i: -shares[i])  # biggest first (stable)
    for i in order:
        name = TASK_NAMES["enumerate"]
        app.send_task(name, args=[ids[i]], queue="enumerate", expires=settings.ttl)
    client.eval(RELEASE, 2, keys[0], key_for(prefix, "leases"), attempt.number, job.id)
    return True


def queued(client: redis.Redis, settings: Settings, parent: str) -> list[str]:
    """Ids of the parent's shards still queued (in index order)."""
    n = int(client.hget(key_for(settings.key_prefix, "job", parent), "shards") or 0)
    ids = [shard_id(parent, i) for i in range(n)]
    with client.pipeline(transaction=False) as pipe:
        for sid in ids:
            pipe.hget(key_for(settings.key_prefix, "job", sid), "state")
        states = pipe.execute()
    return [sid for sid, state in zip(ids, states, strict=True) if state == "queued"]


def run_shard(settings: Settings, attempt: Attempt, data: dict[str, str]) -> str:
    """Run one claimed shard (its prefix, the parent's deadline, its share of the cap)."""
    from .runner import Run  # runner imports the job model, which imports this module's peers

    client, prefix = attempt.client, settings.key_prefix
    parent, index = data["parent"], int(data["index"])
    deadline = client.hget(key_for(prefix, "job", parent), "deadline")
    # Solutions of earlier shards already known come before this shard's: store only what can
    # still fall within the first max_stored_solutions of the merged list.
    with client.pipeline(transaction=False) as pipe:
        for i in range(index):
            pipe.hmget(key_for(prefix, "job", shard_id(parent, i)), "state", "found")
        before = sum(int(found or 0) for state, found in pipe.execute() if state == "succeeded")
    own = settings.replace(max_stored_solutions=max(0, settings.max_stored_solutions - before))
    attempt.settings = own
    run = Run(own, attempt, Job.from_hash(data))
    run.prefix = tuple(int(d) for d in data["prefix"].split(",") if d)
    if deadline:
        run.deadline = min(run.deadline, time.monotonic() + float(deadline) - time.time())
    outcome = "failed"
    try:
        outcome = run.execute()
    finally:
        settle(client, settings, data["id"], outcome)
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


def stop(client: redis.Redis, settings: Settings, parent: str, *, user: bool) -> tuple[str, int]:
    """Run CANCEL_TREE on a sharded parent: (status, changed); user=True flags the parent too."""
    prefix = settings.key_prefix
    parent_key = key_for(prefix, "job", parent)
    for _ in range(3):
        n = int(client.hget(parent_key, "shards") or 0)
        ids = [shard_id(parent, i) for i in range(n)]
        keys = [parent_key, key_for(prefix, "leases"), *(key_for(prefix, "job", i) for i in ids)]
        status, changed = client.eval(
            CANCEL_TREE, len(keys), *keys, repr(time.time()), n, "1" if user else "0", *ids
        )
        if status != "retry":
            return str(status), int(changed)
    return "running", 0


def finish(client: redis.Redis, settings: Settings, parent: str) -> str:
    """Run FINISH for a parent: its state afterwards (running while a shard is unfinished)."""
    prefix = settings.key_prefix
    parent_key = key_for(prefix, "job", parent)
    for _ in range(3):
        n = int(client.hget(parent_key, "shards") or 0)
        if not n:
            return ""
        ids = [shard_id(parent, i) for i in range(n)]
        keys = [parent_key, key_for(prefix, "leases")]
        for kind in ("job", "solutions", "grid"):
            keys += [key_for(prefix, kind, sid) for sid in ids]
        state = str(
            client.eval(
                FINISH,
                len(keys),
                *keys,
                repr(time.time()),
                n,
                settings.ttl,
                parent,
                settings.max_stored_solutions,
                key_for(prefix, "finished"),
            )  # fmt: skip
        )
        if state != "mismatch":
            return state
    return ""
