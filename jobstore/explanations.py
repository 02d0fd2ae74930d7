"""Explanations of jobs ("How to solve it"), worked out by a worker and kept with the job.

The web asks (ask, wait); a worker takes the task message, works the explanation out and ends
it (Explaining). An explanation is worked out at most once per job, kept for as long as the job
in a form of no language (alphametic.explain.walkthrough.Explanation.as_data, rendered by each
reader in its own), and charged to the client that asked first: the request that queues it
counts against the client's rates like a new job, and a client waits for one explanation at
a time (a second one asked for meanwhile is `busy`). Its task runs on the enumerate queue's
workers (solves never wait behind one), in the BIG lane: runs taking turns give way to it,
and it gives way to new small jobs (the worker gives it back to the front of its lane).

Redis (keys.py): {p}:job:{id}:explain, a hash: state (queued | running | done | failed),
body (the explanation's JSON, or the error), client, asked, task (the id of its current task
message: a claim with any other is refused), holder, lease; {p}:explaining:{client}, the key
of the explanation the client waits for. A pending explanation is kept PENDING_SECONDS: one
whose message was lost is asked for anew after that.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import transitions
from .connection import guarded
from .handle import Handle
from .messages import task_message
from .model import BIG, FIRST, Mode, band_of
from .rates import Rate
from .transitions import ExplainClaimed
from .transitions import Explained as Explained  # what the web compares a request's status with

if TYPE_CHECKING:
    from .store import JobStore

#: The Celery task that works explanations out (worker/tasks.py).
TASK = "worker.tasks.explain_job"
#: Its queue (a mode's queue: the enumerate queue) and lane.
QUEUE_MODE, LANE = Mode.ENUMERATE, BIG
PENDING_SECONDS = 120  # how long a queued or running explanation is kept without ending
LEASE_SECONDS = 60.0  # a run holding an explanation longer than this is taken to be lost
BUSY_RETRY = 2  # seconds a client waiting for another explanation is told to wait
BUSY_LOOK = 0.25  # seconds between a waiting request's looks while the client's other one runs
PENDING = frozenset({Explained.QUEUED, Explained.RUNNING})
WAITED = PENDING | {Explained.BUSY}  # what ?wait= waits through


@dataclass(frozen=True)
class Asked:
    """What a request for an explanation got: its state, the body once done, when to ask again.

    status: done | failed | queued | running | busy: the client waits for another one |
    limited: over the client's rates | gone: no such job.
    """

    status: Explained
    body: dict[str, Any] | None = None
    retry_after: int = 0
    error: str = ""


def message_id(message: str) -> str:
    """The task id of a task message built by messages.task_message."""
    task_id: str = json.loads(message)["headers"]["id"]
    return task_id


def _message(job_id: str) -> tuple[str, str]:
    """A new task message for a job's explanation, and its task id."""
    message = task_message(QUEUE_MODE, job_id, PENDING_SECONDS, LANE, task=TASK)
    return message, message_id(message)


@guarded
def ask(store: JobStore, job_id: str, client: str, rates: Sequence[Rate] = ()) -> Asked:
    """The job's explanation, or where it stands: queued for a worker if nobody asked yet."""
    message, task_id = _message(job_id)
    explain = transitions.Explain(
        store.keys, job_id, client, rates, QUEUE_MODE, LANE, time.time(), message, task_id,
        PENDING_SECONDS,
    )  # fmt: skip
    status, detail = store.scripts.call(explain)
    return _asked(Explained(status), str(detail))


def _asked(status: Explained, detail: str) -> Asked:
    """Read the explain script's reply."""
    if status is Explained.DONE:
        return Asked(status, json.loads(detail))
    if status is Explained.FAILED:
        return Asked(status, error=detail)
    if status in (Explained.BUSY, Explained.LIMITED):
        return Asked(status, retry_after=max(1, min(int(detail), BUSY_RETRY)))
    return Asked(status, retry_after=1 if status in PENDING else 0)


@guarded
def wait(
    store: JobStore,
    job_id: str,
    client: str,
    rates: Sequence[Rate],
    timeout: float,
    gone: Callable[[], bool] | None = None,
) -> Asked:
    """ask(), but while the explanation is being worked out (or the client's other one is)
    wait up to `timeout` seconds for it: woken by the worker's end, published on the finished
    channel as "{id}/explain", and looking again on its own now and then (no longer once
    `gone()` says the client hung up)."""
    deadline = time.monotonic() + timeout
    with store.waiters().watch(f"{job_id}/explain") as ended:
        asked = ask(store, job_id, client, rates)
        while asked.status in WAITED and (left := deadline - time.monotonic()) > 0:
            if ended.pause(min(left, 1.0 if asked.status in PENDING else BUSY_LOOK), gone):
                break
            ended.event.clear()
            asked = ask(store, job_id, client, rates)
    return asked


@dataclass(frozen=True)
class Claimed:
    """What taking an explanation gave: run it (with the job's puzzle), or why not."""

    status: ExplainClaimed
    puzzle: str = ""
    options: dict[str, Any] | None = None
    client: str = ""


class Explaining:
    """The Redis side of a worker's run of one explanation: claim, then end or give back."""

    def __init__(self, handle: Handle, job_id: str, task_id: str):
        self.client = handle.client
        self.settings = handle.settings
        self.scripts = handle.scripts
        self.job_id = job_id
        self.task_id = task_id
        self.keys = handle.keys
        self.asker = ""  # the client that asked for it (known once claimed)
        self._waiting_first = [self.keys.waiting(QUEUE_MODE, lane) for lane in band_of(FIRST)]

    def claim(self, holder: str) -> Claimed:
        """Take the explanation, if this task message is its current one and nobody has it."""
        now = time.time()
        claim = transitions.ExplainClaim(
            self.keys, self.job_id, QUEUE_MODE, LANE, self.task_id, holder, now,
            now + LEASE_SECONDS,
        )  # fmt: skip
        reply = self.scripts.call(claim)
        status = ExplainClaimed(reply[0])
        if status is not ExplainClaimed.RUN:
            return Claimed(status)
        self.asker = str(reply[3])
        return Claimed(status, str(reply[1]), json.loads(reply[2]), self.asker)

    def small_job_waits(self) -> bool:
        """Whether a new small job waits in the queue's first band (this run gives way to it)."""
        for waiting in self._waiting_first:
            for key in self.client.zrange(waiting, 0, 7):
                if self.client.hget(key, "state") == "queued":
                    return True
        return False

    def done(self, body: dict[str, Any]) -> bool:
        """Keep the worked-out explanation (False when this run no longer held it)."""
        return self._end(Explained.DONE, json.dumps(body, separators=(",", ":")))

    def failed(self, error: str) -> bool:
        """Keep the explainer's error, so the explanation is not tried again."""
        return self._end(Explained.FAILED, error)

    def give_back(self) -> bool:
        """Queue the explanation again at the front of its lane (a small job goes first)."""
        message, task_id = _message(self.job_id)
        return self._end(Explained.QUEUED, "", message, task_id)

    def _end(self, outcome: Explained, body: str, message: str = "", task_id: str = "") -> bool:
        """Run explain_end.lua for this run."""
        end = transitions.ExplainEnd(
            self.keys, self.job_id, self.asker, QUEUE_MODE, LANE, self.task_id, outcome, body,
            time.time(), message, task_id, self.settings.ttl, PENDING_SECONDS,
        )  # fmt: skip
        return bool(self.scripts.call(end))
