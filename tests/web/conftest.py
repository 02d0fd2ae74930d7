"""Fixtures for the web tests: the app on the shared Redis and workers, and a real HTTP server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient

from web import create_app
from worker.config import Settings
from worker.jobs import Job, JobStore
from worker.testing import WorkerProcess

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts" / "web"
TERMINAL = {"succeeded", "failed", "canceled"}
WEB_DB = 63  # the session redis-server has 64 databases; fresh_settings counts up from 1


def free_port() -> int:
    """Return a TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def web_settings(settings: Settings) -> Settings:
    """The shared Redis, but a database and key prefix of the web tests' own.

    Identical submissions are deduplicated, so sharing the worker tests' keys would hand them
    jobs these tests finished (or cancelled) already; separate queues keep both apart.
    """
    url = settings.redis_url.rsplit("/", 1)[0] + f"/{WEB_DB}"
    return settings.replace(redis_url=url, key_prefix="alphametic-test-web")


@pytest.fixture(scope="session")
def web_workers(web_settings: Settings) -> Iterator[WorkerProcess]:
    """One real celery worker (both queues, two processes) on the web tests' settings."""
    worker = WorkerProcess(web_settings, "solve,enumerate", concurrency=2)
    try:
        yield worker.wait_ready()
    finally:
        worker.cleanup()


def make_app(settings: Any, **config: Any) -> Flask:
    """Build an app on these settings with a high rate limit unless told otherwise."""
    base: dict[str, Any] = {"SETTINGS": settings, "TESTING": True, "RATE_LIMIT": "10000/minute"}
    base.update(config)
    return create_app(base)


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


def wait_for(
    job_store: JobStore, job_id: str, done: Callable[[Job], bool], timeout: float = 30
) -> Job:
    """Poll the store until done(job) holds or fail after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        job = job_store.get(job_id)
        assert job is not None, f"job {job_id} vanished"
        if done(job):
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} stuck in {job.state} after {timeout}s")
        time.sleep(0.05)


def wait_done(job_store: JobStore, job_id: str, timeout: float = 30) -> Job:
    """Wait until the job is in a terminal state."""
    return wait_for(job_store, job_id, lambda job: job.state in TERMINAL, timeout)


@pytest.fixture(scope="session")
def live_server(web_settings: Any, web_workers: Any) -> Iterator[str]:
    """Run the app under gunicorn (web.wsgi:app) on a free port; yield its base URL."""
    port = free_port()
    env = dict(os.environ)
    env.update(web_settings.env())
    env.update(
        ALPHAMETIC_RATE_LIMIT="10000/minute",
        ALPHAMETIC_SECRET_KEY="test-secret-key",
        PYTHONPATH=str(ROOT),
    )
    log = open(ROOT / "tests" / "artifacts" / "gunicorn.log", "wb") if _artifacts() else None
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    # --no-control-socket: gunicorn's control socket has one fixed path under $HOME.
    cmd += ["--threads", "8", "--timeout", "30", "--no-control-socket", "web.wsgi:app"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_http(url + "/healthz", proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log:
            log.close()


def _artifacts() -> bool:
    """Create the artifacts folder; tell whether it exists."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS.is_dir()


def _wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """Wait until url answers 200 (or the server process died)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if requests.get(url, timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass  # not listening yet, or still importing the app
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout}s")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The folder for screenshots (git-ignored)."""
    _artifacts()
    return ARTIFACTS
