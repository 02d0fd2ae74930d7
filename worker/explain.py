"""A worker's run of one job's explanation (jobstore/explanations.py says how it is asked for).

The explanation is worked out here, not in the web process, in the engine's phases
(alphametic.explain.walkthrough): the deductions (deduce(), a bounded amount of work), the
search for the first solution (SEARCH_SECONDS of CPU time at most, over all runs), the count of
the solutions (COUNT_SECONDS at most, likewise), then conclude(). The searches run in pieces,
as a job's do (worker/cursor.py: the same solutions in the same order as one search), so they
can stop between two pieces and resume there.

A new small job waiting in the queue's first band makes the run give way, once the run has
worked MIN_SLICE seconds of CPU (looked at every POLL_SECONDS from then on): between two rounds
of deductions, or between two pieces of a search once one piece ended in the run. The
explanation goes back to the front of its lane with a checkpoint (Progress: the deductions
once done, where the search stands, the CPU time it used, what it found), and the next run
resumes there once the small jobs have had the worker. So every run moves the explanation on,
and a stream of small jobs delays it by about their own work, never starts it over. Only
deductions cut short are done again: whole, by the next run (they are bounded, well under a
second), so they are cut short once at most.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass

import alphametic
from alphametic.explain.walkthrough import (
    COUNT_SECONDS,
    Deduced,
    Explanation,
    conclude,
    deduce,
)
from jobstore import Settings
from jobstore.connection import UNREACHABLE
from jobstore.explanations import TASK, Explaining
from jobstore.handle import handle_for
from jobstore.transitions import ExplainClaimed

from .cursor import PIECE_SECONDS, Cursor, Position

__all__ = ["TASK", "run"]  # worker/tasks.py registers TASK

log = logging.getLogger(__name__)

# The engine's search for the solution (CPU seconds): a puzzle it cannot settle in this time
# is explained as still open ("The search found no solution within 2 s ...").
SEARCH_SECONDS = 2.0
POLL_SECONDS = 0.05  # how often a run that had its slice looks for small jobs waiting
# CPU seconds a run works before it gives way: a small job waits for it about as long as for
# a piece of a big job, and each run moves the explanation on (CPU time: on a loaded machine,
# where the run waits for a core, a slice does as much as on an idle one).
MIN_SLICE = PIECE_SECONDS
INTERVAL = 0.01  # seconds between a search's looks at its budget (the engine's default)


class GiveWay(Exception):
    """A small job waits for this worker: the explanation is given back."""


@dataclass
class Progress:
    """An explanation's checkpoint: what its earlier runs worked out, for the next to resume."""

    deduced: Deduced | None = None  # the deductions, once done
    cut: bool = False  # a run gave way inside the deductions: the next one does them whole
    first: tuple[int, ...] | None = None  # the first solution, once found: the count is on
    at: str = ""  # where the search under way stands (a cursor Position; "": at its start)
    spent: float = 0.0  # CPU seconds the search under way used so far
    counted: int = 0  # solutions the count found in its finished pieces

    def text(self) -> str:
        """As kept with the explanation request (JSON)."""
        deduced = None if self.deduced is None else self.deduced.as_data()
        first = None if self.first is None else list(self.first)
        fields = {"deduced": deduced, "cut": self.cut, "first": first, "at": self.at}
        return json.dumps({**fields, "spent": self.spent, "counted": self.counted})

    @classmethod
    def parse(cls, text: str) -> Progress:
        """From the explanation request; a fresh start when there is none (or it is unreadable)."""
        try:
            data = json.loads(text) if text else {}
            deduced = data.get("deduced")
            first = data.get("first")
            return cls(
                None if deduced is None else Deduced.from_data(deduced),
                bool(data.get("cut", False)),
                None if first is None else tuple(int(d) for d in first),
                str(data.get("at", "")),
                float(data.get("spent", 0.0)),
                int(data.get("counted", 0)),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()


class Run:
    """One run of an explanation: the phases from its checkpoint on, giving way when it must."""

    def __init__(
        self,
        explaining: Explaining,
        puzzle: alphametic.Puzzle,
        progress: Progress,
        slice_: float = MIN_SLICE,
    ) -> None:
        self.explaining = explaining
        self.puzzle = puzzle
        self.progress = progress
        self.slice = slice_  # CPU seconds the run works before it gives way
        self.started = time.process_time()
        self.looked = 0.0  # when the run last looked for small jobs waiting (monotonic)
        self.giving_way = False
        self.budget = 0.0  # CPU seconds the search under way may use, over all runs
        self.since = 0.0  # process time at which the search under way would have started
        self.pauses = 0  # between pieces of the search under way, in this run

    def explain(self) -> Explanation:
        """The explanation, worked out from the checkpoint on (GiveWay: a small job waits,
        self.progress is where it stands)."""
        progress, puzzle = self.progress, self.puzzle
        if progress.deduced is None:
            try:
                progress.deduced = deduce(puzzle, None if progress.cut else self.interrupt)
            except GiveWay:
                progress.cut = True
                raise
        if progress.first is None:
            first, complete = self.first()
            if first is None:
                return conclude(puzzle, progress.deduced, None, 0, complete, SEARCH_SECONDS)
            progress.first = first
        count, complete = self.count()
        return conclude(puzzle, progress.deduced, progress.first, count, complete, SEARCH_SECONDS)

    def first(self) -> tuple[tuple[int, ...] | None, bool]:
        """The search for the first solution, from where it stands: the solution (or None) and
        whether the search ended (False: it ran out of its CPU time)."""
        cursor = self.search(SEARCH_SECONDS)
        found = next(cursor.solutions(self.over, INTERVAL, self.pause), None)
        if found is not None:
            # The count starts over, at the speed measured so far.
            self.progress.at, self.progress.spent = Position((), 0, cursor.rate).text(), 0.0
            return tuple(found), True
        self.check_giving_way(cursor)
        return None, cursor.over

    def count(self) -> tuple[int, bool]:
        """The count of the solutions, from where it stands: how many, and whether that is all
        of them (False: it ran out of its CPU time, the number is a lower bound)."""
        cursor = self.search(COUNT_SECONDS)
        for counted in cursor.count(self.over, INTERVAL, self.pause):
            self.progress.counted += counted
        self.check_giving_way(cursor)
        return self.progress.counted + cursor.partial, cursor.over

    def search(self, budget: float) -> Cursor:
        """The cursor of the search under way, at its checkpoint, with its budget's clock on."""
        self.budget, self.since = budget, time.process_time() - self.progress.spent
        self.pauses = 0
        at = Position.parse(self.progress.at) if self.progress.at else None
        return Cursor(self.puzzle, (), 1.0, at)

    def over(self, _search: object = None) -> bool:
        """The searches' check: True once the search under way has used its CPU time."""
        return time.process_time() - self.since > self.budget

    def pause(self) -> bool:
        """Before each piece: True when the search stops there (out of time, or giving way,
        which it does only once a piece ended in this run: each run moves it on)."""
        self.pauses += 1
        return self.over() or (self.pauses > 1 and self.gives_way())

    def check_giving_way(self, cursor: Cursor) -> None:
        """After a search stopped: if it gave way, keep where it stands and raise GiveWay."""
        if self.giving_way and not cursor.over and not self.over():
            self.progress.at = cursor.position().text()
            self.progress.spent = time.process_time() - self.since
            raise GiveWay

    def interrupt(self) -> None:
        """The deductions' hook: raises GiveWay once the run should give way."""
        if self.gives_way():
            raise GiveWay

    def gives_way(self) -> bool:
        """Whether the run gives way: it worked its slice of CPU, and a small job waits."""
        if not self.giving_way and time.process_time() - self.started >= self.slice:
            now = time.monotonic()
            if now - self.looked >= POLL_SECONDS:
                self.looked = now
                try:
                    self.giving_way = self.explaining.small_job_waits()
                except UNREACHABLE:
                    pass  # Redis away: carry on, the end's write will retry or fail
        return self.giving_way


def run(settings: Settings, job_id: str, task_id: str, holder: str) -> str:
    """Work out the job's explanation and keep it; returns what happened (done, failed,
    yielded, or why it did not run: gone, stale, busy)."""
    explaining = Explaining(handle_for(settings), job_id, task_id)
    claimed = explaining.claim(holder)
    if claimed.status is not ExplainClaimed.RUN:
        if claimed.status is ExplainClaimed.STALE:
            log.warning("explanation of job %s: task %s is not its current one", job_id, task_id)
        return claimed.status.value
    started = time.process_time()
    progress = Progress.parse(claimed.checkpoint)
    try:
        puzzle = alphametic.parse(claimed.puzzle, **(claimed.options or {}))
        body = Run(explaining, puzzle, progress).explain().as_data()
    except GiveWay:
        explaining.give_back(progress.text())
        log.info("explanation of job %s: gave way to a small job", job_id)
        return "yielded"
    except Exception as error:  # a fault in the explainer: kept, so it is not tried again
        log.exception("explanation of job %s failed", job_id)
        explaining.failed(f"{type(error).__name__}: {error}")
        return "failed"
    explaining.done(body)
    log.info("explanation of job %s done in %.2f s CPU", job_id, time.process_time() - started)
    return "done"
