"""Fixtures for the web tests: the app on the shared Redis and workers, and a real HTTP server."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from jobstore import JobStore, Settings
from tests.support.browser import launch
from tests.support.processes import WebServer, WorkerProcess
from tests.support.web import make_app

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts" / "web"
WEB_DB = 1023  # the session redis-server has 1024 databases; fresh_settings counts up from 1


@pytest.fixture(scope="session")
def web_settings(settings: Settings) -> Settings:
    """The shared Redis, but a database and key prefix of the web tests' own.

    Identical submissions are deduplicated, so sharing the worker tests' keys would hand them
    jobs these tests finished (or cancelled) already; separate queues keep both apart.
    """
    url = settings.redis_url.rsplit("/", 1)[0] + f"/{WEB_DB}"
    # Every web test is the client 127.0.0.1: no storage budget, or one test's enumerations
    # would leave the next ones storing nothing.
    return settings.replace(
        redis_url=url, key_prefix="alphametic-test-web", max_stored_per_client=0
    )


@pytest.fixture(scope="session")
def web_workers(web_settings: Settings) -> Iterator[WorkerProcess]:
    """One real celery worker (both queues, two processes) on the web tests' settings."""
    worker = WorkerProcess(web_settings, "solve,enumerate", concurrency=2)
    try:
        yield worker.wait_ready()
    finally:
        worker.cleanup()


@pytest.fixture(scope="session")
def app(web_settings: Any) -> Flask:
    """The app under test, on the shared Redis."""
    return make_app(web_settings)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    """A fresh test client (its own cookie jar)."""
    return app.test_client()


@pytest.fixture(scope="session")
def job_store(web_settings: Any) -> JobStore:
    """A JobStore to inspect and clean up what the tests created."""
    return JobStore(web_settings)


@pytest.fixture()
def idle_app(fresh_settings: Callable[..., Settings]) -> Iterator[Callable[..., Flask]]:
    """Factory(**config): an app on settings no worker serves (its jobs stay queued)."""
    apps: list[Flask] = []

    def make(**config: Any) -> Flask:
        apps.append(make_app(fresh_settings(), **config))
        return apps[-1]

    yield make
    for app in apps:
        app.extensions["alphametic.store"].close()


@pytest.fixture(scope="session")
def live_server(web_settings: Any, web_workers: Any) -> Iterator[str]:
    """Run the app under gunicorn (web.wsgi:app) on a free port; yield its base URL."""
    env = {"ALPHAMETIC_RATE_LIMIT": "10000/minute", "ALPHAMETIC_READ_RATE_LIMIT": "100000/minute"}
    server = WebServer(web_settings, env=env)
    try:
        yield server.wait_ready().url
    finally:
        if _artifacts():
            shutil.copy(server.log_path, ROOT / "tests" / "artifacts" / "gunicorn.log")
        server.cleanup()


def _artifacts() -> bool:
    """Create the artifacts folder; tell whether it exists."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS.is_dir()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The folder for screenshots (git-ignored)."""
    _artifacts()
    return ARTIFACTS


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Debian chromium per test module (skipped without Playwright or chromium)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("chromium is not installed")
    with launch(playwright_api) as chromium:
        yield chromium
