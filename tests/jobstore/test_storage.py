"""Bounded storage: the cap holds across shards, a client's budget, deleting stored data,
counting without storing, refusing new enumerations when Redis is nearly full, and a client's
reservations held to its own budget and share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jobstore import (
    Job,
    JobStore,
    NotHeld,
    OverShare,
    Rate,
    RateLimited,
    Settings,
    State,
    StorageFull,
    TooManyJobs,
)
from jobstore.compose import WordList, bytes_per_result
from jobstore.store import bytes_per_solution
from tests.support.puzzles import engine_list
from tests.support.shares import VICTIM_JOBS, products

# 290,304 solutions over 12 shards (base 11).
SHARDED = ("A + B + C + D = E + F + G + H", {"base": 11})


def stored(store: JobStore, job_id: str) -> int:
    """How many solutions the job's list holds (over its shards)."""
    page = store.solutions(job_id, 0, 1)
    assert page is not None
    return page.total


def used(store: JobStore, client: str) -> int:
    """Solutions the client's jobs stored against its budget."""
    return int(store.redis.get(store.keys.budget(client)) or 0)


def test_the_cap_holds_exactly_across_shards(
    fresh_settings: Callable[..., Settings], worker_factory: Any, wait_job: Any
) -> None:
    """Two workers run shards at once; together they store exactly the cap, in order."""
    settings = fresh_settings(shard_threshold=1_000, shard_count=12, max_stored_solutions=50_000)
    store = JobStore(settings)
    worker_factory(settings, "enumerate", concurrency=2)
    done = wait_job(store, store.submit("enumerate", *SHARDED).id, timeout=90)
    assert done.state is State.SUCCEEDED and done.solutions_found == 290_304
    assert done.truncated and done.to_dict()["truncated_reason"] == "cap"
    assert stored(store, done.id) == 50_000
    assert int(store.redis.hget(store.keys.job(done.id), "stored_all") or 0) == 50_000


def test_a_clients_budget_stops_storing_but_not_counting(
    fresh_settings: Callable[..., Settings], worker_factory: Any, wait_job: Any
) -> None:
    """Past its budget a client's jobs still count every solution but store nothing more."""
    settings = fresh_settings(shard_threshold=0, max_stored_per_client=1_500)
    store = JobStore(settings)
    worker_factory(settings, "enumerate")
    first = wait_job(store, store.submit("enumerate", "ABC + DEF = GHI", client="c1").id)
    assert first.solutions_found == 1_088 and not first.truncated
    second = wait_job(store, store.submit("enumerate", "ABC + DEF = GHI", {"base": 11},
                                          client="c1").id)  # fmt: skip
    assert second.truncated and second.to_dict()["truncated_reason"] == "budget"
    assert stored(store, second.id) == 1_500 - 1_088 and second.solutions_found > 1_500
    other = wait_job(store, store.submit("enumerate", "NUM + BER = PLAY", client="c2").id)
    assert not other.truncated  # another client has a budget of its own
    # Deleting a job's data gives its budget back (only a client holding it may delete it).
    with pytest.raises(NotHeld):
        store.delete(first.id, "c2")
    assert store.delete(first.id, "c1") == "deleted"
    assert stored(store, first.id) == 0 and store.get(first.id).deleted  # type: ignore[union-attr]
    third = wait_job(store, store.submit("enumerate", "TWO + TWO = FOUR", client="c1").id)
    assert not third.truncated and stored(store, third.id) == 7


def test_count_mode_counts_and_stores_nothing(
    fresh_settings: Callable[..., Settings], worker_factory: Any, wait_job: Any
) -> None:
    """Counting a sharded puzzle gives the enumeration's number and keeps no solution."""
    settings = fresh_settings(shard_threshold=1_000, shard_count=12)
    store = JobStore(settings)
    worker_factory(settings, "enumerate")
    done = wait_job(store, store.submit("count", *SHARDED).id, timeout=90)
    assert done.state is State.SUCCEEDED and done.solutions_found == len(engine_list(*SHARDED))
    assert stored(store, done.id) == 0
    assert done.shards > 1 and not done.truncated and done.truncated_reason == ""  # by design


