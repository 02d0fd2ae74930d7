"""Compose job benchmark: one compose job's total time on 1 and on 2 enumerate worker
processes (its shards, ranges of its sets of addends, run side by side), and the scale-out.

Usage: python bench/compose_job.py [--words N] [--addends A]
The list is the first N words of a deterministic made-up list of words of 2 to 5 of twelve
letters (tests/support/words.py), repeated until it has N distinct ones; the time is
submission to the job's end, read from the job store, difficulty of every result included.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import machine, system  # noqa: E402

from alphametic.compose import groups  # noqa: E402
from alphametic.linear.native import describe  # noqa: E402
from tests.support.processes import wait_job  # noqa: E402
from tests.support.words import long_words  # noqa: E402


def word_list(count: int) -> list[str]:
    """About `count` distinct made-up words, the same for every run."""
    return list(long_words(count * 2, seed=26))[:count]


def timed(words: list[str], addends: int, processes: int) -> tuple[float, int, int]:
    """(seconds from submission to the end, results, shards) on this many worker processes."""
    with system(f"compose-{processes}", workers=(("enumerate", processes),)) as running:
        store = running.store
        started = time.perf_counter()
        job = store.queue(store.admit_compose(words, {"addends": addends}))
        done = wait_job(store, job.id, timeout=3600, interval=0.05)
        seconds = time.perf_counter() - started
        shards = int(store.redis.hget(store.keys.job(job.id), "shards") or 0)
        assert done.state.value == "succeeded", done
        return seconds, done.solutions_found, shards


def main() -> int:
    """Time the job on one and on two worker processes; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--words", type=int, default=80)
    parser.add_argument("--addends", type=int, default=2)
    args = parser.parse_args()
    words = word_list(args.words)
    sets = groups(words, args.addends)
    print(f"# {machine()}; engine {describe()}; load {os.getloadavg()[0]:.2f}")
    print(f"{len(words)} words, {sets:,} sets of addends, {sets * len(words):,} candidates")
    one, found, parts = timed(words, args.addends, 1)
    print(f"1 worker process:  {one:.1f} s, {found:,} results, {parts} shards")
    two, found_two, _ = timed(words, args.addends, 2)
    print(f"2 worker processes: {two:.1f} s, {found_two:,} results; scale-out {one / two:.2f}x")
    return 0 if found == found_two else 1


if __name__ == "__main__":
    sys.exit(main())
