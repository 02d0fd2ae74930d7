"""Throwaway processes for tests and benchmarks: a private redis-server, celery workers, gunicorn.

Used by tests/conftest.py and bench/*.py; nothing here runs in production.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import redis

from jobstore import Job, JobStore, Settings
from scripts import webserver

ROOT = Path(__file__).resolve().parents[2]


def stop_process(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM) -> None:
    """Signal a process (SIGKILL: a crash) and wait for it to exit, killing it after 10 s."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def free_port() -> int:
    """A TCP port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(predicate: object, timeout: float, interval: float = 0.02, what: str = "") -> None:
    """Poll predicate() until it is truthy or raise TimeoutError after timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout} s waiting for {what or predicate}")


def wait_job(
    store: JobStore,
    job_id: str,
    predicate: Callable[[Job], bool] = lambda job: job.done,
    timeout: float = 30,
    interval: float = 0.01,
) -> Job:
    """Poll a job until predicate(job) holds; AssertionError after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        job = store.get(job_id)
        assert job is not None, f"job {job_id} is unknown"
        if predicate(job):
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} did not get there in {timeout} s: {job.to_dict()}")
        time.sleep(interval)


class RedisServer:
    """A redis-server on a free port in its own temp dir; start(), stop(), restart()."""

    def __init__(self, *, appendonly: bool = False, port: int | None = None) -> None:
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="alphametic-redis-"))
        self.appendonly = appendonly
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """redis:// URL of database 0."""
        return f"redis://127.0.0.1:{self.port}/0"

    def url_for(self, db: int) -> str:
        """redis:// URL of another database (for isolated brokers in one server)."""
        return f"redis://127.0.0.1:{self.port}/{db}"

    @property
    def pid(self) -> int | None:
        """Process id while running."""
        return self.proc.pid if self.proc and self.proc.poll() is None else None

    def start(self) -> RedisServer:
        """Start the server (same port and dir as before, so a restart keeps the AOF)."""
        args = [
            shutil.which("redis-server") or "redis-server",
            "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
            "--save", "", "--databases", "1024", "--protected-mode", "no",
            "--maxmemory-policy", "noeviction",
            "--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "everysec",
        ]  # fmt: skip
        log = open(self.dir / "redis.log", "ab")  # noqa: SIM115 (kept by the process)
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        wait_for(lambda: self._ping(client), 10, what="redis-server to answer")
        return self

    def _ping(self, client: redis.Redis) -> bool:
        """True when the server answers; raises if it exited."""
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"redis-server exited: {(self.dir / 'redis.log').read_text()}")
        try:
            return bool(client.ping())
        except redis.exceptions.RedisError:
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server (SIGKILL for a crash) and wait for it to exit."""
        stop_process(self.proc, sig)

    def restart(self) -> None:
        """Stop then start again on the same port."""
        self.stop()
        self.start()

    def cleanup(self) -> None:
        """Stop and remove the temp dir."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Spawned:
    """A subprocess in a session (process group) of its own, its output in a temporary log."""

    def __init__(self, args: list[str], settings: Settings, env: dict[str, str], kind: str) -> None:
        self.log_path = Path(tempfile.mkstemp(prefix=f"alphametic-{kind}-", suffix=".log")[1])
        full_env = {**os.environ, **settings.env(), **env}
        full_env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{full_env.get('PYTHONPATH', '')}"
        log = open(self.log_path, "wb")  # noqa: SIM115 (kept by the process)
        self.proc = subprocess.Popen(
            args, cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    @property
    def pid(self) -> int:
        """Process id of the main process."""
        return self.proc.pid

    def children(self) -> list[int]:
        """Process ids of the direct children of the main process (pool or gunicorn workers)."""
        try:
            text = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text()
        except OSError:
            return []
        return [int(p) for p in text.split()]

    def alive(self) -> bool:
        """True while the main process runs."""
        return self.proc.poll() is None

    def log(self) -> str:
        """Everything the process printed so far."""
        return self.log_path.read_text(errors="replace")

    def _reap_group(self) -> None:
        """Make sure no child outlives the main process."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class WorkerProcess(Spawned):
    """A `celery -A worker worker` subprocess (the main process; its pool children fork)."""

    counter = 0

    def __init__(
        self,
        settings: Settings,
        queues: str = "solve,enumerate",
        concurrency: int = 1,
        env: dict[str, str] | None = None,
        name: str | None = None,
        wrap: list[str] | None = None,
    ) -> None:
        WorkerProcess.counter += 1
        self.settings = settings
        self.queues = queues
        self.name = name or f"w{os.getpid()}-{WorkerProcess.counter}@%h"
        args = [
            sys.executable, "-m", "celery", "-A", "worker", "worker",
            "-Q", queues, "-c", str(concurrency), "-n", self.name, "-l", "INFO",
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        # `wrap` runs it under another command (unshare for a PID namespace of its own).
        super().__init__([*(wrap or []), *args], settings, env or {}, "worker")

    def wait_ready(self, timeout: float = 30) -> WorkerProcess:
        """Wait until the worker reports ready (its pool is up and it consumes)."""

        def ready() -> bool:
            if not self.alive():
                raise RuntimeError(f"celery worker exited early:\n{self.log()}")
            return " ready." in self.log()

        wait_for(ready, timeout, interval=0.05, what="celery worker to be ready")
        return self

    def terminate(self, timeout: float = 15) -> None:
        """SIGTERM (warm shutdown); SIGKILL the whole group if it lingers."""
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._reap_group()

    def kill(self) -> None:
        """SIGKILL the main process and its pool children at once."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)

    def cleanup(self) -> None:
        """Stop the worker (forcefully after a short grace) and remove its log."""
        self.terminate(timeout=5)
        self.log_path.unlink(missing_ok=True)

    @staticmethod
    def stop_all(workers: list[WorkerProcess], graceful: bool = False) -> None:
        """Stop every worker: SIGKILL at once, or SIGTERM all first so shutdowns overlap."""
        for worker in workers:
            if not graceful:
                worker.kill()
            elif worker.alive():
                worker.proc.terminate()
        for worker in workers:
            worker.cleanup()


class WebServer(Spawned):
    """gunicorn serving web.wsgi:app on a free port, on these settings (its own session).

    By default gthread with `workers` x `threads`; `command` starts another setup instead.
    """

    def __init__(
        self,
        settings: Settings,
        workers: int = 1,
        threads: int = 8,
        env: dict[str, str] | None = None,
        command: Callable[[int], list[str]] | None = None,
        port: int | None = None,
    ) -> None:
        """`command(port)`, when given, is the whole server command (e.g. scripts.run.web_argv);
        `port` one to bind again (a restart), else a free one."""
        self.port = port or free_port()
        # --no-control-socket: gunicorn's control socket has one fixed path under $HOME.
        args = [
            sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}",
            "--workers", str(workers), "--threads", str(threads), "--timeout", "30",
            "--no-control-socket", "--limit-request-line", str(webserver.limit_request_line),
            "--limit-request-field_size", str(webserver.limit_request_field_size), "web.wsgi:app",
        ]  # fmt: skip
        if command is not None:
            args = command(self.port)
        super().__init__(
            args, settings, {"ALPHAMETIC_SECRET_KEY": "test-secret-key", **(env or {})}, "web"
        )

    @property
    def url(self) -> str:
        """Base URL, e.g. http://127.0.0.1:8123."""
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 30) -> WebServer:
        """Wait until /healthz answers 200 (raise if gunicorn exited)."""
        import urllib.request

        def ready() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited early:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as answer:
                    return bool(answer.status == 200)
            except OSError:
                return False

        wait_for(ready, timeout, interval=0.1, what="gunicorn to answer /healthz")
        return self

    def cleanup(self) -> None:
        """SIGTERM gunicorn, SIGKILL its whole group if it lingers; remove the log."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self._reap_group()
        self.proc.wait(5)
        self.log_path.unlink(missing_ok=True)
