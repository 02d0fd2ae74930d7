"""The soak (issue 31): faults combined under a mixed workload, the whole history checked.

Master, two replicas and three sentinels; two workers (concurrency 2) and gunicorn (two
processes), all following the sentinels; twelve clients, each its own loopback address,
submitting about six distinct jobs a second between them while one or two random faults land
every few seconds (tests/support/soak.py: kill -9 and SIGSTOP of workers and pool processes,
SIGSTOP of the master short of and past down-after, kill -9 of a replica, gunicorn restarts,
the master squeezed to its memory limit). Then: no reply read by the wrong call, no accepted
job lost, none answered wrong or run twice, none stuck, no 500, no job created behind a 503
that said nothing was written, and no process left refusing.

The short soak runs in `make test` (seed SOAK_SEED, default 31; its schedule lands each kind
of fault once); `make soak` runs the long ones (SOAK_SECONDS of faults per seed in SOAK_SEEDS,
marked `soak`: selected only by `-m soak`). A failure prints the seed: SOAK_SEED=<seed>
replays its fault schedule (and workload; the timing of a loaded machine is never the same).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from jobstore import Settings
from tests.support.sentinel import SentinelSetup
from tests.support.soak import Figures, seed_from_env, soak

SHORT_SECONDS = 90.0  # seconds of faults in `make test`
SHORT_GAP = (7.0, 13.0)  # seconds between fault landings there: each kind lands once
LONG_GAP = (10.0, 30.0)  # the issue's


def long_seeds() -> list[int]:
    """SOAK_SEEDS (comma-separated) for the long soak, default three."""
    return [int(s) for s in os.environ.get("SOAK_SEEDS", "1,2,3").split(",") if s.strip()]


def assert_clean(figures: Figures) -> None:
    """Print the figures, then fail naming every defect found (with the seed to replay)."""
    print("\n" + figures.table())
    assert not figures.defects(), f"SOAK_SEED={figures.seed}:\n{figures.table()}"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_short_soak_loses_nothing_under_combined_faults(
    settings: Settings, sentinel_factory: Callable[..., SentinelSetup]
) -> None:
    setup = sentinel_factory(replicas=2)
    figures = soak(settings, setup, seed_from_env(31), SHORT_SECONDS, SHORT_GAP, stuck_bound=120)
    assert_clean(figures)


@pytest.mark.soak
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("seed", long_seeds())
def test_long_soak_loses_nothing_under_combined_faults(
    settings: Settings, sentinel_factory: Callable[..., SentinelSetup], seed: int
) -> None:
    seconds = float(os.environ.get("SOAK_SECONDS", "600"))
    setup = sentinel_factory(replicas=2)
    assert_clean(soak(settings, setup, seed, seconds, LONG_GAP, stuck_bound=180))
