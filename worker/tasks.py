"""Celery tasks: one per job mode, each routed to the queue of the same name."""

from __future__ import annotations

import logging
import time
from typing import Any

from jobstore import Job, Mode, Settings
from jobstore.attempt import Attempt
from jobstore.connection import UNREACHABLE, client_for

from . import shards
from .celery_app import app, hard_limit
from .holder import holder_is_dead, holder_name
from .run import Run

log = logging.getLogger(__name__)


def execute(task: Any, mode: Mode, job_id: str) -> str:
    """Claim the job and run it; returns what happened (for logs: the job record is the result)."""
    settings: Settings = task.app.conf.alphametic_settings
    client = client_for(settings)
    attempt = Attempt(client, settings, job_id)
    holder = holder_name(task.request.hostname or "worker")
    hard = hard_limit(settings, mode)
    try:
        claim = attempt.claim(holder, hard_limit=hard)
        if claim.status == "busy" and holder_is_dead(claim.holder):
            # The earlier attempt's pool process on this machine is gone: take over now.
            claim = attempt.claim(holder, force=True, hard_limit=hard)
    except UNREACHABLE as error:
        raise task.retry(exc=error, countdown=1, max_retries=None) from error
    if claim.status == "busy":
        # Another live attempt holds the lease: look again when it would have expired.
        wait = max(0.5, (claim.lease or time.time()) - time.time() + 0.5)
        log.info("job %s busy (held by %s): look again in %.1f s", job_id, claim.holder, wait)
        raise task.retry(countdown=wait, max_retries=None)
    if claim.status != "run":
        log.info("job %s not run: %s (attempt %s)", job_id, claim.status, claim.attempt)
        shards.settle(client, settings, job_id, claim.status)  # a shard that ends unrun
        return claim.status
    job = Job.from_hash(claim.record)
    if job.parent:
        outcome = shards.run_shard(settings, attempt, job)
    elif job.mode is Mode.ENUMERATE and shards.split(task.app, settings, attempt, job):
        outcome = "sharded"  # its shards are on the enumerate queue now
    else:
        outcome = Run(settings, attempt, job).execute()
    # One line per finished attempt: the chaos tests count completions per job with it.
    log.info("job %s attempt %s ended: %s", job_id, attempt.number, outcome)
    return outcome


@app.task(name=Mode.SOLVE.task, bind=True)
def solve_job(self: Any, job_id: str) -> str:
    """Find the first solution of the job's puzzle (or prove there is none)."""
    return execute(self, Mode.SOLVE, job_id)


@app.task(name=Mode.ENUMERATE.task, bind=True)
def enumerate_job(self: Any, job_id: str) -> str:
    """Find, count and store every solution of the job's puzzle."""
    return execute(self, Mode.ENUMERATE, job_id)
