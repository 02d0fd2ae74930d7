"""Who holds a job: identical submissions share one job, and each submitter holds it.

A job's record has a `c:<client>` field per client that submitted it ('1' while it holds the
job, '0' once it let go) and the number of holders in `clients` (set by create.lua). A
client's cancel or delete of a shared job only lets go of it while others still hold it
(withdraw.lua, delete.lua); a client that never submitted it may neither cancel nor delete it:
both raise NotHeld (the scripts answer FORBIDDEN, held() turns it into the exception: nothing
above the job store sees that answer).
"""

from __future__ import annotations

from typing import TypeVar

from .keys import Keys
from .lua import Scripts
from .transitions import Deleted, Withdraw, Withdrawn

Answer = TypeVar("Answer", Deleted, Withdrawn)


class NotHeld(Exception):
    """The client does not hold this job: others submitted it."""


def holder_field(client: str | None) -> str:
    """The record's field naming this client as a holder ('' for an anonymous submitter)."""
    return f"c:{client or ''}"


def held(answer: Answer, job_key: str) -> Answer:
    """A holder's script's answer, or NotHeld raised for FORBIDDEN: the one way a refusal
    of a client that holds no share of the job is told."""
    if answer is answer.FORBIDDEN:
        raise NotHeld(job_key)
    return answer


def withdraw(scripts: Scripts, keys: Keys, job_id: str, client: str) -> Withdrawn:
    """Let the client go of the job: gone | ended | withdrawn | let go (before) | last (the
    caller cancels it).

    Raises NotHeld when the client does not hold it.
    """
    outcome = Withdrawn(scripts.call(Withdraw(keys, job_id, holder_field(client))))
    return held(outcome, keys.job(job_id))
