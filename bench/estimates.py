"""Estimate benchmark: alphametic.seconds() against the measured CPU time of each search.

Every puzzle of bench/estimates.json is counted (and listed as a job's run hands solutions
out, where its entry says so) on one core with fresh caches; the table gives the estimate,
the measured CPU seconds and their ratio, then the worst ratios both ways. CPU time, not
wall time: the machine is shared, and the estimate is of the search's own work.
`--candidates` screens the candidate puzzles below
(a short capped count, extrapolated by its progress) and rewrites the set with those whose
search looks like 0.2-60 s; the full run then measures each one completely.

    .venv/bin/python bench/estimates.py              # the table (takes minutes)
    .venv/bin/python bench/estimates.py --markdown   # the same as a BENCHMARKS.md table
    .venv/bin/python bench/estimates.py --candidates # re-screen and rewrite estimates.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alphametic import Puzzle, Search, parse, seconds  # noqa: E402
from alphametic import search as search_module  # noqa: E402
from alphametic.linear.plan import forget_plans  # noqa: E402
from alphametic.steps.walker import model_for  # noqa: E402

SET = ROOT / "bench" / "estimates.json"
LOW, HIGH = 0.2, 60.0  # seconds of search the set is chosen for
CAP = 120.0  # CPU seconds a measurement may take before it is reported as cut
SCREEN = 3.0  # CPU seconds of a screening count

# (puzzle, options, kind): the hand-picked candidates, then seeded random ones.
PICKED: list[tuple[str, dict[str, Any], str]] = (
    [("NORTH * WEST = EAST * SOUTH", {"base": b}, "product") for b in (10, 11, 12, 13, 14, 15)]
    + [("TWO * SIX = TWELVE", {"base": b}, "product") for b in (12, 14, 16, 17)]
    + [("ABC * DE = FGHIJ", {"base": b}, "product") for b in (16, 18, 20, 22)]
    + [("ABCD * EF = GHIJK", {"base": b}, "product") for b in (14, 16)]
    + [
        ("ABCDE * FGHIJ = KLMNOPQRST", {"base": 36, "fixed": f}, "product")
        for f in (
            {"A": 1, "F": 2, "E": 3, "J": 4},
            {"A": 1, "F": 2, "B": 3},
            {"A": 1, "F": 2, "E": 3},
        )
    ]
    + [
        ("ABCD * EFGH = IJKLMNOP", {"base": 24}, "product"),
        ("NAUGHT ^ 2 = ZERO ^ 3", {}, "power"),
        ("WRIGHT + WRIGHT = TO * FLY + FLIGHT", {}, "product"),
        ("WRIGHT + WRIGHT = TO * FLY + FLIGHT", {"base": 12}, "product"),
        ("BUT * ASK = FEAST", {"base": 14}, "product"),
        ("BUT * ASK = FEAST", {"base": 16}, "product"),
        ("TWO * TWO = SQUARE", {"base": 16}, "product"),
        ("TWO * TWO = SQUARE", {"base": 20}, "product"),
        ("ABCD / EF = GH", {"base": 16}, "division"),
        ("ABCD / EF = GH", {"base": 20}, "division"),
        ("ABCDE / FG = HIJ", {"base": 14}, "division"),
        ("AB * CD = EFG; EFG + HI = JKL", {"base": 14}, "system"),
        ("AB * CD = EFG; EFG + HI = JKL", {"base": 18}, "system"),
        ("A + A = B; B * C = AB; AB * CD = EFGH", {"base": 20}, "system"),
        ("ABC * D = EFGH; EFGH - IJ = KLMN", {"base": 16}, "system"),
        ("ABC + DEF = GHI; ADG * B = JKLM", {"base": 16}, "system"),
        ("ABC + DEF = GHI; GHI + JK = LMN", {"base": 20}, "system"),
        ("A + B + C + D = E + F + G + H", {"base": 11}, "sum, big base"),
        ("A + B + C + D = E + F + G + H", {"base": 12}, "sum, big base"),
        ("A + B + C + D = E + F + G + H", {"base": 13}, "sum, big base"),
        ("A + B + C + D + E = F + G + H + I", {"base": 11}, "sum, big base"),
        ("A + B + C + D + E = F + G + H + I", {"base": 12}, "sum, big base"),
        ("CP + IS + FUN = TRUE", {"base": 28}, "sum, big base"),
        ("CP + IS + FUN = TRUE", {"base": 32}, "sum, big base"),
        ("CP + IS + FUN = TRUE", {"base": 36}, "sum, big base"),
        ("ABC + DEF = GHI", {"base": 16}, "sum, big base"),
        ("ABC + DEF = GHI", {"base": 18}, "sum, big base"),
        ("ABC + DEF = GHI", {"base": 20}, "sum, big base"),
        ("AB + CD + EF + GH + IJ = KLM", {"base": 14}, "long sum"),
        ("AB + CD + EF + GH + IJ = KLM", {"base": 16}, "long sum"),
        ("ABCD + EFGH = IJKLM", {"base": 16}, "sum, big base"),
        ("ABCD + EFGH = IJKLM", {"base": 20}, "sum, big base"),
        ("SEND + MORE + GOLD = MONEY", {"base": 20}, "sum, big base"),
        ("SEND + MORE + GOLD = MONEY", {"base": 24}, "sum, big base"),
        ("A + B + C = D + E + F", {"base": 30}, "sum, big base"),
        ("A + B + C = D + E + F", {"base": 36}, "sum, big base"),
        ("A + B + C + D + E + F + G + H = IJ", {"base": 12}, "long sum"),
        ("A + B + C + D + E + F + G + H = IJ", {"base": 13}, "long sum"),
        (
            "THIS + IS + A + VERY + LONG + SUM + OF + MANY + WORDS = TOTALS",
            {"base": 18},
            "long sum",
        ),
        (
            "THIS + IS + A + VERY + LONG + SUM + OF + MANY + WORDS = TOTALS",
            {"base": 20},
            "long sum",
        ),
        ("ONE + TWO + THREE + FOUR + FIVE + SIX + SEVEN = EIGHTS", {"base": 14}, "long sum"),
        ("ONE + TWO + THREE + FOUR + FIVE + SIX + SEVEN = EIGHTS", {"base": 16}, "long sum"),
        ("A + BC + DEF + GHIJ = KLMNO", {"base": 16}, "long sum"),
        ("ABCDEF + GHIJKL = MNOPQR", {"base": 24}, "sum, big base"),
    ]
)
# Listings worth timing too: many solutions, so handing them out costs as much as the search.
LISTED = {
    ("CP + IS + FUN = TRUE", 28),
    ("A + B + C + D = E + F + G + H", 12),
    ("ABC * DE = FGHIJ", 20),
}


def random_candidates(seed: int = 21, count: int = 12) -> list[tuple[str, dict[str, Any], str]]:
    """Seeded random products and sums of fresh letters (a word's length picked per word)."""
    rng = random.Random(seed)
    out: list[tuple[str, dict[str, Any], str]] = []
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    while len(out) < count:
        product = len(out) % 2 == 0
        base = rng.choice((12, 14, 16, 20, 24)) if product else rng.choice((16, 20, 24, 30, 36))
        pool = list(letters[:base])
        rng.shuffle(pool)
        lengths = [rng.randint(2, 4), rng.randint(2, 3)] if product else [rng.randint(3, 5)] * 3
        words = ["".join(rng.choice(pool) for _ in range(n)) for n in lengths]
        if product:
            result = "".join(rng.choice(pool) for _ in range(sum(lengths)))
            text = f"{words[0]} * {words[1]} = {result}"
        else:
            result = "".join(rng.choice(pool) for _ in range(lengths[0] + 1))
            text = " + ".join(words) + f" = {result}"
        try:
            parse(text, base=base)
        except ValueError:
            continue
        out.append((text, {"base": base}, f"random {'product' if product else 'sum'}"))
    return out


def fresh(puzzle: Puzzle) -> None:
    """Drop the engine's per-puzzle caches so that each run pays its own setup."""
    forget_plans()
    model_for.cache_clear()
    search_module._measure.cache_clear()  # the estimate's own cache


# Raw digits 0..35 -> the job store's compact characters (worker/run.py's TO_TEXT).
TO_TEXT = bytes.maketrans(bytes(range(36)), b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
BATCH = 1000  # solutions a job's run encodes at a time (Settings.flush_size)


def handed_out(search: Search, puzzle: Puzzle) -> int:
    """List every solution as a job's run hands them out (worker/run.py take_batch: batches
    encoded to compact text and counted into the letter x digit grid), not the bare engine's
    iteration: alphametic.seconds(enumerate=True) is what an enumeration job takes."""
    width, base = len(puzzle.letters), puzzle.base
    grid = [[0] * base for _ in range(width)]
    pending: list[tuple[int, ...]] = []
    found = 0

    def flush() -> int:
        raw = b"".join(map(bytes, pending))
        pending.clear()
        for position, row in enumerate(grid):
            column = raw[position::width]
            for digit in range(base):
                row[digit] += column.count(digit)
        raw.translate(TO_TEXT).decode()
        return len(raw) // width

    for solution in search.solutions():
        pending.append(solution)
        if len(pending) >= BATCH:
            found += flush()
    return found + flush()


def measure(puzzle: Puzzle, listing: bool, cap: float) -> tuple[float, bool, int]:
    """(CPU seconds, whether it finished, solutions) of one count or listing, cut at cap."""
    fresh(puzzle)
    start = time.process_time()
    search = Search(puzzle, check=lambda _s: time.process_time() - start > cap)
    if listing:
        found = handed_out(search, puzzle)
    else:
        found = search.count()
    spent = time.process_time() - start
    if search.stopped:
        # Cut: extrapolate by the share of the tree passed (a screening figure only).
        return spent / max(search.progress, 1e-9), False, found
    return spent, True, found


def estimate(puzzle: Puzzle, listing: bool) -> tuple[float, float]:
    """(estimated seconds, CPU milliseconds the estimate took), with fresh caches."""
    fresh(puzzle)
    start = time.process_time()
    value = seconds(puzzle, enumerate=listing)
    return value, (time.process_time() - start) * 1000


def screen() -> None:
    """Screen the candidates and write the set of those that look 0.2-60 s long."""
    kept = []
    for text, options, kind in PICKED + random_candidates():
        puzzle = parse(text, **options)
        cpu, done, _ = measure(puzzle, False, SCREEN)
        verdict = LOW <= cpu <= HIGH
        print(
            f"{'keep' if verdict else 'drop'} {cpu:8.2f}{'' if done else '~'} s  {text} {options}"
        )
        if verdict:
            how = "hand-picked" if not kind.startswith("random") else "random (seed 21)"
            entry: dict[str, Any] = {
                "puzzle": text,
                "options": options,
                "kind": kind,
                "chosen": how,
            }
            entry["screened_seconds"] = round(cpu, 2)
            entry["modes"] = (
                ["count", "enumerate"] if (text, options.get("base", 10)) in LISTED else ["count"]
            )
            kept.append(entry)
    about = (
        "Puzzles whose count takes 0.2-60 s of CPU on the reference machine (2 cores, CPython "
        "3.11): hand-picked sums in big bases, long sums, products, divisions, powers and "
        "systems (the issue's NORTH * WEST = EAST * SOUTH and ABCDE * FGHIJ = KLMNOPQRST among "
        "them, the latter with digits fixed to bring it into range), plus seeded random ones; "
        f"kept when a {SCREEN:.0f} s screening count, extrapolated by its progress, fell in range "
        "(bench/estimates.py --candidates)."
    )
    SET.write_text(json.dumps({"about": about, "puzzles": kept}, indent=1) + "\n")
    print(f"{len(kept)} puzzles written to {SET}")


def run(markdown: bool, part: str) -> None:
    """Measure every puzzle of the set (or of one part, "k/n") against its estimate."""
    rows = []
    k, n = (int(x) for x in part.split("/"))
    for index, entry in enumerate(json.loads(SET.read_text())["puzzles"]):
        if index % n != k - 1:
            continue
        puzzle = parse(entry["puzzle"], **entry["options"])
        for mode in entry["modes"]:
            listing = mode == "enumerate"
            guess, cost = estimate(puzzle, listing)
            cpu, done, found = measure(puzzle, listing, CAP)
            ratio = guess / cpu
            rows.append((entry, mode, guess, cost, cpu, done, found, ratio))
            print(
                f"{ratio:6.2f}  est {guess:8.2f} s  measured {cpu:8.2f}{'' if done else '~'} s"
                f"  ({cost:4.0f} ms)  {mode:9} {entry['puzzle']} {entry['options']}",
                flush=True,
            )
    if markdown:
        print("| puzzle | options | kind | mode | solutions | estimate s | measured s | ratio |")
        print("|---|---|---|---|---:|---:|---:|---:|")
        for entry, mode, guess, _, cpu, done, found, ratio in rows:
            options = json.dumps(entry["options"]).replace("|", "/")
            cut = "" if done else " (cut)"
            print(
                f"| `{entry['puzzle']}` | `{options}` | {entry['kind']} | {mode} | {found:,} | "
                f"{guess:.2f} | {cpu:.2f}{cut} | {ratio:.2f} |"
            )
    ratios = sorted(row[7] for row in rows)
    costs = sorted(row[3] for row in rows)
    within = sum(1 for r in ratios if 1 / 3 <= r <= 3)
    print(
        f"\n{len(rows)} measurements: {within} within 3x; worst low {ratios[0]:.2f}, "
        f"worst high {ratios[-1]:.2f}; estimate cost median {costs[len(costs) // 2]:.0f} ms, "
        f"max {costs[-1]:.0f} ms"
    )
    for row in sorted(rows, key=lambda r: -abs(__import__("math").log(r[7])))[:5]:
        print(f"  {row[7]:.2f}  {row[1]} {row[0]['puzzle']} {row[0]['options']}")


def main() -> None:
    """Screen candidates or run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", action="store_true", help="re-screen, rewrite the set")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--part", default="1/1", help="k/n: every n-th puzzle from the k-th")
    args = parser.parse_args()
    if args.candidates:
        screen()
    else:
        run(args.markdown, args.part)


if __name__ == "__main__":
    main()
