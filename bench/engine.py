"""Engine benchmark: per-puzzle table, throughput, check-hook overhead, C++ yardstick."""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from operator import mul
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import corpus  # noqa: E402

from alphametic import Puzzle, Search, parse  # noqa: E402

CONFORMANCE = ROOT / "tests" / "data" / "exercism-alphametics.json"
PEER = ROOT.parent / "shared" / "peers" / "seed000.cpp"
BUILD = ROOT / "bench" / ".build"
NAIVE_CAP = 2.0  # seconds: the naive solver gives up after this (per puzzle and mode)

FORTRESSES = json.loads(CONFORMANCE.read_text())["cases"][-1]["puzzle"]
HARD = [
    (
        "199 addends, unsolvable (result changed)",
        FORTRESSES.replace("== FORTRESSES", "== FORTRESSSE"),
    ),
    (
        "199 addends, unsolvable (one addend dropped)",
        FORTRESSES.replace("THIS + A + ", "THIS + ", 1),
    ),
    ("10 letters, unsolvable", "ABCDE + FGHIJ = JIHGFA"),
    ("10 letters, unsolvable 2", "ABCDE + BCDEA + CDEAB = FGHIJ"),
    ("10 letters, 8 solutions", "ABCDE + EDCBA = FGHIJ"),
    ("1,088 solutions", "ABC + DEF = GHI"),
    ("40,320 solutions", "A + B + C + D + E + F + G + H = IJ"),
    ("93,312 solutions", "A + B + C + D = E + F + G + H"),
    ("141,120 solutions", "A + B + C + D + E = F + G + H + I"),
    ("base 16, 39,564 solutions", "CP + IS + FUN = TRUE"),
]


