"""Job records as stored in Redis: states, modes, the key builder and compact solutions.

worker.jobs re-exports everything here; see its docstring for the Redis layout.
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
UNFINISHED = frozenset({State.QUEUED, State.RUNNING})


class Mode(StrEnum):
    """What a job computes: the first solution, or every solution."""

    SOLVE = "solve"
    ENUMERATE = "enumerate"


def key_for(prefix: str, kind: str, name: str = "") -> str:
    """Build a Redis key: the one place key names are made (kind: job, solutions, ...)."""
    if kind == "job":
        return f"{prefix}:job:{name}"
    if kind in ("solutions", "grid"):
        return f"{prefix}:job:{name}:{kind}"
    if kind in ("dedup", "workers", "client", "rate"):
        return f"{prefix}:{kind}:{name}"
    if kind in ("leases", "queued", "finished"):  # finished: a pub/sub channel, not a key
        return f"{prefix}:{kind}"
    raise ValueError(f"unknown key kind {kind!r}")


def encode(solution: tuple[int, ...] | list[int]) -> str:
    """Encode a compact solution as one base-36 character per letter."""
    return "".join(DIGITS[d] for d in solution)


def decode(letters: str, text: str) -> dict[str, int]:
    """Decode a compact solution string into letter -> digit."""
    return {letter: DIGITS.index(c) for letter, c in zip(letters, text, strict=True)}


def iso(timestamp: str | float | None) -> str | None:
    """Format an epoch timestamp as ISO-8601 UTC with milliseconds, or None."""
    if timestamp in (None, ""):
        return None
    moment = datetime.fromtimestamp(float(timestamp), UTC)  # type: ignore[arg-type]
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _float(value: str | None) -> float | None:
    """Parse an optional float field."""
    return None if value in (None, "") else float(value)  # type: ignore[arg-type]


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
    read_at: float = field(default_factory=time.time)

    @classmethod
    def from_hash(cls, data: Mapping[str, str]) -> Job:
        """Build a Job from its Redis hash."""
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
            truncated=data.get("truncated") == "1",
            cancel_requested=_float(data.get("cancel")),
            holder=data.get("holder", ""),
            lease=_float(data.get("lease")),
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
        }


@dataclass
class Page:
    """One page of a job's stored solutions."""

    items: list[dict[str, int]]
    total: int
    truncated: bool
    offset: int
    limit: int
