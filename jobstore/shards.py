"""The store's side of sharded enumeration: a sharded job read, stopped and ended as one job.

A big enumerate job is split by a worker (worker/shards.py plans the shards, split() here
writes them) into shard records of their own,
id "{parent}.{index}" (shard_id), each a job with `parent`, `index`, `prefix` and `share`, so
claiming, leases, attempts, batched solutions and the lease sweep all work for shards unchanged.
The parent gets `shards` and stays `running` until every shard is terminal; then finish()
writes its final state (failed if any shard failed, else canceled if any was, else succeeded)
and totals. Its `ran` is the search time of all its shards (every shard's progress write adds
its own to it, update.lua): the job's time limit counts that, like a whole job's `ran`, so
sharding spreads a job's search over workers but never lengthens it, and time shards spend
queued, taking turns, stopped or with no worker at all counts nothing.

The merged solution list is the shards' lists concatenated in shard (= search) order, the same
order as an unsharded run. While shards run, a page shows the merged list as far as it is
already known in order: every shard up to the first one not yet succeeded, plus what that one
has stored so far. Solutions of later shards that finished early appear once every shard before
them has; `total` therefore only grows and a page once read never changes (unless the shard at
the edge loses its worker: its re-run starts its part over, as a re-run whole job does). Once
the job has ended canceled or failed, every shard's stored solutions count (still in search
order, so what was read before stays a prefix). The list is cut at max_stored_solutions like
an unsharded one; counts and the grid cover every solution found.

Shards are sent biggest first, a few at a time (settings.shard_window, dispatch()): each one
that ends sends the next (settle()), so jobs take turns.

A run that raises (worker/tasks.py) fails its job as one (fail()): a shard's whole job fails
with its reason, and a split job's shards are stopped.

A big compose job is split the same way (worker/compose.py plans it): each shard's `prefix`
is the range (start, end) of the sets of addends it composes, and its results are kept apart
(jobstore/compose.py reads the job's as its shards' in order).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from . import transitions
from .attempt import Attempt
from .handle import Handle
from .keys import Keys
from .lanes import turn_keys
from .messages import task_message
from .model import CHUNK, TERMINAL, TURNS, Mode, State
from .transitions import CancelFound, Dispatched, Sharded, Written

SHARD_FIELDS = ("state", "progress", "nodes", "found", "share", "truncated_reason")


def shard_id(parent: str, index: int) -> str:
    """The id of a parent's index-th shard (in search order)."""
    return f"{parent}.{index}"


def parent_of(job_id: str) -> str | None:
    """The parent's id when job_id names a shard, else None (job ids are uuid4s: no dot)."""
    parent, dot, index = job_id.rpartition(".")
    return parent if dot and parent and index.isdigit() else None


def shard_keys(keys: Keys, parent: str, n: int, kind: str = "job") -> list[str]:
    """Keys of a parent's n shards (their records, solution lists or grids)."""
    build = getattr(keys, kind)
    return [build(shard_id(parent, i)) for i in range(n)]


def merged(handle: Handle, data: dict[str, str]) -> dict[str, str]:
    """A running sharded parent's record with progress, nodes, found, eta and limit_at of its
    shards.

    The ETA is the search time still needed at the job's rate of progress per second of search,
    spread over the shards running now (at least one); it never passes the time limit: when
    the job's search time left (its budget, Settings.search_budget, less its `ran`) runs out
    first at that pace,
    limit_at says when.
    """
    if data.get("state") != "running":
        return data  # queued (not split yet) or terminal: the record holds the totals
    client, settings = handle.client, handle.settings
    n = int(data["shards"])
    with client.pipeline(transaction=False) as pipe:
        for key in shard_keys(handle.keys, data["id"], n):
            pipe.hmget(key, *SHARD_FIELDS)
        rows = pipe.execute()
    progress = nodes = found = 0.0
    unfinished = running = 0
    reasons = set()
    for state, prog, node_count, found_count, share, why in rows:
        reasons.add(why or "")
        done = state == "succeeded"
        unfinished += state in (None, "queued", "running")
        running += state == "running"
        progress += float(share or 0) * (1.0 if done else float(prog or 0))
        nodes += int(node_count or 0)
        found += int(found_count or 0)
    if not unfinished:  # every shard ended but nobody settled the parent (its worker died)
        finish(handle, data["id"])
        return client.hgetall(handle.keys.job(data["id"])) or data
    progress = min(progress, 1.0 - 2.0**-40)
    out = dict(data, progress=repr(progress), nodes=str(int(nodes)), found=str(int(found)))
    # Cut short, as finish.lua will say: a shard refused to store (the job's cap, or its
    # client's budget), or more were found than the cap; a count stores none by design.
    cut = bool(reasons - {""}) or found > settings.max_stored_solutions
    cut = cut and data.get("mode") != "count"
    out["truncated"] = "1" if cut else "0"
    out["truncated_reason"] = ("budget" if "budget" in reasons else "cap") if cut else ""
    ran, side_by_side = float(data.get("ran") or 0), max(running, 1)
    out["eta"] = out["limit_at"] = ""
    if progress > 0 and ran > 0:
        eta = ran * (1 - progress) / progress / side_by_side
        budget = settings.search_budget(data["mode"], sharded=True)
        left = max(0.0, budget - ran) / side_by_side
        if eta > left:
            eta = left
            out["limit_at"] = repr(time.time() + left)
        out["eta"] = repr(round(eta, 3))
    return out


