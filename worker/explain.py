"""A worker's run of one job's explanation (jobstore/explanations.py says how it is asked for).

The explanation is worked out here, not in the web process: the deductions take a bounded
amount of work, the engine's search for the solution SEARCH_SECONDS of CPU time at most and the
count a fraction of a second. A new small job waiting in the queue's first lane interrupts it
(looked at every POLL_SECONDS, between rounds of deductions at most ~20 ms of CPU apart and at
the searches' looks at the clock): the explanation goes back to the front of its lane and is
worked out again, from the start, once the small jobs have had the worker.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import alphametic
from alphametic.explain.walkthrough import explain
from jobstore import Settings
from jobstore.connection import UNREACHABLE
from jobstore.explanations import TASK, Explaining
from jobstore.handle import handle_for
from jobstore.transitions import ExplainClaimed

__all__ = ["TASK", "run"]  # worker/tasks.py registers TASK

log = logging.getLogger(__name__)

# The engine's search for the solution (CPU seconds): a puzzle it cannot settle in this time
# is explained as still open ("The search found no solution within 2 s ...").
SEARCH_SECONDS = 2.0
POLL_SECONDS = 0.05  # how often the run looks for small jobs waiting


class GiveWay(Exception):
    """A small job waits for this worker: the explanation is given back."""


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
    try:
        puzzle = alphametic.parse(claimed.puzzle, **(claimed.options or {}))
        body = explain(puzzle, seconds=SEARCH_SECONDS, interrupt=_poller(explaining)).as_data()
    except GiveWay:
        explaining.give_back()
        log.info("explanation of job %s: gave way to a small job", job_id)
        return "yielded"
    except Exception as error:  # a fault in the explainer: kept, so it is not tried again
        log.exception("explanation of job %s failed", job_id)
        explaining.failed(f"{type(error).__name__}: {error}")
        return "failed"
    explaining.done(body)
    log.info("explanation of job %s done in %.2f s CPU", job_id, time.process_time() - started)
    return "done"


def _poller(explaining: Explaining) -> Callable[[], None]:
    """The explanation's interrupt hook: raises GiveWay once a small job waits."""
    last = [time.monotonic()]

    def poll() -> None:
        now = time.monotonic()
        if now - last[0] < POLL_SECONDS:
            return
        last[0] = now
        try:
            waits = explaining.small_job_waits()
        except UNREACHABLE:
            return  # Redis away: carry on, the end's write will retry or fail
        if waits:
            raise GiveWay

    return poll
