"""Celery's own view of jobs (Flower, `celery events`): failures and cancels are what they are."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from jobstore import Keys, Settings, State
from tests.support.chaos import wait_until

pytestmark = pytest.mark.slow

LONG = ("A + B + C + D + E = F + G + H + I", {"base": 16})


def capture(settings: Settings, seen: list[dict[str, Any]], stop: threading.Event) -> None:
    """Collect the task events the deployment's workers publish (what Flower reads): kombu's
    fanout messages on the event exchange's channels, base64 JSON bodies, batched or single."""
    client = redis.Redis.from_url(settings.redis_url)
    pubsub = client.pubsub()
    pubsub.psubscribe(f"{Keys(settings.key_prefix).broker}*celeryev*")
    try:
        while not stop.is_set():
            message = pubsub.get_message(timeout=0.5)
            if message is None or message["type"] != "pmessage":
                continue
            body = json.loads(base64.b64decode(json.loads(message["data"])["body"]))
            seen.extend(body if isinstance(body, list) else [body])
    finally:
        pubsub.close()
        client.close()


def test_failed_jobs_are_failures_and_canceled_ones_revoked(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any, wait_job: Any
) -> None:
    """With ALPHAMETIC_TASK_EVENTS, a job failed at its time limit is a task failure with the
    reason, and a canceled one a revoked task, as Flower and `celery events` show them."""
    settings = fresh_settings(
        task_events=1, shard_threshold=0, enumerate_soft_limit=1.0, enumerate_hard_limit=10.0
    )
    seen: list[dict[str, Any]] = []
    stop = threading.Event()
    listener = threading.Thread(target=capture, args=(settings, seen, stop), daemon=True)
    listener.start()
    try:
        time.sleep(1.0)  # the receiver listens before anything happens
        worker_factory(settings, "enumerate")
        store = store_factory(settings)
        failed = wait_job(store, store.submit("enumerate", *LONG).id, timeout=30)
        assert failed.state is State.FAILED
        running = store.submit("enumerate", "A + B + C + D + E = F + G + H + I", {"base": 15})
        wait_until(lambda: (j := store.get(running.id)) is not None and j.progress > 0, 30, "run")
        store.cancel(running.id)
        assert wait_job(store, running.id, timeout=30).state is State.CANCELED

        def kinds() -> set[str]:
            return {event["type"] for event in list(seen)}

        wait_until(lambda: {"task-failed", "task-revoked"} <= kinds(), 20, "both events")
    finally:
        stop.set()
        listener.join(5)
    failures = [e for e in seen if e["type"] == "task-failed"]
    assert any("time limit" in str(e.get("exception")) for e in failures), failures
    assert not [e for e in seen if e["type"] == "task-succeeded" and "canceled" in str(e)]
