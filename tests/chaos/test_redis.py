"""Chaos on Redis: a restart under queued and running jobs, and the web while Redis is down."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import redis
import requests

from jobstore import JobStore, Mode, Settings, State
from jobstore.handle import Handle
from jobstore.model import TURNS
from jobstore.workers import beat
from tests.support.chaos import (
    MEDIUM,
    SHARDED,
    SHARDING,
    SMALL,
    ended_once_current,
    mismatch,
    ran_once,
    reference,
    restart_redis,
    shard_count,
    wait_done,
    wait_until,
)
from tests.support.processes import ROOT, RedisServer, WebServer
from tests.support.puzzles import encode

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
SOLVES = [("SEND + MORE = MONEY", {"base": base}) for base in (10, 11, 12, 13)]


def own_settings(settings: Settings, server: RedisServer) -> Settings:
    """The session settings on a Redis of the test's own, under a unique prefix."""
    return settings.replace(redis_url=server.url, key_prefix=f"chaos-{uuid.uuid4().hex[:8]}")


def test_redis_restart_loses_nothing_and_runs_nothing_twice(
    settings: Settings, redis_factory: Any, worker_factory: Any, store_factory: Any
) -> None:
    """Case 4: Redis (append-only) restarted while jobs run and queue: every job succeeds,
    with the engine's solutions, each (or each shard) completed by exactly one attempt, and
    the running job keeps its attempt (the break is shorter than its lease), and every job
    (and shard) logs exactly one ending, a current one."""
    server = redis_factory(appendonly=True)
    mine = own_settings(settings, server).replace(**SHARDING)
    workers = [worker_factory(mine, "solve,enumerate", concurrency=2)]
    store: JobStore = store_factory(mine)
    jobs = [store.submit("enumerate", *puzzle) for puzzle in [MEDIUM, SHARDED, *SMALL]]
    jobs += [store.submit("solve", *puzzle) for puzzle in SOLVES]
    try:
        outcome = restart_redis(server, store, [job.id for job in jobs])
    except TimeoutError as stuck:  # say what the worker did, to tell a stuck consumer apart
        raise AssertionError(
            f"{stuck}\n--- worker log (tail)\n{workers[0].log()[-8000:]}"
        ) from None
    ended = [(job.puzzle, job.options, job.state, job.error) for job in outcome.jobs]
    if [job.state for job in outcome.jobs] != [State.SUCCEEDED] * len(jobs):
        raise AssertionError(f"{ended}\n--- worker log (tail)\n{workers[0].log()[-8000:]}")
    for job in outcome.jobs:
        assert job.attempt <= 2, job.to_dict()
        # One ending per job (and shard), the current one: a write whose reply the restart
        # lost is sent again and counted written, not taken for a lost claim ("stale").
        assert ended_once_current(workers, job) == ""
        if job.mode is Mode.ENUMERATE:
            assert mismatch(store, job) == ""
        else:
            first = reference(job.puzzle, job.options)[0]
            assert encode([job.solution[letter] for letter in job.letters]) == first  # type: ignore[index]
    # A break shorter than the lease costs a running job no attempt: it carries on.
    assert outcome.jobs[0].attempt == 1, outcome.jobs[0].to_dict()
    assert shard_count(store, jobs[1].id) > 1 and shard_count(store, jobs[0].id) == 0


def csrf_token(session: requests.Session, url: str) -> str:
    """Load the form page and return its CSRF token (kept in the session cookie)."""
    page = session.get(url + "/", timeout=10)
    assert page.status_code == 200
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found, "no CSRF token on the form page"
    return found[1]


def api_calls(job_id: str) -> list[tuple[str, str, Any]]:
    """(method, path, JSON body) of every API call that needs Redis."""
    return [
        ("GET", f"/api/jobs/{job_id}", None),
        ("GET", f"/api/jobs/{job_id}/solutions", None),
        ("GET", f"/api/jobs/{job_id}/grid", None),
        ("POST", f"/api/jobs/{job_id}/cancel", {}),
        ("POST", "/api/jobs", {"puzzle": "TO + GO = OUT", "mode": "enumerate"}),
    ]


def assert_api_unavailable(session: requests.Session, web: WebServer, job_id: str) -> None:
    """Every API call answers 503 problem+json with Retry-After, promptly."""
    for method, path, body in api_calls(job_id):
        started = time.monotonic()
        answer = session.request(method, web.url + path, json=body, timeout=15)
        where = f"{method} {path}"
        assert answer.status_code == 503, (where, answer.status_code, answer.text[:300])
        assert answer.headers["Content-Type"].startswith("application/problem+json"), where
        assert int(answer.headers["Retry-After"]) > 0, where
        problem = answer.json()
        assert problem["status"] == 503 and "Redis" in problem["detail"], (where, problem)
        assert time.monotonic() - started < 5, f"{where} took too long"


