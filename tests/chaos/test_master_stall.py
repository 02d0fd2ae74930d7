"""A master stalled (SIGSTOP) past down-after under a stream of submissions, then resumed.

Master, two replicas and three sentinels (tests/support/sentinel.py), real workers and a real
gunicorn following them at the default settings (ALPHAMETIC_MIN_REPLICAS unset). While the
master is stopped the sentinels promote a replica; the old master resumes still a master, alone
(its replicas left it), until the sentinels demote it some 10 s later and it throws away
whatever it took meanwhile. Nothing answered 202 may be among that: every accepted job exists
afterwards and succeeds once (a worker's final write lost there would run its job again).

Three stalls in a row: one resumed as soon as the sentinels' leader has promoted a replica (the
other replica still follows the old master for a moment and would confirm its writes, then
resync from the new one and drop them: soak seed 1 lost five jobs so), one resumed as soon as
the sentinels name a new master (the call in flight then completes on the old master, no
timeout moves anyone off it), one of STALL s (the calls in flight time out). Before, the web
and workers stayed on the resumed master through their pooled connections and it took writes
alone (floor 0): jobs answered 202 were gone (404) after the demotion; and a call that timed
out left its late reply on its connection, read as the next call's (a 500, and the breaker
stuck open: 503 for good).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from jobstore import JobStore, Settings
from tests.support.chaos import succeeded_once, wait_until
from tests.support.sentinel import (
    DOWN_AFTER_MS,
    Node,
    SentinelSetup,
    Stream,
    following,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(360)]

STALL = 8.0  # seconds of the long stall: past down-after (3 s here), so the master is replaced
RECOVERY_LIMIT = 15.0  # seconds from a stall's start until the API accepts submissions again
# Sentinel starts no second failover of a master name within twice this of the first.
FAILOVER_TIMEOUT_MS = 3000


@dataclass
class Stall:
    """One stall of the master: when it began, when it was resumed, when it was demoted."""

    began: float
    resumed: float = 0.0
    demoted: float = 0.0

    def report(self, stream: Stream) -> tuple[float, float]:
        """Seconds from the stall until a submission sent since was accepted, and until the
        last 503 of the stall's span (0 when none)."""
        back = min(a.received for a in stream.accepted() if a.sent > self.began) - self.began
        span = [a for a in stream.refused() if self.began - 1 < a.sent < self.demoted]
        return back, max((a.received - self.began for a in span), default=0.0)


def role(port: int) -> str:
    """The role the server on this port says it has ('' while it does not answer)."""
    try:
        return str(Node.client_at(port).info("replication")["role"])
    except redis.exceptions.RedisError:
        return ""


def promoted(setup: SentinelSetup, old: Node) -> bool:
    """Whether the sentinels' leader has promoted a replica (it says it is a master) while
    they still name the old master: the other replica follows the old one until it is moved."""
    others = [node.port for node in setup.servers if node is not old]
    return setup.master_port() == old.port and "master" in map(role, others)


def stall(setup: SentinelSetup, seconds: float, stream: Stream, mid: bool = False) -> Stall:
    """SIGSTOP the master until the sentinels name another (`mid`: until their leader has
    promoted a replica, so that it resumes while the other still follows it) and `seconds`
    have passed, then SIGCONT; wait until they demote it and 10 more submissions are
    accepted."""
    old = next(node for node in setup.servers if node.port == setup.master_port())
    assert old.proc is not None
    os.kill(old.proc.pid, signal.SIGSTOP)
    result = Stall(time.monotonic())
    try:
        if mid:
            wait_until(lambda: promoted(setup, old), 30, "a replica promoted", 0.01)
        else:
            wait_until(lambda: setup.master_port() != old.port, 30, "a new master", 0.02)
        time.sleep(max(0.0, result.began + seconds - time.monotonic()))
    finally:
        os.kill(old.proc.pid, signal.SIGCONT)
    result.resumed = time.monotonic()
    wait_until(lambda: role(old.port) == "slave", 40, "the old master demoted", 0.1)
    result.demoted = time.monotonic()
    wait_until(
        lambda: sum(a.sent > result.demoted for a in stream.accepted()) >= 10,
        30,
        "10 submissions accepted after the demotion",
        0.05,
    )
    return result


def test_a_master_stalled_past_down_after_loses_no_accepted_job(
    settings: Settings,
    sentinel_factory: Callable[..., SentinelSetup],
    worker_factory: Any,
    web_factory: Any,
    store_factory: Any,
) -> None:
    """Two stalls of the master (resumed at the promotion; STALL s): 503s are allowed, 202s
    come back within RECOVERY_LIMIT, every submission answered 202 exists afterwards and
    succeeds once."""
    assert STALL * 1000 > DOWN_AFTER_MS
    setup = sentinel_factory(replicas=2, failover_timeout_ms=FAILOVER_TIMEOUT_MS)
    mine = following(settings, setup)  # ALPHAMETIC_MIN_REPLICAS unset, as make run leaves it
    workers = [worker_factory(mine, "solve,enumerate", concurrency=2) for _ in range(2)]
    web = web_factory(mine)
    store: JobStore = store_factory(mine)
    stream = Stream(web.url, interval=0.1)
    stream.start()
    stalls: list[Stall] = []
    try:
        wait_until(lambda: len(stream.accepted()) >= 20, 30, "20 submissions accepted", 0.05)
        for seconds, mid in ((0.0, True), (0.0, False), (STALL, False)):
            stalls.append(stall(setup, seconds, stream, mid))
            guard = stalls[-1].began + 2 * FAILOVER_TIMEOUT_MS / 1000 + 0.5
            time.sleep(max(0.0, guard - time.monotonic()))
    finally:
        stream.end()
    figures = [(s.resumed - s.began, s.demoted - s.resumed, *s.report(stream)) for s in stalls]
    for stopped, demoted, back, last in figures:
        print(
            f"\nmaster stalled {stopped:.2f} s: 503s until {last:.2f} s, 202 again {back:.2f} s "
            f"after the stall began; demoted {demoted:.2f} s after SIGCONT"
        )
    print(f"master stalls: {stream.tally()}")
    assert all(a.status == 503 for a in stream.refused()), stream.tally()
    assert all(back <= RECOVERY_LIMIT for _, _, back, _ in figures), figures
    jobs = succeeded_once(store, workers, stream.job_ids(), timeout=120)
    print(f"master stalls: {len(jobs)} accepted jobs all there, succeeded, each ran once")
