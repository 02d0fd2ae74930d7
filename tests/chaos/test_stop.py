"""Stopping is not cancelling: a worker that stops hands its job back, and the job resumes.

Real workers, real signals: warm shutdown (SIGTERM to the main process, as `make run`'s Ctrl-C
and `docker stop` send), Ctrl-C in a terminal (SIGINT to the whole process group), kill -9,
workers in PID namespaces of their own sharing one host name, a broker URL that disagrees,
two deployments in one Redis database.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from jobstore import Job, JobStore, Keys, Mode, Settings, State
from tests.support.chaos import wait_until
from tests.support.processes import ROOT, WorkerProcess
from tests.support.puzzles import all_compact, engine_list
from worker.celery_app import make_app

pytestmark = pytest.mark.slow

# 2,580,480 solutions: many seconds of search with storing, so a stop lands mid-job.
LONG: tuple[str, dict[str, Any]] = ("A + B + C + D + E = F + G + H + I", {"base": 12})
# 790,272 solutions, seconds of storing on either engine: long enough that a stop lands
# mid-job (base 11's 290,304 could end first with the native core), short to finish.
MID: tuple[str, dict[str, Any]] = ("A + B + C + D = E + F + G + H", {"base": 12})


def running_with_progress(store: JobStore, job_id: str, at_least: float) -> bool:
    """Whether the job runs and has passed `at_least` of its search."""
    job = store.get(job_id)
    return job is not None and job.state is State.RUNNING and job.progress >= at_least


def under_way(
    settings: Settings, worker_factory: Any, store_factory: Any, progress: float
) -> tuple[JobStore, WorkerProcess, Job]:
    """A store, an enumerate worker and MID running on it, past `progress` of its search."""
    store = store_factory(settings)
    worker = worker_factory(settings, "enumerate")
    job = store.submit("enumerate", *MID)
    wait_until(lambda: running_with_progress(store, job.id, progress), 30, "the job under way")
    return store, worker, job


@pytest.mark.parametrize("how", ["warm shutdown", "ctrl-c"])
def test_a_stopped_worker_hands_its_job_back_and_it_resumes(
    how: str,
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    store_factory: Any,
    wait_job: Any,
) -> None:
    """The job is queued again with its progress and attempt, and finishes exactly."""
    settings = fresh_settings(shard_threshold=0)  # one whole job: its checkpoint is its own
    store, worker, job = under_way(settings, worker_factory, store_factory, 0.1)
    if how == "warm shutdown":
        worker.proc.send_signal(signal.SIGTERM)
    else:
        os.killpg(worker.pid, signal.SIGINT)
    stopped_at = time.monotonic()
    worker.proc.wait(30)
    took = time.monotonic() - stopped_at
    back = store.get(job.id)
    assert back is not None and back.state is State.QUEUED, back
    assert back.attempt == 1 and back.error is None and back.progress > 0.1
    assert took < 5, f"the worker took {took:.1f} s to stop"
    assert "WorkerLostError" not in worker.log() and "Traceback" not in worker.log()
    worker_factory(settings, "enumerate")
    done = wait_job(store, job.id, timeout=60)
    assert done.state is State.SUCCEEDED and done.attempt == 1, done.to_dict()
    assert all_compact(store, job.id) == engine_list(*MID)


def test_a_sharded_job_survives_a_stop(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    store_factory: Any,
    wait_job: Any,
) -> None:
    """A big enumeration is sharded; stopping its worker mid-way cancels nothing."""
    settings = fresh_settings(shard_threshold=1_000, shard_count=12)
    store, worker, job = under_way(settings, worker_factory, store_factory, 0.2)
    worker.proc.send_signal(signal.SIGTERM)
    worker.proc.wait(30)
    assert store.get(job.id).state is State.RUNNING  # type: ignore[union-attr]
    worker_factory(settings, "enumerate")
    done = wait_job(store, job.id, timeout=60)
    assert done.state is State.SUCCEEDED, done.to_dict()
    assert all_compact(store, job.id) == engine_list(*MID)
    assert done.solutions_found == 790_272


def test_kill_9_resumes_from_the_checkpoint(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    store_factory: Any,
    wait_job: Any,
) -> None:
    """A worker killed outright loses at most the search since its last checkpoint."""
    settings = fresh_settings(shard_threshold=0, lease_seconds=3.0)
    store, worker, job = under_way(settings, worker_factory, store_factory, 0.3)
    before = store.get(job.id)
    worker.kill()
    assert before is not None
    worker_factory(settings, "enumerate")
    # The next run starts where the checkpoint was, not at zero.
    seen: list[float] = []

    def resumed() -> bool:
        now = store.get(job.id)
        if now is not None and now.attempt == 2 and now.state is State.RUNNING:
            seen.append(now.progress)
        return bool(seen) or (now is not None and now.done)

    wait_until(resumed, 30, "the takeover", interval=0.005)
    assert not seen or seen[0] >= before.progress - 0.05, (seen[:1], before.progress)
    done = wait_job(store, job.id, timeout=60)
    assert done.state is State.SUCCEEDED and done.attempt == 2, done.to_dict()
    assert all_compact(store, job.id) == engine_list(*MID)


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="PID namespaces need root and util-linux's unshare",
)
def test_workers_in_pid_namespaces_sharing_a_host_name_do_not_take_each_others_jobs(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    store_factory: Any,
    wait_job: Any,
) -> None:
    """Each worker sees only its own processes: none judges the other's holder dead."""
    settings = fresh_settings(shard_threshold=0, heartbeat_interval=0.5)
    store = store_factory(settings)
    wrap = ["unshare", "--pid", "--fork", "--mount-proc"]
    for n in range(2):
        worker_factory(settings, "enumerate", name=f"same{n}@samehost", wrap=wrap)
    jobs = [
        store.submit("enumerate", "A + B + C + D = E + F + G + H", {"base": b}) for b in (10, 11)
    ]
    done = [wait_job(store, job.id, timeout=90) for job in jobs]
    assert [j.state for j in done] == [State.SUCCEEDED, State.SUCCEEDED]
    assert [j.attempt for j in done] == [1, 1], [j.to_dict() for j in done]
    assert int(store.stats()["redeliveries"].get("dead_holder", 0)) == 0


