"""One run of a compose job: the engine's compose() from the job's checkpoint, its results
stored as they come, progress in sets of addends done of all, and how the run ends.

The checkpoint is Tally.position, the first set of addends the run has not looked at whole;
every write stores the results found so far first, then the checkpoint, so a resumed run
(a stopped or lost worker, a yield) starts at that set and loses no result. The results of
that set found before the stop come again; the job store keeps each result once, by its
puzzle text (jobstore/compose.py), and the job's `found` is what it stores. A run ends at the
results cap too (truncated, reason "cap"), at its time limit, or canceled, keeping its results.

A list whose candidates would take more than about the shard threshold's second is split into
shards (jobstore/shards.py: written, sent a few at a time, settled and read as one job), each
the range of sets of addends in its `prefix` (start, end); the job's results are its shards'
in order, the order of one whole run, and its time limit counts all their search.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded

from alphametic.compose import Composed, Tally, compose, counted, groups
from alphametic.explain.walkthrough import explain
from alphametic.search import NODES_PER_SECOND
from jobstore import Job, Settings, State, shards
from jobstore.attempt import Attempt
from jobstore.compose import encode
from jobstore.connection import UNREACHABLE
from jobstore.handle import Handle
from jobstore.lanes import misjudged as was_misjudged
from jobstore.lanes import yielding_lanes
from jobstore.model import TURNS, Checkpoint, Progress
from jobstore.transitions import Kept, Written

from .run import (
    CANCELED,
    ENDS,
    FAILED,
    FINAL_WRITE_TRIES,
    STALE,
    STOPPED,
    TIME_LIMIT,
    YIELDED,
    Outcome,
    flags,
)
from .shards import send_shards
from .stopping import stop_requested

log = logging.getLogger(__name__)

# CPU seconds the explanation that rates a result may take (as `alphametic compose` does).
RATE_SECONDS = 1.0
# Candidates (searched or pruned) a worker goes through per second, rating its results
# included, about: 140,000 on the native core for the 150 most frequent English words (ja and
# th lists, with fewer results, go 2.5-10x faster; the pure-Python engine is slower, so its
# jobs split no later): what a list's size is weighed by against the shard threshold.
CANDIDATES_PER_SECOND = 140_000.0
HANDED_BACK = (STOPPED, YIELDED, STALE)


class _Halted(Exception):
    """Raised inside a result's rating when the run must end (its check said so)."""


