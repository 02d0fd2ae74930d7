"""Explanation benchmark: time to explain SEND + MORE = MONEY, the Exercism puzzles and the
calibration list (median of several runs each), with the machine's load."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alphametic import parse  # noqa: E402
from alphametic.explain.walkthrough import explain  # noqa: E402

DATA = ROOT / "tests" / "data"


def puzzles(which: str) -> list[str]:
    """Return the puzzle texts of one set: send, exercism or calibration."""
    if which == "send":
        return ["SEND + MORE = MONEY"]
    if which == "exercism":
        cases = json.loads((DATA / "exercism-alphametics.json").read_text())["cases"]
        return [case["puzzle"] for case in cases]
    items = json.loads((DATA / "difficulty-calibration.json").read_text())["puzzles"]
    return [item["puzzle"] for item in items]


def timed(text: str, runs: int) -> tuple[float, float, float, object]:
    """Return the median wall, worst wall and median CPU seconds to parse and explain text."""
    walls, cpus = [], []
    result = None
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        result = explain(parse(text))
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), max(walls), statistics.median(cpus), result


def main() -> None:
    """Print one line per puzzle and a summary per set."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per puzzle (median reported)")
    parser.add_argument("sets", nargs="*", default=["send", "exercism", "calibration"])
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}, {os.cpu_count()} CPUs")
    for which in args.sets:
        medians = []
        print(f"\n{which}:  median ms   worst ms   CPU ms  steps  label (score)  puzzle")
        for text in puzzles(which):
            median, worst, cpu, result = timed(text, args.runs)
            medians.append(median)
            rating = result.difficulty  # type: ignore[attr-defined]
            steps = len(result.steps)  # type: ignore[attr-defined]
            label = f"{rating.label} ({rating.score})"
            times = f"{median * 1000:9.1f} {worst * 1000:10.1f} {cpu * 1000:8.1f}"
            print(f"  {times} {steps:6}  {label:15} {text[:50]}")
        print(f"  {which}: worst median {max(medians) * 1000:.1f} ms, total {sum(medians):.2f} s")
    print(f"\nload average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
