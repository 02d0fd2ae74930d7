"""Engine benchmark: per-puzzle table, throughput, check-hook overhead, C++ yardstick, and the
expression corpus against a naive permutations solver (bench/expressions.py)."""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from operator import mul
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import expressions  # noqa: E402
from corpus import corpus  # noqa: E402

from alphametic import Puzzle, Search, parse  # noqa: E402
from alphametic.language.folding import fold  # noqa: E402
from alphametic.linear.native import ENV, is_built  # noqa: E402
from alphametic.linear.plan import forget_plans  # noqa: E402

CONFORMANCE = ROOT / "tests" / "data" / "exercism-alphametics.json"
# The yardstick lives beside the clone (../shared/peers), or two levels up from a worktree.
PEERS = [ROOT.parent / "shared" / "peers", ROOT.parent.parent / "shared" / "peers"]
PEER = next((p / "seed000.cpp" for p in PEERS if (p / "seed000.cpp").exists()), PEERS[0])
BUILD = ROOT / "bench" / ".build"
NAIVE_CAP = 2.0  # seconds: the naive solver gives up after this (per puzzle and mode)

FORTRESSES = json.loads(CONFORMANCE.read_text())["cases"][-1]["puzzle"]
# (label, puzzle text, options)
HARD: list[tuple[str, str, dict[str, object]]] = [
    ("199 addends, unsolvable (result changed)", FORTRESSES[:-3] + "SSE", {}),
    (
        "199 addends, unsolvable (addend dropped)",
        FORTRESSES.replace("THIS + A + ", "THIS + ", 1),
        {},
    ),
    ("10 letters, unsolvable", "ABCDE + FGHIJ = JIHGFA", {}),
    ("10 letters, unsolvable 2", "ABCDE + BCDEA + CDEAB = FGHIJ", {}),
    ("10 letters, 8 solutions", "ABCDE + EDCBA = FGHIJ", {}),
    ("1,088 solutions", "ABC + DEF = GHI", {}),
    ("40,320 solutions", "A + B + C + D + E + F + G + H = IJ", {}),
    ("93,312 solutions", "A + B + C + D = E + F + G + H", {}),
    ("141,120 solutions", "A + B + C + D + E = F + G + H + I", {}),
    ("base 16, 39,564 solutions", "CP + IS + FUN = TRUE", {"base": 16}),
]


def best(
    run: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, object]:
    """Return the fastest time of several runs (seconds) and the last result."""
    times, result = [], None
    for _ in range(repeat):
        forget_plans()  # each timed run starts cold, as a one-off puzzle would
        start = clock()
        result = run()
        times.append(clock() - start)
    return min(times), result


def naive(puzzle: Puzzle, first: bool) -> tuple[int | None, float]:
    """Try every digit permutation (coefficient form); return (solutions, seconds) or None."""
    coef = puzzle.coefficients()
    letters = puzzle.letters
    c = [coef[x] for x in letters]
    nz = [letters.index(x) for x in puzzle.nonzero_letters()]
    start = time.perf_counter()
    found = 0
    for k, digits in enumerate(itertools.permutations(range(puzzle.base), len(letters))):
        if k & 0xFFFF == 0 and time.perf_counter() - start > NAIVE_CAP:
            return None, NAIVE_CAP
        if sum(map(mul, c, digits)) == 0 and all(digits[i] for i in nz):
            found += 1
            if first:
                break
    return found, time.perf_counter() - start


def engine_row(text: str, options: dict[str, object], repeat: int) -> dict[str, float]:
    """Time first / all / count on one puzzle (parse included); return times and counts."""

    def first() -> object:
        return next(Search(parse(text, **options)).solutions(), None)  # type: ignore[arg-type]

    def every() -> tuple[int, int]:
        search = Search(parse(text, **options))  # type: ignore[arg-type]
        return sum(1 for _ in search.solutions()), search.nodes

    def counted() -> int:
        return Search(parse(text, **options)).count()  # type: ignore[arg-type]

    t_first, _ = best(first, repeat)
    t_all, found = best(every, repeat)
    n_all, nodes = cast(tuple[int, int], found)
    t_count, n_count = best(counted, repeat)
    assert n_all == n_count, (text, n_all, n_count)
    return {"first": t_first, "all": t_all, "count": t_count, "nodes": nodes, "sols": n_all}


def engines() -> list[str]:
    """Return the engines to time side by side: python, and native where it is built."""
    return ["python", "native"] if is_built() else ["python"]


def use(engine: str) -> None:
    """Select the engine the next searches run on (ALPHAMETIC_ENGINE, read per search)."""
    os.environ[ENV] = engine