class ComposeRun:
    """One run of a compose job: results and progress written together, guarded by its claim."""

    def __init__(self, settings: Settings, attempt: Attempt, job: Job, record: dict[str, str]):
        self.settings = settings
        self.attempt = attempt
        self.job = job
        self.words = job.puzzle.split()
        self.options: dict[str, Any] = job.options
        # Jobs stored before the options came have none: words may repeat in their sums.
        self.distinct = bool(self.options.get("distinct_words", False))
        self.count_only = bool(self.options.get("count_only", False))
        # A count's results: those of the sets done, and of its last set so far.
        self.counted = self.in_group = 0
        self.last_group = -1
        self.total = groups(self.words, int(self.options["addends"]), self.distinct)
        # A shard's range of the sets of addends (its prefix), else every one of them.
        self.first, self.end = (job.prefix[0], job.prefix[1]) if job.parent else (0, self.total)
        attempt.yield_to_lanes_of(job.mode)
        checkpoint = Checkpoint.of(record)
        resumed = bool(checkpoint.position)
        self.start = int(checkpoint.position) if resumed else self.first
        self.tally = Tally(position=self.start)
        self.searched_before = int(job.nodes) if resumed else 0
        self.ran_before = checkpoint.ran if resumed else 0.0
        self.stored = job.solutions_found if resumed else 0
        self.pending: list[tuple[str, str]] = []
        # A resumed run's `found` is its checkpoint's: its first write reads what is stored.
        self.synced = not resumed
        self.outcome: Outcome | None = None
        self.full = False  # the results cap is reached: the run ends succeeded, truncated
        self.yield_to = 0
        self.started = self.last_write = self.last_poll = time.monotonic()
        budget = settings.search_budget(job.mode)
        self.deadline = self.started + budget - self.ran_before

    def limit_by(self, job_ran: float) -> None:
        """A shard's limit: what its whole job has left of its search budget, all shards'
        search counted (the parent's `ran`, which each shard's progress write adds to)."""
        budget = self.settings.search_budget(self.job.mode, sharded=True)
        self.deadline = time.monotonic() + budget - job_ran

    @property
    def progress(self) -> float:
        """Share of the sets of addends (a shard: of its range) looked at whole."""
        span = self.end - self.first
        return (self.tally.position - self.first) / span if span > 0 else 1.0

    def execute(self) -> Outcome:
        """Compose to the end of the list or until told otherwise; return what happened."""
        if self.count_only:
            return self.count()
        found = compose(self.words, **self.arguments())
        try:
            for composed in found:
                self.pending.append(self.entry(composed))
                if self.full:
                    break
        except _Halted:
            pass  # the result being rated is found again from the checkpoint (its set's)
        except SoftTimeLimitExceeded:
            self.outcome = FAILED  # Celery's backstop to the deadline interrupted it
        return self.finish()

    def arguments(self) -> dict[str, Any]:
        """The engine's arguments for this run (compose() and counted() take the same)."""
        return {
            "addends": int(self.options["addends"]),
            "base": int(self.options["base"]),
            "leading_zeros": str(self.options["leading_zeros"]),
            "solutions": int(self.options["solutions"]),
            "tally": self.tally,
            "stop": self.check,
            "start": self.start,
            "end": self.end,
            "distinct_words": self.distinct,
        }

    def count(self) -> Outcome:
        """Count the results without storing them (`count_only`): the job's `found` is those
        of the sets of addends before the checkpoint, so a resumed run counts none twice."""
        found = counted(self.words, **self.arguments())
        try:
            for group in found:
                if group != self.last_group:  # the sets before this one are done
                    self.counted += self.in_group
                    self.last_group, self.in_group = group, 0
                self.in_group += 1
        except SoftTimeLimitExceeded:
            self.outcome = FAILED
        return self.finish()

    @property
    def found(self) -> int:
        """Results found so far in the sets before the checkpoint (a count), or stored."""
        if not self.count_only:
            return self.stored
        done = self.in_group if self.tally.position > self.last_group else 0
        return self.stored + self.counted + done

    def entry(self, composed: Composed) -> tuple[str, str]:
        """A result as stored: its puzzle text, and its body with its difficulty."""
        puzzle = composed.puzzle
        difficulty = None
        if len(composed.solutions) == 1:
            rating = explain(puzzle, seconds=RATE_SECONDS, interrupt=self.halt).difficulty
            difficulty = {"score": rating.score, "label": rating.label}
        return puzzle.text, encode(puzzle.text, list(composed.solutions), difficulty)

    def halt(self) -> None:
        """The rating's interrupt hook: the run's check, raising _Halted when it says stop (a
        rating may search for up to RATE_SECONDS)."""
        if self.check():
            raise _Halted

    def check(self) -> bool:
        """Asked between candidates: the deadline, the stop signal, writes and the flags."""
        now = time.monotonic()
        if now >= self.deadline:
            self.outcome = FAILED
        elif stop_requested():
            self.outcome = STOPPED
        elif now - self.last_write >= self.settings.progress_interval:
            self.write()
        elif now - self.last_poll >= self.settings.cancel_poll_interval:
            self.poll()
        return self.outcome is not None or self.full

    def poll(self) -> None:
        """Read the cancel and stop flags and our claim (best-effort: Redis away, carry on)."""
        self.last_poll = time.monotonic()
        self.outcome = flags(self.attempt, self.job.id) or self.outcome

    def fields(self, final: str) -> dict[str, str]:
        """Progress fields of the record as they stand now, with the checkpoint."""
        progress = 1.0 if final == State.SUCCEEDED and not self.full else self.progress
        nodes = self.searched_before + self.tally.searched
        # One found past the cap counts: found > stored says the list was cut (as an
        # enumeration's does; finish.lua reads a sharded job's cut from it).
        found = self.found + (1 if self.full else 0)
        ran = self.ran_before + time.monotonic() - self.started
        if not final:  # with its checkpoint: what the next claim sets back
            eta, limit_at = self.estimate(progress)
            position = str(self.tally.position)
            return Progress(progress, nodes, found, ran, position, eta, limit_at).fields()
        error = TIME_LIMIT if final == State.FAILED else None
        return Progress(progress, nodes, found, ran, error=error).fields()

    def estimate(self, progress: float) -> tuple[float | None, float | None]:
        """(ETA in seconds at this run's pace, epoch time the time limit stops the job when
        that comes first)."""
        now = time.monotonic()
        span = max(self.end - self.first, 1)
        done = progress - (self.start - self.first) / span
        if done <= 0 or now <= self.started:
            return None, None
        eta = (1.0 - progress) / (done / (now - self.started))
        left = max(0.0, self.deadline - now)
        if eta > left:
            return left, time.time() + left
        return eta, None

    def write(self, final: str = "") -> bool:
        """Store the pending results, then progress and the checkpoint; False when Redis
        could not be reached (the results stay pending)."""
        self.last_write = self.last_poll = time.monotonic()
        elapsed = time.monotonic() - self.started
        self.yield_to = yielding_lanes(self.job.lane, elapsed, self.settings.time_slice)
        try:
            if (self.pending or not self.synced) and not self.count_only:
                status, self.stored = self.attempt.store_composed(self.pending)
                self.synced = True
                if status is Kept.REFUSED:
                    self.outcome = STALE
                    return True
                self.pending.clear()
                self.full = self.full or status is Kept.TRUNCATED
            if self.full and not final:
                return True  # the run ends now: its final write follows
            written = self.attempt.write(self.fields(final), {}, "", 0, final, self.yield_to)
            if self.attempt.job_ran is not None:  # a shard: its job's search so far
                self.limit_by(self.attempt.job_ran)
        except UNREACHABLE as error:
            log.warning("job %s: write failed: %s", self.job.id, error)
            return False
        self.react(written)
        return True

    def react(self, status: Written) -> None:
        """Act on what a write said: refused (stale), cancel, stop or yield."""
        if status is Written.REFUSED:
            self.outcome = STALE
        elif status is Written.CANCEL and self.outcome in (None, STOPPED, YIELDED):
            self.outcome = CANCELED
        elif self.outcome is None and status is Written.STOP:
            self.outcome = STOPPED
        elif self.outcome is None and status is Written.YIELD:
            self.outcome = YIELDED

    def finish(self) -> Outcome:
        """End the job, or hand it back with a checkpoint; a stale run writes nothing."""
        if self.outcome == STALE:
            return STALE
        if self.outcome in (STOPPED, YIELDED):
            return self.hand_back()
        final = ENDS[self.outcome]
        for try_number in range(FINAL_WRITE_TRIES):
            if self.write(final=final.value):
                return STALE if self.outcome == STALE else Outcome(final.value)
            time.sleep(min(0.2 * 2**try_number, 5.0))
        raise ConnectionError(f"job {self.job.id}: could not write the final state")

    def hand_back(self) -> Outcome:
        """Write the checkpoint, then put the job back: a stopping worker's to the front of
        its lane, a yielding one's to the back of the turns lane."""
        stopping = self.outcome == STOPPED
        for try_number in range(FINAL_WRITE_TRIES):
            if self.write():
                break
            time.sleep(min(0.2 * 2**try_number, 2.0))
        else:
            return STOPPED  # Redis away: the lease runs out and the sweep re-queues the job
        if self.outcome in (STALE, CANCELED) or self.full:
            return self.finish()
        lane = self.job.lane if stopping else TURNS
        reason = STOPPED if stopping else YIELDED
        try:
            if not self.attempt.put_back(
                self.job.mode, lane, front=stopping, reason=reason, client=self.job.client,
                misjudged=was_misjudged(self.job.lane, stopping),
            ):  # fmt: skip
                return STALE
        except UNREACHABLE:
            return STOPPED  # the lease runs out and the sweep re-queues it
        log.info("job %s: %s at set %s of %s", self.job.id, reason, self.tally.position, self.total)
        return reason


