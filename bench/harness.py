"""Throwaway systems for the system benchmarks: redis-server, celery workers, gunicorn, clients.

Every benchmark runs inside `with system(...) as s:`, which starts a private redis-server on a
free port, the celery workers asked for and (optionally) gunicorn, and stops all of them on the
way out, whatever happened.
"""

from __future__ import annotations

import math
import os
import platform
import random
import string
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import alphametic  # noqa: E402
from worker.config import Settings  # noqa: E402
from worker.jobs import JobStore  # noqa: E402
from worker.testing import RedisServer, WorkerProcess, free_port, wait_for  # noqa: E402

TERMINAL = ("succeeded", "failed", "canceled")


@dataclass
class System:
    """A running system: its Redis, settings, workers, a store and the web URL (or "")."""

    redis: RedisServer
    settings: Settings
    workers: list[WorkerProcess]
    url: str = ""
    extra: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def store(self) -> JobStore:
        """A JobStore on the system's settings."""
        return JobStore(self.settings)


def settings_for(server: RedisServer, prefix: str, **changes: Any) -> Settings:
    """Production defaults (not this shell's environment) on the private Redis."""
    return Settings().replace(redis_url=server.url, key_prefix=prefix, **changes)


@contextmanager
def system(
    prefix: str,
    workers: Sequence[tuple[str, int]] = (("solve", 1),),
    web_workers: int = 0,
    **changes: Any,
) -> Iterator[System]:
    """Start redis, celery workers (queues, concurrency) and gunicorn; stop them all after."""
    server = RedisServer().start()
    started: list[WorkerProcess] = []
    web: subprocess.Popen[bytes] | None = None
    try:
        settings = settings_for(server, prefix, max_queued_per_client=0, **changes)
        started = [WorkerProcess(settings, q, c) for q, c in workers]
        for worker in started:
            worker.wait_ready(60)
        url = ""
        if web_workers:
            web, url = start_gunicorn(settings, web_workers)
        yield System(server, settings, started, url)
    finally:
        if web is not None:
            web.terminate()
            try:
                web.wait(10)
            except subprocess.TimeoutExpired:
                web.kill()
                web.wait(5)
        WorkerProcess.stop_all(started)
        server.cleanup()


def start_gunicorn(settings: Settings, processes: int) -> tuple[subprocess.Popen[bytes], str]:
    """gunicorn web.wsgi:app on a free port with the rate limit raised; returns (proc, url)."""
    port = free_port()
    env = {**os.environ, **settings.env(), "PYTHONPATH": str(ROOT)}
    env.update(
        ALPHAMETIC_RATE_LIMIT="1000000/minute",
        ALPHAMETIC_SECRET_KEY="bench-secret-key",
        ALPHAMETIC_MAX_PAGE_SIZE=os.environ.get("ALPHAMETIC_MAX_PAGE_SIZE", "500"),
    )
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"]
    cmd += ["--workers", str(processes), "--threads", "8", "--no-control-socket"]
    cmd += ["--log-level", "warning", "web.wsgi:app"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError("gunicorn exited")
        try:
            return requests.get(url + "/healthz", timeout=1).status_code == 200
        except requests.RequestException:
            return False

    wait_for(up, 30, what="gunicorn")
    return proc, url


class Client:
    """An HTTP API client (one keep-alive session) that submits jobs and waits for them."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = requests.Session()

    def submit(
        self, puzzle: str, mode: str = "solve", options: dict[str, Any] | None = None
    ) -> str:
        """POST a job; returns its id."""
        body = {"puzzle": puzzle, "mode": mode, "options": options or {}}
        reply = self.http.post(self.url + "/api/jobs", json=body, timeout=30)
        if reply.status_code != 202:
            raise RuntimeError(f"submit answered {reply.status_code}: {reply.text[:300]}")
        return str(reply.json()["id"])

    def status(self, job_id: str) -> dict[str, Any]:
        """GET the job's status body."""
        reply = self.http.get(f"{self.url}/api/jobs/{job_id}", timeout=30)
        reply.raise_for_status()
        return dict(reply.json())

    def wait(self, job_id: str, poll: float, until: Sequence[str] = TERMINAL) -> dict[str, Any]:
        """Poll the status every `poll` seconds until its state is one of `until`."""
        while True:
            body = self.status(job_id)
            if body["state"] in until:
                return body
            time.sleep(poll)

    def cancel(self, job_id: str) -> dict[str, Any]:
        """POST a cancel; returns the status body."""
        reply = self.http.post(f"{self.url}/api/jobs/{job_id}/cancel", timeout=30)
        reply.raise_for_status()
        return dict(reply.json())


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def ms(values: Sequence[float]) -> str:
    """'p50 x ms, p99 y ms' of a list of seconds."""
    return (
        f"p50 {percentile(values, 50) * 1e3:7.1f} ms   p99 {percentile(values, 99) * 1e3:7.1f} ms"
    )


def random_additions(count: int, seed: int = 8) -> list[str]:
    """Distinct solvable random additions of two words with 5 to 8 distinct letters."""
    rng = random.Random(seed)
    found: set[str] = set()
    while len(found) < count:
        letters = rng.sample(string.ascii_uppercase, rng.randint(5, 8))
        a, b = rng.randint(2, 4), rng.randint(2, 4)
        sizes = (a, b, max(a, b) + rng.randint(0, 1))
        words = ["".join(rng.choice(letters) for _ in range(n)) for n in sizes]
        if not 5 <= len(set("".join(words))) <= 8:
            continue
        puzzle = alphametic.parse(f"{words[0]} + {words[1]} = {words[2]}")
        if next(alphametic.Search(puzzle).solutions(), None) is not None:
            found.add(puzzle.text)
    return sorted(found, key=lambda _: rng.random())


def rss_kb(pid: int, field_name: str = "VmRSS") -> int:
    """A process's resident set (or VmHWM, its peak) in kB from /proc; 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def machine() -> str:
    """One line describing the machine and software (for BENCHMARKS.md)."""
    model = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    redis_version = (
        subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=False)
        .stdout.split(" v=")[-1]
        .split()[0]
    )
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return (
        f"nproc {os.cpu_count()}, {model}, Python {platform.python_version()}, "
        f"redis-server {redis_version}, load average at start {load}"
    )
