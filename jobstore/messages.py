"""Celery task messages as kombu's Redis transport stores them, built without publishing.

A job's record and its task message go to Redis in one Lua script (lua_scripts/create.lua):
one round trip instead of three (create, kombu's LPUSH, mark sent), and no window in which a
record exists without its message. Celery builds the task protocol (headers, properties,
body); this module adds kombu's envelope for the Redis transport (JSON, base64 body, delivery
info) exactly as `send_task` would, which tests/jobstore/test_messages.py checks against a
message kombu really published, plus one header of its own (MARK): worker/tasks.py runs no
task message without it, so a message sent by hand (`app.send_task`) is refused, not run.
A purge names the delivery tags of the messages it deleted (record_purged), so the resend
sweep cancels their jobs rather than sending them again (jobstore/sweep.py).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import socket
import time
import uuid
from collections.abc import Iterable
from typing import Any, cast

from celery import Celery

from .keys import PURGED, Keys
from .model import Mode
from .settings import Settings

# The header that marks a task message as the job store's: its value is the job it runs (a
# retry keeps it: Celery passes a message's own headers on).
MARK = "alphametic_job"
# Seconds the purged hash is kept when no purged message says how long it lives (a job
# store's message expires with its job: its `expiration`).
PURGED_KEEP = 86_400


def broker_prefix(settings: Settings) -> str:
    """kombu's global_keyprefix: every key of the broker goes under the deployment's prefix."""
    return Keys(settings.key_prefix).broker


def origin() -> str:
    """Who sent the message, as Celery names it: "gen<pid>@<host>" (this process, after forks)."""
    return f"gen{os.getpid()}@{socket.gethostname()}"


@functools.cache
def protocol() -> Celery:
    """A Celery app used only to build task messages: no configuration, never connects."""
    return Celery("alphametic-messages", set_as_current=False)


def task_message(
    mode: Mode, job_id: str, expires: float, lane: int = 0, task: str | None = None
) -> str:
    """The JSON text kombu would LPUSH onto a lane's list for send_task(task, [job_id]).

    Every message of a job goes out this way (submit, hand-back, re-queue, shards), so all
    carry the same headers; `lane` is kombu's priority (0 first); `task` is the mode's task
    unless named (an explanation's: jobstore/explanations.py), on the mode's queue either way.
    """
    task_id = str(uuid.uuid4())
    # A list, as send_task passes it (its header argsrepr reads "['<job>']"); the stubs say
    # tuple, which would change that header.
    args = cast(tuple[Any, ...], [job_id])
    message = protocol().amqp.as_task_v2(
        task_id, task or mode.task, args=args, kwargs={}, expires=expires, origin=origin()
    )
    body = json.dumps(message.body).encode()
    properties: dict[str, Any] = {
        **message.properties,
        "delivery_mode": 2,  # persistent, as kombu's default
        # The broker drops the message with its job record (Celery sets this from expires).
        "expiration": str(int(expires * 1000)),
        "delivery_info": {"exchange": "", "routing_key": mode.queue},
        "priority": lane,
        "body_encoding": "base64",
        "delivery_tag": str(uuid.uuid4()),
    }
    return json.dumps(
        {
            "body": base64.b64encode(body).decode(),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": {**message.headers, MARK: job_id},
            "properties": properties,
        }
    )


def record_purged(client: Any, deleted: Iterable[bytes | str]) -> None:
    """Name the delivery tags of the messages a purge deleted in the broker's purged hash
    (Keys.purged), kept as long as the longest-lived of them. `client` is the broker channel's
    (worker/broker.py, once they are deleted: a tag named there is certainly gone), which puts
    the broker's prefix before the key."""
    tags: dict[str, str] = {}
    keep = PURGED_KEEP
    for raw in deleted:
        try:
            properties = json.loads(raw)["properties"]
            tags[str(properties["delivery_tag"])] = repr(time.time())
            keep = max(keep, int(properties.get("expiration") or 0) // 1000)
        except (ValueError, KeyError, TypeError):
            continue  # not a message of kombu's shape: no job names it
    if tags:
        with client.pipeline() as pipe:  # kombu puts its prefix before both keys
            pipe.hset(PURGED, mapping=tags)
            pipe.pexpire(PURGED, keep * 1000)
            pipe.execute()
