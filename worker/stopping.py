"""A stopping worker asks its pool processes' running searches to hand their jobs back.

Stopping is not cancelling: on SIGTERM or SIGINT a pool process that runs a job lets its
search notice within one check (~10 ms), write a checkpoint and put the job back at the front
of its queue (worker/run.py), and the task returns; an idle pool process ends as the pool lets
it. The worker's main process, asked to shut down warmly (SIGTERM, `celery control shutdown`,
a first Ctrl-C), sends SIGTERM to the pool processes that run jobs (StopJobs), so its warm
shutdown waits about a second, not until the jobs end.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from celery import bootsteps
from celery.worker import state as worker_state

log = logging.getLogger(__name__)

_state = {"stopping": False}


def stop_requested() -> bool:
    """Whether this process was asked to stop (checked by the running search's hook)."""
    return _state["stopping"]


def _on_signal(number: int, frame: FrameType | None) -> None:
    """Ask the running search to stop and hand its job back."""
    _state["stopping"] = True


@contextmanager
def handing_back() -> Iterator[None]:
    """While a job runs, SIGTERM and SIGINT ask it to hand the job back (the pool's own
    handlers, which end the process, are put back afterwards)."""
    _state["stopping"] = False
    numbers = (signal.SIGTERM, signal.SIGINT)
    before = {number: signal.signal(number, _on_signal) for number in numbers}
    try:
        yield
    finally:
        # The task now returns: the worker's main process, stopping, closes the pool.
        for number, handler in before.items():
            signal.signal(number, handler)


class StopJobs(bootsteps.StartStopStep):
    """Worker bootstep: on shutdown, ask the pool processes running jobs to hand them back.

    It requires the pool, so it stops before the pool does: the warm shutdown then waits only
    for the hand-back of each running job.
    """

    label = "alphametic stop jobs"
    requires = ("celery.worker.components:Pool",)

    def stop(self, worker: Any) -> None:
        """Send SIGTERM to every pool process that runs a task."""
        for request in list(worker_state.active_requests):
            pid = getattr(request, "worker_pid", None)
            if pid and pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
                log.info("asked pool process %s to hand job %s back", pid, request.args[:1])
