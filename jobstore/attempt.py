"""One run of a job on a worker, the Redis side: the claim, guarded writes, handing it back.

A claim starts a run (numbered: `claims`, and named: its token "claims:nonce", stored as
`run`); every write of the run names its token, so a run that lost the job (taken over after
its lease, or handed back, or its claim lost in a failover and the number handed out again)
is refused. Attempts count runs lost with their worker, not runs a stopping or yielding worker
handed back. The worker runs the search (worker/run.py).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from . import transitions
from .handle import Handle
from .lanes import MISJUDGED_MEMORY, turn_keys
from .messages import task_message
from .model import CHUNK, Mode, State
from .transitions import Claimed, Kept, Written


@dataclass(frozen=True)
class Claim:
    """What claiming a job gave: run it, or why not (done, gone, busy, canceled, failed)."""

    status: Claimed
    attempt: int
    lease: float | None
    holder: str
    record: dict[str, str]  # the job hash after a 'run' claim, else empty


class Attempt:
    """The Redis side of one run: claim, writes refused once stale, hand-back."""

    def __init__(self, handle: Handle, job_id: str) -> None:
        self.client = handle.client
        self.settings = handle.settings
        self.scripts = handle.scripts
        self.job_id = job_id
        self.number = 0  # the attempt (runs lost with their worker, plus one)
        self.claims = 0  # this run's claim number
        self.token = ""  # this run's name: every write names it, the final one stores it
        self.width = 1  # characters per compact solution (len of the puzzle's letters)
        self.lanes: list[str] = []  # waiting sets of the lanes whose jobs this run yields to
        # A shard's: its whole job's search time (all shards) as of the last write, else None.
        self.job_ran: float | None = None
        self.names = handle.keys

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
        # The job leaves the waiting set of its queue's lanes (its mode: the task's).
        waiting = self.names.waitings(mode) if mode is not None else []
        nonce = uuid.uuid4().hex[:12]
        claim = transitions.Claim(
            self.names, self.job_id, now, now + self.settings.lease_seconds, holder,
            self.settings.max_attempts, self.settings.ttl, force, hard_limit, CHUNK, soft_limit,
            shared, waiting, nonce,
        )  # fmt: skip
        reply = self.scripts.call(claim)
        status, attempt, lease_s, held_by = reply[:4]
        status = Claimed(status)
        flat = reply[4] if len(reply) > 4 else []
        record = dict(zip(flat[::2], flat[1::2], strict=True))
        self.number = int(attempt)
        if status is Claimed.RUN:
            self.claims = int(record.get("claims") or 0)
            self.token = record.get("run") or f"{self.claims}:{nonce}"
        lease_at = float(lease_s) if lease_s else None
        return Claim(status, int(attempt), lease_at, held_by, record)

    @property
    def guard(self) -> str:
        """What every write of this run names (guard.lua): its token, or (made by hand, no
        claim) its claim number alone."""
        return self.token or str(self.claims)

    def write(
        self,
        fields: dict[str, str],
        grid: dict[str, str],
        solutions: str,
        seq: int,
        final: str = "",
        yield_to: int = 0,
    ) -> Written:
        """Write progress, grid cells and one batch of solutions; returns what update.lua says.

        `solutions` is the batch's compact solutions concatenated (each len(letters) long).
        The batch is applied only if seq is newer than the last applied one, so resending a
        batch whose reply was lost never duplicates solutions. `yield_to`: how many of
        self.lanes count for YIELD. A shard's write adds its search time to its parent's and
        leaves the job's total in self.job_ran.
        """
        now = time.time()
        settings = self.settings
        if final:  # names this run: its final write resent after a lost reply is known
            fields = {**fields, "ended_by": self.token}
        update = transitions.Update(
            self.names, self.job_id, self.guard, now, now + settings.lease_seconds, settings.ttl,
            settings.max_stored_solutions, seq, final, self.width, solutions, CHUNK,
            settings.max_stored_per_client, self.lanes, yield_to, fields, grid,
        )  # fmt: skip
        status, job_ran = self.scripts.call(update)
        if job_ran not in ("", b""):
            self.job_ran = float(job_ran)
        return Written.of(int(status))

    def fail(self, reason: str) -> Written:
        """End the run's job failed for this reason (its final write, refused once the run
        no longer holds the job); its progress and results stay as last written."""
        return self.write({"error": reason}, {}, "", 0, final=State.FAILED.value)

    def store_composed(self, found: list[tuple[str, str]]) -> tuple[Kept, int]:
        """Store a compose run's results, each once by its puzzle text, within the job's cap
        and its client's budget (compose.lua): (refused, written, or truncated: one found no
        room; results stored in all)."""
        settings = self.settings
        store = transitions.Compose(
            self.names, self.job_id, self.guard, settings.ttl, settings.max_compose_results,
            settings.max_stored_per_client, found,
        )  # fmt: skip
        status, stored = self.scripts.call(store)
        return Kept(int(status)), int(stored)

    def renew(self) -> bool:
        """Renew the run's lease alone (renew.lua, run even at Redis's memory limit): a run
        whose writes Redis refuses for lack of memory keeps the job. False: no longer its."""
        until = time.time() + self.settings.lease_seconds
        renew = transitions.Renew(self.names, self.job_id, self.guard, until)
        return bool(self.scripts.call(renew))

    def put_back(
        self, mode: Mode, lane: int, *, front: bool, reason: str, client: str = "",
        misjudged: bool = False,
    ) -> bool:  # fmt: skip
        """Hand the job back to its queue (putback.lua): False when this run no longer holds it.

        At the front: to `lane` itself (a stopping worker's job runs next); else to the lane of
        `lane`'s band where its client takes its turn. `misjudged`: it was estimated small and
        was not (for a while its client's next jobs go to the BIG band, a turn back).
        """
        settings = self.settings
        put_back = transitions.PutBack(
            self.names, self.job_id, self.guard, time.time(),
            task_message(mode, self.job_id, settings.ttl, lane), front, lane, reason,
            settings.ttl, MISJUDGED_MEMORY if misjudged else 0,
            turn_keys(self.names, mode, lane, client, own=front),
        )  # fmt: skip
        return bool(self.scripts.call(put_back))

    def yield_to_lanes_of(self, mode: Mode) -> None:
        """The lanes whose waiting jobs this run yields to: every lane of its mode's queue."""
        self.lanes = self.names.waitings(mode)

    def grid_cells(self) -> dict[str, str]:
        """The job's grid as stored with its checkpoint ("{letter}:{digit}" -> count)."""
        cells: dict[str, str] = self.client.hgetall(self.names.grid(self.job_id))
        return cells

    def poll(self) -> tuple[bool, bool, bool]:
        """Read (still mine, cancel requested, stop requested) in one round trip."""
        state, claims, run, cancel, stop = self.client.hmget(
            self.names.job(self.job_id), "state", "claims", "run", "cancel", "stop"
        )
        mine = state == "running" and claims == str(self.claims)
        mine = mine and (not self.token or run == self.token)  # its claim was not lost
        return mine, bool(cancel), bool(stop)
