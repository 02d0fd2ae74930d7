"""Celery task messages as kombu's Redis transport stores them, built without publishing.

A job's record and its task message go to Redis in one Lua script (worker/scripts.py CREATE):
one round trip instead of three (create, kombu's LPUSH, mark sent), and no window in which a
record exists without its message. Celery builds the task protocol (headers, properties,
body); this module adds kombu's envelope for the Redis transport (JSON, base64 body, delivery
info) exactly as `send_task` would, which tests/worker/test_messages.py checks against a
message kombu really published.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import uuid
from typing import Any

from celery import Celery


def origin() -> str:
    """Who sent the message, as Celery names it: "gen<pid>@<host>" (this process, after forks)."""
    return f"gen{os.getpid()}@{socket.gethostname()}"


def task_message(app: Celery, name: str, job_id: str, queue: str, expires: float) -> str:
    """The JSON text kombu would LPUSH onto `queue` for send_task(name, args=[job_id])."""
    task_id = str(uuid.uuid4())
    message = app.amqp.as_task_v2(
        task_id, name, args=[job_id], kwargs={}, expires=expires, origin=origin()
    )
    body = json.dumps(message.body).encode()
    properties: dict[str, Any] = {
        **message.properties,
        "delivery_mode": 2,  # persistent, as kombu's default
        # The broker drops the message with its job record (Celery sets this from expires).
        "expiration": str(int(expires * 1000)),
        "delivery_info": {"exchange": "", "routing_key": queue},
        "priority": 0,
        "body_encoding": "base64",
        "delivery_tag": str(uuid.uuid4()),
    }
    return json.dumps(
        {
            "body": base64.b64encode(body).decode(),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": message.headers,
            "properties": properties,
        }
    )
