"""One delivery of a job to a worker: claiming it and the guarded writes that name the attempt.

The worker runs the search (worker/run.py); this is the Redis side of it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis

from .keys import Keys
from .lua import Arg, scripts_for
from .model import CHUNK, Mode
from .settings import Settings


@dataclass(frozen=True)
class Claim:
    """What claiming a job gave: run it, or why not (done, gone, busy, canceled, failed)."""

    status: str
    attempt: int
    lease: float | None
    holder: str
    record: dict[str, str]  # the job hash after a 'run' claim, else empty


class Attempt:
    """The Redis side of one attempt: claim, then writes that are refused once stale."""

    def __init__(self, client: redis.Redis, settings: Settings, job_id: str) -> None:
        self.client = client
        self.settings = settings
        self.job_id = job_id
        self.number = 0
        self.width = 1  # characters per compact solution (len of the puzzle's letters)
        self.names = Keys(settings.key_prefix)
        self.keys = [
            self.names.job(job_id),
            self.names.solutions(job_id),
            self.names.grid(job_id),
            self.names.leases,
        ]

    def claim(self, holder: str, *, force: bool = False, hard_limit: float | None = None) -> Claim:
        """Atomically start a new attempt (clearing a previous attempt's partial output).

        A previous attempt still marked running after hard_limit seconds was killed by that
        limit: the job then ends failed "time limit" instead of running again.
        """
        if hard_limit is None:
            hard_limit = max(self.settings.hard_limit(mode) for mode in Mode)
        now = time.time()
        lease = now + self.settings.lease_seconds
        args: list[Arg] = [repr(now), repr(lease), holder, self.settings.max_attempts]
        args += [self.settings.ttl, self.job_id, "1" if force else "0", repr(hard_limit)]
        reply = scripts_for(self.client).run("claim", self.keys, [*args, self.names.finished])
        status, attempt, lease_s, held_by = reply[:4]
        flat = reply[4] if len(reply) > 4 else []
        record = dict(zip(flat[::2], flat[1::2], strict=True))
        self.number = int(attempt)
        lease_at = float(lease_s) if lease_s else None
        return Claim(str(status), int(attempt), lease_at, held_by, record)

    def write(
        self,
        fields: dict[str, str],
        grid: dict[str, str],
        solutions: str,
        seq: int,
        final: str = "",
    ) -> int:
        """Write progress, grid cells and one batch of solutions; 0 = refused, 2 = cancel asked.

        `solutions` is the batch's compact solutions concatenated (each len(letters) long).
        The batch is applied only if seq is newer than the last applied one, so resending a
        batch whose reply was lost never duplicates solutions.
        """
        now = time.time()
        args: list[Arg] = [
            self.number,
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
            len(fields),
        ]
        for name, value in fields.items():
            args += [name, value]
        args.append(len(grid))
        for name, value in grid.items():
            args += [name, value]
        return int(scripts_for(self.client).run("update", self.keys, args))

    def poll(self) -> tuple[bool, bool]:
        """Read (still mine, cancel requested) in one round trip."""
        state, attempt, cancel = self.client.hmget(self.keys[0], "state", "attempt", "cancel")
        mine = state == "running" and attempt == str(self.number)
        return mine, bool(cancel)
