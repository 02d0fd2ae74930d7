"""Cryptator's Table III: compose the Greek letter names (N = 2..9) and the colour names
(N = 2..9) with no word twice in a sum, and print our count and time beside the published ones.

Usage: python bench/compose_cryptator.py [--list greek|colors] [--most N] [--oracle]

Each run is `compose(words, addends=N, distinct_words=True)` in this process (base 10, one
solution, no multi-letter word led by 0), wall time from the list to its last result, ratings
not included (`alphametic compose` rates each result as it prints it). The published counts
and times are Malapert et al., "Cryptarithmetic Playtime" (ICTAI 2025), Table III (colours
N = 7..9 from Cryptator's database; its times are on 40 cores). --oracle also counts every
Greek candidate of at most 10 letters with seed 000's C++ generate-and-test (its own time per
puzzle, summed) and checks its one-solution sums are ours. `uptime`'s load is printed too.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from engine import build_peer, peer_run  # noqa: E402

from alphametic.compose import Tally, compose, words_of  # noqa: E402
from alphametic.linear.native import describe  # noqa: E402

LISTS = ROOT / "tests" / "data" / "cryptator"
PUBLISHED = {
    "greek": {2: 4, 3: 38, 4: 128, 5: 207, 6: 184, 7: 30, 8: 2, 9: 0},
    "colors": {2: 66, 3: 315, 4: 357, 5: 163, 6: 46, 7: 15, 8: 4, 9: 1},
}
# Seconds for the colours on 40 cores: Crypt-ator, and Tamura's C generate-and-test.
CRYPTATOR_SECONDS = {2: 19.5, 3: 57.0, 4: 145.3, 5: 317.1, 6: 431.9}
TAMURA_SECONDS = {2: 1.8, 3: 47.0, 4: 1232.0, 5: 31149.0}


def table(name: str, most: int) -> tuple[float, set[str]]:
    """Print one list's rows; return the time of all its runs and every sum found."""
    words = words_of((LISTS / f"{name}.txt").read_text().splitlines())
    print(f"\n{name}: {len(words)} words, no word twice, base 10, one solution")
    print(f"{'N':>2} {'ours':>6} {'published':>9} {'our s':>7}  candidates / searched")
    spent, found = 0.0, set()
    for addends in range(2, most + 1):
        tally = Tally()
        started = time.perf_counter()
        texts = {c.puzzle.text for c in compose(words, addends=addends, distinct_words=True,
                                                 tally=tally)}  # fmt: skip
        seconds = time.perf_counter() - started
        spent += seconds
        found |= texts
        published = PUBLISHED[name].get(addends)
        same = "" if published == len(texts) else "  << differs"
        theirs = ""
        if name == "colors" and addends in CRYPTATOR_SECONDS:
            tamura = TAMURA_SECONDS.get(addends)
            theirs = f"; Crypt-ator {CRYPTATOR_SECONDS[addends]} s" + (
                f", Tamura {tamura:,.1f} s" if tamura else ", Tamura > 4 days"
            )
        print(
            f"{addends:>2} {len(texts):>6} {published!s:>9} {seconds:>7.2f}  "
            f"{tally.candidates:,} / {tally.searched:,}{theirs}{same}"
        )
    print(f"{name}: N = 2..{most} in {spent:.2f} s; {_uptime()}")
    return spent, found


def oracle(found: set[str], ours: float) -> None:
    """Count every Greek candidate of at most 10 letters with the C++ generate-and-test."""
    exe = build_peer()
    if exe is None:
        print("C++ yardstick not available (../shared/peers/seed000.cpp or g++ missing)")
        return
    words = words_of((LISTS / "greek.txt").read_text().splitlines())
    texts = []
    for addends in range(2, 10):
        for terms in combinations(words, addends):
            for result in words:
                if result not in terms and len(set("".join((*terms, result)))) <= 10:
                    texts.append("+".join(terms) + "=" + result)
    times, answers = peer_run(exe, texts, "--all", 1)
    unique = {
        text.replace("+", " + ").replace("=", " = ")
        for text, n in zip(texts, answers, strict=True)
        if n == "1"
    }
    same = "=" if unique == found else "!="
    total = sum(times)
    print(
        f"seed 000 (C++, --all): {len(texts):,} Greek candidates counted in {total:.2f} s; "
        f"its {len(unique):,} one-solution sums {same} ours; ours / C++: {ours / total:.3f}"
    )


def main() -> int:
    """Print the tables asked for."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--list", choices=sorted(PUBLISHED), help="one list (default: both)")
    parser.add_argument("--most", type=int, default=9, help="addends up to N (default 9)")
    parser.add_argument("--oracle", action="store_true", help="time seed 000 on the Greek list")
    args = parser.parse_args()
    print(f"engine: {describe()}; {_uptime()}")
    for name in [args.list] if args.list else ["greek", "colors"]:
        spent, found = table(name, args.most)
        if args.oracle and name == "greek" and args.most == 9:
            oracle(found, spent)
    return 0


def _uptime() -> str:
    """The load averages, as `uptime` prints them."""
    return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    raise SystemExit(main())
