"""One run of a job on a worker, the Redis side: the claim, guarded writes, handing it back.

A claim starts a run (numbered: `claims`); every write of the run names that number, so a run
that lost the job (taken over after its lease, or handed back) is refused. Attempts count runs
lost with their worker, not runs a stopping or yielding worker handed back. The worker runs the
search (worker/run.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis

from .keys import Keys
from .lanes import MISJUDGED_MEMORY, turn_keys
from .lua import Arg, scripts_for
from .messages import task_message
from .model import CHUNK, Mode
from .settings import Settings

# What a write tells the run (update.lua): go on, stop, or hand the job back.
REFUSED, WRITTEN, CANCEL, STOP, YIELD = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Claim:
    """What claiming a job gave: run it, or why not (done, gone, busy, canceled, failed)."""

    status: str
    attempt: int
    lease: float | None
    holder: str
    record: dict[str, str]  # the job hash after a 'run' claim, else empty


class Attempt:
    """The Redis side of one run: claim, writes refused once stale, hand-back."""

    def __init__(self, client: redis.Redis, settings: Settings, job_id: str) -> None:
        self.client = client
        self.settings = settings
        self.job_id = job_id
        self.number = 0  # the attempt (runs lost with their worker, plus one)
        self.claims = 0  # this run's claim number: every write names it
        self.width = 1  # characters per compact solution (len of the puzzle's letters)
        self.lanes: list[str] = []  # waiting sets of the lanes whose jobs this run yields to
        # A shard's: its whole job's search time (all shards) as of the last write, else None.
        self.job_ran: float | None = None
        self.names = Keys(settings.key_prefix)
        self.keys = [
            self.names.job(job_id),
            self.names.solutions(job_id),
            self.names.grid(job_id),
            self.names.leases,
            self.names.stats,
        ]

    def claim(
        self,
        holder: str,
        *,
        force: bool = False,
        hard_limit: float | None = None,
        mode: Mode | None = None,
    ) -> Claim:
        """Atomically start a run, resuming from the job's checkpoint (claim.lua).

        A job taken over from a lost run ends failed "time limit" instead of running again
        only when its search time is used up: the search time it recorded (a shard: its
        parent's, all shards together) reached the soft limit of its mode, or the lost run
        was seen writing until its hard_limit (Celery's) was nearly over, which only a run
        Celery killed there does. Time spent queued, stopped or down never counts.
        """
        modes = [mode] if mode is not None else list(Mode)
        if hard_limit is None:
            # As worker/celery_app.hard_limit: never within the soft limit's backstop.
            limits = self.settings
            hard_limit = max(max(limits.hard_limit(m), limits.soft_limit(m) + 4.0) for m in modes)
        soft_limit = max(self.settings.search_budget(m) for m in modes)
        shared = max(self.settings.search_budget(m, sharded=True) for m in modes)
        now = time.time()
        lease = now + self.settings.lease_seconds
        args: list[Arg] = [repr(now), repr(lease), holder, self.settings.max_attempts]
        args += [self.settings.ttl, self.job_id, "1" if force else "0", repr(hard_limit)]
        args += [self.names.finished, CHUNK, repr(soft_limit), repr(shared)]
        # The job leaves the waiting set of its queue's lanes (its mode: the task's).
        waiting = self.names.waitings(mode) if mode is not None else []
        keys = [*self.keys, self.names.queued, *waiting]
        reply = scripts_for(self.client).run("claim", keys, args)
        status, attempt, lease_s, held_by = reply[:4]
        flat = reply[4] if len(reply) > 4 else []
        record = dict(zip(flat[::2], flat[1::2], strict=True))
        self.number = int(attempt)
        if status == "run":
            self.claims = int(record.get("claims") or 0)
        lease_at = float(lease_s) if lease_s else None
        return Claim(str(status), int(attempt), lease_at, held_by, record)

    def write(
        self,
        fields: dict[str, str],
        grid: dict[str, str],
        solutions: str,
        seq: int,
        final: str = "",
        yield_to: int = 0,
    ) -> int:
        """Write progress, grid cells and one batch of solutions; returns what update.lua says.

        `solutions` is the batch's compact solutions concatenated (each len(letters) long).
        The batch is applied only if seq is newer than the last applied one, so resending a
        batch whose reply was lost never duplicates solutions. `yield_to`: how many of
        self.lanes count for YIELD. A shard's write adds its search time to its parent's and
        leaves the job's total in self.job_ran.
        """
        now = time.time()
        args: list[Arg] = [
            self.claims,
            repr(now),
            repr(now + self.settings.lease_seconds),
            self.settings.ttl,
            self.settings.max_stored_solutions,
            seq,
            self.job_id,
            final,
            self.width,
            solutions,
            CHUNK,
            self.names.finished,
            self.settings.max_stored_per_client,
            yield_to,
            len(fields),
        ]
        for name, value in fields.items():
            args += [name, value]
        args.append(len(grid))
        for name, value in grid.items():
            args += [name, value]
        keys = [*self.keys, *self.lanes[:yield_to]]
        status, job_ran = scripts_for(self.client).run("update", keys, args)
        if job_ran not in ("", b""):
            self.job_ran = float(job_ran)
        return int(status)

    def put_back(
        self, mode: Mode, lane: int, *, front: bool, reason: str, client: str = "",
        misjudged: bool = False,
    ) -> bool:  # fmt: skip
        """Hand the job back to its queue (putback.lua): False when this run no longer holds it.

        At the front: to `lane` itself (a stopping worker's job runs next); else to the lane of
        `lane`'s band where its client takes its turn. `misjudged`: it was estimated small and
        was not (for a while its client's next jobs go to the BIG band, a turn back).
        """
        now = time.time()
        message = task_message(mode, self.job_id, self.settings.ttl, lane)
        turn = turn_keys(self.names, mode, lane, client, own=front)
        keys = [self.keys[0], self.names.leases, self.names.queued, turn[0], self.names.stats]
        keys += turn[1:]
        args: list[Arg] = [self.claims, repr(now), message, "1" if front else "0", lane]
        args += [self.job_id, reason, self.settings.ttl, MISJUDGED_MEMORY if misjudged else 0]
        return bool(scripts_for(self.client).run("putback", keys, args))

    def yield_to_lanes_of(self, mode: Mode) -> None:
        """The lanes whose waiting jobs this run yields to: every lane of its mode's queue."""
        self.lanes = self.names.waitings(mode)

    def grid_cells(self) -> dict[str, str]:
        """The job's grid as stored with its checkpoint ("{letter}:{digit}" -> count)."""
        cells: dict[str, str] = self.client.hgetall(self.names.grid(self.job_id))
        return cells

    def poll(self) -> tuple[bool, bool, bool]:
        """Read (still mine, cancel requested, stop requested) in one round trip."""
        state, claims, cancel, stop = self.client.hmget(
            self.keys[0], "state", "claims", "cancel", "stop"
        )
        mine = state == "running" and claims == str(self.claims)
        return mine, bool(cancel), bool(stop)
