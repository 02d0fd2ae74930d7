"""`make run`: start Redis (unless REDIS_URL is set), both worker pools and gunicorn; stop all."""

from __future__ import annotations

import fcntl
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from scripts.console import open_log, ready_block, relative, show_tail
from scripts.embedded_redis import (
    FSYNC_POLICIES,
    RedisStartError,
    free_port,
    log_tail,
    port_in_use,
    redis_argv,
    redis_binary,
    wait_ready,
)
from scripts.flower import FlowerConfig, FlowerSettingsError
from scripts.supervisor import Child, StopRequest, Supervisor, become_subreaper, say

STOP_TIMEOUT = 5.0  # seconds each stage may take to exit cleanly before SIGKILL
START_TIMEOUT = 60.0  # seconds for gunicorn to answer the first request
READY_GRACE = 20.0  # seconds the ready block waits for the workers once the web answers


class UsageError(ValueError):
    """A bad setting in the environment; reported as one line with exit code 2."""


def _int_env(env: Mapping[str, str], name: str, default: int, minimum: int = 1) -> int:
    """Read a positive integer setting; an empty value counts as unset (make exports empties)."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise UsageError(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise UsageError(f"{name} must be at least {minimum}, got {value}")
    return value


@dataclass(frozen=True)
class RunConfig:
    """What `make run` starts, read from the environment."""

    port: int
    solve_workers: int
    enumerate_workers: int
    web_workers: int
    redis_url: str | None
    var_dir: Path
    flower: FlowerConfig | None = None
    fsync: str = "everysec"  # the embedded Redis's appendfsync (REDIS_APPENDFSYNC)

    @property
    def log_dir(self) -> Path:
        """Where the children's output goes."""
        return self.var_dir / "log"

    @classmethod
    def from_env(cls, env: Mapping[str, str], root: Path) -> RunConfig:
        """Read PORT, SOLVE_WORKERS, ENUMERATE_WORKERS, WEB_CONCURRENCY, REDIS_URL, FLOWER_*,
        REDIS_APPENDFSYNC."""
        port = _int_env(env, "PORT", 8000)
        if port > 65535:
            raise UsageError(f"PORT must be at most 65535, got {port}")
        fsync = env.get("REDIS_APPENDFSYNC", "").strip().lower() or "everysec"
        if fsync not in FSYNC_POLICIES:
            choices = ", ".join(FSYNC_POLICIES)
            raise UsageError(f"REDIS_APPENDFSYNC must be one of {choices}, got {fsync!r}")
        try:
            flower = FlowerConfig.from_env(env)
        except FlowerSettingsError as exc:
            raise UsageError(str(exc)) from None
        return cls(
            port=port,
            solve_workers=_int_env(env, "SOLVE_WORKERS", 1),
            enumerate_workers=_int_env(env, "ENUMERATE_WORKERS", os.cpu_count() or 1),
            web_workers=_int_env(env, "WEB_CONCURRENCY", 2),
            redis_url=env.get("REDIS_URL", "").strip() or None,
            var_dir=root / "var",
            flower=flower,
            fsync=fsync,
        )


def worker_argv(queue: str, concurrency: int) -> list[str]:
    """A Celery worker consuming one queue with `concurrency` pool processes."""
    return [
        sys.executable, "-m", "celery", "-A", "worker", "worker",
        "-Q", queue, "--concurrency", str(concurrency), "-n", f"{queue}@%h", "--loglevel", "INFO",
    ]  # fmt: skip


def web_argv(port: int, workers: int) -> list[str]:
    """Gunicorn serving web.wsgi:app on loopback only, as scripts/webserver.py configures it."""
    # The gevent worker: slow clients hold a greenlet each, not one of a few threads (issue 14).
    return [
        sys.executable, "-m", "gunicorn", "--config", "python:scripts.webserver",
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
        # Logging only: gunicorn's own lines follow ALPHAMETIC_LOG_FORMAT too.
        "--logger-class", "scripts.gunicorn_logging.GunicornLogger", "web.wsgi:app",
    ]  # fmt: skip


