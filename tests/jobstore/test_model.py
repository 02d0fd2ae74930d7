"""The job model in Redis without workers: validation, guarded transitions, attempts, TTLs."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from alphametic import PuzzleError
from jobstore import (
    ConfigError,
    JobStore,
    Keys,
    Mode,
    OptionsError,
    Settings,
    State,
    decode,
    shards,
)
from jobstore.attempt import Attempt
from jobstore.handle import Handle
from jobstore.model import Checkpoint, Progress
from jobstore.sweep import missing_for, resend_lost
from jobstore.transitions import Written
from tests.support.chaos import wait_until
from tests.support.puzzles import encode

WRITTEN, REFUSED = Written.WRITTEN, Written.REFUSED

CONTRACT_KEYS = {
    "id", "mode", "puzzle", "options", "state", "created", "started", "finished", "attempt",
    "progress", "nodes", "solutions_found", "elapsed", "eta", "error", "solution",
    "truncated", "truncated_reason", "limit_at", "queue_position", "expected_start", "deleted",
    "clients",
}  # fmt: skip


@pytest.fixture()
def quiet(fresh_settings: Callable[..., Settings], store_factory: Any) -> Any:
    """A store on a database no worker consumes: submitted jobs stay queued."""
    settings = fresh_settings(max_stored_solutions=100)
    return store_factory(settings, wait_leftovers=False)


def raw(store: JobStore) -> redis.Redis:
    """A decoded client on the store's database."""
    return redis.Redis.from_url(store.settings.redis_url, decode_responses=True)


def test_settings_from_env() -> None:
    """Environment variables override defaults; inconsistent limits are refused."""
    settings = Settings.from_env({"REDIS_URL": "redis://h:1/2", "ALPHAMETIC_TTL": "60"})
    assert (settings.redis_url, settings.ttl, settings.key_prefix) == (
        "redis://h:1/2",
        60,
        "alphametic",
    )
    assert Settings.from_env({}).max_stored_solutions == 1_000_000
    assert Settings.from_env(settings.env()) == settings
    with pytest.raises(ConfigError):
        Settings.from_env(
            {"ALPHAMETIC_SOLVE_SOFT_LIMIT": "100", "ALPHAMETIC_SOLVE_HARD_LIMIT": "5"}
        )
    with pytest.raises(ConfigError):
        Settings.from_env({"ALPHAMETIC_TTL": "soon"})


def test_encoding_round_trip() -> None:
    """Compact solutions use one base-36 character per letter."""
    assert encode((9, 5, 35, 0)) == "95z0"
    assert decode("ABCD", "95z0") == {"A": 9, "B": 5, "C": 35, "D": 0}


def test_a_checkpoint_write_saves_what_the_next_claim_reads_back() -> None:
    """A write with a checkpoint saves copies of its progress (cp_*) for the next claim; a
    final one carries no ETA and no checkpoint."""
    going = Progress(0.5, 10, 2, 1.23456, "0:0:0", eta=None, limit_at=7.5).fields()
    assert going == {
        "progress": "0.5", "nodes": "10", "found": "2", "ran": "1.235", "eta": "",
        "limit_at": "7.5", "cp": "0:0:0", "cp_progress": "0.5", "cp_nodes": "10",
        "cp_ran": "1.235", "cp_found": "2",
    }  # fmt: skip
    ended = Progress(1.0, 12, 3, 2.0, solution="0123").fields()
    assert ended == dict(progress="1.0", nodes="12", found="3", ran="2.0", solution="0123")
    record = {"cp": "0:0:0", "ran": "1.5", "stored_count": "4"}
    assert Checkpoint.of(record) == Checkpoint("0:0:0", 1.5, 4)
    assert Checkpoint.of({}) == Checkpoint()


def test_submit_validates_and_queues_nothing_on_error(quiet: JobStore) -> None:
    """Bad puzzles raise PuzzleError, bad modes/options OptionsError; nothing is queued."""
    client = raw(quiet)
    with pytest.raises(PuzzleError):
        quiet.submit("solve", "SEND + = MONEY")
    with pytest.raises(PuzzleError):
        quiet.submit("solve", "SEND + MORE = MONEY", {"base": 99})
    with pytest.raises(OptionsError):
        quiet.submit("sort", "SEND + MORE = MONEY")
    with pytest.raises(OptionsError):
        quiet.submit("solve", "SEND + MORE = MONEY", {"colour": "red"})
    assert client.dbsize() == 0


