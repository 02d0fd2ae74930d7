"""Compose job benchmark: one compose job's total time on 1 and on 2 enumerate worker
processes (its shards, ranges of its sets of addends, run side by side), and the scale-out.

Usage: python bench/compose_job.py [--words N] [--list en|ja|th] [--addends A]
The list is the first N words of a built-in list (--list) or of a deterministic made-up list
of words of 2 to 5 of twelve letters (tests/support/words.py); the time is submission to the
job's end, read from the job store, difficulty of every result included. A job ends at its
results cap (ALPHAMETIC_MAX_COMPOSE_RESULTS) when it finds that many first.
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
from alphametic.wordlists import LISTS  # noqa: E402
from alphametic.wordlists import word_list as built_in  # noqa: E402
from tests.support.processes import wait_job  # noqa: E402
from tests.support.words import long_words  # noqa: E402


def word_list(count: int) -> list[str]:
    """About `count` distinct made-up words, the same for every run."""
    return list(long_words(count * 2, seed=26))[:count]


def timed(words: list[str], addends: int, processes: int) -> tuple[float, int, int, bool]:
    """(seconds from submission to the end, results stored, shards, cut at the cap) on this
    many worker processes."""
    with system(f"compose-{processes}", workers=(("enumerate", processes),)) as running:
        store = running.store
        started = time.perf_counter()
        job = store.queue(store.admit_compose(words, {"addends": addends}))
        done = wait_job(store, job.id, timeout=3600, interval=0.05)
        seconds = time.perf_counter() - started
        shards = int(store.redis.hget(store.keys.job(job.id), "shards") or 0)
        assert done.state.value == "succeeded", done
        _, stored = store.composed(job.id, 0, 1)  # `found` counts one more per shard the cap cut
        return seconds, stored, shards, bool(done.truncated)


def main() -> int:
    """Time the job on one and on two worker processes; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--words", type=int, default=80)
    parser.add_argument("--list", choices=LISTS)
    parser.add_argument("--addends", type=int, default=2)
    args = parser.parse_args()
    words = built_in(args.list, args.words) if args.list else word_list(args.words)
    sets = groups(words, args.addends)
    print(f"# {machine()}; engine {describe()}; load {os.getloadavg()[0]:.2f}")
    print(f"{len(words)} words, {sets:,} sets of addends, {sets * len(words):,} candidates")
    one, found, parts, cut = timed(words, args.addends, 1)
    capped = " (cut at the results cap)" if cut else ""
    print(f"1 worker process:  {one:.1f} s, {found:,} results{capped}, {parts} shards")
    two, found_two, _, cut_two = timed(words, args.addends, 2)
    capped = " (cut at the results cap)" if cut_two else ""
    print(f"2 worker processes: {two:.1f} s, {found_two:,} results{capped}; ", end="")
    print(f"scale-out {one / two:.2f}x")
    return 0 if found == found_two else 1


if __name__ == "__main__":
    sys.exit(main())
