"""Celery tasks: one per job mode, each routed to its mode's queue.

The job record is the result: a task returns what its run did. A job that failed raises
JobFailed (Flower and `celery events` show a failure with the reason) and one canceled is
reported revoked; a job handed back (its worker stopping, or yielding to others) returns
normally, as its next message is already queued. A run that raises an unexpected error (a bug,
a record it cannot read) ends its job failed at once, with the error as its reason and the
traceback in the log (fail_raised); Redis lost mid-run is not one (the run is claimed again).
A task message the job store did not make
(one sent by hand with `app.send_task`, whatever its arguments) is refused before it runs:
one warning line, a count in the store's stats (alphametic_task_messages_rejected_total), and
the message is acknowledged, so it neither runs a job out of turn nor waits in the queue.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import Task
from celery.exceptions import Ignore, Reject, Retry, SoftTimeLimitExceeded
from celery.signals import task_revoked

from jobstore import Job, JobStore, Mode, Settings
from jobstore.attempt import Attempt, Claim
from jobstore.connection import UNREACHABLE
from jobstore.handle import Handle, handle_for
from jobstore.messages import MARK
from jobstore.queue import queued_by_store
from jobstore.shards import fail as fail_job
from jobstore.shards import parent_of, settle
from jobstore.stats import count_rejected
from jobstore.transitions import Claimed, Written

from . import compose, shards, stopping
from .canary import CANARY_TASK
from .celery_app import app, hard_limit
from .explain import TASK as EXPLAIN_TASK
from .explain import run as run_explanation
from .holder import holder_is_dead, holder_name
from .logs import name_attempt
from .run import FINAL_WRITE_TRIES, TIME_LIMIT, Outcome, Run

log = logging.getLogger(__name__)

CLAIM_PATIENCE = 30.0  # seconds between the warnings of a claim waiting for Redis
REASON_MAX = 300  # characters of an unexpected error kept as its job's reason
# Exceptions that are Celery's control flow, not a run's failure: they pass through.
CONTROL_FLOW = (Ignore, Reject, Retry)


class JobFailed(Exception):
    """The job ended failed (its time limit, or its attempts used up): the reason."""


class JobTask(Task[[str], str]):
    """A job's task: runs only messages the job store made (jobstore/messages.py marks them)."""

    # Retried for as long as it takes (Redis away, the job busy under another run's lease):
    # retry(max_retries=None) means the task's own max_retries, which is Celery's 3 unless
    # set here, and a retry past it would fail the message while its job waits queued.
    max_retries = None

    def before_start(self, task_id: str, args: Any, kwargs: Any) -> None:
        """Refuse a foreign message before Celery even binds its arguments to the task."""
        if list(args or []) == [self.request.get(MARK)] and not kwargs:
            return
        settings: Settings = self.app.conf.alphametic_settings
        if self.unmarked_but_queued(settings, task_id, args, kwargs):
            return
        log.warning(
            "task %s[%s] rejected: not a message of the job store (args %.200r); "
            "jobs are submitted through the HTTP API",
            self.name,
            task_id,
            args,
        )
        try:
            count_rejected(handle_for(settings), "foreign")
        except UNREACHABLE:
            pass  # the count is best-effort; the message is refused all the same
        raise Ignore()  # acknowledged, not run, not retried

    @staticmethod
    def unmarked_but_queued(settings: Settings, task_id: str, args: Any, kwargs: Any) -> bool:
        """An unmarked message that its job's record names: an older release queued it."""
        if kwargs or not isinstance(args, list | tuple) or len(args) != 1:
            return False
        try:
            return queued_by_store(handle_for(settings), str(args[0]), task_id)
        except UNREACHABLE:
            return True  # the claim decides (it waits for Redis); refusing would lose the job


