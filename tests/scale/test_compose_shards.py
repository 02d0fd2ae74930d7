"""A big compose job split into shards (ranges of its sets of addends) on two real workers:
the same results in the same order as one whole run, a worker killed mid-run costing nothing,
and a cancel keeping what was found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis

from alphametic.compose import compose, count
from jobstore import JobStore, Keys, ResultOrder, Settings, State
from jobstore.shards import shard_id
from tests.support.chaos import wait_until
from tests.support.processes import wait_job
from tests.support.words import composed_list, long_words
from worker.compose import plan

pytestmark = pytest.mark.slow


def shard_records(settings: Settings, job_id: str) -> list[dict[str, str]]:
    """The shard records of a job, in shard order (read straight from Redis)."""
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    keys = Keys(settings.key_prefix)
    n = int(client.hget(keys.job(job_id), "shards") or 0)
    return [client.hgetall(keys.job(shard_id(job_id, i))) for i in range(n)]


def every_result(store: JobStore, job_id: str) -> list[str]:
    """The puzzle texts of every result the job shows, in its order."""
    _, total = store.composed(job_id, 0, 1)
    items, _ = store.composed(job_id, 0, max(total, 1))
    return [item["puzzle"] for item in items]


def sharded(fresh_settings: Callable[..., Settings], **changes: Any) -> Settings:
    """Settings whose threshold splits the long word list into several shards."""
    settings = fresh_settings(shard_threshold=4e5, shard_count=8, **changes)
    assert len(plan(settings, list(long_words()), 2)) == 8
    return settings


def test_a_sharded_compose_job_lists_what_one_whole_run_lists(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = sharded(fresh_settings)
    store = store_factory(settings)
    for _ in range(2):
        worker_factory(settings, "enumerate", wait=False).wait_ready()
    job = store.queue(store.admit_compose(list(long_words()), {}))
    done = wait_job(store, job.id, timeout=180)
    assert done.state is State.SUCCEEDED and done.progress == 1.0, done
    records = shard_records(settings, job.id)
    assert len(records) == 8 and {r["state"] for r in records} == {"succeeded"}
    assert {r["prefix"] for r in records} == {
        f"{lo},{hi}" for (lo, hi), _ in plan(settings, list(long_words()), 2)
    }
    stored = every_result(store, job.id)
    assert stored == list(composed_list(long_words()))  # the same results, in the same order
    assert done.solutions_found == len(stored) and not done.truncated


def test_a_sharded_compose_job_lists_its_first_results_before_its_first_shard_ends(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """Shards go out in list order (the commonest words' first), not biggest first: the page
    lists the whole run's first results while the first shard still runs, not once the shards
    sent before it have ended (their two sizes sorted 1, 3, 4, 6, 7, 0, 2, 5 here)."""
    settings = sharded(fresh_settings)
    shares = [share for _, share in plan(settings, list(long_words()), 2)]
    assert len(set(shares)) > 1  # biggest first would not be list order
    store = store_factory(settings)
    worker_factory(settings, "enumerate", wait=False).wait_ready()
    job = store.queue(store.admit_compose(list(long_words()), {}))
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)
    wait_until(lambda: client.hget(Keys(settings.key_prefix).job(job.id), "order"), 60, "split")
    order = client.hget(Keys(settings.key_prefix).job(job.id), "order")
    assert order == ",".join(shard_id(job.id, i) for i in range(len(shares)))
    wait_until(lambda: store.composed(job.id, 0, 1)[1] > 0, 120, "results listed", 0.02)
    ended = [r for r in shard_records(settings, job.id) if r.get("state") == "succeeded"]
    listed, _ = store.composed(job.id, 0, 100_000)
    assert len(ended) <= 1, ended  # listed as the first shard finds them
    whole = list(composed_list(long_words()))
    assert [item["puzzle"] for item in listed] == whole[: len(listed)]
    assert wait_job(store, job.id, timeout=180).state is State.SUCCEEDED
    assert every_result(store, job.id) == whole


def test_a_worker_killed_under_a_sharded_compose_job_loses_nothing(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = sharded(fresh_settings, lease_seconds=3.0)
    store = store_factory(settings)
    first = worker_factory(settings, "enumerate")
    job = store.queue(store.admit_compose(list(long_words()), {}))

    def under_way() -> bool:
        records = shard_records(settings, job.id)
        return any(r.get("state") == "running" and int(r.get("found") or 0) > 0 for r in records)

    wait_until(under_way, 60, "a shard under way with results")
    first.kill()
    worker_factory(settings, "enumerate")
    done = wait_job(store, job.id, timeout=180)
    assert done.state is State.SUCCEEDED, done
    assert any(int(r["attempt"]) == 2 for r in shard_records(settings, job.id))  # one re-ran
    assert every_result(store, job.id) == list(composed_list(long_words()))


def test_a_canceled_sharded_compose_job_keeps_its_results(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = sharded(fresh_settings)
    store = store_factory(settings)
    worker_factory(settings, "enumerate")
    job = store.queue(store.admit_compose(list(long_words()), {}))
    wait_until(lambda: (store.get(job.id) or job).solutions_found >= 3, 60, "results stored")
    store.cancel(job.id)
    done = wait_job(store, job.id, timeout=30)
    assert done.state is State.CANCELED and done.progress < 1
    stored = every_result(store, job.id)
    assert len(stored) == done.solutions_found >= 3
    assert set(stored) <= set(composed_list(long_words()))


def test_the_results_cap_holds_for_the_whole_sharded_job(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = sharded(fresh_settings, max_compose_results=10)
    store = store_factory(settings)
    worker_factory(settings, "enumerate")
    job = store.queue(store.admit_compose(list(long_words()), {}))
    done = wait_job(store, job.id, timeout=180)
    assert done.state is State.SUCCEEDED and done.truncated and done.truncated_reason == "cap"
    stored = every_result(store, job.id)
    assert len(stored) == 10 and set(stored) <= set(composed_list(long_words()))


def test_a_sharded_compose_job_is_listed_by_difficulty_across_its_shards(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    settings = sharded(fresh_settings)
    store = store_factory(settings)
    worker_factory(settings, "enumerate", wait=False).wait_ready()
    job = store.queue(store.admit_compose(list(long_words()), {}))
    assert wait_job(store, job.id, timeout=180).state is State.SUCCEEDED
    found, total = store.composed(job.id, 0, 100_000)
    assert total == len(found) and len({r["prefix"] for r in shard_records(settings, job.id)}) > 1
    for order, sign in ((ResultOrder.EASIEST, 1), (ResultOrder.HARDEST, -1)):
        listed, listed_total = store.composed(job.id, 0, 100_000, order)
        assert listed_total == total
        assert sorted(item["puzzle"] for item in listed) == sorted(i["puzzle"] for i in found)
        keys = [(sign * item["difficulty"]["score"], item["puzzle"]) for item in listed]
        assert keys == sorted(keys)
        page, _ = store.composed(job.id, 5, 7, order)  # a page is a slice of that order
        assert page == listed[5:12]


def test_a_sharded_distinct_job_lists_what_one_whole_distinct_run_lists(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """No word twice: the shards are ranges of the sets of distinct words (fewer than the
    multisets), and together they list one whole run's results in its order."""
    settings = sharded(fresh_settings)
    words = list(long_words())
    parts = plan(settings, words, 2, distinct=True)
    assert len(parts) > 1 and parts[-1][0][1] == len(words) * (len(words) - 1) // 2
    store = store_factory(settings)
    for _ in range(2):
        worker_factory(settings, "enumerate", wait=False).wait_ready()
    job = store.queue(store.admit_compose(words, {"distinct_words": True}))
    done = wait_job(store, job.id, timeout=180)
    assert done.state is State.SUCCEEDED and done.progress == 1.0, done
    records = shard_records(settings, job.id)
    assert {r["prefix"] for r in records} == {f"{lo},{hi}" for (lo, hi), _ in parts}
    whole = [c.puzzle.text for c in compose(words, distinct_words=True)]
    assert every_result(store, job.id) == whole and whole
    assert done.solutions_found == len(whole) and not done.truncated


def test_a_sharded_count_only_job_counts_what_one_whole_run_lists(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """count_only: every shard counts its range's results into `found`, none stored; the job
    ends with their sum, not truncated (it stored fewer than it found by design)."""
    settings = sharded(fresh_settings)
    store = store_factory(settings)
    for _ in range(2):
        worker_factory(settings, "enumerate", wait=False).wait_ready()
    job = store.queue(store.admit_compose(list(long_words()), {"count_only": True}))
    done = wait_job(store, job.id, timeout=180)
    assert done.state is State.SUCCEEDED and done.progress == 1.0, done
    assert len(shard_records(settings, job.id)) == 8
    assert done.solutions_found == len(composed_list(long_words())) > 0
    assert not done.truncated and every_result(store, job.id) == []


def test_a_count_only_job_whose_worker_is_killed_counts_each_result_once(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """A shard resumed at its checkpoint counts from there: its `found` held only the results
    of the sets before it, so the sets after are counted once, by the run that finishes."""
    settings = sharded(fresh_settings, lease_seconds=3.0)
    words = list(long_words(150))  # 142 words: ~3.6 s of counting, ~0.5 s a shard
    store = store_factory(settings)
    first = worker_factory(settings, "enumerate")
    job = store.queue(store.admit_compose(words, {"count_only": True}))

    def under_way() -> bool:
        records = shard_records(settings, job.id)
        return any(r.get("state") == "running" and int(r.get("found") or 0) > 0 for r in records)

    wait_until(under_way, 60, "a shard under way with results counted")
    first.kill()
    worker_factory(settings, "enumerate")
    done = wait_job(store, job.id, timeout=180)
    assert done.state is State.SUCCEEDED, done
    assert any(int(r["attempt"]) == 2 for r in shard_records(settings, job.id))  # one re-ran
    assert done.solutions_found == count(words) > 0 and not done.truncated
