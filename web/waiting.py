"""Long polls: a request held until its job ends, within this process's share of wait slots."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app

from jobstore import Job
from web.store import store


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
