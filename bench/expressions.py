"""Expression corpus benchmark (issue 15): engine vs a naive permutations solver, one run.

Reads bench/expressions.json (built and double-checked by bench/make_expressions.py), times
the engine in all-solutions, count and first mode on every puzzle (parse included, plans
rebuilt each run), checks each count against the file, and times the naive solver
(bench/naive.py) on the same puzzles, checking its counts too. Prints a table, then total,
median and worst per mode. Run it through bench/engine.py (--only expressions) or alone:

    .venv/bin/python bench/expressions.py [--repeat N] [--no-naive]
"""

from __future__ import annotations

import argparse
import json
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
from alphametic.linear.plan import forget_plans  # noqa: E402
from alphametic.steps.walker import model_for  # noqa: E402

CORPUS = ROOT / "bench" / "expressions.json"
# enigma.py's SubstitutedExpression on a 77-puzzle corpus of these kinds (../shared/notes).
ENIGMA_TOTAL = 27.0


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


def measure(text: str, options: dict[str, object], repeat: int) -> dict[str, float]:
    """Time all / count / first mode on one puzzle; return seconds and counts."""

    def every() -> int:
        search = Search(parse(text, **options))  # type: ignore[arg-type]
        return sum(1 for _ in search.solutions())

    def counted() -> int:
        return Search(parse(text, **options)).count()  # type: ignore[arg-type]

    def first() -> object:
        return next(Search(parse(text, **options)).solutions(), None)  # type: ignore[arg-type]

    wall_all, cpu_all, n_all = timed(every, repeat)
    wall_count, _, n_count = timed(counted, repeat)
    wall_first, _, _ = timed(first, repeat)
    assert n_all == n_count, (text, n_all, n_count)
    return {
        "all": wall_all,
        "cpu": cpu_all,
        "count": wall_count,
        "first": wall_first,
        "sols": float(n_all),  # type: ignore[arg-type]
    }


def _ms(seconds: float) -> str:
    """Format seconds as milliseconds."""
    return f"{seconds * 1e3:.1f}"


def run(repeat: int, with_naive: bool) -> None:
    """Print the per-puzzle table and the summary lines."""
    rows = corpus()
    head = f"{'kind':10} {'puzzle':40} {'sols':>6} {'all ms':>8} {'cpu ms':>8} {'count ms':>8}"
    print(head + f" {'first ms':>8}" + (f" {'naive s':>8} {'x':>6}" if with_naive else ""))
    results, naive_times, wrong = [], [], []
    for row in rows:
        text, options = str(row["puzzle"]), dict(row["options"])  # type: ignore[call-overload]
        got = measure(text, options, repeat)
        results.append(got)
        if got["sols"] != row["count"]:
            wrong.append(f"{text}: engine {got['sols']:.0f}, file {row['count']}")
        line = (
            f"{row['kind']!s:10} {text[:40]:40} {got['sols']:6.0f} {_ms(got['all']):>8} "
            f"{_ms(got['cpu']):>8} {_ms(got['count']):>8} {_ms(got['first']):>8}"
        )
        if with_naive:
            found, seconds = naive_count(parse(text, **options))
            naive_times.append(seconds)
            if found != row["count"]:
                wrong.append(f"{text}: naive {found}, file {row['count']}")
            line += f" {seconds:8.2f} {seconds / got['all']:6.0f}"
        print(line, flush=True)
    print(f"\n{len(rows)} puzzles; counts that differ from the file: {len(wrong)}")
    for item in wrong:
        print("  " + item)
    for mode in ("all", "cpu", "count", "first"):
        times = [r[mode] for r in results]
        worst = max(range(len(times)), key=times.__getitem__)
        middle = statistics.median(times)
        print(
            f"engine {mode:5}: total {_ms(sum(times)):>8} ms, median {_ms(middle)} ms, "
            f"worst {_ms(times[worst])} ms ({rows[worst]['puzzle']})"
        )
    total = sum(r["all"] for r in results)
    print(
        f"all-solutions total vs enigma.py's ~{ENIGMA_TOTAL:.0f} s: {ENIGMA_TOTAL / total:.0f}x "
        f"faster (goal >= 4x, i.e. <= {ENIGMA_TOTAL / 4:.2f} s); over 1 s: "
        f"{sum(1 for r in results if r['all'] > 1.0)} (goal 0)"
    )
    if with_naive:
        print(
            f"naive permutations solver: total {sum(naive_times):.1f} s, median "
            f"{statistics.median(naive_times):.2f} s, worst {max(naive_times):.2f} s; "
            f"engine {sum(naive_times) / total:.0f}x faster in total"
        )


def main() -> None:
    """Run the expression benchmark alone."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best is kept)")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive solver")
    args = parser.parse_args()
    run(args.repeat, not args.no_naive)


if __name__ == "__main__":
    main()
