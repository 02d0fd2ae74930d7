"""docker-compose.yml's healthchecks, run here against real processes (no Docker engine needed).

Each probe is the compose file's own command, with only what Docker provides swapped in: the
Python of this venv for the image's, and the test server's port for the container's fixed one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from jobstore import Settings
from tests.support.compose import ROOT, load_compose, services
from tests.support.ops import own_settings
from tests.support.processes import RedisServer, WebServer, WorkerProcess, free_port, wait_for

pytestmark = pytest.mark.timeout(120)


def probe(service: str) -> list[str]:
    """A service's healthcheck command as argv (CMD form; CMD-SHELL runs under sh -c)."""
    test = services(load_compose())[service]["healthcheck"]["test"]
    if test[0] == "CMD-SHELL":
        return ["sh", "-c", test[1].replace("$$", "$")]
    assert test[0] == "CMD"
    words: list[str] = [sys.executable if w == "python" else str(w) for w in test[1:]]
    return words


def run(argv: list[str], env: dict[str, str]) -> int:
    """Run a probe as Docker would; its exit code (0: healthy)."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(argv, env=full, cwd=ROOT, timeout=30, check=False).returncode


@pytest.fixture(scope="module")
def probe_settings(settings: Settings) -> Settings:
    """The session Redis, a database of these tests' own."""
    return own_settings(settings, heartbeat_interval=0.5)


@pytest.fixture()
def solve_worker(probe_settings: Settings) -> Iterator[WorkerProcess]:
    """A solve worker named as compose names it: solve@<this host>."""
    worker = WorkerProcess(probe_settings, "solve", name="solve@%h")
    try:
        yield worker.wait_ready()
    finally:
        worker.cleanup()


def test_worker_probe_follows_its_own_heartbeat(
    probe_settings: Settings, solve_worker: WorkerProcess
) -> None:
    """Healthy while solve@host beats; the enumerate probe (no such worker here) is unhealthy."""
    env = probe_settings.env()
    wait_for(lambda: run(probe("worker-solve"), env) == 0, 10, interval=0.5)
    assert run(probe("worker-enumerate"), env) != 0
    solve_worker.kill()  # no withdrawal: the heartbeat just stops
    wait_for(lambda: run(probe("worker-solve"), env) != 0, 10, interval=0.5)


def test_web_probe_asks_healthz(probe_settings: Settings) -> None:
    """The web probe passes against a real gunicorn and fails when nothing listens."""
    server = WebServer(probe_settings)
    try:
        server.wait_ready()
        argv = [w.replace("127.0.0.1:8000", f"127.0.0.1:{server.port}") for w in probe("web")]
        assert run(argv, {}) == 0
    finally:
        server.cleanup()
    assert run(argv, {}) != 0


@pytest.fixture()
def password_redis() -> Iterator[tuple[int, str]]:
    """A redis-server with requirepass, as compose starts it, on a free port."""
    port, password = free_port(), "0123456789abcdef" * 4
    server = RedisServer(port=port)
    binary = shutil.which("redis-server") or "redis-server"
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--requirepass", password, "--dir", str(server.dir)]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: socket_open(port), 10)
        yield port, password
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(server.dir, ignore_errors=True)


def socket_open(port: int) -> bool:
    """Whether something listens on 127.0.0.1:port."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_redis_probe_needs_the_password(password_redis: tuple[int, str]) -> None:
    """redis-cli ping with REDISCLI_AUTH: PONG with the password, unhealthy without it."""
    port, password = password_redis
    argv = probe("redis")
    argv[-1] = argv[-1].replace("redis-cli", f"redis-cli -p {port}")
    assert run(argv, {"REDIS_PASSWORD": password}) == 0
    assert run(argv, {"REDIS_PASSWORD": "wrong"}) != 0


def test_compose_flower_refuses_to_start_without_a_login() -> None:
    """scripts.flower (compose's Flower) exits 2 without FLOWER_BASIC_AUTH, naming it."""
    words: list[Any] = services(load_compose())["flower"]["command"]
    argv = [sys.executable if w == "python" else str(w) for w in words]
    env = {k: v for k, v in os.environ.items() if k != "FLOWER_BASIC_AUTH"}
    result = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=30,
                            check=False)  # fmt: skip
    assert result.returncode == 2 and "FLOWER_BASIC_AUTH" in result.stderr