def test_running_jobs_cannot_be_deleted_and_unknown_ones_are_gone(
    fresh_settings: Callable[..., Settings],
) -> None:
    """Only an ended job's data can go."""
    store = JobStore(fresh_settings())
    job = store.submit("enumerate", "ABC + DEF = GHI", client="c1")
    assert store.delete(job.id, "c1") == "running"
    assert store.delete("no-such-job", "c1") == "gone"


def test_new_enumerations_are_refused_near_maxmemory(
    fresh_settings: Callable[..., Settings],
) -> None:
    """Above the watermark of maxmemory an enumeration is refused; solving still works."""
    store = JobStore(fresh_settings(memory_watermark=0.01))
    used = int(store.redis.info("memory")["used_memory"])
    store.redis.config_set("maxmemory", str(used * 2))
    try:
        with pytest.raises(StorageFull):
            store.submit("enumerate", "ABC + DEF = GHI")
        assert store.submit("solve", "ABC + DEF = GHI").state is State.QUEUED
    finally:
        store.redis.config_set("maxmemory", "0")


def test_a_running_sharded_job_says_its_client_budget_cut_its_list(
    fresh_settings: Callable[..., Settings], worker_factory: Any, wait_job: Any
) -> None:
    """While the shards run, the parent's status names the budget (not the cap, not nothing)."""
    settings = fresh_settings(shard_threshold=1_000, shard_count=12, max_stored_per_client=1_000)
    store = JobStore(settings)
    worker_factory(settings, "enumerate")
    job = store.submit("enumerate", "A + B + C + D = E + F + G + H", {"base": 12}, client="c1")

    def cut(seen: Job) -> bool:
        return seen.done or (seen.shards > 0 and seen.truncated)

    running = wait_job(store, job.id, cut, timeout=60)
    store.cancel(job.id)
    assert running.state is State.RUNNING, running.to_dict()
    assert running.to_dict()["truncated_reason"] == "budget"
    ended = wait_job(store, job.id)
    assert ended.truncated and ended.truncated_reason == "budget"


def test_the_budget_is_named_when_it_cut_the_list_before_the_cap(
    fresh_settings: Callable[..., Settings], worker_factory: Any, wait_job: Any
) -> None:
    """A job that finds more than its cap, whose client's budget stopped it storing first,
    says `budget` (the cap alone says `cap`)."""
    settings = fresh_settings(
        shard_threshold=0, max_stored_per_client=1_500, max_stored_solutions=1_200
    )
    store = JobStore(settings)
    worker_factory(settings, "enumerate")
    first = wait_job(store, store.submit("enumerate", "ABC + DEF = GHI", client="c1").id)
    assert stored(store, first.id) == 1_088 and not first.truncated
    cut = wait_job(store, store.submit("enumerate", "ABC + DEF = GHI", {"base": 11},
                                       client="c1").id)  # fmt: skip
    assert cut.solutions_found > 1_200 and stored(store, cut.id) == 1_500 - 1_088
    assert cut.truncated and cut.to_dict()["truncated_reason"] == "budget"
    capped = wait_job(store, store.submit("enumerate", "ABC + DEF = GHI", {"base": 11},
                                          client="c2").id)  # fmt: skip
    assert stored(store, capped.id) == 1_200
    assert capped.truncated and capped.to_dict()["truncated_reason"] == "cap"


