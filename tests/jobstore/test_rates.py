"""Per-client rates counted by the submit script: every request counts, nothing over is queued."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from alphametic import PuzzleError
from jobstore import Busy, JobStore, Mode, Rate, RateLimited, Settings

TWO_A_MINUTE = (Rate(2, 60, "2 per 1 minute"),)


@pytest.fixture()
def rated(fresh_settings: Callable[..., Settings]) -> tuple[JobStore, redis.Redis]:
    """A store on settings of their own (no worker: queued messages stay in the list)."""
    settings = fresh_settings(max_queued_per_client=0)
    return JobStore(settings), redis.Redis.from_url(settings.redis_url, decode_responses=True)


def test_the_request_over_the_rate_is_refused_and_queues_nothing(
    rated: tuple[JobStore, redis.Redis],
) -> None:
    """Two jobs in a minute are queued; the third raises RateLimited and leaves no trace."""
    store, client = rated
    for puzzle in ("SEND + MORE = MONEY", "TO + GO = OUT"):
        store.submit("solve", puzzle, client="10.0.0.1", rates=TWO_A_MINUTE)
    jobs_before = len(client.keys(store.keys.job("*")))
    with pytest.raises(RateLimited) as refused:
        store.submit("solve", "ODD + ODD = EVEN", client="10.0.0.1", rates=TWO_A_MINUTE)
    assert 1 <= refused.value.retry_after <= 60
    assert "2 per 1 minute" in str(refused.value)
    assert sum(client.llen(lane) for lane in store.keys.lanes(Mode.SOLVE)) == 2
    assert len(client.keys(store.keys.job("*"))) == jobs_before
    # Another client has its own budget; a store call without a client has none.
    store.submit("solve", "ODD + ODD = EVEN", client="10.0.0.2", rates=TWO_A_MINUTE)
    store.submit("solve", "AB + BA = CC", rates=TWO_A_MINUTE)
    assert sum(client.llen(lane) for lane in store.keys.lanes(Mode.SOLVE)) == 4


def test_refused_puzzles_and_identical_jobs_count_too(rated: tuple[JobStore, redis.Redis]) -> None:
    """A puzzle the engine refuses and a resubmission of a known job each use up the budget."""
    store, _client = rated
    with pytest.raises(PuzzleError):
        store.submit("solve", "A + B", client="10.0.0.3", rates=TWO_A_MINUTE)
    store.submit("solve", "SEND + MORE = MONEY", client="10.0.0.3", rates=TWO_A_MINUTE)
    with pytest.raises(RateLimited):
        store.submit("solve", "SEND + MORE = MONEY", client="10.0.0.3", rates=TWO_A_MINUTE)
    with pytest.raises(RateLimited):
        store.count_request("10.0.0.3", TWO_A_MINUTE)


def test_the_tightest_of_several_rates_decides(rated: tuple[JobStore, redis.Redis]) -> None:
    """With 1 per second and 100 per hour, the second request within a second is refused."""
    store, client = rated
    rates = (Rate(1, 1, "1 per 1 second"), Rate(100, 3600, "100 per 1 hour"))
    store.count_request("10.0.0.4", rates)
    with pytest.raises(RateLimited) as refused:
        store.count_request("10.0.0.4", rates)
    assert refused.value.retry_after == 1
    # Every counter expires with its window: nothing is left behind for good.
    counters = client.keys(store.keys.rate("10.0.0.4", "*", "*"))
    assert len(counters) == 2
    assert all(0 < client.ttl(key) <= 3600 for key in counters)


def test_a_client_runs_one_of_a_kind_at_a_time(rated: tuple[JobStore, redis.Redis]) -> None:
    """A second `alone` block of the same client and kind is refused at once; others run."""
    store, client = rated
    with store.alone("10.0.0.1", "estimate", 30):
        with pytest.raises(Busy) as busy:
            with store.alone("10.0.0.1", "estimate", 30):
                pass
        assert 1 <= busy.value.retry_after <= 30
        with store.alone("10.0.0.2", "estimate", 30), store.alone("10.0.0.1", "explanation", 30):
            pass
    # The marker goes with the block, and a marker past its time expires by itself.
    assert not client.keys(store.keys.alone("*", "*"))
    with store.alone("10.0.0.1", "estimate", 30):
        client.set(store.keys.alone("estimate", "10.0.0.1"), "another run's token")
    assert client.get(store.keys.alone("estimate", "10.0.0.1")) == "another run's token"


def test_retry_after_is_the_windows_end_rounded_up(rated: tuple[JobStore, redis.Redis]) -> None:
    """A client told to retry after Retry-After seconds is then in the next window: 4.4 s
    left says 5 (a TTL rounded to 4 sent it back 0.4 s early, to be refused again)."""
    store, client = rated
    rates = (Rate(1, 60, "1 per 1 minute"),)
    store.count_request("10.0.0.5", rates)
    (window,) = client.keys(store.keys.rate("10.0.0.5", "*", "*"))
    client.pexpire(window, 4_400)
    with pytest.raises(RateLimited) as refused:
        store.count_request("10.0.0.5", rates)
    assert refused.value.retry_after == 5
    client.pexpire(window, 300)
    with pytest.raises(RateLimited) as refused:
        store.count_request("10.0.0.5", rates)
    assert refused.value.retry_after == 1


def test_busy_says_when_the_running_one_will_have_answered(
    rated: tuple[JobStore, redis.Redis],
) -> None:
    """An estimate's marker lives 10 s in case its process dies, but an estimate answers in
    well under a second: the second one is told 1 s, not the marker's 10."""
    store, _client = rated
    with store.alone("10.0.0.6", "estimate", 10, lasts=0.3):
        with pytest.raises(Busy) as busy:
            with store.alone("10.0.0.6", "estimate", 10, lasts=0.3):
                pass
    assert busy.value.retry_after == 1
