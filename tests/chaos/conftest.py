"""Fixtures for the chaos tests: real gunicorn servers next to the shared ones in ../conftest.py.

web_factory  factory(settings, workers=1, env=None) -> a ready WebServer (gunicorn serving
             web.wsgi:app on a free port with these settings); all are stopped at teardown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from jobstore import Settings
from tests.support.processes import WebServer


@pytest.fixture()
def web_factory() -> Iterator[Callable[..., WebServer]]:
    """Factory: start gunicorn servers (high rate limit unless env says otherwise)."""
    started: list[WebServer] = []

    def start(settings: Settings, workers: int = 1, env: dict[str, str] | None = None) -> WebServer:
        limits = {"ALPHAMETIC_RATE_LIMIT": "100000/minute", "ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "0"}
        server = WebServer(settings, workers=workers, env={**limits, **(env or {})})
        started.append(server)
        return server.wait_ready()

    yield start
    for server in started:
        server.cleanup()