def test_submit_record_and_dedup(quiet: JobStore) -> None:
    """A queued job has the contract's fields; identical submissions share its id."""
    job = quiet.submit("solve", "send+more==money", {"base": 10, "leading_zeros": "multi-letter"})
    body = job.to_dict()
    assert set(body) == CONTRACT_KEYS
    assert body["state"] == "queued" and body["puzzle"] == "SEND + MORE = MONEY"
    assert body["created"].endswith("Z") and body["started"] is None and body["attempt"] == 0
    assert quiet.submit("solve", "SEND + MORE = MONEY").id == job.id
    assert quiet.submit("enumerate", "SEND + MORE = MONEY").id != job.id
    assert quiet.submit("solve", "SEND + MORE = MONEY", {"base": 11}).id != job.id
    # Two distinct solve jobs on the broker queue (small ones: the first band, where the
    # client's second waits its turn in the band's second lane).
    lanes = [raw(quiet).llen(quiet.keys.lane(Mode.SOLVE, lane)) for lane in (0, 1)]
    assert lanes == [1, 1]


def test_unknown_ids_are_none(quiet: JobStore) -> None:
    """Unknown ids give None everywhere, never a PENDING-like record."""
    for job_id in ("00000000-0000-4000-8000-000000000000", "nope", ""):
        assert quiet.get(job_id) is None
        assert quiet.solutions(job_id) is None
        assert quiet.grid(job_id) is None
        assert quiet.cancel(job_id) is None


def test_cancel_queued_job_and_finished_job(quiet: JobStore) -> None:
    """Cancelling a queued job ends it; cancelling again changes nothing and says so."""
    job = quiet.submit("solve", "SEND + MORE = MONEY")
    result = quiet.cancel(job.id)
    assert result is not None and result[1] is True and result[0].state is State.CANCELED
    again = quiet.cancel(job.id)
    assert again is not None and again[1] is False and again[0].state is State.CANCELED
    claim = Attempt(Handle.of(raw(quiet), quiet.settings), job.id).claim("test|x|1")
    assert claim.status == "done"  # the queued message, when delivered, never starts a search


def test_attempts_stale_writes_and_terminal_states(quiet: JobStore) -> None:
    """A newer attempt makes the older one stale; a finished job never changes again."""
    client, settings = raw(quiet), quiet.settings
    job = quiet.submit("enumerate", "AB + CD = EFG")
    first = Attempt(Handle.of(client, settings), job.id)
    first.width = 7
    assert first.claim("a|x|1").status == "run" and first.number == 1
    busy = Attempt(Handle.of(client, settings), job.id).claim("z|x|9")
    assert busy.status == "busy"  # lease live
    assert first.write({"progress": "0.1"}, {}, "0123456", 1) is WRITTEN
    second = Attempt(Handle.of(client, settings), job.id)
    second.width = 7
    assert second.claim("b|x|2", force=True).status == "run" and second.number == 2
    assert quiet.solutions(job.id).total == 0  # type: ignore[union-attr]  # a new attempt starts from a clean list
    assert first.write({"progress": "0.9"}, {}, "1111111", 2) is REFUSED  # stale: refused
    assert first.write({}, {}, "", 2, final="succeeded") is REFUSED
    assert second.write({"found": "2"}, {"A:1": "2"}, "23456783456789", 1) is WRITTEN
    assert second.write({"found": "2"}, {}, "23456783456789", 1) is WRITTEN  # resent batch
    assert second.write({"found": "2"}, {}, "", 1, final="succeeded") is WRITTEN
    done = quiet.get(job.id)
    assert done is not None and done.state is State.SUCCEEDED and done.attempt == 2
    assert done.progress == 0.0 and done.solutions_found == 2
    page = quiet.solutions(job.id)
    assert page is not None and page.total == 2  # the resent batch was not stored twice
    assert second.write({"progress": "0.5"}, {}, "1234567", 2) is REFUSED  # terminal: refused
    assert second.claim("c|x|3", force=True).status == "done"
    cancel = quiet.cancel(job.id)
    assert cancel is not None and cancel[1] is False and cancel[0].state is State.SUCCEEDED


