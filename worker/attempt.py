"""One delivery of a job to a worker: claiming it and the guarded writes that name the attempt."""

from __future__ import annotations

import functools
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from .config import Settings
from .jobs import CHUNK, key_for
from .scripts import CLAIM, UPDATE


@dataclass(frozen=True)
class Claim:
    """What claiming a job gave: run it, or why not (done, gone, busy, canceled, failed)."""

    status: str
    attempt: int
    lease: float | None
    holder: str
    record: dict[str, str]  # the job hash after a 'run' claim, else empty


def holder_name(node: str) -> str:
    """Who holds a running job: "<celery node>|<machine>|<pid>" (pid of the pool process)."""
    return f"{node}|{socket.gethostname()}|{os.getpid()}"


def holder_is_dead(holder: str) -> bool:
    """True when the holder is a process on this machine that no longer exists (or a zombie)."""
    try:
        _node, machine, pid = holder.rsplit("|", 2)
        if machine != socket.gethostname():
            return False
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (ValueError, PermissionError):
        return False
    return is_zombie(int(pid))


def is_zombie(pid: int) -> bool:
    """True when the process has exited but is not reaped yet (Linux /proc; else False)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # The state letter follows the command name, which is in parentheses and may hold spaces.
    return stat[stat.rfind(")") + 2 : stat.rfind(")") + 3] in ("Z", "X")


@functools.cache
def scripts_for(client: redis.Redis) -> dict[str, Any]:
    """CLAIM and UPDATE registered on a client: EVALSHA, not the script's text, per call."""
    return {"claim": client.register_script(CLAIM), "update": client.register_script(UPDATE)}


class Attempt:
    """The Redis side of one attempt: claim, then writes that are refused once stale."""

    def __init__(self, client: redis.Redis, settings: Settings, job_id: str) -> None:
        self.client = client
        self.settings = settings
        self.job_id = job_id
        self.number = 0
        self.width = 1  # characters per compact solution (len of the puzzle's letters)
        prefix = settings.key_prefix
        self.keys = [
            key_for(prefix, "job", job_id),
            key_for(prefix, "solutions", job_id),
            key_for(prefix, "grid", job_id),
            key_for(prefix, "leases"),
        ]

    def claim(self, holder: str, *, force: bool = False, hard_limit: float | None = None) -> Claim:
        """Atomically start a new attempt (clearing a previous attempt's partial output).

        A previous attempt still marked running after hard_limit seconds was killed by that
        limit: the job then ends failed "time limit" instead of running again.
        """
        if hard_limit is None:
            hard_limit = max(
                self.settings.hard_limit("solve"), self.settings.hard_limit("enumerate")
            )
        now = time.time()
        lease = now + self.settings.lease_seconds
        reply = scripts_for(self.client)["claim"](
            self.keys,
            [
                repr(now),
                repr(lease),
                holder,
                self.settings.max_attempts,
                self.settings.ttl,
                self.job_id,
                "1" if force else "0",
                repr(hard_limit),
                key_for(self.settings.key_prefix, "finished"),
            ],
        )
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
        args: list[str | int | float] = [
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
            key_for(self.settings.key_prefix, "finished"),
            len(fields),
        ]
        for name, value in fields.items():
            args += [name, value]
        args.append(len(grid))
        for name, value in grid.items():
            args += [name, value]
        return int(scripts_for(self.client)["update"](self.keys, args))

    def poll(self) -> tuple[bool, bool]:
        """Read (still mine, cancel requested) in one round trip."""
        state, attempt, cancel = self.client.hmget(self.keys[0], "state", "attempt", "cancel")
        mine = state == "running" and attempt == str(self.number)
        return mine, bool(cancel)
