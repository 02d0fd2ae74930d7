"""A bare Celery app with one no-op task: the yardstick for the job system's own overhead.

Started by bench/latency.py as `celery -A noop worker` (cwd bench/) on the benchmark's Redis
(broker and result backend in another database), with the job workers' pool settings.
"""

from __future__ import annotations

import os

from celery import Celery

URL = os.environ.get("NOOP_REDIS_URL", "redis://127.0.0.1:6379/1")

app = Celery("noop", broker=URL, backend=URL)
app.conf.update(
    task_serializer="json",
    accept_content=["json"],
    result_serializer="json",
    worker_prefetch_multiplier=1,
    task_acks_late=True,
    worker_hijack_root_logger=False,
)


@app.task(name="noop")
def noop() -> None:
    """Do nothing (the round trip is what is measured)."""
