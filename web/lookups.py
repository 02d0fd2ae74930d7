"""What both blueprints need from the job store: lookups and rendered solutions."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

from flask import current_app, g, request

import alphametic
from jobstore import Job, JobStore, Mode, Rate, State, Submission

P = ParamSpec("P")
R = TypeVar("R")

# Seconds a client at the cap of unfinished jobs is told to wait before retrying.
QUEUE_FULL_RETRY = 5


def client_id() -> str:
    """Return the client's identity for the per-client rate limit and cap of unfinished jobs."""
    # The remote address; ProxyFix takes it from X-Forwarded-For only behind
    # ALPHAMETIC_PROXY_HOPS trusted proxies, so clients cannot pick their own identity.
    return request.remote_addr or "127.0.0.1"


def store() -> JobStore:
    """Return the app's JobStore."""
    job_store: JobStore = current_app.extensions["alphametic.store"]
    return job_store


def rates() -> tuple[Rate, ...]:
    """The per-client rates of job creation (ALPHAMETIC_RATE_LIMIT)."""
    configured: tuple[Rate, ...] = current_app.extensions["alphametic.rates"]
    return configured


def queue(submission: Submission, fresh: bool = False) -> Job:
    """Queue an admitted job for this client (from a view marked @charged: the script that
    queues it counts the request). `fresh`: a new run even when an identical job exists
    (dedup skipped, the cap not)."""
    counted = _uncounted_rates()
    return store().queue(submission, client=client_id(), rates=counted, fresh=fresh)


def storage_left() -> int | None:
    """Solutions this client's jobs may still store (None: no storage budget)."""
    return store().storage_left(client_id())


def charged(view: Callable[P, R]) -> Callable[P, R]:
    """Mark a job-creating view: its request counts once against the client's rates, whatever
    it answers (malformed, refused, queued, or an identical job found; RateLimited beyond).

    A view that queues a job has it counted by the script that queues it (queue(): one round
    trip in all, so a frozen Redis costs one timeout, not two); any other answer is counted
    when the view ends, and one that costs work before it answers (an estimate) calls charge()
    first.
    """

    @functools.wraps(view)
    def counted(*args: P.args, **kwargs: P.kwargs) -> R:
        g.alphametic_uncharged = True
        try:
            return view(*args, **kwargs)
        finally:
            charge()

    return counted


def charge() -> None:
    """Count this request against the client's rates now, unless it was counted already."""
    if g.pop("alphametic_uncharged", False):
        store().count_request(client_id(), rates())


def _uncounted_rates() -> Sequence[Rate]:
    """The rates a script queueing this request's job counts it against (none when counted)."""
    return rates() if g.pop("alphametic_uncharged", False) else ()


def valid_id(job_id: str) -> bool:
    """Tell whether the id looks like a uuid4 (anything else cannot name a job)."""
    return canonical_id(job_id) is not None


def canonical_id(job_id: str) -> str | None:
    """The id as the store keeps it (lower case), or None when it is not a job id at all."""
    # Ids are written in lower case, but a uuid is case-insensitive: an id typed or copied in
    # upper case names the same job, so every lookup goes through this spelling.
    try:
        canonical = str(uuid.UUID(job_id))
    except ValueError:
        return None
    return canonical if canonical == job_id.lower() else None


def waited(job: Job, seconds: float) -> Job:
    """The job after waiting up to `seconds` for it to end (at once when no wait slot is free)."""
    if job.done or seconds <= 0:
        return job
    with wait_slot() as free:
        return (store().wait(job.id, seconds) if free else None) or job


@contextmanager
def wait_slot() -> Iterator[bool]:
    """Hold one of this process's slots for a long poll: whether one was free (when none is,
    the process holds its share of waits and the request answers at once: the client polls)."""
    slots = current_app.extensions["alphametic.wait_slots"]
    if int(current_app.config["MAX_WAITERS"]) <= 0 or not slots.acquire(blocking=False):
        yield False
        return
    try:
        yield True
    finally:
        slots.release()


def job_or_none(job_id: str) -> Job | None:
    """Return the job with this id (in either case), or None when it is malformed or unknown."""
    canonical = canonical_id(job_id)
    return store().get(canonical) if canonical is not None else None


@functools.lru_cache(maxsize=256)
def _puzzle(
    text: str, base: int, leading_zeros: str, fixed: tuple[tuple[str, int], ...]
) -> alphametic.Puzzle:
    """Parse a stored job's puzzle once (the job store already validated it)."""
    return alphametic.parse(text, base=base, leading_zeros=leading_zeros, fixed=dict(fixed))


def puzzle_of(job: Job) -> alphametic.Puzzle:
    """Return the engine's Puzzle for a job."""
    options = job.options or {}
    fixed = tuple(sorted((options.get("fixed") or {}).items()))
    return _puzzle(
        job.puzzle,
        int(options.get("base", 10)),
        str(options.get("leading_zeros", "multi-letter")),
        fixed,
    )


def page_items(job: Job, items: Iterable[Mapping[str, int]]) -> list[dict[str, Any]]:
    """Pair every solution with its one-line rendering."""
    items = list(items)
    if not items:
        return []  # nothing to draw (a compose job's `puzzle` is its words: no puzzle to parse)
    puzzle = puzzle_of(job)
    return [
        {"solution": dict(item), "line": alphametic.render_line(puzzle, item)} for item in items
    ]


def answer_of(job: Job, only: Mapping[str, int] | None = None) -> dict[str, Any] | None:
    """Return the drawings of a job's answer (or of an enumeration's only solution)."""
    found = job.solution or only
    if not found:
        return None
    puzzle = puzzle_of(job)
    solution = dict(found)
    return {
        "sum": alphametic.render_sum(puzzle, solution),
        "line": alphametic.render_line(puzzle, solution),
        "letters": [(letter, solution[letter]) for letter in puzzle.letters],
    }


def pager(total: int, asked: int, page_size: int) -> tuple[int, int, int]:
    """(page number clamped to the pages there are, the last page, its offset)."""
    last = max(1, -(-total // page_size))
    page_no = min(max(1, asked), last)
    return page_no, last, (page_no - 1) * page_size


def solution_rows(
    job: Job, items: Iterable[Mapping[str, int]], offset: int
) -> list[tuple[int, list[int]]]:
    """(1-based number, the digit of each letter in the puzzle's order) per solution."""
    letters = puzzle_of(job).letters
    return [(offset + i + 1, [item[letter] for letter in letters]) for i, item in enumerate(items)]


def grid_rows(grid: Mapping[str, list[int]] | None, job: Job) -> dict[str, Any] | None:
    """Lay out letter x digit counts; a digit is marked forced only once the job is complete.

    While it runs (or after a cancel) a digit taken in every solution so far may still be
    joined by others, so nothing is highlighted before the search has covered everything.
    """
    empty = not grid or not any(any(counts) for counts in grid.values())
    if not grid or (empty and (job.done or job.mode is not Mode.ENUMERATE)):
        return None  # an enumeration's is drawn empty while it runs: the script fills it in
    base = int((job.options or {}).get("base", 10))
    complete = job.state is State.SUCCEEDED
    rows = []
    for letter in puzzle_of(job).letters:
        counts = (list(grid.get(letter, [])) + [0] * base)[:base]
        total = sum(counts)
        rows.append((letter, [(count, complete and 0 < total == count) for count in counts]))
    return {"digits": list(range(base)), "rows": rows}