def lock_var_dir(var_dir: Path) -> IO[str]:
    """Hold var/run.lock so two `make run` never share one Redis data directory."""
    var_dir.mkdir(parents=True, exist_ok=True)
    handle = (var_dir / "run.lock").open("w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise UsageError(f"another `make run` is already using {var_dir}") from None
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def secret_key(var_dir: Path) -> str:
    """A session key kept in var/, so every gunicorn process (and the next run) accepts forms."""
    path = var_dir / "secret_key"
    if not path.exists():
        var_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text().strip()


def start_redis(
    sup: Supervisor, var_dir: Path, stop: StopRequest, fsync: str = "everysec"
) -> tuple[Child, str]:
    """Start the embedded Redis and wait until it answers; return it and its URL."""
    binary = redis_binary()
    data_dir = var_dir / "redis"
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    say(f"redis: starting {binary} on 127.0.0.1:{port}, append-only data in {data_dir} "
        f"(appendfsync {fsync})")  # fmt: skip
    child = sup.start("redis", redis_argv(binary, port, data_dir, fsync))
    try:
        wait_ready(url, alive=lambda: child.proc.poll() is None and not stop.requested)
    except RedisStartError as exc:
        if stop.requested:
            raise
        raise RedisStartError(f"{exc}; last lines of its log:\n{log_tail(data_dir)}") from None
    return child, url


def answers(url: str) -> bool:
    """Whether an HTTP GET of url gets a non-5xx answer."""
    try:
        with urllib.request.urlopen(url, timeout=1.0) as response:
            return int(response.status) < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except (OSError, ValueError):
        return False


def rows(config: RunConfig, root: Path, base_url: str, logs: list[str]) -> list[tuple[str, str]]:
    """The ready block's lines: what to open, where logs go, how to stop."""
    redis_log = "" if config.redis_url else f"; Redis: {relative(config.var_dir, root)}/redis/"
    found = [("open", base_url)]
    if config.flower is not None:
        found.append(("flower", f"http://127.0.0.1:{config.flower.port}/ (FLOWER_BASIC_AUTH)"))
    if os.environ.get("ALPHAMETIC_ADMIN_TOKEN", "").strip():
        found.append(("admin", f"{base_url}admin (ALPHAMETIC_ADMIN_TOKEN)"))
    found.append(("metrics", f"{base_url}metrics"))
    found.append(
        ("workers", f"solve x{config.solve_workers}, enumerate x{config.enumerate_workers}")
    )
    log_dir = relative(config.log_dir, root)
    found.append(("logs", f"{log_dir}/ ({', '.join(logs)}{redis_log})"))
    found.append(("stop", "Ctrl-C (a second one stops at once)"))
    return found


def watch(sup: Supervisor, stop: StopRequest, base_url: str, block: list[tuple[str, str]],
          logs: dict[str, Path]) -> int:  # fmt: skip
    """Wait for the web and the workers, show the block, then wait for a stop or a crash."""
    web_at: float | None = None
    announced = False
    started = time.monotonic()
    while not stop.requested:
        crashed = sup.crashed()
        if crashed is not None:
            code = crashed.proc.returncode
            say(f"{crashed.name} (pid {crashed.pid}) exited with code {code}: stopping the rest")
            if crashed.name in logs:
                show_tail(logs[crashed.name], Path.cwd())
            return 1
        now = time.monotonic()
        if not announced:
            if web_at is None and answers(base_url):
                web_at = now
            if web_at is None and now - started > START_TIMEOUT:
                say(f"the web server did not answer {base_url} within {START_TIMEOUT:g} s")
                return 1
            if web_at is not None:
                ready = answers(base_url + "readyz")
                if ready or now - web_at > READY_GRACE:
                    announced = True
                    warn = [] if ready else [("warning", f"{base_url}readyz says not ready")]
                    ready_block(block + warn, now - started)
        time.sleep(0.2)
    say(f"{stop.signals[0]} received: stopping (web, workers, then Redis)")
    return 0


def serve(config: RunConfig, root: Path, stop: StopRequest) -> int:
    """Start every part, watch them, and stop them all in order whatever happens."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("FLOWER_BASIC_AUTH", None)  # Flower's login goes to Flower alone
    if not env.get("ALPHAMETIC_SECRET_KEY", "").strip():
        env["ALPHAMETIC_SECRET_KEY"] = secret_key(config.var_dir)
    become_subreaper()  # so grandchildren orphaned by a killed child are ours to reap
    sup = Supervisor(root, env)
    redis_child: Child | None = None
    handles: list[IO[bytes]] = []
    logs: dict[str, Path] = {}

    def start(
        name: str, log: str, argv: list[str], child_env: dict[str, str] | None = None
    ) -> None:
        """Start one part with its output going to var/log/<log>.log."""
        handles.append(open_log(config.log_dir, log))
        logs[name] = config.log_dir / f"{log}.log"
        sup.start(name, argv, env=child_env, stdout=handles[-1], stderr=subprocess.STDOUT)

    code = 0
    try:
        if config.redis_url is None:
            redis_child, sup.env["REDIS_URL"] = start_redis(sup, config.var_dir, stop, config.fsync)
        else:
            say(f"redis: using REDIS_URL={config.redis_url}")
        parts = ["web", "solve", "enumerate"] + (["flower"] if config.flower else [])
        say(f"starting {', '.join(parts)} (their output goes to {relative(config.log_dir, root)}/)")
        start("celery worker (solve)", "solve", worker_argv("solve", config.solve_workers))
        enumerate_argv = worker_argv("enumerate", config.enumerate_workers)
        start("celery worker (enumerate)", "enumerate", enumerate_argv)
        start("gunicorn", "web", web_argv(config.port, config.web_workers))
        if config.flower is not None:
            start("flower", "flower", config.flower.argv(), config.flower.env(sup.env))
        base_url = f"http://127.0.0.1:{config.port}/"
        names = [f"{part}.log" for part in parts]
        code = watch(sup, stop, base_url, rows(config, root, base_url, names), logs)
    except RedisStartError as exc:
        if not stop.requested:  # else Ctrl-C during start-up: a plain stop, not an error
            say(f"error: {exc}")
            code = 1
    finally:
        # SIGTERM goes to each whole process group, Celery's pool processes included: a job that
        # is running dies with its pool process and, by late ack + reject_on_worker_lost, is put
        # back on the queue, so the next `make run` starts it again (a warm shutdown would wait
        # for it to finish, and a SIGKILL would leave it unacknowledged until the broker's
        # visibility timeout).
        others = [child for child in sup.children if child is not redis_child]
        sup.stop(others, STOP_TIMEOUT, hurry=stop.hurry)
        if redis_child is not None:
            sup.stop([redis_child], STOP_TIMEOUT, hurry=stop.hurry)
        for handle in handles:
            handle.close()
        say("stopped; all processes exited")
    return code


def main() -> int:
    """Entry point of `python -m scripts.run`; returns the process exit code."""
    root = Path.cwd()
    stop = StopRequest()
    try:
        config = RunConfig.from_env(os.environ, root)
        if port_in_use(config.port):
            raise UsageError(f"port {config.port} is already in use; try e.g. PORT=8001 make run")
        if config.flower is not None and port_in_use(config.flower.port):
            raise UsageError(f"FLOWER_PORT {config.flower.port} is already in use")
        lock = lock_var_dir(config.var_dir) if config.redis_url is None else None
    except UsageError as exc:
        say(f"error: {exc}")
        return 2
    try:
        return serve(config, root, stop)
    finally:
        if lock is not None:
            lock.close()


if __name__ == "__main__":
    sys.exit(main())
