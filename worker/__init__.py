"""The job service's workers: the Celery app, its tasks, and the run of one attempt of a job.

Rooms: celery_app.py (the Celery app and its settings) · tasks.py (one task per Mode) · run.py
(one attempt's search: hook, batches, progress) · compose.py (one run of a compose job:
results, progress in sets of addends, checkpoints) · explain.py (working out a job's explanation)
· shards.py (deciding how to split a big enumeration, and running one shard) · heartbeat.py
(bootsteps: heartbeats, and the job store's sweeps run from there) · canary.py (proof that
the consumer still takes messages, else the worker stops) · holder.py (who holds a
running job) · cursor.py (where a run stands in its search, so a later run resumes there) ·
stopping.py (a stopping worker's searches hand their jobs back) · broker.py (kombu's Redis
transports, safe against a broker that stalls or fails over) · logs.py (the job id and attempt
on every line). Everything stored in Redis goes through the job store (jobstore/): no module
here imports redis, a Lua script or a key (tests/ship/test_structure.py).

`app` is created on first access, so importing a submodule does not build the module-level
Celery app; `celery -A worker worker -Q solve` finds it through `worker.app`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app"]


def __getattr__(name: str) -> Any:
    """Create the Celery app lazily when `worker.app` is first asked for."""
    if name == "app":
        from .celery_app import app

        return app
    raise AttributeError(f"module 'worker' has no attribute {name!r}")
