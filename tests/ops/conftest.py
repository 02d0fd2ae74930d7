"""Fixtures of the operator tests: their own Redis database, real workers and gunicorn.

ops_settings  the session Redis, a database and key prefix of these tests' own, a short
              solve time limit (jobs can be made to fail) and a fast heartbeat.
ops_workers   one celery worker on both queues (two pool processes), JSON logs.
ops_web       gunicorn with two worker processes, JSON logs and the admin token ADMIN_TOKEN.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator

import pytest

from jobstore import Settings
from tests.support.processes import WebServer, WorkerProcess

ADMIN_TOKEN = "test-admin-token-0123456789"
JSON_LOGS = {"ALPHAMETIC_LOG_FORMAT": "json"}
_databases = itertools.count(1000)  # fresh_settings counts up from 1, the web tests use 1023


def own_settings(settings: Settings, **changes: object) -> Settings:
    """The session Redis on a database and prefix of their own, plus changes."""
    url = settings.redis_url.rsplit("/", 1)[0] + f"/{next(_databases)}"
    prefix = f"alphametic-ops-{uuid.uuid4().hex[:8]}"
    return settings.replace(redis_url=url, key_prefix=prefix, **changes)


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
        "GUNICORN_CMD_ARGS": "--logger-class web.logs.GunicornLogger",
    }
    server = WebServer(ops_settings, workers=2, env=env)
    try:
        yield server.wait_ready()
    finally:
        server.cleanup()
