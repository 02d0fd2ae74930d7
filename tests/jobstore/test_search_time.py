"""A job's time limit counts search time, in Redis without workers: what a takeover decides,
and how a sharded job's shards add their search time up in their parent's `ran`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis

from jobstore import JobStore, Keys, Mode, Settings, State
from jobstore.attempt import Attempt
from jobstore.handle import Handle
from jobstore.shards import shard_id
from jobstore.transitions import Written

WRITTEN = Written.WRITTEN


def setup(fresh_settings: Callable[..., Settings], store_factory: Any) -> tuple[JobStore, Any]:
    """A store no worker serves (limits: soft 4 s, hard 8 s; one shard at a time, so a sharded
    job's shards share 4 s too) and a decoded client."""
    settings = fresh_settings(
        enumerate_soft_limit=4, enumerate_hard_limit=8, lease_seconds=2, shard_window=1
    )
    store = store_factory(settings, wait_leftovers=False)
    return store, redis.Redis.from_url(settings.redis_url, decode_responses=True)


def lost_run(client: redis.Redis, store: JobStore, job_id: str, **fields: float) -> None:
    """Make the job's running run one lost long ago (its lease long expired)."""
    values = {"lease": time.time() - 100, **fields}
    client.hset(Keys(store.settings.key_prefix).job(job_id), mapping=values)


def test_downtime_longer_than_the_hard_limit_is_no_time_limit(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    """A run lost after 1 s of search, taken over 100 s later: a new attempt, from its
    checkpoint; the claim's own clock is no limit."""
    store, client = setup(fresh_settings, store_factory)
    job = store.submit("enumerate", "ABC + DEF = GHI")
    attempt = Attempt(Handle.of(client, store.settings), job.id)
    assert attempt.claim("a|x|1").status == "run"
    attempt.width = 9
    assert attempt.write({"ran": "1.0", "cp": "0:0:0", "cp_ran": "1.0"}, {}, "", 1) is WRITTEN
    lost_run(client, store, job.id, run_started=time.time() - 101)
    claim = Attempt(Handle.of(client, store.settings), job.id).claim("b|x|2", hard_limit=8.0)
    assert (claim.status, claim.attempt) == ("run", 2), claim
    assert claim.record["ran"] == "1.0"


def test_a_takeover_ends_the_job_when_its_search_time_is_used_up(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    """A lost run that had searched to the soft limit, or was seen writing at the end of its
    hard limit (killed there by Celery), ends the job failed "time limit", spending no attempt."""
    store, client = setup(fresh_settings, store_factory)
    for fields in ({"ran": 4.0}, {"run_started": time.time() - 120, "ran": 0.5}):
        job = store.submit("enumerate", "ABC + DEF = GHI", {"base": 11 + len(fields)})
        assert Attempt(Handle.of(client, store.settings), job.id).claim("a|x|1").status == "run"
        if "run_started" in fields:  # its last write 9.9 s after it started (hard limit: 10)
            fields["lease"] = fields["run_started"] + 9.9 + store.settings.lease_seconds
        client.hset(Keys(store.settings.key_prefix).job(job.id), mapping=fields)
        if "lease" not in fields:
            lost_run(client, store, job.id)
        taker = Attempt(Handle.of(client, store.settings), job.id)
        claim = taker.claim("b|x|2", force=True, hard_limit=10, mode=Mode.ENUMERATE)
        failed = store.get(job.id)
        assert claim.status == "failed" and failed is not None, claim
        assert (failed.state, failed.error, failed.attempt) == (State.FAILED, "time limit", 1)


def test_shards_add_their_search_time_up_in_their_parent(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    """Each shard's write adds what it searched since its last one to the parent's `ran` and
    reports the total; a shard resumed from its checkpoint takes back what it loses; a shard
    taken over once the total reached the limit ends failed "time limit"."""
    store, client = setup(fresh_settings, store_factory)
    keys = Keys(store.settings.key_prefix)
    job = store.submit("enumerate", "ABC + DEF = GHI")
    parent_key = keys.job(job.id)
    shards = [shard_id(job.id, i) for i in range(2)]
    for index, sid in enumerate(shards):  # as split.lua leaves them
        client.hset(keys.job(sid), mapping={
            "id": sid, "mode": "enumerate", "puzzle": job.puzzle, "options": "{}",
            "letters": "ABCDEFGHI", "state": "queued", "created": time.time(), "attempt": 0,
            "parent": job.id, "index": index, "prefix": str(index + 1), "share": 0.5,
            "parent_key": parent_key,
        })  # fmt: skip
    client.hset(parent_key, mapping={"state": "running", "shards": 2, "ran": 0, "stored_all": 0})
    first, second = (Attempt(Handle.of(client, store.settings), sid) for sid in shards)
    for attempt in (first, second):
        assert attempt.claim("a|x|1").status == "run"
        attempt.width = 9
    assert first.write({"ran": "1.5", "cp": "0:0:0", "cp_ran": "1.0"}, {}, "", 1) is WRITTEN
    assert first.job_ran == 1.5
    assert second.write({"ran": "1.0"}, {}, "", 1) is WRITTEN and second.job_ran == 2.5
    assert first.write({"ran": "2.0"}, {}, "", 2) is WRITTEN and first.job_ran == 3.0
    # The first shard's worker is lost: its next run resumes at its checkpoint (1.0 s).
    lost_run(client, store, shards[0])
    again = Attempt(Handle.of(client, store.settings), shards[0]).claim("b|x|2")
    assert again.status == "run" and again.record["ran"] == "1.0"
    assert float(client.hget(parent_key, "ran") or 0) == 2.0
    # Search time reaches the job's limit (4 s) on the second shard; the first one's run is
    # lost again: its takeover ends it failed "time limit" without another attempt.
    assert second.write({"ran": "3.0"}, {}, "", 2) is WRITTEN and second.job_ran == 4.0
    lost_run(client, store, shards[0])
    third = Attempt(Handle.of(client, store.settings), shards[0])
    claim = third.claim("c|x|3", mode=Mode.ENUMERATE)
    assert (claim.status, claim.attempt) == ("failed", 2), claim
    assert client.hmget(keys.job(shards[0]), "state", "error") == ["failed", "time limit"]


def test_a_sharded_jobs_budget_is_its_limit_per_shard_it_may_run_at_once(
    fresh_settings: Callable[..., Settings],
) -> None:
    """Running as wide as its window, a sharded job searches as long as its limit allows."""
    settings = fresh_settings(enumerate_soft_limit=30, enumerate_hard_limit=40, shard_window=3)
    assert settings.search_budget(Mode.ENUMERATE) == 30
    assert settings.search_budget(Mode.ENUMERATE, sharded=True) == 90
    assert settings.search_budget(Mode.COUNT, sharded=True) == 90  # counts use enumerate's
