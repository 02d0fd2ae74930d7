"""A job request is checked, parsed and sized once, and its size is kept with the job: the
worker's pieces and shards start from the kept estimate instead of working it out again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import alphametic
from alphametic.search import NODES_PER_SECOND
from jobstore import Settings
from worker import cursor
from worker.cursor import Cursor
from worker.shards import plan

BIG: tuple[str, dict[str, Any]] = (
    "ABC + DEF = GHI",
    {"base": 17},
)  # an enumeration of 720,720 solutions: not small


def test_a_big_submission_keeps_its_estimate_and_a_small_one_needs_none(
    fresh_settings: Callable[..., Settings], store_factory: Any
) -> None:
    store = store_factory(fresh_settings(), wait_leftovers=False)  # no worker takes them
    big = store.admit("enumerate", BIG[0], BIG[1])
    puzzle = alphametic.parse(BIG[0], **BIG[1])
    assert not big.small and big.puzzle == puzzle
    assert big.estimate == alphametic.estimate(puzzle, probes=4, listing=True)
    queued = store.queue(big)
    assert store.get(queued.id).estimate == big.estimate  # read back from the record
    small = store.admit("solve", "SEND + MORE = MONEY", {})
    assert small.small and small.estimate == alphametic.estimate(small.puzzle, probes=4)
    tiny = store.admit("solve", "A + B = C", {})  # every assignment together is small
    assert tiny.small and tiny.estimate is None
    assert store.get(store.queue(tiny).id).estimate is None
    # One fingerprint per submission: the same request typed again is the same job.
    again = store.admit("enumerate", "ABC+DEF=GHI", {"base": 17})
    assert again.fingerprint == big.fingerprint and store.queue(again).id == queued.id


def test_the_worker_starts_from_the_kept_estimate() -> None:
    """A cursor given the kept estimate works none out itself; the shard plan trusts it."""
    puzzle = alphametic.parse(BIG[0], **BIG[1])
    kept = 1234.0
    before = cursor._size.cache_info()
    guess = Cursor(puzzle, (), 0.5, None, listing=True, estimate=kept)
    assert guess.rate == kept * 0.5 / NODES_PER_SECOND and not guess.measured
    after = cursor._size.cache_info()
    assert (after.hits, after.misses) == (before.hits, before.misses)  # nothing worked out
    settings = Settings.from_env().replace(shard_threshold=2e6, shard_count=8)
    assert plan(settings, puzzle, listing=True)  # big enough to shard, estimated here
    assert plan(settings, puzzle, listing=True, estimate=kept) == []  # the kept one: small