def execute(task: Any, mode: Mode, job_id: str) -> str:
    """Claim the job and run it; returns what happened (the job record is the result).

    Redis lost mid-run (a write or read that could not be made or confirmed, after the run's
    own retries) ends neither the job nor the task: the run is claimed again from its
    checkpoint by this same pool process, which spends no attempt (claim.lua). A task that
    ended in that error instead was acknowledged with its job still running or queued, and
    the job then lost an attempt to its lease, or its message to a sweep judging it purged.
    """
    settings: Settings = task.app.conf.alphametic_settings
    handle = handle_for(settings)
    attempt = Attempt(handle, job_id)
    holder = holder_name(task.request.hostname or "worker")
    hard = hard_limit(settings, mode)
    while True:
        claim = claim_patiently(attempt, holder, hard, mode)
        name_attempt(job_id, claim.attempt)
        if claim.status is Claimed.BUSY:
            # Another live run holds the lease: look again when it would have expired.
            wait = max(0.5, (claim.lease or time.time()) - time.time() + 0.5)
            log.info("job %s busy (held by %s): look again in %.1f s", job_id, claim.holder, wait)
            raise task.retry(countdown=wait, max_retries=None)
        if claim.status is not Claimed.RUN:
            log.info("job %s not run: %s (attempt %s)", job_id, claim.status, claim.attempt)
            settle(handle, job_id, claim.status)  # a shard that ends unrun
            return claim.status.value
        try:
            job = Job.from_hash(claim.record)
            outcome = run_claimed(handle, attempt, job, claim.record)
        except UNREACHABLE as error:
            log.warning("job %s: Redis lost mid-run (%s): claiming it again", job_id, error)
            time.sleep(1.0)
            continue
        except CONTROL_FLOW:
            raise
        except Exception as error:  # noqa: BLE001 (whatever it is, the job ends with it)
            log.exception("job %s attempt %s raised: it ends failed", job_id, attempt.number)
            return fail_raised(handle, attempt, job_id, error)
        return report(task, job, outcome)


def fail_raised(handle: Handle, attempt: Attempt, job_id: str, error: Exception) -> str:
    """End a claimed job failed by its run's unexpected error, with that error as its reason;
    then tell Celery as report() does (a whole job's task fails, a shard's returns).

    Celery acknowledges a task that raised: the job, left running with no message, was
    re-queued by the lease sweep until it "gave up after 3 attempts (worker lost)". Celery's
    soft limit, should it strike outside the search (which ends "time limit" itself), is the
    job's time limit too. A claim that raises leaves its job queued, and the resend sweep sends
    it again (jobstore/sweep.py): an error that passes loses nothing.
    """
    reason = TIME_LIMIT if isinstance(error, SoftTimeLimitExceeded) else describe(error)
    written = None
    for try_number in range(FINAL_WRITE_TRIES):
        try:
            written = fail_job(handle, attempt, job_id, reason)
            break
        except UNREACHABLE as lost:
            log.warning("job %s: could not end it failed (%s): trying again", job_id, lost)
            time.sleep(min(0.2 * 2**try_number, 5.0))
    if written is Written.REFUSED:  # taken over, or it had ended before the error
        log.info("job %s: run %s is stale, not ended failed", job_id, attempt.claims)
        return Outcome.STALE.value
    if written is None:  # its lease runs out and the sweep re-queues it
        log.warning("job %s: could not end it failed; its lease runs out", job_id)
    else:
        log.info("job %s attempt %s ended: %s", job_id, attempt.number, Outcome.FAILED)
    if parent_of(job_id) is not None:
        return Outcome.FAILED.value
    raise JobFailed(reason) from error


def describe(error: Exception) -> str:
    """An unexpected error as a failed job's reason: its type and message, one line, short."""
    text = " ".join(f"{type(error).__name__}: {error}".split())
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 3] + "..."


def run_claimed(handle: Handle, attempt: Attempt, job: Job, record: dict[str, str]) -> Outcome:
    """Run a claimed job: a shard, a job to split, or a whole one; logs how the run ended."""
    with stopping.handing_back():
        if job.parent and job.mode is Mode.COMPOSE:
            outcome = compose.run_shard(handle, attempt, job, record)
        elif job.parent:
            outcome = shards.run_shard(handle, attempt, job, record)
        elif job.mode is Mode.COMPOSE and compose.split(handle, attempt, job):
            outcome = Outcome.SHARDED  # its shards are on the queue now
        elif job.mode is Mode.COMPOSE:
            outcome = compose.ComposeRun(handle.settings, attempt, job, record).execute()
        elif job.mode is not Mode.SOLVE and shards.split(handle, attempt, job):
            outcome = Outcome.SHARDED  # its shards are on the queue now
        else:
            outcome = Run(handle.settings, attempt, job, record).execute()
        # One line per run: the chaos tests count completions per job with it.
        log.info("job %s attempt %s ended: %s", job.id, attempt.number, outcome)
    return outcome


