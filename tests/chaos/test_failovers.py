"""Two failovers in a row with nobody reviving anything: master, two replicas, three sentinels.

A steady stream of submissions and a long count run while the master is killed (kill -9), and
a little later the master Sentinel promoted in its place. No dead server comes back: after the
second failover the last server left is master with no replica (degraded at a floor of 0,
set here). After each kill the API answers 202 again within RECOVERY_LIMIT, every accepted
job succeeds, none runs twice to success, the long count ends with its exact count, and after
each failover every worker takes a fresh job (no consumer silently stopped at the reconnect).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from alphametic.linear.native import is_built
from jobstore import JobStore, State
from jobstore.settings import Settings
from tests.support.chaos import succeeded_once, wait_until
from tests.support.sentinel import SentinelSetup, Stream, following, taken_by_each

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

RECOVERY_LIMIT = 15.0  # seconds from a kill until the API accepts submissions again
# Sentinel's failover timeout here: it starts no second failover of the master name within
# twice this of the first, so the second kill comes at least that long after the first.
FAILOVER_TIMEOUT_MS = 3000
# A count long enough to run through both failovers: ~30 s of native search (sharded over the
# workers), or ~5 s on the pure-Python engine (base 16; it may end before the second kill).
LONG_COUNT = "ABCDE + FGHIJ = KLMNO"
LONG_BASE = 18 if is_built() else 16
COUNTS = {16: 6_684_864, 18: 207_331_136}  # both engines agree on 16; native alone on 18


def back_after(stream: Stream, killed_at: float) -> float:
    """Seconds from a kill until a submission sent after it was accepted (waits for one)."""
    wait_until(
        lambda: any(a.sent > killed_at for a in stream.accepted()),
        RECOVERY_LIMIT + 15,
        "accepting submissions again",
        0.05,
    )
    return min(a.received for a in stream.accepted() if a.sent > killed_at) - killed_at


def test_two_failovers_in_a_row_lose_nothing_and_nobody_revives(
    settings: Settings,
    sentinel_factory: Callable[..., SentinelSetup],
    worker_factory: Any,
    web_factory: Any,
    store_factory: Any,
) -> None:
    setup = sentinel_factory(replicas=2, failover_timeout_ms=FAILOVER_TIMEOUT_MS)
    ports = [setup.master_port()]
    # Floor 0 (set; 1 by default): the last server left serves alone.
    mine = following(settings, setup).replace(shard_count=8, min_replicas=0)
    workers = [worker_factory(mine, "solve,enumerate", concurrency=2) for _ in range(2)]
    web = web_factory(mine)
    store: JobStore = store_factory(mine)
    stream = Stream(web.url, interval=0.1)
    stream.start()
    backs: list[float] = []
    try:
        wait_until(lambda: len(stream.accepted()) >= 10, 30, "10 submissions accepted", 0.05)
        long = store.submit("count", LONG_COUNT, {"base": LONG_BASE})
        wait_until(lambda: (store.get(long.id) or long).state is State.RUNNING, 30, "the count")
        for kill in range(2):
            setup.kill_master()
            killed_at = time.monotonic()
            backs.append(back_after(stream, killed_at))
            ports.append(setup.master_port())

            # Steady traffic after each failover, and the second kill no sooner than Sentinel
            # would start a second failover.
            def steady(since: float = killed_at + backs[-1]) -> bool:
                return sum(a.sent > since for a in stream.accepted()) >= 10

            wait_until(
                steady,
                30,
                f"10 more submissions accepted after failover {kill + 1}",
                0.05,
            )
            # No consumer silently stopped at the failover: each worker takes a fresh job.
            taken_by_each(workers, stream, killed_at + backs[-1])
            guard = killed_at + 2 * FAILOVER_TIMEOUT_MS / 1000 + 0.5
            time.sleep(max(0.0, guard - time.monotonic()))
    finally:
        stream.end()
    print(
        f"\ntwo failovers: 202 again {backs[0]:.2f} s and {backs[1]:.2f} s after each kill -9; "
        f"{stream.tally()}; masters {ports}"
    )
    assert len(set(ports)) == 3, setup.logs()  # three masters in turn, none revived
    assert all(back <= RECOVERY_LIMIT for back in backs), backs
    assert all(a.status == 503 for a in stream.refused()), stream.tally()
    ready = requests.get(f"{web.url}/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json()["replicas"] == {"connected": 0, "floor": 0}
    jobs = succeeded_once(store, workers, [*stream.job_ids(), long.id], timeout=150)
    counted = next(job for job in jobs if job.id == long.id)
    assert counted.solutions_found == COUNTS[LONG_BASE] and not counted.truncated, counted
    print(
        f"two failovers: {len(jobs)} jobs all succeeded, each ran once; the long count "
        f"{counted.solutions_found:,} exact ({counted.shards} shards)"
    )
