"""Fixtures of the operator tests: their own Redis database, real workers and gunicorn.

ops_settings  the session Redis, a database and key prefix of these tests' own, a short
              solve time limit (jobs can be made to fail) and a fast heartbeat.
ops_workers   one celery worker on both queues (two pool processes), JSON logs.
ops_web       gunicorn with two worker processes, JSON logs and the admin token ADMIN_TOKEN.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jobstore import Settings
from tests.support.ops import ADMIN_TOKEN, JSON_LOGS, own_settings
from tests.support.processes import WebServer, WorkerProcess


@pytest.fixture(scope="module")
def ops_settings(settings: Settings) -> Settings:
    """Settings of one test module."""
    return own_settings(settings, heartbeat_interval=0.5)


@pytest.fixture(scope="module")
def ops_workers(ops_settings: Settings) -> Iterator[WorkerProcess]:
    """A real worker on both queues for the module."""
    worker = WorkerProcess(ops_settings, "solve,enumerate", concurrency=2, env=JSON_LOGS)
    try:
        yield worker.wait_ready()
    finally:
        worker.cleanup()


@pytest.fixture(scope="module")
def ops_web(ops_settings: Settings) -> Iterator[WebServer]:
    """Gunicorn with two processes serving the app for the module."""
    env = {
        **JSON_LOGS,
        "ALPHAMETIC_ADMIN_TOKEN": ADMIN_TOKEN,
        "ALPHAMETIC_RATE_LIMIT": "10000/minute",
        "ALPHAMETIC_READ_RATE_LIMIT": "100000/minute",
        "GUNICORN_CMD_ARGS": "--logger-class scripts.gunicorn_logging.GunicornLogger",
    }
    server = WebServer(ops_settings, workers=2, env=env)
    try:
        yield server.wait_ready()
    finally:
        server.cleanup()