def assert_pages_unavailable(
    session: requests.Session, web: WebServer, job_id: str, token: str
) -> None:
    """Pages that need Redis answer a 503 page that says so; the form still loads."""
    form = {"csrf_token": token, "puzzle": "TO + GO = OUT", "mode": "solve", "base": "10"}
    for method, path, data in [
        ("GET", f"/jobs/{job_id}", None),
        ("POST", "/jobs", form),
        ("POST", f"/jobs/{job_id}/cancel", {"csrf_token": token}),
    ]:
        answer = session.request(method, web.url + path, data=data, timeout=15)
        where = f"{method} {path}"
        assert answer.status_code == 503, (where, answer.status_code, answer.text[:300])
        assert answer.headers["Content-Type"].startswith("text/html"), where
        assert "cannot be reached" in answer.text and "Traceback" not in answer.text, where
    assert session.get(web.url + "/", timeout=10).status_code == 200
    ready = session.get(web.url + "/readyz", timeout=10)
    assert ready.status_code == 503 and ready.json()["redis"] is False


def test_web_answers_503_while_redis_is_down_and_recovers(
    settings: Settings,
    redis_factory: Any,
    worker_factory: Any,
    web_factory: Callable[..., WebServer],
) -> None:
    """Case 7: with Redis down the API answers 503 problem+json with Retry-After and pages a
    clear 503 page, never a 500; both (and the worker) recover by themselves."""
    server = redis_factory(appendonly=True)  # the job must still be there afterwards
    mine = own_settings(settings, server)
    worker_factory(mine, "solve,enumerate")
    web = web_factory(mine)
    session = requests.Session()
    created = session.post(web.url + "/api/jobs", json={"puzzle": "SEND + MORE = MONEY"})
    assert created.status_code == 202, created.text
    job_id = created.json()["id"]
    token = csrf_token(session, web.url)

    server.stop()
    assert_api_unavailable(session, web, job_id)
    assert_pages_unavailable(session, web, job_id, token)
    late = web_factory(mine)  # a web process started while Redis is down serves 503s too
    assert_api_unavailable(requests.Session(), late, job_id)
    for log in (web.log(), late.log()):
        assert "Traceback" not in log and " 500 " not in log

    server.start()
    wait_until(
        lambda: session.get(f"{web.url}/api/jobs/{job_id}", timeout=10).status_code == 200,
        15,
        "the API answering again",
        interval=0.2,
    )
    assert session.get(f"{web.url}/jobs/{job_id}", timeout=10).status_code == 200
    again = session.post(web.url + "/api/jobs", json={"puzzle": "TO + GO = OUT"}, timeout=10)
    assert again.status_code == 202, again.text

    def finished() -> bool:
        body = session.get(f"{web.url}/api/jobs/{again.json()['id']}", timeout=10).json()
        return bool(body["state"] == "succeeded")

    wait_until(finished, 30, "the new job done by the recovered worker", interval=0.2)
    ready = session.get(web.url + "/readyz", timeout=10)
    assert ready.status_code == 200, ready.text
    assert requests.get(f"{late.url}/api/jobs/{job_id}", timeout=10).status_code == 200


def park(broker: redis.Redis, store: JobStore, lane: str) -> int:
    """Move every message of a lane into kombu's unacked hash, as when a worker popped them
    and lost its connection before acknowledging; returns how many."""
    moved = 0
    while (raw := broker.rpop(lane)) is not None:
        message = json.loads(raw)
        tag = message["properties"]["delivery_tag"]
        broker.hset(store.keys.unacked, tag, json.dumps([message, "", lane]))
        moved += 1
    return moved


