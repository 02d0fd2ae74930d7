"""The one job model: states, modes (with their queue and task), the record, compact solutions.

How a record is laid out in Redis is in jobstore/keys.py; Job.from_hash reads one, and a run
reads its Checkpoint from it and writes its Progress to it: no worker spells a field's name.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
CHUNK = 1000  # solutions per element of the solutions list


class State(StrEnum):
    """Where a job is in its life; the last three are terminal."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"


TERMINAL = frozenset({State.SUCCEEDED, State.FAILED, State.CANCELED})

# Priority lanes of a queue (kombu's priority steps on Redis, all ten of them: worker/
# celery_app.py sets priority_steps; a worker always takes from the lowest-numbered lane that
# has a message). The lanes form three bands: small new jobs go to FIRST's, big new jobs to
# BIG's, shards and jobs that yielded their worker to others take turns in TURNS'. Within a
# band, clients take turns: a job's lane is its band's first plus how many jobs its client
# already has waiting in the band (jobstore/lanes.py), so each client's first waiting job goes
# ahead of every client's second. A stopping worker's job goes back to the front of its lane.
FIRST, BIG, TURNS = 0, 3, 6
LANES = tuple(range(10))
BANDS = ((0, 1, 2), (3, 4, 5), (6, 7, 8, 9))


def band_of(lane: int) -> tuple[int, ...]:
    """The band of lanes a lane belongs to (its first is FIRST, BIG or TURNS)."""
    return next((band for band in BANDS if lane in band), BANDS[-1])


UNFINISHED = frozenset({State.QUEUED, State.RUNNING})


class ResultOrder(StrEnum):
    """How a compose job's results are listed: as first stored, or by difficulty."""

    FOUND = "found"
    EASIEST = "easiest"  # lowest difficulty score first (ties by puzzle text)
    HARDEST = "hardest"  # highest first (ties by puzzle text)


class Mode(StrEnum):
    """What a job computes: the first solution, every solution, their number, or (compose)
    every sum of words from a list with exactly K solutions (jobstore/compose.py).

    Everything that differs by mode derives from here: its queue, its task, its time limits
    (Settings.soft_limit), the API's and OpenAPI's list of modes, health and heartbeats.
    """

    SOLVE = "solve"
    ENUMERATE = "enumerate"
    COUNT = "count"  # every solution counted, none stored: the enumeration's queue and limits
    # Puzzles composed from a word list: the enumeration's queue and limits; its `puzzle` is
    # the word list (space separated), its results are kept apart (jobstore/compose.py).
    COMPOSE = "compose"

    @property
    def queue(self) -> str:
        """The Celery queue of this mode's jobs (and the name of its time limit settings)."""
        return "solve" if self is Mode.SOLVE else "enumerate"

    @property
    def stores(self) -> bool:
        """Whether this mode's jobs store the solutions they find (a count stores none)."""
        return self is not Mode.COUNT

    @property
    def task(self) -> str:
        """The name of the Celery task that runs this mode's jobs (worker/tasks.py)."""
        return f"worker.tasks.{self.value}_job"


def decode(letters: str, text: str) -> dict[str, int]:
    """Decode a compact solution string into letter -> digit."""
    return {letter: DIGITS.index(c) for letter, c in zip(letters, text, strict=True)}


# The Celery queues, each served by its own workers (several modes may share one).
QUEUES = tuple(dict.fromkeys(mode.queue for mode in Mode))


