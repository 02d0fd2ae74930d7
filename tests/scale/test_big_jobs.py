"""The issue's big sharded count, as a job, against the command line on the same machine.

NORTH * WEST = EAST * SOUTH in base 15 counts 200 solutions in 29-38 s on one idle core; as
a job (two enumerate workers, 2 s slices, as `make run` starts) it never finished before:
each shard's runs yielded mid-piece at the same checkpoint. The command line's time is taken
in the test itself, so that the machine's load weighs on both.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from jobstore import Settings, State
from tests.support.cli import timed_count
from tests.support.counters import assert_counters_only_rise, watch

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

BIG = ("NORTH * WEST = EAST * SOUTH", {"base": 15})


def test_the_big_count_finishes_within_twice_the_command_lines_time(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """The job ends with the command line's 200 within twice its time, its progress and
    found never going down at any poll."""
    settings = fresh_settings(time_slice=2.0)
    for _ in range(2):
        worker_factory(settings, "enumerate")
    store = store_factory(settings)
    count, cli_seconds = timed_count(BIG[0], BIG[1]["base"])
    started = time.monotonic()
    job = store.submit("count", *BIG)
    rows = watch(store, [job.id], timeout=max(120.0, 4 * cli_seconds))[0]
    took = time.monotonic() - started
    print(f"command line {cli_seconds:.1f} s, job {took:.1f} s ({count} solutions)")
    assert count == 200 and rows[-1][0] is State.SUCCEEDED and rows[-1][2] == 200, rows[-1]
    assert took <= 2 * cli_seconds, (took, cli_seconds)
    assert_counters_only_rise(rows)
