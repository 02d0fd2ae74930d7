"""The one job model: states, Redis keys, progress, solutions and the cancel flag.

Redis layout (every key under settings.key_prefix, built by key_for(), every key with a TTL):
  {p}:job:{id}            hash: the job record (fields listed in Job.from_hash)
  {p}:job:{id}:solutions  list: chunks of CHUNK compact solutions, concatenated; a compact
                          solution is one base-36 digit per letter of Puzzle.letters, so the
                          n-th solution is at a fixed place (only the last chunk is partial)
  {p}:job:{id}:grid       hash: "{letter}:{digit}" -> solutions with that letter on that digit
  {p}:dedup:{sha256}      string: the job id of an identical submission
  {p}:leases              zset: running job ids scored by lease expiry (for takeover)
  {p}:workers:{queue}     zset: worker hostnames scored by their last heartbeat
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import alphametic

from .config import Settings
from .store import Unavailable, call, connect, guarded

__all__ = [
    "Job",
    "JobStore",
    "Mode",
    "OptionsError",
    "Page",
    "State",
    "Unavailable",
    "decode",
    "encode",
    "key_for",
]

OPTION_NAMES = frozenset({"base", "leading_zeros", "fixed"})
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


class Mode(StrEnum):
    """What a job computes: the first solution, or every solution."""

    SOLVE = "solve"
    ENUMERATE = "enumerate"


class OptionsError(ValueError):
    """The submitted mode or options are not acceptable (bad puzzles raise PuzzleError)."""


def key_for(prefix: str, kind: str, name: str = "") -> str:
    """Build a Redis key: the one place key names are made (kind: job, solutions, ...)."""
    if kind == "job":
        return f"{prefix}:job:{name}"
    if kind in ("solutions", "grid"):
        return f"{prefix}:job:{name}:{kind}"
    if kind in ("dedup", "workers"):
        return f"{prefix}:{kind}:{name}"
    if kind == "leases":
        return f"{prefix}:leases"
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


def normalise(mode: str, puzzle: str, options: Mapping[str, Any] | None) -> tuple[Mode, Any]:
    """Validate mode and options and parse the puzzle (raises OptionsError or PuzzleError)."""
    try:
        checked_mode = Mode(mode)
    except ValueError:
        raise OptionsError(f"mode must be 'solve' or 'enumerate', not {mode!r}") from None
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise OptionsError("options must be an object")
    unknown = sorted(str(k) for k in options if k not in OPTION_NAMES)
    if unknown:
        raise OptionsError(f"unknown option(s): {', '.join(unknown)}")
    kwargs = {k: v for k, v in options.items() if v is not None}
    return checked_mode, alphametic.parse(puzzle, **kwargs)


def fingerprint(mode: Mode, puzzle: Any) -> str:
    """Hash of normalised puzzle text, options and mode: equal for identical submissions."""
    payload = json.dumps([mode.value, puzzle.text, puzzle.options()], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


class JobStore:
    """Submit, read and cancel jobs (web and worker both use this)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.prefix = settings.key_prefix
        self.redis = connect(settings)
        self._app: Any = None

    def key(self, kind: str, name: str = "") -> str:
        """Key of this store's prefix (see key_for)."""
        return key_for(self.prefix, kind, name)

    @guarded
    def submit(self, mode: str, puzzle: str, options: Mapping[str, Any] | None = None) -> Job:
        """Validate and queue a job; an identical live or succeeded job is returned instead."""
        checked_mode, parsed = normalise(mode, puzzle, options)
        dedup = self.key("dedup", fingerprint(checked_mode, parsed))
        new_id = str(uuid.uuid4())
        now = time.time()
        record = {
            "id": new_id,
            "mode": checked_mode.value,
            "puzzle": parsed.text,
            "options": json.dumps(parsed.options(), sort_keys=True),
            "letters": "".join(parsed.letters),
            "state": State.QUEUED.value,
            "created": repr(now),
            "attempt": "0",
            "dedup": dedup,
        }
        existing = self.redis.transaction(
            lambda pipe: self._create(pipe, dedup, record), dedup, value_from_callable=True
        )
        if existing:
            job = self.get(existing)
            if job is not None:
                return job
        self._enqueue(checked_mode, new_id)
        job = self.get(new_id)
        assert job is not None
        return job

    def _create(self, pipe: Any, dedup: str, record: dict[str, str]) -> str | None:
        """Inside WATCH: return a reusable job id, or create the record (None)."""
        old_id = pipe.get(dedup)
        if old_id:
            state = pipe.hget(self.key("job", old_id), "state")
            if state in (State.QUEUED, State.RUNNING, State.SUCCEEDED):
                return str(old_id)
        job_key = self.key("job", record["id"])
        pipe.multi()
        pipe.hset(job_key, mapping=record)
        pipe.expire(job_key, self.settings.ttl)
        pipe.set(dedup, record["id"], ex=self.settings.ttl)
        return None

    def _enqueue(self, mode: Mode, job_id: str) -> None:
        """Send the job's task to its mode's queue (the message expires with the record)."""
        from .celery_app import TASK_NAMES, make_app

        if self._app is None:
            self._app = make_app(self.settings)
        self._app.send_task(
            TASK_NAMES[mode], args=[job_id], queue=mode.value, expires=self.settings.ttl
        )

    @guarded
    def get(self, job_id: str) -> Job | None:
        """The job with this id, or None if unknown or expired."""
        if not isinstance(job_id, str) or not job_id or len(job_id) > 64:
            return None
        data = self.redis.hgetall(self.key("job", job_id))
        return Job.from_hash(data) if data else None

    @guarded
    def solutions(self, job_id: str, offset: int = 0, limit: int = 100) -> Page | None:
        """A page of the stored solutions (offset from the start), or None for unknown ids."""
        found = self.compact(job_id, offset, limit)
        if found is None:
            return None
        letters, texts, total, truncated = found
        items = [decode(letters, text) for text in texts]
        return Page(items, total, truncated, max(0, int(offset)), max(0, int(limit)))

    @guarded
    def compact(self, job_id: str, offset: int = 0, limit: int = 100) -> Any:
        """(letters, compact solution strings, total stored, truncated), or None if unknown."""
        offset, limit = max(0, int(offset)), max(0, int(limit))
        key = self.key("solutions", job_id)
        first, last = offset // CHUNK, (offset + max(limit, 1) - 1) // CHUNK
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(self.key("job", job_id), "letters", "truncated", "state")
            pipe.llen(key)
            pipe.lindex(key, -1)
            pipe.lrange(key, first, last)
            (letters, truncated, state), chunks, tail, texts = pipe.execute()
        if state is None:
            return None
        width = len(letters)
        total = (chunks - 1) * CHUNK + len(tail) // width if chunks else 0
        joined = "".join(texts)
        start = (offset - first * CHUNK) * width
        joined = joined[start : start + limit * width]
        items = [joined[i : i + width] for i in range(0, len(joined), width)]
        return letters, items, total, truncated == "1"

    @guarded
    def grid(self, job_id: str) -> dict[str, list[int]] | None:
        """Letter -> number of solutions per digit (all solutions, even beyond the cap)."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(self.key("job", job_id), "letters", "options")
            pipe.hgetall(self.key("grid", job_id))
            (letters, options), cells = pipe.execute()
        if letters is None:
            return None
        base = int(json.loads(options)["base"])
        result = {letter: [0] * base for letter in letters}
        for cell, count in cells.items():
            letter, digit = cell.split(":")
            if letter in result and int(digit) < base:
                result[letter][int(digit)] = int(count)
        return result

    @guarded
    def cancel(self, job_id: str) -> tuple[Job, bool] | None:
        """Request cancellation; returns the job and whether this call changed anything."""
        from .scripts import CANCEL

        keys = [self.key("job", job_id), self.key("leases")]
        status, changed = self.redis.eval(CANCEL, 2, *keys, repr(time.time()), job_id)
        if status == "gone":
            return None
        job = self.get(job_id)
        return (job, bool(int(changed))) if job is not None else None

    def health(self) -> dict[str, Any]:
        """{"redis": reachable, "workers": {queue: workers with a recent heartbeat}}."""
        from .heartbeat import count_workers

        try:
            call(self.redis.ping)
            workers = call(count_workers, self.redis, self.prefix, self.settings.heartbeat_interval)
        except Unavailable:
            return {"redis": False, "workers": {m.value: 0 for m in Mode}}
        return {"redis": True, "workers": workers}