def visible(handle: Handle, parent: str, n: int, width: int, done: bool) -> list[int]:
    """Solutions of each shard that belong to the merged list as known so far (in order)."""
    with handle.client.pipeline(transaction=False) as pipe:
        for key in shard_keys(handle.keys, parent, n):
            pipe.hmget(key, "state", "found")
        ids = [shard_id(parent, i) for i in range(n)]
        handle.scripts.call(transitions.Stored(handle.keys, ids, width, CHUNK), pipe)
        *rows, stored = pipe.execute()
    counts, room = [], handle.settings.max_stored_solutions
    for (state, found), count in zip(rows, stored, strict=True):
        take = min(int(count), room)
        counts.append(take)
        room -= take
        # While the job runs, the known prefix ends with a shard not succeeded yet, or one that
        # stored fewer than it found (the cap); once it has ended (a cancel or failure leaves
        # gaps) every shard's solutions count, still in search order. Always: up to the cap.
        if not done and (state != "succeeded" or take < int(found or 0)) or room <= 0:
            break
    return counts + [0] * (n - len(counts))


def compact(
    handle: Handle, parent: str, fields: tuple[str, str, str, str], offset: int, limit: int
) -> tuple[str, list[str], int, bool]:
    """(letters, compact solutions of the page, total visible, truncated) of a sharded job."""
    letters, truncated, state, shards = fields
    width, n = len(letters), int(shards)
    done = state in TERMINAL
    counts = visible(handle, parent, n, width, done)
    total = sum(counts)
    end = min(offset + limit, total)
    wanted: list[tuple[int, int]] = []  # (start within the shard's list, solutions taken)
    with handle.client.pipeline(transaction=False) as pipe:
        start_of_shard = 0
        solutions = shard_keys(handle.keys, parent, n, "solutions")
        for key, count in zip(solutions, counts, strict=True):
            lo, hi = max(offset, start_of_shard), min(end, start_of_shard + count)
            if lo < hi:
                first, last = (lo - start_of_shard) // CHUNK, (hi - start_of_shard - 1) // CHUNK
                pipe.lrange(key, first, last)
                wanted.append((lo - start_of_shard - first * CHUNK, hi - lo))
            start_of_shard += count
        chunks = pipe.execute()
    items: list[str] = []
    for (skip, take), texts in zip(wanted, chunks, strict=True):
        joined = "".join(texts)[skip * width : (skip + take) * width]
        items += [joined[i : i + width] for i in range(0, len(joined), width)]
    return letters, items, total, truncated == "1"


def grid(handle: Handle, parent: str, n: int) -> dict[str, int]:
    """The shards' grid cells summed ("{letter}:{digit}" -> count)."""
    with handle.client.pipeline(transaction=False) as pipe:
        for key in shard_keys(handle.keys, parent, n, "grid"):
            pipe.hgetall(key)
        cells: dict[str, int] = {}
        for part in pipe.execute():
            for cell, count in part.items():
                cells[cell] = cells.get(cell, 0) + int(count)
    return cells


def cancel(handle: Handle, job_id: str) -> tuple[CancelFound, int]:
    """Cancel a job, and every shard of it when it is sharded: (status, changed) like CANCEL."""
    if parent_of(job_id) is not None:
        return CancelFound.GONE, 0  # shards are not jobs of the API
    client = handle.client
    job_key = handle.keys.job(job_id)
    if not client.hget(job_key, "shards"):
        cancel = transitions.Cancel(handle.keys, job_id, time.time())
        found, changed = handle.scripts.call(cancel)
        status = CancelFound(found)
        # A split racing with this cancel either saw the flag (and did not split) or left
        # `shards` for this second look.
        if status is not CancelFound.RUNNING or not client.hget(job_key, "shards"):
            return status, int(changed)
        stop(handle, job_id, user=True)
        finish(handle, job_id)
        return status, int(changed)
    status, changed = stop(handle, job_id, user=True)
    finish(handle, job_id)  # every shard may have been queued: then it ends now
    return status, changed


