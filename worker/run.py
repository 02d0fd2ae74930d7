"""One run of a job on a worker: the search from its checkpoint, batched writes, and how it ends.

A run ends the job (succeeded; failed at its time limit; canceled by a user), or hands it back
without ending it: when its worker stops (the job goes to the front of its queue) or when
other jobs wait for the worker (it goes to the back, to take turns). Either way the last write
carries a checkpoint (worker/cursor.py) and the next run resumes there, keeping the progress,
counters and solutions stored so far; only a lost worker spends one of the job's attempts.
A run yields only between pieces, or by giving up a piece that loses nothing handed out (the
cursor cuts it finer), so every piece completes however short the time slice.

Every write carries counters a resumed run starts from exactly (the claim sets them back to
the checkpoint's, written with them): progress never below what was shown (a piece searched
again passes no new ground), a count's solutions only of finished pieces (a piece's partial
count is redone), and `found` with every batch of solutions, so stored <= found at any read.
"""

from __future__ import annotations

import logging
import time
from enum import StrEnum
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded

import alphametic
from jobstore import DIGITS, Job, Mode, Settings, State
from jobstore.attempt import Attempt
from jobstore.connection import UNREACHABLE, OutOfMemory
from jobstore.lanes import misjudged as was_misjudged
from jobstore.lanes import yielding_lanes
from jobstore.model import FIRST, TURNS, Checkpoint, Progress, band_of, found_fields
from jobstore.transitions import Written

from .cursor import Cursor, Position
from .stopping import stop_requested

log = logging.getLogger(__name__)


