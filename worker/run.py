"""Running one attempt of a job: the search, its check hook, batched solutions and progress."""

from __future__ import annotations

import logging
import time
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded

import alphametic
from jobstore import DIGITS, Job, Mode, Settings, State
from jobstore.attempt import Attempt
from jobstore.connection import UNREACHABLE

log = logging.getLogger(__name__)

CANCELED, STALE, TIME_LIMIT = "canceled", "stale", "time limit"
# The final write outlasts a Redis restart: about 30 s of retries, then the lease sweep re-runs.
FINAL_WRITE_TRIES = 10


# bytes(solution) holds raw digits 0..35; this table turns them into compact characters.
TO_TEXT = bytes.maketrans(bytes(range(len(DIGITS))), DIGITS.encode())


class Run:
    """One attempt's search: writes are batched, best-effort for progress, guarded by attempt."""

    def __init__(self, settings: Settings, attempt: Attempt, job: Job) -> None:
        self.settings = settings
        self.attempt = attempt
        self.job = job
        self.puzzle = alphametic.parse(job.puzzle, **job.options)
        self.letters = "".join(self.puzzle.letters)
        attempt.width = len(self.letters)
        self.grid = [[0] * self.puzzle.base for _ in self.letters]
        self.sent_grid: dict[str, str] = {}
        self.pending: list[tuple[int, ...]] = []
        self.inflight: list[tuple[int, str]] = []
        self.seq = 0
        self.found = 0
        self.kept = 0  # solutions handed to Redis for storing (at most the cap)
        self.truncated = False
        self.first: str = ""
        self.outcome: str | None = None
        self.eta: float | None = None
        self.started = self.last_poll = self.last_write = self.last_flush = time.monotonic()
        self.deadline = self.started + settings.soft_limit(job.mode)
        self.search: Any = None
        self.prefix = job.prefix  # a shard's digits for the first search letters

    def execute(self) -> str:
        """Run the search to its end, a cancel, staleness or the time limit; return the state."""
        self.search = alphametic.Search(
            self.puzzle,
            check=self.hook,
            check_interval=min(0.01, self.settings.flush_interval),
            prefix=self.prefix,
        )
        pending, size = self.pending, self.settings.flush_size
        append = pending.append
        try:
            if self.job.mode is Mode.SOLVE:
                for solution in self.search.solutions():
                    append(solution)
                    break
            else:
                # The hot loop: one append per solution; encoding, counting the grid and
                # storing happen per batch in take_batch() and write().
                for solution in self.search.solutions():
                    append(solution)
                    if len(pending) >= size:
                        self.write()  # empties self.pending (the same list) in place
        except SoftTimeLimitExceeded:
            # Celery's soft limit (a backstop to the hook's deadline) interrupted the search.
            self.outcome = TIME_LIMIT
        return self.finish()

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
        keep = min(count, max(0, self.settings.max_stored_solutions - self.kept))
        self.kept += keep
        self.truncated = self.truncated or keep < count
        return joined[: keep * width].decode()

    def hook(self, search: Any) -> bool:
        """The search's check: enforce the deadline, flush, write progress, poll the flag."""
        now = time.monotonic()
        if now >= self.deadline:
            self.outcome = TIME_LIMIT
        elif self.pending and now - self.last_flush >= self.settings.flush_interval:
            self.write()
        elif now - self.last_write >= self.settings.progress_interval:
            self.write()
        elif now - self.last_poll >= self.settings.cancel_poll_interval:
            self.poll()
        return self.outcome is not None

    def poll(self) -> None:
        """Read the cancel flag and our claim (best-effort: Redis away means carry on)."""
        self.last_poll = time.monotonic()
        try:
            mine, cancel = self.attempt.poll()
        except UNREACHABLE as error:
            log.warning("job %s: cancel poll failed: %s", self.job.id, error)
            return
        if not mine:
            self.outcome = STALE
        elif cancel:
            self.outcome = CANCELED

    def fields(self, final: str) -> dict[str, str]:
        """Progress fields of the record as they stand now."""
        progress = 1.0 if final == State.SUCCEEDED else float(self.search.progress)
        fields = {
            "progress": repr(progress),
            "nodes": str(int(self.search.nodes)),
            "found": str(self.found),
            "truncated": "1" if self.truncated else "0",
            "eta": "" if final or self.eta is None else repr(round(self.eta, 3)),
        }
        if final == State.SUCCEEDED and self.job.mode is Mode.SOLVE:
            fields["solution"] = self.first
        if final == State.FAILED:
            fields["error"] = TIME_LIMIT
        return fields

    def update_eta(self) -> None:
        """ETA = elapsed * (1 - f) / f, smoothed against the previous estimate."""
        now = time.monotonic()
        f = float(self.search.progress)
        if f <= 0.0:
            return
        raw = (now - self.started) * (1.0 - f) / f
        if self.eta is None:
            self.eta = raw
        else:
            predicted = max(0.0, self.eta - (now - self.last_write))
            self.eta = 0.7 * predicted + 0.3 * raw

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
        reply is refused by the script instead of storing the batch twice.
        """
        now = time.monotonic()
        # Progress and grid go out at most every progress_interval (and with the final write);
        # a batch flush in between carries only solutions.
        progress_due = bool(final) or now - self.last_write >= self.settings.progress_interval
        if progress_due:
            if not final:
                self.update_eta()
            self.last_write = now
        self.last_poll = now
        if self.pending:
            self.seq += 1
            self.inflight.append((self.seq, self.take_batch()))
            self.last_flush = now
        batches = self.inflight or [(self.seq, "")]
        try:
            for index, (seq, items) in enumerate(batches):
                last = index == len(batches) - 1
                fields = self.fields(final) if progress_due else {}
                grid = self.grid_changes() if progress_due else {}
                status = self.attempt.write(fields, grid, items, seq, final if last else "")
                self.sent_grid.update(grid)
                if self.inflight:
                    self.inflight.pop(0)
                if status == 0:
                    self.outcome = STALE
                    return True
                if status == 2 and self.outcome is None:
                    self.outcome = CANCELED
        except UNREACHABLE as error:
            log.warning("job %s: write failed (will retry): %s", self.job.id, error)
            return False
        return True

    def finish(self) -> str:
        """Write the final state with the last batch; the stale attempt writes nothing."""
        if self.outcome == STALE:
            log.info("job %s: attempt %s is stale, stopping", self.job.id, self.attempt.number)
            return STALE
        final = {
            None: State.SUCCEEDED,
            CANCELED: State.CANCELED,
            TIME_LIMIT: State.FAILED,
        }[self.outcome]
        for try_number in range(FINAL_WRITE_TRIES):
            if self.write(final=final.value):
                return STALE if self.outcome == STALE else final.value
            time.sleep(min(0.2 * 2**try_number, 5.0))
        raise ConnectionError(f"job {self.job.id}: could not write the final state")