def best(run: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Return the fastest wall time of several runs (seconds) and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
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


def engine_row(label: str, text: str, repeat: int) -> dict[str, float | int | str]:
    """Time first / all / count on one puzzle (parse included)."""

    def first() -> object:
        return next(Search(parse(text)).solutions(), None)

    def every() -> object:
        search = Search(parse(text))
        return sum(1 for _ in search.solutions()), search.nodes

    def counted() -> object:
        search = Search(parse(text))
        return search.count(), search.nodes

    t_first, _ = best(first, repeat)
    t_all, (n_all, nodes) = best(every, repeat)  # type: ignore[misc]
    t_count, (n_count, _) = best(counted, repeat)  # type: ignore[misc]
    assert n_all == n_count, (text, n_all, n_count)
    return {
        "label": label,
        "first": t_first,
        "all": t_all,
        "count": t_count,
        "nodes": nodes,
        "solutions": n_all,
        "letters": len(parse(text).letters),
    }


def table(repeat: int, with_naive: bool) -> None:
    """Print the per-puzzle table for the conformance suite and the hard cases."""
    cases = [(c["description"], c["puzzle"]) for c in json.loads(CONFORMANCE.read_text())["cases"]]
    rows = [engine_row(label, text, repeat) for label, text in cases + HARD]
    head = f"{'puzzle':46} {'first ms':>9} {'all ms':>9} {'count ms':>9} {'nodes':>8} {'sols':>8}"
    if with_naive:
        head += f" {'naive first':>12} {'naive all':>10} {'x all':>7}"
    print(head)
    for (_, text), row in zip(cases + HARD, rows, strict=True):
        line = (
            f"{str(row['label'])[:46]:46} {row['first'] * 1e3:9.2f} {row['all'] * 1e3:9.2f} "
            f"{row['count'] * 1e3:9.2f} {row['nodes']:8} {row['solutions']:8}"
        )
        if with_naive:
            nf, tf = naive(parse(text), True)
            na, ta = naive(parse(text), False)
            show = lambda n, t: f"{t * 1e3:.0f}" if n is not None else f">{NAIVE_CAP * 1e3:.0f}"
            ratio = (
                f"{ta / float(row['all']):7.0f}"
                if na is not None
                else f">{NAIVE_CAP / float(row['all']):6.0f}"
            )
            line += f" {show(nf, tf):>12} {show(na, ta):>10} {ratio}"
        print(line)
    conformance = rows[: len(cases)]
    worst = max(max(float(r["first"]), float(r["all"])) for r in conformance)
    print(f"\nslowest conformance case (first/all): {worst * 1e3:.2f} ms (goal <= 10 ms)")
    big = rows[len(cases) - 1]
    print(
        f"199-addend puzzle: first {float(big['first']) * 1e3:.2f} ms, all "
        f"{float(big['all']) * 1e3:.2f} ms (goal <= 10 ms)"
    )
    unsolvable = [r for r in rows[len(cases) :] if r["solutions"] == 0 and r["letters"] == 10]
    print(
        "unsolvable 10-letter puzzles, full search: "
        + ", ".join(f"{float(r['all']) * 1e3:.1f} ms" for r in unsolvable)
        + " (goal <= 40 ms)"
    )
    for r in rows[len(cases) :]:
        if int(r["solutions"]) >= 10_000:
            print(
                f"{r['label']}: count {int(r['solutions']) / float(r['count']):,.0f}/s "
                f"(goal >= 1,000,000), all {int(r['solutions']) / float(r['all']):,.0f}/s "
                f"(goal >= 500,000)"
            )


def overhead(repeat: int) -> None:
    """Print the cost of a check hook called every 10 ms against no hook."""
    texts = [t for _, t in HARD[:5]] + [p for c, p in corpus() if c == "big"][:6]
    calls = [0]

    def hook(_: Search) -> bool:
        calls[0] += 1
        return False

    def run(check: Callable[[Search], object] | None) -> object:
        for text in texts:
            Search(parse(text), check=check).count()
            sum(1 for _ in Search(parse(text), check=check).solutions())
        return None

    plain, hooked = [], []
    for _ in range(max(repeat, 3)):  # interleave: the machine is shared and noisy
        plain.append(best(lambda: run(None), 1)[0])
        hooked.append(best(lambda: run(hook), 1)[0])
    a, b = min(plain), min(hooked)
    print(
        f"\ncheck hook every 10 ms: {a * 1e3:.1f} ms without, {b * 1e3:.1f} ms with "
        f"({(b - a) / a * 100:+.1f}%, goal <= 5%), {calls[0]} calls"
    )


def build_peer() -> Path | None:
    """Compile the C++ yardstick into bench/.build (only when ../shared/peers exists)."""
    if not PEER.exists() or shutil.which("g++") is None:
        return None
    BUILD.mkdir(parents=True, exist_ok=True)
    exe = BUILD / "seed000"
    if not exe.exists() or exe.stat().st_mtime < PEER.stat().st_mtime:
        subprocess.run(["g++", "-O2", "-std=c++17", "-o", str(exe), str(PEER)], check=True)
    return exe


def peer_times(exe: Path, texts: list[str], mode: str, repeat: int) -> list[float]:
    """Return the C++ solver's own time per puzzle (best of several runs)."""
    feed = "\n".join(texts) + "\n"
    runs = []
    for _ in range(repeat):
        out = subprocess.run(
            [str(exe), mode], input=feed, capture_output=True, text=True, check=True
        )
        runs.append([float(line.rsplit("t=", 1)[1]) for line in out.stdout.splitlines()])
    return [min(col) for col in zip(*runs, strict=True)]


def compare(repeat: int) -> None:
    """Print engine vs C++ totals over the mixed corpus in first and count mode."""
    exe = build_peer()
    items = corpus()
    texts = [p for _, p in items]
    print(
        f"\ncorpus: {len(items)} puzzles ("
        + ", ".join(
            f"{k}: {sum(1 for c, _ in items if c == k)}" for k in ("classic", "random", "big")
        )
        + ")"
    )
    if exe is None:
        print("C++ yardstick not available (../shared/peers/seed000.cpp or g++ missing): skipped")
    modes = [("first", "--first"), ("count", "--all")]
    for name, flag in modes:
        ours = []
        for text in texts:
            run = (
                (lambda t=text: next(Search(parse(t)).solutions(), None))
                if name == "first"
                else (lambda t=text: Search(parse(t)).count())
            )
            ours.append(best(run, repeat)[0])
        line = f"{name:5} mode: engine {sum(ours) * 1e3:8.1f} ms"
        if exe is not None:
            theirs = peer_times(exe, texts, flag, repeat)
            total_c = sum(theirs)
            line += (
                f" | C++ {total_c * 1e3:8.1f} ms | ratio {sum(ours) / total_c:.2f} (goal <= 0.50)"
            )
            big = [i for i, (c, _) in enumerate(items) if c == "big"]
            ob, cb = sum(ours[i] for i in big), sum(theirs[i] for i in big)
            line += f" | 100-200 addends: {ob * 1e3:.1f} vs {cb * 1e3:.1f} ms, ratio {ob / cb:.2f} (goal <= 0.20)"
        print(line)


def main() -> None:
    """Run every section (quick options for a smoke run)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best is kept)")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive solver column")
    parser.add_argument("--only", choices=["table", "overhead", "compare"], help="one section")
    args = parser.parse_args()
    if args.only in (None, "table"):
        table(args.repeat, not args.no_naive)
    if args.only in (None, "overhead"):
        overhead(args.repeat)
    if args.only in (None, "compare"):
        compare(args.repeat)


if __name__ == "__main__":
    main()
