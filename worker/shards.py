"""Sharded enumeration, the worker's side: splitting a big job, and running one shard.

A job whose estimated search tree (alphametic.estimate) reaches settings.shard_threshold is
split by the digits of the first letters of the search order (alphametic.shards), with the
depth chosen so there are about settings.shard_count shards; each shard's task is the ordinary
enumerate task. Writing the shard records, sending them a few at a time, settling each one
that ends, and how the parent is read and ended as one job, are the store's side:
jobstore/shards.py.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import alphametic
from alphametic.search import NODES_PER_SECOND
from jobstore import Job, Settings, shards
from jobstore.attempt import Attempt
from jobstore.handle import Handle
from jobstore.transitions import Sharded

from .run import Outcome, Run

HANDED_BACK = (Outcome.STOPPED, Outcome.YIELDED, Outcome.STALE)

log = logging.getLogger(__name__)

MAX_DEPTH = 4  # letters fixed per shard at most (the top of the tree is cheap to walk)


def size(
    puzzle: alphametic.Puzzle,
    threshold: float,
    listing: bool = True,
    estimate: float | None = None,
) -> float:
    """The estimated search (reference nodes) when it reaches the threshold, else 0 (0: never).

    A listing also pays for every solution it hands out (alphametic.seconds(enumerate=True)):
    an enumeration of 720,720 solutions whose count takes 20 ms is still seconds of work, which
    shards share. Cheap first, since every enumerate job asks: no estimate when even every
    assignment of distinct digits would stay below it, and a 4-probe estimate far below it
    settles small ones (a full one costs a few milliseconds, more than many small searches):
    the one the store kept with the job (`estimate`, jobstore.lanes.sized) when it has one.
    """
    if threshold <= 0 or alphametic.assignments(puzzle, threshold) < threshold:
        return 0.0
    if estimate is None:
        estimate = alphametic.estimate(puzzle, probes=4, listing=listing)
    if estimate < threshold / 4:
        return 0.0
    nodes = alphametic.seconds(puzzle, enumerate=listing) * NODES_PER_SECOND
    return nodes if nodes >= threshold else 0.0


def plan(
    settings: Settings,
    puzzle: alphametic.Puzzle,
    listing: bool = True,
    estimate: float | None = None,
) -> list[tuple[tuple[int, ...], float]]:
    """The shards (prefix, share) of a big puzzle, or [] when it should run whole (a count
    hands out no solutions: only its search counts); `estimate`: the job's, as kept."""
    nodes = size(puzzle, settings.shard_threshold, listing, estimate)
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


def split(handle: Handle, attempt: Attempt, job: Job) -> bool:
    """Shard the claimed parent job and send its first shards; False = run it whole instead."""
    puzzle = alphametic.parse(job.puzzle, **job.options)
    parts = plan(handle.settings, puzzle, listing=job.mode.stores, estimate=job.estimate)
    return send_shards(handle, attempt, job, parts)


def send_shards(
    handle: Handle,
    attempt: Attempt,
    job: Job,
    parts: Sequence[tuple[tuple[int, ...], float]],
    in_order: bool = False,
) -> bool:
    """Split the claimed parent job into these parts and send its first shards (the biggest
    first, or in the order given: jobstore/shards.split); False (no parts, or a cancel came
    first) = run it whole instead."""
    if not parts:
        return False
    status = shards.split(handle, attempt, job.id, parts, in_order)
    if status is Sharded.CANCELED:
        return False  # the whole run sees the cancel flag at once and ends canceled
    if status is Sharded.STALE:
        return True
    log.info("job %s: split into %d shards", job.id, len(parts))
    # A re-delivered parent ("exists") sends on from where the first delivery stopped.
    shards.dispatch(handle, job.id, job.mode, handle.settings.shard_window)
    shards.release(handle, attempt, job.id)
    return True


def run_shard(handle: Handle, attempt: Attempt, shard: Job, record: dict[str, str]) -> Outcome:
    """Run one claimed shard (its prefix); settle it if it ended.

    The job's time limit counts the search time of all its shards (the parent's `ran`, kept by
    update.lua): the shard stops when that reaches the limit, so sharding spreads the job's
    search over workers without lengthening it, and time its shards wait never counts.
    A run that raised (Redis lost mid-run) settles nothing: the shard is still running, and
    its task claims it again (worker/tasks.py). Settling it "failed" stopped its whole job.
    """
    run = Run(handle.settings, attempt, shard, record)
    run.limit_by(shards.job_ran(handle, shard.parent))
    outcome = run.execute()
    if outcome not in HANDED_BACK:
        shards.settle(handle, shard.id, outcome)
    return outcome