def plan(
    settings: Settings, words: list[str], addends: int, distinct: bool = False
) -> list[tuple[tuple[int, ...], float]]:
    """The shards ((start, end) of the sets of addends, share) of a big list, or [] when it
    should run whole: about shard_count of them, none much below a quarter of the threshold's
    work (each costs a task hand-off), equal in sets (each set has about as many candidates).
    `distinct`: sets of distinct words."""
    total = groups(words, addends, distinct)
    nodes = total * len(words) / CANDIDATES_PER_SECOND * NODES_PER_SECOND
    if settings.shard_threshold <= 0 or nodes < settings.shard_threshold or total < 2:
        return []
    target = max(2.0, min(settings.shard_count, nodes / (settings.shard_threshold / 4)))
    count = min(total, math.ceil(target))
    edges = [total * i // count for i in range(count + 1)]
    return [((lo, hi), (hi - lo) / total) for lo, hi in zip(edges, edges[1:], strict=False)]


def split(handle: Handle, attempt: Attempt, job: Job) -> bool:
    """Shard the claimed compose job and send its shards in list order; False = run it whole."""
    distinct = bool(job.options.get("distinct_words", False))
    parts = plan(handle.settings, job.puzzle.split(), int(job.options["addends"]), distinct)
    return send_shards(handle, attempt, job, parts, in_order=True)


def run_shard(handle: Handle, attempt: Attempt, shard: Job, record: dict[str, str]) -> Outcome:
    """Run one claimed shard (its range of sets of addends); settle it if it ended."""
    run = ComposeRun(handle.settings, attempt, shard, record)
    run.limit_by(shards.job_ran(handle, shard.parent))
    outcome = run.execute()
    if outcome not in HANDED_BACK:
        shards.settle(handle, shard.id, outcome)
    return outcome