def first_solution(text: str) -> object:
    """The engine's first solution of a puzzle (None when it has none)."""
    return next(Search(parse(text)).solutions(), None)


def count_all(text: str) -> int:
    """The engine's count of a puzzle's solutions."""
    return Search(parse(text)).count()


def _ms(seconds: float) -> str:
    """Format seconds as milliseconds."""
    return f"{seconds * 1e3:.2f}"


def table(repeat: int, with_naive: bool) -> None:
    """Print the per-puzzle table for the conformance suite and the hard cases."""
    suite = json.loads(CONFORMANCE.read_text())["cases"]
    cases: list[tuple[str, str, dict[str, object]]] = [
        (c["description"], c["puzzle"], {}) for c in suite
    ]
    cases += HARD
    head = f"{'puzzle':44} {'first ms':>9} {'all ms':>9} {'count ms':>9} {'nodes':>7} {'sols':>7}"
    print(head + (f" {'naive 1st':>10} {'naive all':>10} {'x all':>6}" if with_naive else ""))
    rows = []
    for label, text, options in cases:
        row = engine_row(text, options, repeat)
        rows.append(row)
        line = (
            f"{label[:44]:44} {_ms(row['first']):>9} {_ms(row['all']):>9} "
            f"{_ms(row['count']):>9} {int(row['nodes']):7} {int(row['sols']):7}"
        )
        if with_naive:
            puzzle = parse(text, **options)  # type: ignore[arg-type]
            nf, tf = naive(puzzle, True)
            na, ta = naive(puzzle, False)
            over = f">{NAIVE_CAP * 1e3:.0f}"
            ratio = f"{'' if na is not None else '>'}{ta / row['all']:.0f}"
            line += (
                f" {_ms(tf) if nf is not None else over:>10}"
                f" {_ms(ta) if na is not None else over:>10} {ratio:>6}"
            )
        print(line)
    n = len(suite)
    worst = max(max(r["first"], r["all"]) for r in rows[:n])
    print(f"\nslowest conformance case (first or all): {_ms(worst)} ms (goal <= 10 ms)")
    big = rows[n - 1]
    print(f"199-addend puzzle: first {_ms(big['first'])} ms, all {_ms(big['all'])} ms (goal <= 10)")

    def whole(text: str = FORTRESSES) -> object:
        return sum(1 for _ in Search(parse(text)).solutions())

    cpu = best(whole, 10, time.process_time)[0]  # the machine is shared: CPU time as well
    print(f"199-addend puzzle, all mode, best CPU time of 10: {_ms(cpu)} ms")
    hard = list(zip(cases[n:], rows[n:], strict=True))
    unsolvable = [r for (_, t, _), r in hard if r["sols"] == 0 and len(set(t) - set(" +=-")) == 10]
    times = ", ".join(f"{_ms(r['all'])}" for r in unsolvable)
    print(f"unsolvable 10-letter puzzles, full search: {times} ms (goal <= 40 ms)")
    for (label, _, _), r in hard:
        if r["sols"] >= 10_000:
            print(
                f"{label}: count {r['sols'] / r['count']:,.0f} solutions/s (goal >= 1,000,000), "
                f"all {r['sols'] / r['all']:,.0f}/s (goal >= 500,000)"
            )


def side_by_side(repeat: int) -> None:
    """Print first / all / count per engine for the 199-addend puzzle and the hard cases."""
    cases = [("199 addends (exercism's last case)", FORTRESSES, {}), *HARD]
    heads = "".join(f" {e + ' ' + m:>15}" for e in engines() for m in ("first", "all", "count"))
    print(f"\n{'puzzle, ms':44}{heads}")
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for engine in engines():
        use(engine)
        rows[engine] = {label: engine_row(text, options, repeat) for label, text, options in cases}
    os.environ.pop(ENV, None)
    for label, _, _ in cases:
        cells = "".join(
            f" {_ms(rows[e][label][m]):>15}" for e in engines() for m in ("first", "all", "count")
        )
        print(f"{label[:44]:44}{cells}")