def claim_patiently(attempt: Attempt, holder: str, hard: float, mode: Mode) -> Claim:
    """Claim the job, waiting here for as long as Redis is unreachable or does not confirm the
    claim, or is full (a restart, a Sentinel failover, a replica that lags), with the message kept
    unacknowledged: Celery's retry would have to publish to that same Redis, and a retry it
    cannot publish drops the message, leaving the job queued with no message (which the
    sweep then judged purged). A claim resent after its reply was lost is the same claim
    (claim.lua: same holder). Celery's hard time limit bounds the wait."""
    waited_since = time.monotonic()
    warned = 0.0
    delay = 0.1
    while True:
        try:
            claim = attempt.claim(holder, hard_limit=hard, mode=mode)
            if claim.status is Claimed.BUSY and holder_is_dead(claim.holder):
                # The earlier run's pool process on this machine is gone: take over now.
                claim = attempt.claim(holder, force=True, hard_limit=hard, mode=mode)
            return claim
        except UNREACHABLE as error:
            waited = time.monotonic() - waited_since
            if not warned and delay == 0.1:  # the first time only (tests look for it)
                log.info("job %s: no confirmed claim (%s): claiming again", attempt.job_id, error)
            if waited - warned >= CLAIM_PATIENCE:
                warned = waited
                log.warning("job %s: no claim for %.0f s: %s", attempt.job_id, waited, error)
            time.sleep(delay)
            delay = min(2 * delay, 2.0)


def report(task: Any, job: Job, outcome: Outcome) -> str:
    """Tell Celery what the run did: a failure raises, a cancel is a revoke, the rest returns."""
    if outcome is Outcome.FAILED and not job.parent:
        raise JobFailed(job.error or "time limit")
    if outcome is Outcome.CANCELED and not job.parent:
        task.send_event("task-revoked", terminated=False, signum=None, expired=False)
        raise Ignore()
    return outcome.value


@task_revoked.connect
def _revoked(request: Any = None, **_: Any) -> None:
    """A revoke (or terminate) of a job's task cancels the job, cooperatively."""
    args = getattr(request, "args", None) or []
    if getattr(request, "task", "") in {mode.task for mode in Mode} and args:
        settings: Settings = app.conf.alphametic_settings
        JobStore(settings).cancel(str(args[0]))
        log.info("job %s canceled: its task was revoked", args[0])


@app.task(name=Mode.SOLVE.task, bind=True, throws=(JobFailed,), base=JobTask)
def solve_job(self: Any, job_id: str) -> str:
    """Find the first solution of the job's puzzle (or prove there is none)."""
    return execute(self, Mode.SOLVE, job_id)


@app.task(name=Mode.ENUMERATE.task, bind=True, throws=(JobFailed,), base=JobTask)
def enumerate_job(self: Any, job_id: str) -> str:
    """Find, count and store every solution of the job's puzzle."""
    return execute(self, Mode.ENUMERATE, job_id)


@app.task(name=Mode.COUNT.task, bind=True, throws=(JobFailed,), base=JobTask)
def count_job(self: Any, job_id: str) -> str:
    """Count every solution of the job's puzzle, storing none."""
    return execute(self, Mode.COUNT, job_id)


@app.task(name=Mode.COMPOSE.task, bind=True, throws=(JobFailed,), base=JobTask)
def compose_job(self: Any, job_id: str) -> str:
    """Compose every sum of the job's words with exactly K solutions, storing each."""
    return execute(self, Mode.COMPOSE, job_id)


@app.task(name=CANARY_TASK, ignore_result=True)
def canary(nonce: str) -> str:
    """A worker's message to itself: its consumer took it (worker/canary.py), nothing to do."""
    return nonce


@app.task(name=EXPLAIN_TASK, bind=True)
def explain_job(self: Any, job_id: str) -> str:
    """Work out how a person would solve the job's puzzle and keep it with the job
    (worker/explain.py; the job store checks the message is the one it sent)."""
    settings: Settings = self.app.conf.alphametic_settings
    holder = holder_name(self.request.hostname or "worker")
    return run_explanation(settings, job_id, str(self.request.id), holder)
