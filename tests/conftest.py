"""Shared fixtures: a private redis-server, settings, job stores and real celery workers.

Session-wide (cheap to share, started once):
  redis_server    RedisServer on a free port (.url, .port, .pid, .url_for(db), .stop(sig),
                  .start(), .restart()); never the machine's 127.0.0.1:6379.
  settings        Settings on redis_server's db 0 with key prefix "alphametic-test" (the
                  session workers use exactly these).
  celery_workers  (solve, enumerate): one `celery -A worker worker` per queue, concurrency 1,
                  running against `settings`.
Per test:
  store           JobStore on `settings`; jobs it submitted are cancelled at teardown so no
                  long job outlives its test on the shared workers.
  redis_client    a decoded redis.Redis on `settings`.
  fresh_settings  factory(**changes) -> Settings on a database of its own and a unique prefix:
                  its own broker queues too, so workers started for it see only its jobs.
  worker_factory  factory(settings, queues="solve,enumerate", concurrency=1, env=None,
                  wait=True) -> WorkerProcess (.pid, .children(), .kill(), .terminate(),
                  .alive(), .log()); every worker still running is SIGKILLed at teardown.
  redis_factory   factory(appendonly=False) -> a started extra RedisServer, removed after.
  wait_job        wait_job(store, id, predicate=Job.done, timeout=30) -> Job, polling.
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest
import redis

import jobstore.store
from jobstore import Job, JobStore, Rate, Settings
from tests.support.processes import RedisServer, WorkerProcess
from tests.support.processes import wait_job as poll_job

TEST_PREFIX = "alphametic-test"
_databases = itertools.count(1)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A redis-server for the whole session, removed afterwards even on failure."""
    server = RedisServer()
    try:
        server.start()
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def settings(redis_server: RedisServer) -> Settings:
    """Settings on the session Redis (short limits so a stuck test fails fast)."""
    return Settings(
        redis_url=redis_server.url,
        key_prefix=TEST_PREFIX,
        solve_soft_limit=30,
        solve_hard_limit=40,
        enumerate_soft_limit=120,
        enumerate_hard_limit=130,
        heartbeat_interval=0.5,
    )


@pytest.fixture()
def fresh_settings(settings: Settings) -> Callable[..., Settings]:
    """Factory: settings on a database of their own (own queues and keys) plus changes."""

    def make(**changes: Any) -> Settings:
        db = next(_databases)
        url = settings.redis_url.rsplit("/", 1)[0] + f"/{db}"
        prefix = f"{TEST_PREFIX}-{uuid.uuid4().hex[:8]}"
        return settings.replace(redis_url=url, key_prefix=prefix, **changes)

    return make


class TrackingStore(JobStore):
    """A JobStore that remembers what it submitted, to cancel leftovers after the test."""

    def __init__(self, settings: Settings, wait_leftovers: bool = True) -> None:
        super().__init__(settings)
        self.submitted: list[str] = []
        self.wait_leftovers = wait_leftovers

    def submit(
        self,
        mode: str,
        puzzle: str,
        options: Mapping[str, Any] | None = None,
        *,
        client: str | None = None,
        rates: Sequence[Rate] = (),
        fresh: bool = False,
    ) -> Job:
        """Submit and remember the job id."""
        job = super().submit(mode, puzzle, options, client=client, rates=rates, fresh=fresh)
        self.submitted.append(job.id)
        return job

    def cancel_leftovers(self, timeout: float = 3) -> None:
        """Cancel every unfinished job this store submitted and wait until all are done."""
        for job_id in self.submitted:
            self.cancel(job_id)
        if not self.wait_leftovers:
            return
        deadline = time.monotonic() + timeout
        for job_id in self.submitted:
            while time.monotonic() < deadline:
                job = self.get(job_id)
                if job is None or job.done:
                    break
                time.sleep(0.02)


@pytest.fixture()
def store_factory() -> Iterator[Callable[..., TrackingStore]]:
    """Factory(settings, wait_leftovers=True): a TrackingStore, its jobs cancelled at teardown.

    With wait_leftovers=False teardown does not wait for cancelled running jobs to end (for
    tests that fake attempts with no worker behind them).
    """
    stores: list[TrackingStore] = []

    def make(settings: Settings, wait_leftovers: bool = True) -> TrackingStore:
        stores.append(TrackingStore(settings, wait_leftovers))
        return stores[-1]

    yield make
    for made in stores:
        try:
            made.cancel_leftovers()
        except Exception:  # noqa: BLE001 (a test may have stopped Redis on purpose)
            pass


@pytest.fixture()
def store(settings: Settings, store_factory: Callable[..., TrackingStore]) -> JobStore:
    """A JobStore on the session settings; its unfinished jobs are cancelled afterwards."""
    return store_factory(settings)


@pytest.fixture()
def redis_client(settings: Settings) -> redis.Redis:
    """A decoded Redis client on the session settings."""
    return redis.Redis.from_url(settings.redis_url, decode_responses=True)


@pytest.fixture()
def worker_factory() -> Iterator[Callable[..., WorkerProcess]]:
    """Factory: start real celery worker subprocesses; all are killed at teardown."""
    started: list[WorkerProcess] = []

    def start(
        settings: Settings,
        queues: str = "solve,enumerate",
        concurrency: int = 1,
        env: dict[str, str] | None = None,
        wait: bool = True,
        name: str | None = None,
        wrap: list[str] | None = None,
    ) -> WorkerProcess:
        worker = WorkerProcess(settings, queues, concurrency, env, name, wrap)
        started.append(worker)
        return worker.wait_ready() if wait else worker

    yield start
    WorkerProcess.stop_all(started)


@pytest.fixture(scope="session")
def celery_workers(settings: Settings) -> Iterator[tuple[WorkerProcess, WorkerProcess]]:
    """One solve and one enumerate worker for the whole session (concurrency 1 each)."""
    workers = [WorkerProcess(settings, "solve"), WorkerProcess(settings, "enumerate")]
    try:
        for worker in workers:
            worker.wait_ready()
        yield workers[0], workers[1]
    finally:
        WorkerProcess.stop_all(workers)


@pytest.fixture()
def redis_factory() -> Iterator[Callable[..., RedisServer]]:
    """Factory: extra redis-servers (e.g. appendonly=True for restart tests), removed after."""
    servers: list[RedisServer] = []

    def start(appendonly: bool = False) -> RedisServer:
        servers.append(RedisServer(appendonly=appendonly).start())
        return servers[-1]

    yield start
    for server in servers:
        server.cleanup()


@pytest.fixture()
def no_recheck(monkeypatch: pytest.MonkeyPatch) -> None:
    """JobStore.wait looks at its job on its own only after a minute: a wait that ends
    sooner was woken by a published end (jobstore/waiters.py)."""
    monkeypatch.setattr(jobstore.store, "RECHECK", 60.0)


@pytest.fixture()
def wait_job() -> Callable[..., Job]:
    """tests.support.processes.wait_job as a fixture: wait_job(store, id, predicate, timeout)."""
    return poll_job