def folding(repeat: int) -> None:
    """Print what folding the typed text (NFKC, alphametic/language/folding.py) costs the
    199-addend puzzle's parse, typed in ASCII and in full-width forms, and a count with it."""
    wide = FORTRESSES.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)}).replace(" ", "\u3000")
    print(f"\n{'199-addend puzzle, typed as':30} {'fold ms':>9} {'parse ms':>9} {'count ms':>9}")
    for label, text in (("ASCII", FORTRESSES), ("full-width (IME)", wide)):
        folded = best_of(functools.partial(fold, text), max(repeat, 200))
        parsed = best_of(functools.partial(parse, text), max(repeat, 200))
        counted = best_of(functools.partial(count_of, text), max(repeat, 50))
        share = f"{folded / parsed:.1%} of the parse, {folded / counted:.1%} of the count"
        print(f"{label:30} {_ms(folded):>9} {_ms(parsed):>9} {_ms(counted):>9}   folding: {share}")


def count_of(text: str) -> int:
    """Parse the text and count its solutions."""
    return Search(parse(text)).count()


def best_of(run: Callable[[], object], times: int) -> float:
    """The best wall time of `times` runs, in seconds."""
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def overhead(repeat: int) -> None:
    """Print the cost of a check hook (every 10 ms) against none, and the longest gap."""
    texts = [t for _, t, _ in HARD[:5]] + [p for c, p in corpus() if c != "classic"][:40]
    stamps: list[float] = []

    def hook(_: Search) -> bool:
        stamps.append(time.perf_counter())
        return False

    def run(check: Callable[[Search], object] | None) -> None:
        for text in texts:
            Search(parse(text), check=check).count()
            for _ in Search(parse(text), check=check).solutions():
                pass

    plain, hooked = [], []
    cpu = time.process_time  # CPU time: other processes on the shared machine do not count
    for _ in range(max(repeat, 5)):  # interleaved, for the same reason
        plain.append(best(lambda: run(None), 1, cpu)[0])
        hooked.append(best(lambda: run(hook), 1, cpu)[0])
    a, b = min(plain), min(hooked)
    print(
        f"\ncheck hook every 10 ms: {a * 1e3:.1f} ms CPU without, {b * 1e3:.1f} ms with "
        f"({(b - a) / a * 100:+.1f}%, goal <= 5%)"
    )
    # The machinery is always on, so also bound its cost from its parts: a countdown per node
    # and, every batch of nodes, a clock read (plus the hook itself every 10 ms).
    nodes, spent = 0, cpu()
    for text in texts:
        search = Search(parse(text))
        search.count()
        nodes += search.nodes
    spent = cpu() - spent
    per_node = best(_countdown, 5, cpu)[0] / 100_000
    per_tick = best(lambda: [time.monotonic() for _ in range(10_000)], 5, cpu)[0] / 10_000
    bound = nodes * (per_node + per_tick / 8) + len(stamps) * per_tick
    print(
        f"upper bound from its parts (count mode, {nodes:,} nodes): {bound * 1e3:.2f} ms of "
        f"{spent * 1e3:.0f} ms CPU ({bound / spent * 100:.1f}%)"
    )
    long_runs = [("A + B + C + D + E = F + G + H + I", {}), ("CP + IS + FUN = TRUE", {"base": 16})]
    gaps = []
    for text, options in long_runs:
        stamps.clear()
        start = time.perf_counter()
        for _ in Search(parse(text, **options), check=hook).solutions():  # type: ignore[arg-type]
            pass
        marks = [start, *stamps, time.perf_counter()]
        gaps.append(max(y - x for x, y in zip(marks, marks[1:], strict=False)))
    print(f"longest wall time between checks (interval 10 ms): {max(gaps) * 1e3:.1f} ms")


def _countdown() -> None:
    """Run the per-node check countdown of the search core 100,000 times."""
    budget = 1 << 20
    for _ in range(100_000):
        budget -= 1
        if not budget:
            budget = 1 << 20


def build_peer() -> Path | None:
    """Compile the C++ yardstick into bench/.build (only when ../shared/peers exists)."""
    if not PEER.exists() or shutil.which("g++") is None:
        return None
    BUILD.mkdir(parents=True, exist_ok=True)
    exe = BUILD / "seed000"
    if not exe.exists() or exe.stat().st_mtime < PEER.stat().st_mtime:
        subprocess.run(["g++", "-O2", "-std=c++17", "-o", str(exe), str(PEER)], check=True)
    return exe


def peer_run(exe: Path, texts: list[str], flag: str, repeat: int) -> tuple[list[float], list[str]]:
    """Return the C++ solver's own time per puzzle (best of several runs) and its answers."""
    feed = "\n".join(texts) + "\n"
    runs, answers = [], []
    for _ in range(repeat):
        out = subprocess.run(
            [str(exe), flag], input=feed, capture_output=True, text=True, check=True
        )
        lines = out.stdout.splitlines()
        runs.append([float(line.rsplit("t=", 1)[1]) for line in lines])
        answers = [line.rsplit("\t", 1)[0] for line in lines]
    return [min(col) for col in zip(*runs, strict=True)], answers


