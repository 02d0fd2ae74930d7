"""The hand-built task message matches what kombu publishes, and a real worker runs it."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import redis

from jobstore import Job, JobStore, Keys, Mode, Settings, State
from jobstore.messages import MARK, task_message
from tests.support.web import make_app as make_web
from worker.celery_app import make_app

# Fields that differ between any two messages: ids, timestamps, where it was sent from.
VARYING = {"id", "root_id", "correlation_id", "delivery_tag", "expires", "origin", "reply_to"}


def published_by_kombu(settings: Settings, client: redis.Redis) -> dict[str, Any]:
    """Send a task with Celery's own send_task and read back what kombu pushed."""
    app = make_app(settings)
    try:
        app.send_task(Mode.SOLVE.task, args=["job-1"], queue="solve", expires=settings.ttl)
    finally:
        app.close()
    raw = client.lpop(Keys(settings.key_prefix).lane(Mode.SOLVE, 0))
    assert raw is not None
    return dict(json.loads(raw))


def without(mapping: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """The mapping minus the named keys."""
    return {k: v for k, v in mapping.items() if k not in names}


def test_message_has_kombus_shape(fresh_settings: Callable[..., Settings]) -> None:
    """Same envelope, headers, properties and body as send_task, bar ids and timestamps."""
    settings = fresh_settings()
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    theirs = published_by_kombu(settings, client)
    ours = json.loads(task_message(Mode.SOLVE, "job-1", 60))
    assert set(ours) == set(theirs)
    assert without(ours, {"body", "headers", "properties"}) == without(
        theirs, {"body", "headers", "properties"}
    )
    assert base64.b64decode(ours["body"]) == base64.b64decode(theirs["body"])
    # Celery leaves ignore_result unset (None) in send_task; as_task_v2's default is False.
    # The job store's own mark is the one header send_task does not write.
    assert without(ours["headers"], VARYING | {"ignore_result", MARK}) == without(
        theirs["headers"], VARYING | {"ignore_result"}
    )
    assert ours["headers"][MARK] == "job-1" and MARK not in theirs["headers"]
    assert without(ours["properties"], VARYING | {"expiration"}) == without(
        theirs["properties"], VARYING | {"expiration"}
    )
    assert ours["properties"]["expiration"] == "60000"
    assert (
        ours["headers"]["id"] == ours["headers"]["root_id"] == ours["properties"]["correlation_id"]
    )
    stamp = datetime.fromisoformat(ours["headers"]["expires"]).timestamp()
    assert abs(stamp - (time.time() + 60)) < 5


def test_submit_pushes_record_and_message_together(
    fresh_settings: Callable[..., Settings],
    worker_factory: Callable[..., Any],
    wait_job: Callable[..., Job],
) -> None:
    """The record and its message appear in one step; a real worker then runs the job."""
    settings = fresh_settings()
    store = JobStore(settings)
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    job = store.submit("solve", "SEND + MORE = MONEY")
    lane = store.keys.lane(Mode.SOLVE, 0)  # a small job goes to the first lane
    assert client.llen(lane) == 1
    message = json.loads(client.lindex(lane, 0) or "{}")
    assert json.loads(base64.b64decode(message["body"]))[0] == [job.id]
    assert message["headers"]["task"] == Mode.SOLVE.task == "worker.tasks.solve_job"
    worker_factory(settings, queues="solve")
    found = wait_job(store, job.id)
    assert found.state is State.SUCCEEDED
    assert found.solution == {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}


def test_a_message_sent_by_hand_is_rejected_not_run(
    fresh_settings: Callable[..., Settings],
    worker_factory: Callable[..., Any],
    wait_job: Callable[..., Job],
) -> None:
    """send_task with a job id (real or not), no arguments or others: each is refused with one
    warning line and counted (alphametic_task_messages_rejected_total); the queue empties, the
    real job is not run out of turn, and the job store's own messages still run."""
    settings = fresh_settings()
    store = JobStore(settings)
    queued = store.submit("solve", "TO + GO = OUT")  # its message waits: no worker yet
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    lane = store.keys.lane(Mode.SOLVE, 0)
    client.delete(lane)  # ... gone: only forged messages will name it
    forged = [[queued.id], ["no-such-job"], [], [queued.id, "extra"]]
    app = make_app(settings)
    try:
        for args in forged:
            app.send_task(Mode.SOLVE.task, args=args, queue="solve", expires=settings.ttl)
    finally:
        app.close()
    worker = worker_factory(settings, queues="solve")

    def rejected() -> int:
        return int(store.stats()["rejected"].get("foreign", 0))

    deadline = time.monotonic() + 30
    while rejected() < len(forged) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert rejected() == len(forged), worker.log()
    assert worker.log().count("rejected: not a message of the job store") == len(forged)
    assert "Traceback" not in worker.log()
    assert client.llen(lane) == 0
    still = store.get(queued.id)
    assert still is not None and still.state is State.QUEUED  # not run by a forged message
    mine = store.submit("solve", "SEND + MORE = MONEY")
    assert wait_job(store, mine.id).state is State.SUCCEEDED
    scrape = make_web(settings).test_client().get("/metrics").get_data(as_text=True)
    line = 'alphametic_task_messages_rejected_total{reason="foreign"} 4.0'
    assert line in scrape


def test_a_retried_message_keeps_its_mark(
    fresh_settings: Callable[..., Settings],
    worker_factory: Callable[..., Any],
    wait_job: Callable[..., Job],
) -> None:
    """A message that finds its job busy is retried by Celery: the retry still carries the
    job store's mark, so it runs the job once the lease is gone instead of being refused."""
    settings = fresh_settings()
    store = JobStore(settings)
    job = store.submit("solve", "SEND + MORE = MONEY")
    lane = store.keys.lane(Mode.SOLVE, 0)
    message = store.redis.rpop(lane)  # held back until the worker is up
    assert message is not None
    worker = worker_factory(settings, queues="solve")
    lease = time.time() + 3  # as if another run held it for three more seconds
    store.redis.hset(store.keys.job(job.id), mapping={"state": "running", "lease": repr(lease),
                                                      "holder": "elsewhere"})  # fmt: skip
    store.redis.lpush(lane, message)
    found = wait_job(store, job.id, timeout=30)
    assert found.state is State.SUCCEEDED, found.to_dict()
    assert f"job {job.id} busy" in worker.log()
    assert "rejected" not in worker.log() and int(store.stats()["rejected"].get("foreign", 0)) == 0


def test_a_job_busy_for_more_than_three_retries_still_runs(
    fresh_settings: Callable[..., Settings],
    worker_factory: Callable[..., Any],
    wait_job: Callable[..., Job],
) -> None:
    """A message whose job stays busy (another run's lease renewed for five seconds) is
    retried for as long as that lasts: Celery's default of three retries failed the message
    on the fourth ("MaxRetriesExceededError") and the job waited for the lease sweep."""
    settings = fresh_settings()
    store = JobStore(settings)
    job = store.submit("solve", "SEND + MORE = MONEY")
    lane = store.keys.lane(Mode.SOLVE, 0)
    message = store.redis.rpop(lane)  # held back until the worker is up and the job is busy
    assert message is not None
    worker = worker_factory(settings, queues="solve")
    key = store.keys.job(job.id)
    until = time.monotonic() + 5
    while time.monotonic() < until:  # as if another run held it, writing every 0.2 s
        lease = repr(time.time() + 0.6)
        store.redis.hset(key, mapping={"state": "running", "lease": lease, "holder": "elsewhere"})
        if message is not None:
            store.redis.lpush(lane, message)
            message = None
        time.sleep(0.2)
    found = wait_job(store, job.id, timeout=30)
    log = worker.log()
    assert found.state is State.SUCCEEDED, found.to_dict()
    assert log.count(f"job {job.id} busy") > 3 and "MaxRetriesExceeded" not in log, log[-3000:]


def test_a_message_an_older_release_queued_still_runs_its_job(
    fresh_settings: Callable[..., Settings],
    worker_factory: Callable[..., Any],
    wait_job: Callable[..., Job],
) -> None:
    """During an upgrade the queue holds messages built before MARK existed: one without the
    mark runs its job when the job's record names that very message (nothing is rejected)."""
    settings = fresh_settings()
    store = JobStore(settings)
    queued = store.submit("solve", "TO + GO = OUT")  # no worker yet: its message waits
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    lane = store.keys.lane(Mode.SOLVE, queued.lane)
    raw = client.rpop(lane)
    assert raw is not None
    message = json.loads(raw)
    del message["headers"][MARK]  # as an older release built it
    client.lpush(lane, json.dumps(message))
    worker_factory(settings, queues="solve")
    assert wait_job(store, queued.id).state is State.SUCCEEDED
    assert int(store.stats()["rejected"].get("foreign", 0)) == 0