def test_job_whose_message_was_lost_is_sent_again(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """A queued job whose broker message is parked unacknowledged (a worker popped it and lost
    its connection to a restarting Redis) is sent again by the sweep once its queue is empty,
    not after the visibility timeout."""
    mine = fresh_settings()
    store: JobStore = store_factory(mine)
    job = store.submit("solve", "SEND + MORE = MONEY", {"base": 11})
    broker = redis.Redis.from_url(mine.redis_url)
    assert park(broker, store, store.keys.lane(Mode.SOLVE, 0)) == 1
    worker = worker_factory(mine, "solve")
    (done,) = wait_done(store, [job.id], 20)
    assert done.state is State.SUCCEEDED and done.attempt == 1, done.to_dict()
    assert f"job {job.id} queued but its queue is empty: message sent again" in worker.log()


def test_a_message_taken_by_a_worker_lost_since_is_sent_again_not_judged_purged(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """A worker popped the job's message and was lost before it could park it (its link cut
    mid-pop, or killed): the message is nowhere, as after a purge, but no purge named it, so
    the sweep sends it again and the job succeeds."""
    mine = fresh_settings()
    store: JobStore = store_factory(mine)
    broker = redis.Redis.from_url(mine.redis_url)
    # A message sent within a second or so of Redis starting is sent again as one a restart
    # may have lost (resend.lua): not the case this test is about.
    wait_until(lambda: int(broker.info("server")["uptime_in_seconds"]) >= 3, 10, "Redis up 3 s")
    beat(Handle.of(broker, mine), "lost@elsewhere", ["solve"])  # alive when the message goes out
    job = store.submit("solve", "SEND + MORE = MONEY", {"base": 13})
    assert broker.rpop(store.keys.lane(Mode.SOLVE, 0)) is not None  # ...and takes it, then dies
    worker = worker_factory(mine, "solve")
    (done,) = wait_done(store, [job.id], 30)
    assert done.state is State.SUCCEEDED and done.attempt == 1, done.to_dict()
    assert f"job {job.id} queued but its queue is empty: message sent again" in worker.log()


def test_a_message_lost_with_a_worker_restarted_under_its_name_is_sent_again(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """A worker killed with the job's message in hand and started again under the same name
    (as compose's restart policy does) beats again under that name at once, so it never reads
    as silent: the message, nowhere and never purged, is sent again and the job succeeds (it
    was judged purged and canceled)."""
    mine = fresh_settings()
    store: JobStore = store_factory(mine)
    broker = redis.Redis.from_url(mine.redis_url)
    wait_until(lambda: int(broker.info("server")["uptime_in_seconds"]) >= 3, 10, "Redis up 3 s")
    first = worker_factory(mine, "solve", name="solve@restarted")
    wait_until(lambda: broker.zcard(store.keys.workers("solve")) > 0, 10, "its first beat")
    first.kill()
    job = store.submit("solve", "SEND + MORE = MONEY", {"base": 12})
    assert broker.rpop(store.keys.lane(Mode.SOLVE, 0)) is not None  # it went with the worker
    again = worker_factory(mine, "solve", name="solve@restarted")
    (done,) = wait_done(store, [job.id], 30)
    assert (done.state, done.error, done.attempt) == (State.SUCCEEDED, None, 1), done.to_dict()
    assert f"job {job.id} queued but its queue is empty: message sent again" in again.log()


def test_purged_jobs_end_canceled_not_sent_again(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """`celery purge` of the queued messages ends those jobs canceled "purged": the purge
    names the messages it deletes (worker/broker.py), so the sweep knows they were purged."""
    mine = fresh_settings()
    store: JobStore = store_factory(mine)
    jobs = [store.submit("solve", "SEND + MORE = MONEY", {"base": b}) for b in (11, 12, 13)]
    env = {**os.environ, **mine.env(), "PYTHONPATH": str(ROOT)}
    purge = [sys.executable, "-m", "celery", "-A", "worker", "purge", "-f", "-Q", "solve"]
    result = subprocess.run(purge, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Purged 3 messages" in result.stdout, result
    worker = worker_factory(mine, "solve")
    ended = wait_done(store, [job.id for job in jobs], 30)
    assert [(j.state, j.error) for j in ended] == [(State.CANCELED, "purged")] * 3
    assert "message sent again" not in worker.log()


def test_sharded_job_whose_shard_messages_were_lost_still_completes(
    fresh_settings: Callable[..., Settings], store_factory: Any, worker_factory: Any
) -> None:
    """Shard messages parked unacknowledged while the first shard runs are sent again: the
    job completes with the engine's list, each shard run once."""
    # Every shard queued at once (a window of all of them): while the first runs, the rest
    # wait in the lane for the whole job's time (with a window of 4, only the next three
    # did, a second or so with the native core, and a loaded machine's poll could miss it).
    mine = fresh_settings(**SHARDING, shard_window=64)
    worker = worker_factory(mine, "enumerate")
    store: JobStore = store_factory(mine)
    job = store.submit("enumerate", *SHARDED)
    broker = redis.Redis.from_url(mine.redis_url)
    lane = store.keys.lane(Mode.ENUMERATE, TURNS)  # shards take turns there
    wait_until(lambda: broker.llen(lane) > 0, 20, "shards queued")
    assert park(broker, store, lane) > 0
    (done,) = wait_done(store, [job.id], 30)
    assert done.state is State.SUCCEEDED, done.to_dict()
    assert mismatch(store, done) == "" and ran_once([worker], done) == ""
    assert "queued but its queue is empty: message sent again" in worker.log()