def test_a_final_write_whose_reply_was_lost_is_written_when_resent(quiet: JobStore) -> None:
    """A run's final write applied but its reply lost (Redis restarted, or a replica did not
    confirm it) is resent: the run learns it was written, not that it lost the job (stale),
    so the job's one ending is logged as what it is. Another run's is still refused."""
    client, settings = raw(quiet), quiet.settings
    job = quiet.submit("enumerate", "AB + CD = EFG")
    run = Attempt(Handle.of(client, settings), job.id)
    run.width = 7
    assert run.claim("a|x|1").status == "run"
    assert run.write({"found": "1"}, {}, "0123456", 1, final="succeeded") is WRITTEN
    assert run.write({"found": "1"}, {}, "0123456", 1, final="succeeded") is WRITTEN
    assert quiet.solutions(job.id).total == 1  # type: ignore[union-attr]  # stored once
    assert run.write({"found": "1"}, {}, "", 2) is REFUSED  # not running: nothing more
    other = Attempt(Handle.of(client, settings), job.id)
    other.claims = run.claims + 1
    assert other.write({}, {}, "", 1, final="succeeded") is REFUSED
    # A run with the same claim number (a claim lost in a failover handed it out twice) is
    # another run all the same: its final write is refused.
    twin = Attempt(Handle.of(client, settings), job.id)
    twin.claims, twin.token = run.claims, f"{run.claims}:twin"
    assert twin.write({}, {}, "", 1, final="succeeded") is REFUSED
    canceled = quiet.submit("enumerate", "AB + CD = EFH")
    lost = Attempt(Handle.of(client, settings), canceled.id)
    assert lost.claim("b|x|2").status == "run"
    client.hset(quiet.keys.job(canceled.id), "lease", "1")  # its worker lost...
    quiet.cancel(canceled.id)  # ...so the cancel ends it: not that run's own final write
    assert lost.write({}, {}, "", 1, final="canceled") is REFUSED


def test_a_claim_whose_reply_was_lost_spends_no_attempt(quiet: JobStore) -> None:
    """A claim applied but its reply lost (or its replica confirmation timed out) is claimed
    again by the same pool process at once: no attempt spent, no waiting out its lease; the
    first claim's number is stale. Another holder still finds the job busy."""
    client, settings = raw(quiet), quiet.settings
    job = quiet.submit("enumerate", "AB + CD = EFG")
    handle = Handle.of(client, settings)
    lost, again = Attempt(handle, job.id), Attempt(handle, job.id)
    assert lost.claim("a|x|1").status == "run" and lost.number == 1
    claim = again.claim("a|x|1")
    assert (claim.status, claim.attempt, again.claims) == ("run", 1, lost.claims + 1)
    assert lost.write({"progress": "0.5"}, {}, "", 1) is REFUSED
    assert Attempt(Handle.of(client, settings), job.id).claim("b|x|2").status == "busy"
    for _ in range(settings.max_attempts + 1):  # retried as often as it takes
        assert Attempt(Handle.of(client, settings), job.id).claim("a|x|1").attempt == 1
    assert quiet.get(job.id).attempt == 1  # type: ignore[union-attr]


def test_a_split_job_delivered_again_is_not_run_again(quiet: JobStore) -> None:
    """A split job's message delivered again once its run released it (kombu restores the
    unacknowledged message of a task still running at a reconnect) is not claimed: its shards
    run it, so it neither spends an attempt nor ends "sharded" a second time."""
    client, settings = raw(quiet), quiet.settings
    job = quiet.submit("enumerate", "ABC + DEF = GHI")
    handle = Handle.of(client, settings)
    first = Attempt(handle, job.id)
    assert first.claim("a|x|1").status == "run"
    assert shards.split(handle, first, job.id, [((1,), 0.5), ((2,), 0.5)]) == "split"
    shards.release(handle, first, job.id)
    claim = Attempt(handle, job.id).claim("b|x|2", mode=Mode.ENUMERATE)
    assert (claim.status, claim.attempt) == ("done", 1)
    assert client.hget(quiet.keys.job(job.id), "attempt") == "1"


def test_cap_truncates_and_pages(quiet: JobStore) -> None:
    """Beyond the cap the list stops growing and is marked truncated; reads are paged."""
    client, settings = raw(quiet), quiet.settings  # cap is 100 here
    job = quiet.submit("enumerate", "ABC + DEF = GHI")
    attempt = Attempt(Handle.of(client, settings), job.id)
    attempt.claim("a|x|1")
    attempt.width = 9
    batch = "".join(f"{n:09d}" for n in range(70))
    assert attempt.write({}, {}, batch, 1) is WRITTEN
    assert attempt.write({}, {}, batch, 2) is WRITTEN
    page = quiet.solutions(job.id, offset=95, limit=10)
    assert page is not None and page.total == 100 and page.truncated
    assert len(page.items) == 5 and page.items[0]["A"] == 0 and page.offset == 95