def compare(repeat: int) -> None:
    """Print engine vs C++ totals over the mixed corpus in first and count mode."""
    exe = build_peer()
    items = corpus()
    texts = [p for _, p in items]
    kinds = ("classic", "random", "big")
    sizes = ", ".join(f"{k}: {sum(1 for c, _ in items if c == k)}" for k in kinds)
    print(f"\ncorpus: {len(items)} puzzles ({sizes}); engine time includes parse")
    if exe is None:
        print("C++ yardstick not available (../shared/peers/seed000.cpp or g++ missing): skipped")
    modes: dict[str, dict[str, list[float]]] = {}
    for name, flag in (("first", "--first"), ("count", "--all")):
        theirs, answers = peer_run(exe, texts, flag, repeat) if exe is not None else ([], [])
        times = modes[name] = {}
        for engine in engines():
            use(engine)
            times[engine], results = _timed(name, texts, repeat)
            if exe is not None:
                print(
                    f"{name:5} mode, {engine}: answers that differ from C++: "
                    f"{len(_wrong(name, texts, answers, results))}"
                )
        goal = {"big": 0.05, "all": 0.15}
        for kind in (*kinds, "all"):
            pick = [i for i, (c, _) in enumerate(items) if kind in (c, "all")]
            cells = [f"{e} {sum(t[i] for i in pick) * 1e3:8.1f} ms" for e, t in times.items()]
            line = f"{name:5} mode, {kind:7}: " + ", ".join(cells)
            if exe is not None:
                peer = sum(theirs[i] for i in pick)
                ratios = " / ".join(
                    f"{sum(t[i] for i in pick) / peer:5.3f}" for t in times.values()
                )
                target = f" (goal <= {goal[kind]:.2f})" if kind in goal else ""
                line += f", C++ {peer * 1e3:8.1f} ms, ratio {ratios}{target}"
            print(line)
        slow = {e: max(t) for e, t in times.items()}
        print(
            f"{name:5} mode, slowest puzzle: "
            + ", ".join(f"{e} {_ms(v)} ms" for e, v in slow.items())
        )
    for engine in engines():
        pairs = zip(modes["first"][engine], modes["count"][engine], strict=True)
        slower = [(f, c) for f, c in pairs if f > c * 1.5 and f - c > 2e-4]
        worst = max(slower, key=lambda p: p[0] - p[1], default=None)
        print(
            f"{engine}: puzzles where first mode is slower than count mode (1.5x and 0.2 ms): "
            f"{len(slower)}" + (f", worst {_ms(worst[0])} vs {_ms(worst[1])} ms" if worst else "")
        )
    os.environ.pop(ENV, None)


def _timed(mode: str, texts: list[str], repeat: int) -> tuple[list[float], list[object]]:
    """Time first or count mode on every text (best of repeat); return times and results."""
    ours, results = [], []
    for text in texts:
        if mode == "first":
            seconds, result = best(functools.partial(first_solution, text), repeat)
        else:
            seconds, result = best(functools.partial(count_all, text), repeat)
        ours.append(seconds)
        results.append(result)
    return ours, results


def _wrong(mode: str, texts: list[str], answers: list[str], results: list[object]) -> list[str]:
    """Return the texts whose engine result disagrees with the C++ answer."""
    if mode == "count":
        return [t for t, a, r in zip(texts, answers, results, strict=True) if int(a) != r]
    return [
        t for t, a, r in zip(texts, answers, results, strict=True) if (a == "NONE") != (r is None)
    ]


def main() -> None:
    """Run every section (quick options for a smoke run)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing (best is kept)")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive solver column")
    parser.add_argument(
        "--only",
        choices=["table", "engines", "folding", "overhead", "compare", "expressions"],
        help="one section",
    )
    args = parser.parse_args()
    if args.only in (None, "table"):
        table(args.repeat, not args.no_naive)
    if args.only in (None, "engines"):
        side_by_side(args.repeat)
    if args.only in (None, "folding"):
        folding(args.repeat)
    if args.only in (None, "overhead"):
        overhead(args.repeat)
    if args.only in (None, "compare"):
        compare(min(args.repeat, 3))  # the corpus is big enough to average out noise
    if args.only in (None, "expressions"):
        print("\nexpression corpus (bench/expressions.json), engine vs naive permutations:")
        expressions.run(min(args.repeat, 3), not args.no_naive)


if __name__ == "__main__":
    main()
