"""Composer benchmark: `alphametic compose` on a 63-word list against seed 000's compiled
backtracker counting the solutions of every candidate it would have to try.

Usage: python bench/compose.py [--addends N] [--repeat R] [--words FILE [--sample S]]
The yardstick (../shared/peers/seed000.cpp, built into bench/.build by bench/engine.py's
build_peer) counts each candidate of at most 10 letters (its own per-puzzle time, summed); the
composer's time is wall time in this process, words read to last result, difficulty included
(printed apart too). The candidates the yardstick finds exactly one solution for must be the
composer's results: the bench says whether they are. `uptime`'s load is printed before and after.

With --words (a word list such as alphametic/wordlists/en.txt, read as the CLI reads it) it
times the composer alone on S ranges of 1,000 sets of addends spread evenly over the list's
sets, and prints what the whole list would take on one core at that pace (no yardstick).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from engine import build_peer, peer_run  # noqa: E402

from alphametic.compose import Composed, Tally, candidates, compose, groups, words_of  # noqa: E402
from alphametic.explain.walkthrough import explain  # noqa: E402
from alphametic.linear.native import describe  # noqa: E402

# 63 short English words (deterministic; no licence concern: common words).
WORDS = """
ADD ALL AND ANT ARE ART BAD BAT BED BEE BET BIG BOAT CAN CAR CAT COLD DEAR DOG EAR EAST EAT
EGG END EVEN FAR FEET FIVE FOUR GAME GOLD HAND HAT HEAD HEAR HOME LESS LINE MORE MOST NAME
NINE NOTE ODD ONE OUT RATE REST ROAD SEND SIX SOME TEN THAT THREE TIME TOO TREE TWO WEST
MONEY SEA STAR
""".split()


def main() -> int:
    """Time the composer and the yardstick on the same candidates."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--addends", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--words", type=Path, help="time a sample of this word list instead")
    parser.add_argument("--sample", type=int, default=10, help="ranges of 1,000 sets (--words)")
    args = parser.parse_args()
    if args.words is not None:
        return _sample(args.words, args.addends, args.sample)
    assert len(WORDS) == 63 and len(set(WORDS)) == 63
    print(f"engine: {describe()}; {_uptime()}")
    best, rating = float("inf"), 0.0
    tally = Tally()
    found: list[Composed] = []
    for _ in range(args.repeat):
        tally = Tally()
        started = time.perf_counter()
        # Sorted: the yardstick's candidates below write their addends in that order.
        found = list(compose(sorted(WORDS), addends=args.addends, tally=tally))
        composed = time.perf_counter()
        rated = [explain(c.puzzle, seconds=1.0).difficulty for c in found]
        ended = time.perf_counter()
        if ended - started < best:
            best, rating = ended - started, ended - composed
    print(
        f"composer: {tally.candidates:,} candidates, {tally.searched:,} searched, "
        f"skipped {tally.skipped}, {tally.results:,} with one solution, "
        f"{best:.2f} s (of which rating the difficulty of the {len(rated)} found: {rating:.2f} s)"
    )
    exe = build_peer()
    if exe is None:
        print("C++ yardstick not available (../shared/peers/seed000.cpp or g++ missing)")
        return 0
    # Every candidate the yardstick can read (10 letters at most), unpruned: what counting the
    # solutions of every candidate costs it.
    texts = []
    for terms in _multisets(args.addends):
        for result in sorted(WORDS):
            if result not in terms and len(set("".join((*terms, result)))) <= 10:
                texts.append("+".join(terms) + "=" + result)
    times, answers = peer_run(exe, texts, "--all", 1)
    total = sum(times)
    pruned = sum(1 for _ in candidates(WORDS, args.addends))
    print(
        f"seed 000 (C++, --all): {len(texts):,} candidates counted in {total:.2f} s "
        f"(its own per-puzzle times); the composer searched {pruned:,} of them"
    )
    unique = {
        text.replace("+", " + ").replace("=", " = ")
        for text, n in zip(texts, answers, strict=True)
        if n == "1"
    }
    same = "=" if unique == {c.puzzle.text for c in found} else "!="
    print(f"results: the {len(unique):,} it finds one solution for {same} the composer's")
    print(f"composer / C++: {best / total:.3f}; {_uptime()}")
    return 0 if same == "=" else 1


def _sample(path: Path, addends: int, ranges: int) -> int:
    """Time the composer on ranges of 1,000 sets spread over a word list's sets; extrapolate."""
    words = words_of(path.read_text(encoding="utf-8").splitlines())
    total, width = groups(words, addends), 1000
    starts = sorted({total * k // ranges for k in range(ranges)})
    tally, spent, sets = Tally(), 0.0, 0
    print(f"engine: {describe()}; {_uptime()}")
    for start in starts:
        end = min(start + width, total)
        started = time.process_time()
        for _ in compose(words, addends=addends, tally=tally, start=start, end=end):
            pass
        spent += time.process_time() - started
        sets += end - start
    print(
        f"{path.name}: {len(words):,} words, {total:,} sets of {addends} addends; "
        f"{sets:,} sampled: {tally.candidates:,} candidates, {tally.searched:,} searched, "
        f"skipped {tally.skipped}, {tally.results:,} results in {spent:.2f} CPU s"
    )
    print(f"whole list at that pace: {spent / sets * total / 60:.1f} CPU minutes; {_uptime()}")
    return 0


def _uptime() -> str:
    """The load averages, as `uptime` prints them."""
    return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _multisets(addends: int) -> list[tuple[str, ...]]:
    """Every multiset of addends from the list, as the composer forms them."""
    from itertools import combinations_with_replacement

    return list(combinations_with_replacement(sorted(WORDS), addends))


if __name__ == "__main__":
    raise SystemExit(main())