def stop(handle: Handle, parent: str, *, user: bool) -> tuple[CancelFound, int]:
    """Run CANCEL_TREE on a sharded parent: (status, changed); user=True flags the parent too."""
    keys = handle.keys
    for _ in range(3):
        n = int(handle.client.hget(keys.job(parent), "shards") or 0)
        ids = [shard_id(parent, i) for i in range(n)]
        tree = transitions.CancelTree(keys, parent, ids, time.time(), user)
        found, changed = handle.scripts.call(tree)
        status = CancelFound(found)
        if status is not CancelFound.RETRY:
            return status, int(changed)
    return CancelFound.RUNNING, 0


def finish(handle: Handle, parent: str) -> str:
    """Run FINISH for a parent: its state afterwards (running while a shard is unfinished)."""
    keys, settings = handle.keys, handle.settings
    for _ in range(3):
        n = int(handle.client.hget(keys.job(parent), "shards") or 0)
        if not n:
            return ""
        ids = [shard_id(parent, i) for i in range(n)]
        ended = transitions.Finish(
            keys, parent, ids, time.time(), settings.ttl, settings.max_stored_solutions
        )
        state = str(handle.scripts.call(ended))
        if state != "mismatch":
            return state
    return ""


def split(
    handle: Handle,
    attempt: Attempt,
    job_id: str,
    parts: Sequence[tuple[tuple[int, ...], float]],
    in_order: bool = False,
) -> Sharded:
    """Write a claimed parent's shards (prefix, share), in search order: split | exists |
    stale | canceled (split.lua). Send the first of them with dispatch(): the biggest first
    (a search's shards differ a lot in size; the biggest last would end the job late), or
    with `in_order` in the order given (a compose list's, whose shards are all about one size:
    its first results, the commonest words', are listed first and a cancel keeps them)."""
    ids = [shard_id(job_id, i) for i in range(len(parts))]
    order = list(range(len(ids)))
    if not in_order:
        order.sort(key=lambda i: -parts[i][1])  # biggest first (stable)
    shards = [(sid, digits, share) for sid, (digits, share) in zip(ids, parts, strict=True)]
    split = transitions.Split(
        handle.keys, job_id, attempt.guard, time.time(), handle.settings.ttl,
        [ids[i] for i in order], TURNS, shards,
    )  # fmt: skip
    return Sharded(handle.scripts.call(split))


def release(handle: Handle, attempt: Attempt, job_id: str) -> None:
    """Let go of a split parent's lease: its shards run it now (release.lua)."""
    handle.scripts.call(transitions.Release(handle.keys, job_id, attempt.guard))


def dispatch(handle: Handle, parent: str, mode: Mode, count: int) -> int:
    """Send the messages of a sharded job's next `count` shards; returns how many were sent."""
    client, keys, settings = handle.client, handle.keys, handle.settings
    sent = 0
    while sent < count:
        order, released, owner = client.hmget(keys.job(parent), "order", "released", "client")
        ids = (order or "").split(",")
        index = int(released or 0)
        if not order or index >= len(ids):
            return sent
        message = task_message(mode, ids[index], settings.ttl, TURNS)
        # Its parent's client takes the turn (jobstore/lanes.py).
        turn = turn_keys(keys, mode, TURNS, owner or "")
        shard = transitions.Dispatch(
            keys, parent, ids[index], message, time.time(), settings.ttl, TURNS, turn
        )
        status = Dispatched(handle.scripts.call(shard))
        if status is Dispatched.NONE:
            return sent
        sent += status is Dispatched.SENT
    return sent


def job_ran(handle: Handle, parent: str) -> float:
    """A sharded job's search time so far, all shards together (its parent's `ran`)."""
    return float(handle.client.hget(handle.keys.job(parent), "ran") or 0)


def settle(handle: Handle, job_id: str, outcome: str) -> str:
    """After a shard ends: finish its parent if every shard is terminal, else send the next
    shard; returns the parent's state ("" when job_id is no shard).

    A failed shard (time limit, attempts used up) fails the whole job: its siblings are
    stopped at once instead of each running into the same wall.
    """
    parent = parent_of(job_id)
    if parent is None:
        return ""
    if outcome == State.FAILED:  # a run's Outcome, or a Claimed
        stop(handle, parent, user=False)
    state = finish(handle, parent)
    if state == "running":
        mode = handle.client.hget(handle.keys.job(parent), "mode")
        dispatch(handle, parent, Mode(mode or Mode.ENUMERATE), 1)
    return state


def fail(handle: Handle, attempt: Attempt, job_id: str, reason: str) -> Written:
    """End a claimed job failed for this reason as one job: a split job's shards are stopped
    first (their runs end at their next look), and a shard fails its whole job (settle)."""
    if handle.client.hget(handle.keys.job(job_id), "shards"):
        stop(handle, job_id, user=False)
    written = attempt.fail(reason)
    if written is not Written.REFUSED:
        settle(handle, job_id, State.FAILED)
    return written
