"""The job service's worker side: Celery app, settings and the job model shared with web.

`app` is created on first access, so `from worker.jobs import JobStore` does not build the
module-level Celery app; `celery -A worker worker -Q solve` finds it through `worker.app`.
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