class Outcome(StrEnum):
    """What a run did: the task's result, and the word of the one log line every run ends with."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"  # at its time limit (search time, over all runs of the job)
    CANCELED = "canceled"
    STOPPED = "stopped"  # handed back, not ended: its worker stops
    YIELDED = "yielded"  # handed back, not ended: it takes turns with jobs waiting
    STALE = "stale"  # it lost the job (taken over, or handed back) and wrote nothing more
    SHARDED = "sharded"  # split: its shards are on the queue now


CANCELED, FAILED, STALE = Outcome.CANCELED, Outcome.FAILED, Outcome.STALE
STOPPED, YIELDED = Outcome.STOPPED, Outcome.YIELDED


def flags(attempt: Attempt, job_id: str) -> Outcome | None:
    """What the job's cancel and stop flags and the run's claim say: an ending, or None to go
    on (also when Redis cannot be reached: a poll is best-effort)."""
    try:
        mine, cancel, stop = attempt.poll()
    except UNREACHABLE as error:
        log.warning("job %s: cancel poll failed: %s", job_id, error)
        return None
    if not mine:
        return STALE
    if cancel:
        return CANCELED
    return STOPPED if stop else None


TIME_LIMIT = "time limit"  # the error of a job that failed at its time limit
# The final write outlasts a Redis restart: about 30 s of retries, then the lease sweep re-runs.
FINAL_WRITE_TRIES = 10
WRITE_BACKOFF = 0.1  # seconds before the first retry of a failed write (doubling up to 2 s)
# Solutions a run holds unstored (pending and refused batches) while Redis refuses them for
# lack of memory before its search waits for memory: at most a few MB per run, however long
# Redis stays full (it used to hold up to the job's cap: 1,000,000 solutions).
HELD_MAX = 50_000
ENDS = {None: State.SUCCEEDED, CANCELED: State.CANCELED, FAILED: State.FAILED}

# bytes(solution) holds raw digits 0..35; this table turns them into compact characters.
TO_TEXT = bytes.maketrans(bytes(range(len(DIGITS))), DIGITS.encode())


class Run:
    """One run's search: writes are batched, best-effort for progress, guarded by its claim."""

    def __init__(self, settings: Settings, attempt: Attempt, job: Job, record: dict[str, str]):
        self.settings = settings
        self.attempt = attempt
        self.job = job
        self.puzzle = alphametic.parse(job.puzzle, **job.options)
        self.letters = "".join(self.puzzle.letters)
        attempt.width = len(self.letters)
        attempt.yield_to_lanes_of(job.mode)
        checkpoint = Checkpoint.of(record)
        resume = Position.parse(checkpoint.position, self.puzzle, job.prefix)
        share = job.share if job.parent else 1.0
        # Estimated small when it was submitted (its band is FIRST's).
        small = band_of(job.lane)[0] == FIRST and not job.parent
        listing = job.mode is Mode.ENUMERATE  # its pieces hand out solutions too
        self.cursor = Cursor(self.puzzle, job.prefix, share, resume, small, listing, job.estimate)
        self.grid = [[0] * self.puzzle.base for _ in self.letters]
        self.sent_grid: dict[str, str] = {}
        if resume is not None:
            self.load_grid()
        self.pending: list[tuple[int, ...]] = []
        self.inflight: list[tuple[int, str, int]] = []  # (seq, batch, found up to it)
        self.seq = 0
        self.found = job.solutions_found if resume is not None else 0
        self.kept = checkpoint.stored  # handed to Redis for storing
        self.nodes_before = job.nodes if resume is not None else 0
        self.searched_before = checkpoint.ran if resume is not None else 0.0
        self.first: str = ""
        self.outcome: Outcome | None = None
        self.rate: float | None = None  # progress per second, smoothed
        # Progress shown so far: a resumed run searches its piece again from its start.
        self.shown = job.progress if resume is not None else 0.0
        self.seen = (time.monotonic(), self.progress)
        self.started = self.last_poll = self.last_write = self.last_flush = time.monotonic()
        # The time limit counts search time, over all runs of the job (a shard: limit_by).
        left = settings.soft_limit(job.mode) - self.searched_before
        self.deadline = self.started + left
        self.yield_to = 0  # lanes whose waiting jobs this run gives its worker to
        self.yield_due = False  # a write said to yield: at the next piece boundary
        self.backoff = self.retry_at = 0.0  # after a failed write: no other before retry_at
        self.full = False  # the last write was refused for lack of memory (it waits for it)

    def limit_by(self, job_ran: float) -> None:
        """A shard's limit: what its whole job has left of its search budget (Settings.
        search_budget), all shards' search counted (the parent's `ran`, which every shard's
        progress write adds to). Shards running side by side use it up together, so each
        learns of the others at its next write."""
        budget = self.settings.search_budget(self.job.mode, sharded=True)
        self.deadline = time.monotonic() + budget - job_ran

    def load_grid(self) -> None:
        """Start from the grid counts stored with the checkpoint."""
        cells = self.attempt.grid_cells()
        index = {letter: i for i, letter in enumerate(self.letters)}
        for cell, count in cells.items():
            letter, digit = cell.split(":")
            if letter in index and int(digit) < self.puzzle.base:
                self.grid[index[letter]][int(digit)] = int(count)
                self.sent_grid[cell] = str(count)

    @property
    def progress(self) -> float:
        """Share of the search passed, never below what this job has shown."""
        self.shown = max(self.shown, self.cursor.progress)
        return self.shown

    def pause(self) -> bool:
        """Between pieces: True when the run stops or yields its worker here (the hook runs
        here too: a native search may finish a small piece before its first check)."""
        if self.outcome is None:
            self.hook(self.cursor.search)
        if self.yield_due and self.outcome is None:
            self.outcome = YIELDED
        return self.outcome is not None

    @property
    def searched(self) -> float:
        """Seconds of search of this job over all its runs."""
        return self.searched_before + time.monotonic() - self.started

    def execute(self) -> Outcome:
        """Run the search to its end or until told otherwise; return what happened."""
        interval = min(0.01, self.settings.flush_interval)
        try:
            if self.job.mode is Mode.COUNT:
                for counted in self.cursor.count(self.hook, interval, self.pause):
                    self.found += counted
            else:
                self.collect(interval)
        except SoftTimeLimitExceeded:
            # Celery's soft limit (a backstop to the hook's deadline) interrupted the search.
            self.outcome = FAILED
        return self.finish()

    def collect(self, interval: float) -> None:
        """The hot loop: one append per solution; batches are encoded and stored in write()."""
        pending, size = self.pending, self.settings.flush_size
        append = pending.append
        first_only = self.job.mode is Mode.SOLVE
        for solution in self.cursor.solutions(self.hook, interval, self.pause):
            append(solution)
            if first_only:
                self.cursor.finish()  # the search is over
                return
            if len(pending) >= size:
                self.write()  # empties self.pending (the same list) in place

    def take_batch(self) -> str:
        """Turn pending solutions into one compact string, counting them into the grid."""
        width = len(self.letters)
        raw = b"".join(map(bytes, self.pending))
        self.pending.clear()
        count = len(raw) // width
        for position, row in enumerate(self.grid):
            column = raw[position::width]  # this letter's digit in every solution of the batch
            for digit in range(len(row)):
                row[digit] += column.count(digit)
        joined = raw.translate(TO_TEXT)
        if not self.found and count:
            self.first = joined[:width].decode()
        self.found += count
        if not self.job.mode.stores:
            return ""
        # One more than the cap: update.lua then sees the list cut and names why (the cap, or
        # the client's budget when that cut it first), which this run cannot know.
        keep = min(count, max(0, self.settings.max_stored_solutions + 1 - self.kept))
        self.kept += keep
        return joined[: keep * width].decode()

    def hook(self, search: Any) -> bool:
        """The search's check: deadline, stop signal, flush, progress write, flag poll."""
        if self.full and self.held() >= HELD_MAX:
            self.wait_for_memory()
        now = time.monotonic()
        if now >= self.deadline:
            self.outcome = FAILED
        elif stop_requested():
            self.outcome = STOPPED
        elif self.pending and now - self.last_flush >= self.settings.flush_interval:
            self.write()
        elif now - self.last_write >= self.settings.progress_interval:
            self.write()
        elif now - self.last_poll >= self.settings.cancel_poll_interval:
            self.poll()
        if self.yield_due and self.outcome is None and self.cursor.yield_now():
            self.outcome = YIELDED  # the piece is given up and cut finer: nothing handed out
        return self.outcome is not None

    def held(self) -> int:
        """Solutions found and not stored yet: pending, and in batches Redis has not taken."""
        width = max(1, len(self.letters))
        return len(self.pending) + sum(len(items) for _, items, _ in self.inflight) // width

    def wait_for_memory(self) -> None:
        """Redis refuses the run's batches for lack of memory and it holds HELD_MAX of them:
        the search waits here, its lease kept and cancels read, until Redis takes them. The
        time waited counts neither as search time nor against the job's time limit."""
        since = time.monotonic()
        log.warning(
            "job %s: Redis full, %d solutions held unstored: the search waits for memory",
            self.job.id, self.held(),
        )  # fmt: skip
        while self.full and self.outcome is None:
            time.sleep(1.0)
            self.retry_at = 0.0
            if self.write():  # a refusal renews the lease alone (keep_lease)
                break
            self.poll()
        waited = time.monotonic() - since
        self.started += waited
        self.deadline += waited
        log.info("job %s: the search goes on after %.1f s without memory", self.job.id, waited)

    def poll(self) -> None:
        """Read the cancel and stop flags and our claim (best-effort: Redis away, carry on)."""
        self.last_poll = time.monotonic()
        self.outcome = flags(self.attempt, self.job.id) or self.outcome

    def fields(self, final: str) -> dict[str, str]:
        """Progress fields of the record as they stand now, with the checkpoint."""
        progress = 1.0 if final == State.SUCCEEDED else self.progress
        # A piece's partial count only at the end: a resumed run counts that piece again.
        found = self.found + (self.cursor.partial if final else 0)
        nodes, ran = self.nodes_before + self.cursor.nodes, self.searched
        if not final:  # with its checkpoint: what the next claim sets back
            eta, limit_at = self.estimate(progress)
            position = self.cursor.position().text()
            return Progress(progress, nodes, found, ran, position, eta, limit_at).fields()
        solved = final == State.SUCCEEDED and self.job.mode is Mode.SOLVE
        solution = self.first if solved else None
        error = TIME_LIMIT if final == State.FAILED else None
        return Progress(progress, nodes, found, ran, solution=solution, error=error).fields()

    def estimate(self, progress: float) -> tuple[float | None, float | None]:
        """(ETA in seconds, epoch time the time limit stops the job when it comes first).

        The rate of progress is smoothed, so the ETA does not jump with every write, and the
        ETA never goes past the time limit: a job that will not finish in time says when it
        will stop instead.
        """
        now = time.monotonic()
        then, before = self.seen
        if now - then >= 0.5:
            rate = max(0.0, progress - before) / (now - then)
            self.rate = rate if self.rate is None else 0.7 * self.rate + 0.3 * rate
            self.seen = (now, progress)
        left = max(0.0, self.deadline - now)
        if not self.rate:
            return None, None
        eta = (1.0 - progress) / self.rate
        if eta > left:
            return left, time.time() + left
        return eta, None

    def grid_changes(self) -> dict[str, str]:
        """Grid cells whose count changed since the last successful write (absolute values)."""
        changes = {}
        for letter, row in zip(self.letters, self.grid, strict=True):
            for digit, count in enumerate(row):
                name = f"{letter}:{digit}"
                if count and self.sent_grid.get(name) != str(count):
                    changes[name] = str(count)
        return changes

    def write(self, final: str = "") -> bool:
        """Send pending batches and progress; False when Redis could not be reached.

        Each batch keeps its sequence number until Redis confirms it, so a retry after a lost
        reply is refused by the script instead of storing the batch twice. Progress, grid and
        checkpoint go with the last batch only: a checkpoint is stored with every solution
        before it or not at all.
        """
        now = time.monotonic()
        if not final and now < self.retry_at:
            return False  # Redis refused a moment ago (away, or full): pending batches wait
        # Every batch goes with a checkpoint and the counters up to it: a lost run loses
        # nothing stored, and found, progress and the stored count change together.
        progress_due = (
            bool(final or self.pending) or now - self.last_write >= self.settings.progress_interval
        )
        if progress_due:
            self.last_write = now
            self.yield_to = yielding_lanes(self.job.lane, now - self.started, self.slice)
        self.last_poll = now
        if self.pending:
            self.seq += 1
            batch = self.take_batch()
            self.inflight.append((self.seq, batch, self.found))
            self.last_flush = now
        # A copy: the loop pops each confirmed batch off self.inflight (iterating the list
        # itself skipped every other batch after an outage, and with them the final state).
        batches = list(self.inflight) or [(self.seq, "", self.found)]
        try:
            for index, (seq, items, found) in enumerate(batches):
                last = index == len(batches) - 1
                # Each batch goes with the count of solutions up to it: stored <= found.
                fields = self.fields(final) if progress_due and last else found_fields(found)
                grid = self.grid_changes() if progress_due and last else {}
                status = self.attempt.write(
                    fields, grid, items, seq, final if last else "", self.yield_to if last else 0
                )
                self.sent_grid.update(grid)
                if self.attempt.job_ran is not None:
                    self.limit_by(self.attempt.job_ran)
                if self.inflight:
                    self.inflight.pop(0)
                self.react(status)
                if status is Written.REFUSED:
                    return True
        except UNREACHABLE as error:
            # Away or full (its memory limit): the search goes on and the next write waits a
            # little longer each time, so a full Redis is not asked again at every batch.
            self.backoff = min(2 * self.backoff or WRITE_BACKOFF, 2.0)
            self.retry_at = time.monotonic() + self.backoff
            log.warning(
                "job %s: write failed (will retry in %.1f s): %s", self.job.id, self.backoff, error
            )
            self.full = isinstance(error, OutOfMemory)
            if self.full:
                self.keep_lease()
            return False
        self.backoff = self.retry_at = 0.0
        self.full = False
        return True

    def keep_lease(self) -> None:
        """Redis refused a write for lack of memory: renew the lease alone (that script runs
        at the limit too), so no sweep takes the job over while the run waits for memory."""
        try:
            if not self.attempt.renew():
                self.outcome = STALE  # taken over meanwhile: write nothing more
        except UNREACHABLE as error:
            log.warning("job %s: lease renewal failed: %s", self.job.id, error)

    @property
    def slice(self) -> float:
        """Seconds this run may search before it yields to jobs waiting in its own lane."""
        return self.settings.time_slice

    def react(self, status: Written) -> None:
        """Act on what a write said: refused (stale), cancel, stop or yield."""
        if status is Written.REFUSED:
            self.outcome = STALE
        elif status is Written.CANCEL and self.outcome in (None, STOPPED, YIELDED):
            self.outcome = CANCELED  # a cancel wins over handing the job back
        elif self.outcome is None and status is Written.STOP:
            self.outcome = STOPPED
        elif status is Written.YIELD:
            self.yield_due = True  # at the next piece boundary (or a piece given up: hook)

    def finish(self) -> Outcome:
        """End the job, or hand it back with a checkpoint; a stale run writes nothing."""
        if self.outcome == STALE:
            log.info("job %s: run %s is stale, stopping", self.job.id, self.attempt.claims)
            return STALE
        if self.outcome in (STOPPED, YIELDED):
            return self.hand_back()
        final = ENDS[self.outcome]
        try_number = 0
        while try_number < FINAL_WRITE_TRIES:
            if self.write(final=final.value):
                return STALE if self.outcome == STALE else Outcome(final.value)
            if self.outcome == STALE:
                return STALE  # taken over while it waited for memory
            # Redis full (it answers, its lease kept): wait for memory, however long.
            time.sleep(1.0 if self.full else min(0.2 * 2**try_number, 5.0))
            try_number += 0 if self.full else 1
        raise ConnectionError(f"job {self.job.id}: could not write the final state")

    def hand_back(self) -> Outcome:
        """Write the checkpoint, then put the job back: a stopping worker's to the front of
        its lane, a yielding one's to the back of the turns lane."""
        stopping = self.outcome == STOPPED
        try_number = 0
        while True:
            self.last_write = self.retry_at = 0.0  # a progress write: it carries the checkpoint
            if self.write():
                break
            if self.outcome == STALE:
                return STALE
            if try_number >= FINAL_WRITE_TRIES:
                return STOPPED  # Redis away: the lease runs out and the sweep re-queues the job
            time.sleep(1.0 if self.full else min(0.2 * 2**try_number, 2.0))
            try_number += 0 if self.full else 1
        if self.outcome in (STALE, CANCELED):
            return self.finish()
        # A stopping worker's job runs next; a yielding one takes its client's turn in TURNS.
        lane = self.job.lane if stopping else TURNS
        reason = STOPPED if stopping else YIELDED
        misjudged = was_misjudged(self.job.lane, stopping)
        try:
            if not self.attempt.put_back(
                self.job.mode, lane, front=stopping, reason=reason, client=self.job.client,
                misjudged=misjudged,
            ):  # fmt: skip
                return STALE
        except UNREACHABLE:
            return STOPPED  # the lease runs out and the sweep re-queues it
        log.info("job %s: %s at %s", self.job.id, reason, self.cursor.position().text())
        return reason
