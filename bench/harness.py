"""Throwaway systems for the system benchmarks: redis-server, celery workers, gunicorn, clients.

Every benchmark runs inside `with system(...) as s:`, which starts a private redis-server on a
free port, the celery workers asked for and (optionally) gunicorn, and stops all of them on the
way out, whatever happened.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import platform
import random
import string
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import alphametic  # noqa: E402
from jobstore import JobStore, Settings  # noqa: E402
from tests.support.processes import RedisServer, WorkerProcess, free_port, wait_for  # noqa: E402

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
        ALPHAMETIC_READ_RATE_LIMIT="1000000/minute",
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
    """An HTTP API client on one keep-alive connection (http.client: lean, so on this 2-core
    machine the client's own CPU does not crowd out the system it measures)."""

    def __init__(self, url: str) -> None:
        self.url = url
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None
    ) -> tuple[int, dict[str, Any]]:
        """Send one request; (status, JSON body). Reconnects once if the server closed it."""
        if params:
            path += "?" + urllib.parse.urlencode(params)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                self.conn.request(method, path, body=data, headers=headers)
                reply = self.conn.getresponse()
                raw = reply.read()
                break
            except (http.client.HTTPException, ConnectionError):
                # gunicorn drops idle keep-alive connections after a few seconds
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        return reply.status, (json.loads(raw) if raw else {})

    def get_json(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """GET a JSON resource; RuntimeError unless 200."""
        status, body = self.request("GET", path, params=params)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}: {str(body)[:300]}")
        return body

    def submit(
        self, puzzle: str, mode: str = "solve", options: dict[str, Any] | None = None
    ) -> str:
        """POST a job; returns its id."""
        return str(self.create(puzzle, mode, options)["id"])

    def create(
        self,
        puzzle: str,
        mode: str = "solve",
        options: dict[str, Any] | None = None,
        wait: float = 0,
    ) -> dict[str, Any]:
        """POST a job (holding the answer up to `wait` seconds for its end); its status body."""
        body = {"puzzle": puzzle, "mode": mode, "options": options or {}}
        params = {"wait": wait} if wait else None
        status, reply = self.request("POST", "/api/jobs", body, params)
        if status != 202:
            raise RuntimeError(f"submit answered {status}: {str(reply)[:300]}")
        return reply

    def status(self, job_id: str, wait: float = 0) -> dict[str, Any]:
        """GET the job's status body (held up to `wait` seconds until the job ends)."""
        return self.get_json(f"/api/jobs/{job_id}", {"wait": wait} if wait else None)

    def wait(self, job_id: str, poll: float, until: Sequence[str] = TERMINAL) -> dict[str, Any]:
        """Poll the status every `poll` seconds until its state is one of `until`."""
        while True:
            body = self.status(job_id)
            if body["state"] in until:
                return body
            time.sleep(poll)

    def cancel(self, job_id: str) -> dict[str, Any]:
        """POST a cancel; returns the status body."""
        status, body = self.request("POST", f"/api/jobs/{job_id}/cancel", {})
        if status != 200:
            raise RuntimeError(f"cancel answered {status}: {str(body)[:300]}")
        return body


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