def test_a_job_the_budget_cut_is_not_handed_out_again_once_the_budget_has_room(
    fresh_settings: Callable[..., Settings], worker_factory: Any, wait_job: Any
) -> None:
    """While the budget has no room the identical submission shares the cut job; once room
    is freed it starts a new run, which later identical submissions share."""
    settings = fresh_settings(shard_threshold=0, max_stored_per_client=1_500)
    store = JobStore(settings)
    worker_factory(settings, "enumerate")
    puzzle = ("ABC + DEF = GHI", {"base": 11})
    first = wait_job(store, store.submit("enumerate", "ABC + DEF = GHI", client="c1").id)
    cut = wait_job(store, store.submit("enumerate", *puzzle, client="c1").id)
    assert cut.truncated_reason == "budget" and stored(store, cut.id) == 1_500 - 1_088
    assert used(store, "c1") == 1_500
    assert store.submit("enumerate", *puzzle, client="c1").id == cut.id  # no room: no use
    assert store.delete(first.id, "c1") == "deleted"
    assert used(store, "c1") == 1_500 - 1_088
    anew = store.submit("enumerate", *puzzle, client="c1")
    assert anew.id != cut.id
    done = wait_job(store, anew.id)
    assert stored(store, done.id) == 1_088 and used(store, "c1") == 1_500
    assert store.submit("enumerate", *puzzle, client="c1").id == anew.id
    # A whole job is shared as before.
    other = wait_job(store, store.submit("enumerate", "TWO + TWO = FOUR", client="c2").id)
    assert store.submit("enumerate", "TWO + TWO = FOUR", client="c3").id == other.id


def test_a_fresh_submission_starts_a_new_run_and_counts_like_any(
    fresh_settings: Callable[..., Settings],
) -> None:
    """`fresh` skips dedup (later identical submissions share the new job) but not the cap of
    unfinished jobs nor the rate."""
    settings = fresh_settings(max_queued_per_client=2)
    store = JobStore(settings)
    rates = (Rate(4, 60, "4 per minute"),)
    first = store.submit("enumerate", "ABC + DEF = GHI", client="c1", rates=rates)
    again = store.submit("enumerate", "ABC + DEF = GHI", client="c1", rates=rates, fresh=True)
    assert again.id != first.id and again.state is State.QUEUED
    assert store.storage_left("c1") == settings.max_stored_per_client  # nothing stored yet
    assert store.submit("enumerate", "ABC + DEF = GHI", client="c1", rates=rates).id == again.id
    with pytest.raises(TooManyJobs):  # two unfinished already
        store.submit("enumerate", "ABC + DEF = GHI", client="c1", rates=rates, fresh=True)
    with pytest.raises(RateLimited):  # the fifth request within the minute
        store.submit("enumerate", "ABC + DEF = GHI", client="c1", rates=rates, fresh=True)


def test_admission_reserves_what_admitted_enumerations_may_still_store(
    fresh_settings: Callable[..., Settings],
) -> None:
    """Not only memory used now: an admitted enumeration's cap counts until it ends, so the
    next one is refused while both could fill Redis; once the first ended, it fits."""
    store = JobStore(fresh_settings())
    used = int(store.redis.info("memory")["used_memory"])
    per_job = 1_000_000 * bytes_per_solution(9)  # its cap of 9-letter solutions
    store.redis.config_set("maxmemory", str(int((used + 1.6 * per_job) / 0.8)))
    try:
        first = store.submit("enumerate", "ABC + DEF = GHI", {"base": 18})
        with pytest.raises(StorageFull):
            store.submit("enumerate", "ABC + DEF = GHI", {"base": 19})
        assert store.submit("count", "ABC + DEF = GHI", {"base": 19}).state is State.QUEUED
        store.cancel(first.id)  # queued: ends canceled at once, its reservation lapses
        assert store.submit("enumerate", "ABC + DEF = GHI", {"base": 19}).state is State.QUEUED
    finally:
        store.redis.config_set("maxmemory", "0")