def test_a_broker_url_other_than_redis_url_is_refused(
    fresh_settings: Callable[..., Settings],
) -> None:
    """Celery's own variable may not send the workers to another broker."""
    settings = fresh_settings()
    env = {**os.environ, **settings.env(), "CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}
    env["PYTHONPATH"] = str(ROOT)
    args = [sys.executable, "-m", "celery", "-A", "worker", "worker", "-Q", "solve"]
    result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "differs from REDIS_URL" in result.stdout + result.stderr


def test_two_deployments_share_one_database_without_touching_each_other(
    fresh_settings: Callable[..., Settings],
    worker_factory: Any,
    store_factory: Any,
    wait_job: Any,
) -> None:
    """A worker of one prefix never takes the other's messages; each runs its own."""
    ours = fresh_settings()
    theirs = ours.replace(key_prefix=ours.key_prefix + "-other")
    mine, other = store_factory(ours), store_factory(theirs)
    worker_factory(ours, "solve")
    waiting = other.submit("solve", "SEND + MORE = MONEY")
    assert wait_job(mine, mine.submit("solve", "TO + GO = OUT").id).state is State.SUCCEEDED
    time.sleep(1.0)
    still = other.get(waiting.id)
    assert still is not None and still.state is State.QUEUED
    assert other.redis.llen(Keys(theirs.key_prefix).lane(Mode.SOLVE, 0)) == 1
    worker_factory(theirs, "solve")
    assert wait_job(other, waiting.id).state is State.SUCCEEDED


def test_an_idle_worker_stops_at_once(
    fresh_settings: Callable[..., Settings], worker_factory: Any
) -> None:
    """With nothing running, SIGTERM and Ctrl-C stop a worker as before."""
    settings = fresh_settings()
    for send in (
        lambda w: w.proc.send_signal(signal.SIGTERM),
        lambda w: os.killpg(w.pid, signal.SIGINT),
    ):
        worker: WorkerProcess = worker_factory(settings, "solve")
        send(worker)
        worker.proc.wait(30)
        assert not worker.alive()


def test_a_frozen_redis_gets_503s_within_the_timeout(
    fresh_settings: Callable[..., Settings], redis_factory: Any, web_factory: Any
) -> None:
    """With Redis stopped (SIGSTOP), every request answers 503 within the timeout plus 1 s,
    and /healthz is not held up by threads waiting on Redis."""
    server = redis_factory()
    settings = fresh_settings().replace(redis_url=server.url, redis_timeout=1.0)
    web = web_factory(settings)
    session = requests.Session()
    assert session.get(f"{web.url}/readyz", timeout=10).status_code in (200, 503)
    pid = server.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        slowest, slow_path = 0.0, ("", "")
        for _ in range(3):
            for method, path, body in (
                ("POST", "/api/jobs", {"puzzle": "SEND + MORE = MONEY"}),
                ("GET", f"/api/jobs/{'0' * 8}-0000-4000-8000-{'0' * 12}", None),
                ("GET", "/readyz", None),
            ):
                started = time.monotonic()
                answer = session.request(method, web.url + path, json=body, timeout=30)
                if time.monotonic() - started > slowest:
                    slowest, slow_path = time.monotonic() - started, (method, path)
                assert answer.status_code == 503, (path, answer.status_code, answer.text)
                if path.startswith("/api/"):  # /readyz answers its own JSON status body
                    assert answer.headers["Content-Type"].startswith("application/problem+json")
            started = time.monotonic()
            assert session.get(f"{web.url}/healthz", timeout=10).status_code == 200
            assert time.monotonic() - started < 0.5
        assert slowest < settings.redis_timeout + 1.0, (slowest, slow_path)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert session.get(f"{web.url}/readyz", timeout=10).status_code in (200, 503)


def test_revoking_a_jobs_task_cancels_the_job(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any, wait_job: Any
) -> None:
    """`celery control revoke --terminate` of a running job's task ends the job canceled
    (cooperatively: no worker lost, no re-run)."""
    settings = fresh_settings(shard_threshold=0)
    store = store_factory(settings)
    worker = worker_factory(settings, "enumerate")
    job = store.submit("enumerate", *LONG)
    wait_until(lambda: running_with_progress(store, job.id, 0.0001), 30, "the job running")
    found = re.search(rf"\[([0-9a-f-]{{36}})\] received \[job {job.id}", worker.log())
    assert found, worker.log()[-2000:]
    app = make_app(settings)
    try:
        app.control.revoke(found[1], terminate=True)
    finally:
        app.close()
    done = wait_job(store, job.id, timeout=20)
    assert done.state is State.CANCELED and done.attempt == 1, done.to_dict()
    assert worker.alive()
