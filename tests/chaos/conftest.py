"""Fixtures for the chaos tests: real gunicorn servers next to the shared ones in ../conftest.py.

web_factory  factory(settings, workers=1, env=None) -> a ready WebServer (gunicorn serving
             web.wsgi:app on a free port with these settings); all are stopped at teardown.
sentinel_factory  factory(replicas=1, failover_timeout_ms=10_000, down_after_ms=3000) -> a
             started SentinelSetup (a master, its replicas, three sentinels:
             tests/support/sentinel.py); all are removed at teardown; the test is skipped
             where redis-server has no sentinel mode.
Tests marked `soak` (the long soak: `make soak`) run only when `-m` names that marker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from jobstore import Settings
from tests.support.processes import WebServer
from tests.support.sentinel import SentinelSetup, SentinelUnsupported


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the long soak unless `-m` selects it (`make test` runs the short one only)."""
    if "soak" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="the long soak runs with -m soak (make soak)")
    for item in items:
        if item.get_closest_marker("soak"):
            item.add_marker(skip)


@pytest.fixture()
def web_factory() -> Iterator[Callable[..., WebServer]]:
    """Factory: start gunicorn servers (high rate limit unless env says otherwise)."""
    started: list[WebServer] = []

    def start(settings: Settings, workers: int = 1, env: dict[str, str] | None = None) -> WebServer:
        limits = {
            "ALPHAMETIC_RATE_LIMIT": "100000/minute",
            "ALPHAMETIC_READ_RATE_LIMIT": "100000/minute",
            "ALPHAMETIC_MAX_QUEUED_PER_CLIENT": "0",
        }
        server = WebServer(settings, workers=workers, env={**limits, **(env or {})})
        started.append(server)
        return server.wait_ready()

    yield start
    for server in started:
        server.cleanup()


@pytest.fixture()
def sentinel_factory() -> Iterator[Callable[..., SentinelSetup]]:
    """Factory: start Sentinel setups of a number of replicas (skip without sentinel mode)."""
    started: list[SentinelSetup] = []

    def start(replicas: int = 1, **options: int) -> SentinelSetup:
        setup = SentinelSetup(replicas=replicas, **options)
        started.append(setup)
        try:
            return setup.start()
        except SentinelUnsupported as error:
            pytest.skip(f"redis-server has no sentinel mode (redis-server --sentinel): {error}")

    yield start
    for setup in started:
        setup.cleanup()