def iso(timestamp: str | float | None) -> str | None:
    """Format an epoch timestamp as ISO-8601 UTC with milliseconds, or None."""
    if timestamp in (None, ""):
        return None
    moment = datetime.fromtimestamp(float(timestamp), UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _float(value: str | None) -> float | None:
    """Parse an optional float field."""
    return None if value in (None, "") else float(value)


@dataclass
class Job:
    """One job as stored in Redis (read-only snapshot)."""

    id: str
    mode: Mode
    puzzle: str
    options: dict[str, Any]
    state: State
    created: float
    started: float | None = None
    finished: float | None = None
    attempt: int = 0
    progress: float = 0.0
    nodes: int = 0
    solutions_found: int = 0
    eta: float | None = None
    error: str | None = None
    letters: str = ""
    solution_text: str = ""
    truncated: bool = False
    cancel_requested: float | None = None
    holder: str = ""
    lease: float | None = None
    # A shard of a sharded enumeration (jobstore/shards.py): its parent, its place in search
    # order, the digits of the first search letters it covers (a compose job's shard: the
    # range start, end of its sets of addends) and its share of the tree.
    parent: str = ""
    index: int = 0
    prefix: tuple[int, ...] = ()
    share: float = 0.0
    # A sharded parent: how many shards it has (its time limit counts their search time, not
    # the clock: there is no deadline; jobstore/shards.py).
    shards: int = 0
    client: str = ""
    lane: int = 0
    claims: int = 0  # runs started so far: the guard every write of a run names
    truncated_reason: str = ""  # "cap" (the job's) or "budget" (its client's)
    deleted: float | None = None  # when its stored solutions were deleted
    clients: int = 0  # how many clients hold it (identical submissions share it; holders.py)
    # The honest view of the end: at its pace now, the job uses up its time limit (search time,
    # carried across runs; a sharded job's shards' together) at limit_at, before it would finish
    # (the worker's estimate; a sharded job's is jobstore.shards.merged's).
    limit_at: float | None = None
    # Its search's estimate in reference nodes, worked out once when it was admitted (None:
    # small, or not worked out whole; lanes.sized): a run's pieces and shards start from it.
    estimate: float | None = None
    # Where a queued job stands (filled in by JobStore.get, not stored).
    queue_position: int | None = None
    expected_start: float | None = None
    read_at: float = field(default_factory=time.time)

    @classmethod
    def from_hash(cls, data: Mapping[str, str]) -> Job:
        """Build a Job from its Redis hash."""
        truncated = data.get("truncated") == "1"
        return cls(
            id=data["id"],
            mode=Mode(data["mode"]),
            puzzle=data["puzzle"],
            options=json.loads(data["options"]),
            state=State(data["state"]),
            created=float(data["created"]),
            started=_float(data.get("started")),
            finished=_float(data.get("finished")),
            attempt=int(data.get("attempt") or 0),
            progress=float(data.get("progress") or 0.0),
            nodes=int(data.get("nodes") or 0),
            solutions_found=int(data.get("found") or 0),
            eta=_float(data.get("eta")),
            error=data.get("error") or None,
            letters=data.get("letters", ""),
            solution_text=data.get("solution", ""),
            truncated=truncated,
            cancel_requested=_float(data.get("cancel")),
            holder=data.get("holder", ""),
            lease=_float(data.get("lease")),
            parent=data.get("parent", ""),
            index=int(data.get("index") or 0),
            prefix=tuple(int(d) for d in data.get("prefix", "").split(",") if d),
            share=float(data.get("share") or 0.0),
            shards=int(data.get("shards") or 0),
            client=data.get("client", ""),
            lane=int(data.get("lane") or 0),
            claims=int(data.get("claims") or 0),
            truncated_reason=data.get("truncated_reason", "") if truncated else "",
            deleted=_float(data.get("deleted")),
            clients=int(data.get("clients") or 0),
            limit_at=_float(data.get("limit_at")),
            estimate=_float(data.get("estimate")),
        )

    @property
    def done(self) -> bool:
        """True when the job is in a terminal state."""
        return self.state in TERMINAL

    @property
    def elapsed(self) -> float | None:
        """Seconds from start to finish (or to now while running); None before it starts."""
        if self.started is None:
            return None
        end = self.finished if self.finished is not None else self.read_at
        return max(0.0, end - self.started)

    @property
    def solution(self) -> dict[str, int] | None:
        """The solution of a succeeded solve job, else None."""
        if self.mode is not Mode.SOLVE or self.state is not State.SUCCEEDED:
            return None
        return decode(self.letters, self.solution_text) if self.solution_text else None

    def to_dict(self) -> dict[str, Any]:
        """The API's status body, with exactly the contract's keys."""
        return {
            "id": self.id,
            "mode": self.mode.value,
            "puzzle": self.puzzle,
            "options": self.options,
            "state": self.state.value,
            "created": iso(self.created),
            "started": iso(self.started),
            "finished": iso(self.finished),
            "attempt": self.attempt,
            "progress": self.progress,
            "nodes": self.nodes,
            "solutions_found": self.solutions_found,
            "elapsed": self.elapsed,
            "eta": self.eta if self.state is State.RUNNING else None,
            "error": self.error,
            "solution": self.solution,
            "truncated": self.truncated,
            "truncated_reason": self.truncated_reason or None,
            "limit_at": iso(self.limit_at) if self.state is State.RUNNING else None,
            "queue_position": self.queue_position,
            "expected_start": iso(self.expected_start),
            "deleted": iso(self.deleted),
            "clients": self.clients,
        }


# The progress fields a checkpoint saves a copy of (cp_*): what the next claim sets back.
CHECKPOINTED = ("progress", "nodes", "ran", "found")


@dataclass(frozen=True)
class Checkpoint:
    """Where a claimed run resumes, read from the record its claim returned (claim.lua set its
    progress, nodes, found and ran back to what the last checkpoint's write showed)."""

    position: str = ""  # `cp`: the run's own text of where it stood ("": it starts over)
    ran: float = 0.0  # `ran`: search time before this run
    stored: int = 0  # `stored_count`: solutions already handed to Redis for storing

    @classmethod
    def of(cls, record: Mapping[str, str]) -> Checkpoint:
        """The checkpoint in a claimed job's record."""
        ran, stored = float(record.get("ran") or 0), int(record.get("stored_count") or 0)
        return cls(record.get("cp") or "", ran, stored)


@dataclass(frozen=True)
class Progress:
    """A run's progress as one of its writes stores it in the record (update.lua).

    With a `checkpoint` (every write of a run but its final one) it carries the ETA too and
    saves the checkpoint: the next claim resumes from that position with exactly the progress,
    nodes, ran and found this write shows.
    """

    progress: float
    nodes: int
    found: int
    ran: float  # search time so far (stored to the millisecond)
    checkpoint: str | None = None  # the position to resume from (Checkpoint.position)
    eta: float | None = None
    limit_at: float | None = None
    solution: str | None = None  # a solve job's compact solution (its final write)
    error: str | None = None  # why the job failed (its final write)

    def fields(self) -> dict[str, str]:
        """The record's fields this write sets."""
        fields = {
            "progress": repr(self.progress),
            "nodes": str(self.nodes),
            "found": str(self.found),
            "ran": repr(round(self.ran, 3)),
        }
        if self.checkpoint is not None:
            fields["eta"] = "" if self.eta is None else repr(round(self.eta, 3))
            fields["limit_at"] = "" if self.limit_at is None else repr(self.limit_at)
            fields["cp"] = self.checkpoint
            fields.update({f"cp_{name}": fields[name] for name in CHECKPOINTED})
        if self.solution is not None:
            fields["solution"] = self.solution
        if self.error is not None:
            fields["error"] = self.error
        return fields


def found_fields(found: int) -> dict[str, str]:
    """The fields of a write carrying a batch of solutions alone: how many were found up to
    it (stored never passes found)."""
    return {"found": str(found)}


@dataclass
class Page:
    """One page of a job's stored solutions."""

    items: list[dict[str, int]]
    total: int
    truncated: bool
    offset: int
    limit: int
