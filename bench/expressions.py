"""Expression corpus benchmark (issues 15, 25): both engines vs a naive permutations solver.

Reads bench/expressions.json (built and double-checked by bench/make_expressions.py), times
the engine in all-solutions, count and first mode on every puzzle (parse included, plans
rebuilt each run) on the pure-Python engine and, where it is built, the native cores (same
run, side by side), checks each count against the file and the two engines' solution lists
against each other, and times the naive solver (bench/naive.py) on the same puzzles, checking
its counts too. Prints a table, then total, median and worst per engine and mode, then the
issue's slow shapes (not in the corpus). Run it through bench/engine.py (--only expressions)
or alone:

    .venv/bin/python bench/expressions.py [--repeat N] [--no-naive]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from naive import naive_count  # noqa: E402

from alphametic import Search, parse  # noqa: E402
from alphametic.linear.native import ENV, is_built  # noqa: E402
from alphametic.linear.plan import forget_plans  # noqa: E402
from alphametic.steps.walker import model_for  # noqa: E402

CORPUS = ROOT / "bench" / "expressions.json"
# enigma.py's SubstitutedExpression on a 77-puzzle corpus of these kinds (../shared/notes).
ENIGMA_TOTAL = 27.0
# Issue 25's goals: the corpus in at most this share of enigma.py's total, no puzzle slower.
GOAL_SHARE, GOAL_WORST = 0.05, 0.3
# The slow shapes (many single-letter products, nothing that only adds up): all mode.
SHAPES = ["A * B + C * D + E * F + G * H = IJ", "A * B + C * D + E * F = G * H + IJ"]


def corpus() -> list[dict[str, object]]:
    """Return the puzzles of the expression corpus."""
    rows: list[dict[str, object]] = json.loads(CORPUS.read_text())["puzzles"]
    return rows


def timed(run: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """Return the best wall and CPU seconds over several cold runs, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        forget_plans()
        model_for.cache_clear()
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def engines() -> list[str]:
    """Return the engines to time side by side: python, and native where it is built."""
    return ["python", "native"] if is_built() else ["python"]


def measure(
    text: str, options: dict[str, object], repeat: int, engine: str
) -> tuple[dict[str, float], list[tuple[int, ...]]]:
    """Time all / count / first mode on one puzzle on one engine; return the seconds and the
    solution count, and the solutions."""
    os.environ[ENV] = engine

    def every() -> list[tuple[int, ...]]:
        return list(Search(parse(text, **options)).solutions())  # type: ignore[arg-type]

    def counted() -> int:
        return Search(parse(text, **options)).count()  # type: ignore[arg-type]

    def first() -> object:
        return next(Search(parse(text, **options)).solutions(), None)  # type: ignore[arg-type]

    wall_all, cpu_all, listed = timed(every, repeat)
    wall_count, _, n_count = timed(counted, repeat)
    wall_first, _, _ = timed(first, repeat)
    assert isinstance(listed, list) and len(listed) == n_count, (text, engine, n_count)
    times = {"all": wall_all, "cpu": cpu_all, "count": wall_count, "first": wall_first}
    return {**times, "sols": float(len(listed))}, listed


def _ms(seconds: float) -> str:
    """Format seconds as milliseconds."""
    return f"{seconds * 1e3:.1f}"


def run(repeat: int, with_naive: bool) -> None:
    """Print the per-puzzle table and the summary lines, per engine."""
    rows, names = corpus(), engines()
    head = f"{'kind':10} {'puzzle':40} {'sols':>6}"
    for name in names:
        tag = name[:3]
        head += f" {tag + ' all':>8} {tag + ' cnt':>8} {tag + ' 1st':>8}"
    print(head + (f" {'naive s':>8}" if with_naive else ""))
    results: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    naive_times, wrong = [], []
    for row in rows:
        text, options = str(row["puzzle"]), dict(row["options"])  # type: ignore[call-overload]
        runs = {name: measure(text, options, repeat, name) for name in names}
        got = {name: found[0] for name, found in runs.items()}
        line = f"{row['kind']!s:10} {text[:40]:40} {got[names[0]]['sols']:6.0f}"
        for name in names:
            results[name].append(got[name])
            line += f" {_ms(got[name]['all']):>8} {_ms(got[name]['count']):>8}"
            line += f" {_ms(got[name]['first']):>8}"
            if got[name]["sols"] != row["count"]:
                wrong.append(f"{text}: {name} engine {got[name]['sols']:.0f}, file {row['count']}")
        if runs[names[-1]][1] != runs[names[0]][1]:
            wrong.append(f"{text}: the engines' solution lists differ")
        if with_naive:
            found, seconds = naive_count(parse(text, **options))
            naive_times.append(seconds)
            if found != row["count"]:
                wrong.append(f"{text}: naive {found}, file {row['count']}")
            line += f" {seconds:8.2f}"
        print(line, flush=True)
    print(f"\n{len(rows)} puzzles; counts or lists that differ: {len(wrong)}")
    for item in wrong:
        print("  " + item)
    for name in names:
        summary(name, rows, results[name])
    if with_naive:
        total = sum(r["all"] for r in results[names[-1]])
        print(
            f"naive permutations solver: total {sum(naive_times):.1f} s, median "
            f"{statistics.median(naive_times):.2f} s, worst {max(naive_times):.2f} s; "
            f"engine ({names[-1]}) {sum(naive_times) / total:.0f}x faster in total"
        )
    shapes(names)


def summary(name: str, rows: list[dict[str, object]], results: list[dict[str, float]]) -> None:
    """Print one engine's totals, medians and worst per mode, and the issue's goals."""
    for mode in ("all", "cpu", "count", "first"):
        times = [r[mode] for r in results]
        worst = max(range(len(times)), key=times.__getitem__)
        print(
            f"{name:6} {mode:5}: total {_ms(sum(times)):>8} ms, median "
            f"{_ms(statistics.median(times))} ms, worst {_ms(times[worst])} ms "
            f"({rows[worst]['puzzle']})"
        )
    total = sum(r["all"] for r in results)
    slow = sum(1 for r in results for m in ("all", "count", "first") if r[m] > GOAL_WORST)
    print(
        f"{name:6} all-solutions total vs enigma.py's ~{ENIGMA_TOTAL:.0f} s: "
        f"{total / ENIGMA_TOTAL:.3f}x ({ENIGMA_TOTAL / total:.0f}x faster; goal <= "
        f"{GOAL_SHARE}x, i.e. <= {ENIGMA_TOTAL * GOAL_SHARE:.2f} s); runs over "
        f"{GOAL_WORST * 1e3:.0f} ms in any mode: {slow} (goal 0)"
    )


def shapes(names: list[str]) -> None:
    """Print the issue's slow shapes, all solutions, once per engine (best of 1: seconds)."""
    for text in SHAPES:
        line = f"shape {text}:"
        for name in names:
            got = measure(text, {}, 1, name)[0]
            line += f" {name} {_ms(got['all'])} ms wall, {_ms(got['cpu'])} ms CPU"
            line += f" ({got['sols']:.0f} solutions);"
        print(line.rstrip(";"), flush=True)
    os.environ.pop(ENV, None)


def main() -> None:
    """Run the expression benchmark alone."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best is kept)")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive solver")
    args = parser.parse_args()
    run(args.repeat, not args.no_naive)


if __name__ == "__main__":
    main()