def test_attempts_are_capped(quiet: JobStore) -> None:
    """After max_attempts deliveries the job fails instead of looping."""
    client, settings = raw(quiet), quiet.settings
    job = quiet.submit("solve", "SEND + MORE = MONEY")
    handle = Handle.of(client, settings)
    for number in range(1, settings.max_attempts + 1):
        assert Attempt(handle, job.id).claim("a|x|1", force=True).attempt == number
    claim = Attempt(handle, job.id).claim("a|x|1", force=True)
    assert claim.status == "failed"
    failed = quiet.get(job.id)
    assert (
        failed is not None and failed.state is State.FAILED and "attempts" in (failed.error or "")
    )


def test_every_key_has_a_ttl(quiet: JobStore) -> None:
    """Every key the model wrote under its prefix expires (TTL > 0)."""
    job = quiet.submit("enumerate", "ABC + DEF = GHI")
    attempt = Attempt(Handle.of(raw(quiet), quiet.settings), job.id)
    attempt.claim("a|x|1")
    attempt.width = 9
    attempt.write({"found": "1"}, {"A:1": "1"}, "123456789", 1)
    quiet.submit("solve", "SEND + MORE = MONEY")
    client = raw(quiet)
    keys = list(client.scan_iter(match=f"{quiet.prefix}:*"))
    assert Keys(quiet.prefix).solutions(job.id) in keys and len(keys) >= 6
    # Counters never reset; the broker's lists are kombu's (their messages expire).
    lasting = [k for k in keys if k != quiet.keys.stats and not k.startswith(quiet.keys.broker)]
    assert all(client.ttl(key) > 0 for key in lasting), {
        k: client.ttl(k) for k in lasting if client.ttl(k) <= 0
    }


def test_health_without_workers(quiet: JobStore) -> None:
    """Health answers with Redis up and no workers heard from."""
    assert quiet.health() == {
        "redis": True,
        "breaker": "closed",
        "workers": {"solve": 0, "enumerate": 0},
        "replicas": {"connected": 0, "floor": 0},
    }


def test_succeeded_job_is_reused_but_not_a_cancelled_one(quiet: JobStore) -> None:
    """Within its TTL a succeeded job answers an identical submission; a cancelled one not."""
    job = quiet.submit("solve", "SEND + MORE = MONEY")
    attempt = Attempt(Handle.of(raw(quiet), quiet.settings), job.id)
    attempt.claim("a|x|1")
    attempt.width = 8
    assert attempt.write({"solution": "75160892"}, {}, "75160892", 1, final="succeeded") is WRITTEN
    again = quiet.submit("solve", "send + more = money")
    assert again.id == job.id and again.state is State.SUCCEEDED
    assert again.solution == {"D": 7, "E": 5, "M": 1, "N": 6, "O": 0, "R": 8, "S": 9, "Y": 2}
    other = quiet.submit("enumerate", "SEND + MORE = MONEY")
    quiet.cancel(other.id)
    assert quiet.submit("enumerate", "SEND + MORE = MONEY").id != other.id


def test_attempt_past_the_hard_limit_fails_the_job(quiet: JobStore) -> None:
    """A redelivered job whose attempt outlived the hard limit ends failed "time limit"."""
    job = quiet.submit("enumerate", "ABC + DEF = GHI")
    client = raw(quiet)
    assert Attempt(Handle.of(client, quiet.settings), job.id).claim("a|x|1").status == "run"
    forced = Attempt(Handle.of(client, quiet.settings), job.id)
    claim = forced.claim("b|x|2", force=True, hard_limit=0.0)
    failed = quiet.get(job.id)
    assert claim.status == "failed" and failed is not None
    assert (failed.state, failed.error, failed.attempt) == (State.FAILED, "time limit", 1)