def test_a_compose_job_reserves_its_results_at_admission(
    fresh_settings: Callable[..., Settings],
) -> None:
    """A compose job's results (up to their cap) are reserved like an enumeration's
    solutions: the next one is refused while both could fill Redis, fits once it ended."""
    store = JobStore(fresh_settings(max_compose_results=50_000))
    words = ["SEND", "MORE", "MONEY", "TO", "GO", "OUT"]
    submission = store.admit_compose(words, {})
    assert isinstance(submission.puzzle, WordList)
    per_job = 50_000 * bytes_per_result(submission.puzzle)
    used = int(store.redis.info("memory")["used_memory"])
    store.redis.config_set("maxmemory", str(int((used + 1.6 * per_job) / 0.8)))
    try:
        first = store.queue(submission)
        with pytest.raises(StorageFull):
            store.queue(store.admit_compose(words, {"base": 11}))
        assert store.submit("count", "ABC + DEF = GHI", {"base": 19}).state is State.QUEUED
        store.cancel(first.id)  # queued: ends canceled at once, its reservation lapses
        assert store.queue(store.admit_compose(words, {"base": 11})).state is State.QUEUED
    finally:
        store.redis.config_set("maxmemory", "0")


def reserved_by(store: JobStore, client: str) -> int:
    """Bytes the reservations of this client's jobs hold (reserve.lua's hash)."""
    entries = store.redis.hgetall(store.keys.reserved).values()
    return sum(int(e.split()[0]) for e in entries if e.split()[3:4] == [client])


def test_a_clients_reservations_count_against_its_budget_not_others(
    fresh_settings: Callable[..., Settings],
) -> None:
    """Issue 32: one client's 20 product enumerations (each may store the cap) hold no more
    than its budget lets it store, so another client's enumeration and compose job are
    admitted; the one with no storage budget is refused past its share (OverShare), with the
    seconds until its first job ends, and never another client."""
    store = JobStore(fresh_settings(max_stored_solutions=1_000_000))
    store.redis.config_set("maxmemory", "1gb")  # make run's
    try:
        for job in products(20):
            store.submit(job["mode"], job["puzzle"], job["options"], client="c1")
        # Its budget (2,000,000 solutions of 36 letters) bounds what its jobs may store.
        assert len(store.redis.hgetall(store.keys.reserved)) == 20
        for job in VICTIM_JOBS[:1]:
            assert store.submit(job["mode"], job["puzzle"], job["options"], client="c2")
        assert store.queue(store.admit_compose(VICTIM_JOBS[1]["words"], {}), client="c2")
        unbudgeted = JobStore(fresh_settings(max_stored_per_client=0, enumerate_soft_limit=42))
        for job in products(4, seed=5):
            unbudgeted.submit(job["mode"], job["puzzle"], job["options"], client="c3")
        held = reserved_by(unbudgeted, "c3")
        with pytest.raises(OverShare) as over:
            job = products(5, seed=5)[4]
            unbudgeted.submit(job["mode"], job["puzzle"], job["options"], client="c3")
        assert held <= over.value.share < held + 46_000_000  # a product's 1,000,000 x 46 bytes
        assert over.value.retry_after == 42  # queued: its whole search time is still to come
        job = VICTIM_JOBS[0]
        assert unbudgeted.submit(job["mode"], job["puzzle"], job["options"], client="c4")
    finally:
        store.redis.config_set("maxmemory", "0")


def test_a_product_reserves_no_more_than_its_letters_can_take(
    fresh_settings: Callable[..., Settings],
) -> None:
    """A product with no estimate reserves at most every assignment of distinct digits to
    its letters (4 letters in base 10: 5,861 partial assignments), not the cap."""
    store = JobStore(fresh_settings())
    store.redis.config_set("maxmemory", "1gb")
    try:
        store.submit("enumerate", "A * B = CD", client="c1")
        (entry,) = store.redis.hgetall(store.keys.reserved).values()
        assert 0 < int(entry.split()[0]) <= 5_861 * bytes_per_solution(4) + 1
    finally:
        store.redis.config_set("maxmemory", "0")