def test_a_message_lost_in_a_failover_is_sent_again_not_judged_purged(quiet: JobStore) -> None:
    """A queued job whose message is nowhere (popped by a reply a failover lost) while no
    worker went silent: sent before the master it is in now became master (the sweeps knew
    another one before), it is sent again at once, never judged purged. Without a change of
    master it is only marked missing (sent again later, after a while missing)."""
    client, settings = raw(quiet), quiet.settings
    wait_until(lambda: int(client.info("server")["uptime_in_seconds"]) >= 6, 10, "Redis up 6 s")
    handle = Handle.of(client, settings)
    lanes = quiet.keys.lanes(Mode.SOLVE)
    job = quiet.submit("solve", "SEND + MORE = MONEY", {"base": 11})
    assert client.delete(*lanes) == 1  # its message gone (popped, the reply lost)
    sent = time.time() - 2.5  # a while ago (the cutoff: 2 s), since this Redis started
    client.zadd(quiet.keys.queued, {job.id: sent})
    client.hset(quiet.keys.job(job.id), "queued_at", repr(sent))
    assert resend_lost(handle) == []  # one master all along: only marked missing
    assert client.hget(quiet.keys.job(job.id), "missing_since")
    client.hset(quiet.keys.masters, "the-master-before", "0")  # ...and now a failover
    client.hdel(quiet.keys.masters, client.info("replication")["master_replid"])
    assert resend_lost(handle) == [job.id]
    assert sum(client.llen(lane) for lane in lanes) == 1


def test_a_message_found_nowhere_is_sent_again_unless_a_purge_named_it(quiet: JobStore) -> None:
    """Two queued jobs whose messages are nowhere, no worker of their queue ever heard of: the
    one whose message a purge named (the broker's purged hash, worker/broker.py) ends canceled
    "purged"; the other is marked missing, then sent again once missing a while, never
    canceled (with no worker gone silent since, it was judged purged)."""
    client, settings = raw(quiet), quiet.settings
    wait_until(lambda: int(client.info("server")["uptime_in_seconds"]) >= 6, 10, "Redis up 6 s")
    handle = Handle.of(client, settings)
    lanes = quiet.keys.lanes(Mode.SOLVE)
    lost, purged = (quiet.submit("solve", "SEND + MORE = MONEY", {"base": b}) for b in (11, 12))
    assert client.delete(*lanes) >= 1  # both messages gone
    message = json.loads(client.hget(quiet.keys.job(purged.id), "message") or "{}")
    client.hset(quiet.keys.purged, message["properties"]["delivery_tag"], repr(time.time()))
    sent = time.time() - 2.5  # a while ago (the cutoff: 2 s), since this Redis started
    for job in (lost, purged):
        client.zadd(quiet.keys.queued, {job.id: sent})
        client.hset(quiet.keys.job(job.id), "queued_at", repr(sent))
    assert resend_lost(handle) == []
    ended = quiet.get(purged.id)
    assert ended is not None and (ended.state, ended.error) == (State.CANCELED, "purged")
    assert client.hget(quiet.keys.job(lost.id), "missing_since")
    since = time.time() - missing_for(settings.heartbeat_interval)
    client.hset(quiet.keys.job(lost.id), "missing_since", repr(since))
    assert resend_lost(handle) == [lost.id]
    assert sum(client.llen(lane) for lane in lanes) == 1
    again = quiet.get(lost.id)
    assert again is not None and again.state is State.QUEUED


def test_a_claim_lost_in_a_failover_and_made_again_leaves_the_first_run_stale(
    quiet: JobStore,
) -> None:
    """A claim the master took and lost with it (a failover promoting a replica that never had
    it) is made again by another run, with the same attempt and claim number: the first run's
    writes are refused all the same (each run names itself: guard.lua), so the two never both
    write to the job, nor both end it (a doubled success was seen once that way)."""
    client, settings = raw(quiet), quiet.settings
    job = quiet.submit("enumerate", "AB + CD = EFG")
    key = quiet.keys.job(job.id)
    before = client.hgetall(key)  # all the promoted replica has of it
    handle = Handle.of(client, settings)
    first, second = Attempt(handle, job.id), Attempt(handle, job.id)
    first.width = second.width = 7
    assert first.claim("a|x|1").status == "run"
    client.delete(key)
    client.hset(key, mapping=before)  # the claim gone with the master that took it
    client.zrem(quiet.keys.leases, job.id)
    claim = second.claim("b|x|2")
    assert (claim.status, claim.attempt, second.claims) == ("run", 1, first.claims)
    assert first.write({"found": "1"}, {}, "0123456", 1) is REFUSED
    assert first.poll()[0] is False and first.renew() is False
    assert second.write({"found": "1"}, {}, "0123456", 1) is WRITTEN
    assert first.write({}, {}, "", 2, final="succeeded") is REFUSED
    assert second.write({"found": "1"}, {}, "", 2, final="succeeded") is WRITTEN
    done = quiet.get(job.id)
    assert done is not None and done.state is State.SUCCEEDED and done.attempt == 1
    assert quiet.solutions(job.id).total == 1  # type: ignore[union-attr]
