"""Build bench/expressions.json: the expression corpus, with counts confirmed two ways.

Published puzzles, generated ones (random true equations spelled with letters, so each has at
least one solution), unsolvable ones (a generated puzzle with two result letters swapped) and
ones with 10^3-10^5 solutions. Every count is taken from the engine and from the naive
permutations solver (bench/naive.py); the file is written only if they all agree.

    .venv/bin/python bench/make_expressions.py     # a few minutes (the naive solver)
"""

from __future__ import annotations

import json
import random
import string
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from naive import naive_count  # noqa: E402

from alphametic import count, parse  # noqa: E402

OUT = ROOT / "bench" / "expressions.json"
# Naive counts already confirmed (the naive solver takes minutes): reused on a re-run.
CACHE = ROOT / "bench" / ".build" / "naive-counts.json"

PUBLISHED = [
    "TWO * TWO = SQUARE",
    "BUT * ASK = FEAST",
    "TWO * SIX = TWELVE",
    "TWO * 2 = FOUR",
    "ABC * DE = FGHIJ",
    "A + A = B; B * C = AB",
    "ABCD / EF = GH",
    "VANDAL / 3 = BLOCK",
    "NAUGHT ^ 2 = ZERO ^ 3",
    "WRIGHT + WRIGHT = TO * FLY + FLIGHT",
    "NORTH * WEST = EAST * SOUTH",
    "PI * R ^ 2 = AREA",
    "TOM * 13 = DALEY",
    "SEVEN + SEVEN + SIX = TWENTY",
    "UNO + UNO + TRES = CINCO",
    "HE * HE = SHE",
    "ON * ON = NOON",
    "SIX * SIX = THIRTY + SIX",
    "ODD * ODD = NUMBER",
    "ONE + ONE = TWO; TWO * TWO = FOUR",
    "I * DID = TOO",
    "ME * ME = BEE",
    "ABC ^ 2 = DEFBC",
    "(ONE + ONE) ^ 2 = FOUR",
    "A ^ 2 + B ^ 2 = C ^ 2",
    "SUN * FUN = SWIM",
    "ALL * ALL = CALL",
    "EVE * EVE = SEVEN",
    "KYOTO * 3 = OSAKA + TOKYO",
]

# Many solutions (10^3-10^5): loose products and sums, and systems of them.
MANY = [
    ("A * B * C = DE + FG", {"leading_zeros": "allow"}),
    ("A * BC + D = EF * G + H", {}),
    ("AB - C * D = E + FG", {}),
    ("AB * C - D = EF + G * H", {}),
    ("A * B + C = D + E + F + G", {}),
    ("A * B + C * D = E + F + G + H", {}),
    ("A * B + C + D = E + F + G + H", {}),
    ("A * (B + C) = D + E + F + G + H", {}),
    ("A ^ 2 + B + C + D = E + F + G + H + I", {}),
    ("A * B * C = D + E + F + G + H + I", {}),
    ("A * B + C * D + E * F = GH + IJ", {}),
    ("A * B = C + D; E * F = G + H", {}),
]

# Unsolvable by construction: magnitudes, parity and digit sums.
NONE = [
    "A * B * C * D = EFGHIJ",
    "AB * CD = EFGHI",
    "ABC * DEF = GHIJ",
    "A + B + C + D + E = F + G + H + I + J",
]


def spell(numbers: list[int], rng: random.Random, base: int = 10) -> list[str]:
    """Spell numbers with letters: one random letter per digit, the same digit the same letter."""
    letters = rng.sample(string.ascii_uppercase, base)
    out = []
    for n in numbers:
        word = ""
        while True:
            word = letters[n % base] + word
            n //= base
            if not n:
                break
        out.append(word)
    return out


def distinct(
    make: Callable[[], list[int]], rng: random.Random, least: int, base: int = 10
) -> list[str]:
    """Spell numbers from make() until they use at least `least` different digits."""
    while True:
        words = spell(make(), rng, base)
        if len(set("".join(words))) >= least:
            return words


def generated(rng: random.Random) -> list[tuple[str, dict[str, object]]]:
    """Return random true equations of several kinds, spelled with letters."""
    out: list[tuple[str, dict[str, object]]] = []
    r = rng.randrange
    for _ in range(6):
        x, y, z = distinct(lambda: [a := r(100, 1000), b := r(10, 100), a * b], rng, 9)
        out.append((f"{x} * {y} = {z}", {}))
    for _ in range(4):
        x, y, z, w = distinct(
            lambda: [a := r(10, 100), b := r(10, 100), c := r(100, 1000), a * b + c], rng, 9
        )
        out.append((f"{x} * {y} + {z} = {w}", {}))
    for _ in range(4):
        x, y, z = distinct(lambda: [(a := r(100, 1000)) * (b := r(10, 100)), b, a], rng, 8)
        out.append((f"{x} / {y} = {z}", {}))
    for power, low, high in ((2, 100, 1000), (3, 20, 100), (2, 1000, 3163), (2, 10000, 31623)):
        x, y = distinct(lambda lo=low, hi=high, e=power: [a := r(lo, hi), a**e], rng, 6)  # type: ignore[misc]
        out.append((f"{x} ^ {power} = {y}", {}))
    for _ in range(3):
        x, y, z, w, v = distinct(
            lambda: [a := r(10, 100), b := r(10, 100), a + b, c := r(2, 10), (a + b) * c], rng, 8
        )
        out.append((f"{x} + {y} = {z}; {z} * {w} = {v}", {}))
    for literal in (7, 13):
        x, y = distinct(lambda k=literal: [a := r(1000, 10000), a * k], rng, 8)  # type: ignore[misc]
        out.append((f"{x} * {literal} = {y}", {}))
    for base in (12, 16):  # few letters: the naive solver tries base! / (base - n)! orders
        x, y, z = distinct(lambda n=base: [a := r(n, n**2), b := r(2, n), a * b], rng, 5, base)  # type: ignore[misc]
        out.append((f"{x} * {y} = {z}", {"base": base}))
    x, y, z, w = distinct(
        lambda: [a := r(10, 100), b := r(10, 100), c := r(10, 100), a * b * c], rng, 8
    )
    out.append((f"{x} * {y} * {z} = {w}", {}))
    x, y, z = distinct(lambda: [a := r(2, 10), b := r(2, 6), a**b], rng, 4)
    out.append((f"{x} ^ {y} = {z}", {}))
    return out


def unsolvable(items: list[tuple[str, dict[str, object]]]) -> list[tuple[str, dict[str, object]]]:
    """Return generated puzzles with two result letters swapped, kept when that leaves none."""
    out = []
    for text, options in items:
        head, _, result = text.rpartition(" = ")
        for i in range(len(result) - 1):
            swapped = result[:i] + result[i + 1] + result[i] + result[i + 2 :]
            changed = f"{head} = {swapped}"
            if swapped != result and count(parse(changed, **options)) == 0:  # type: ignore[arg-type]
                out.append((changed, options))
                break
    return out


def main() -> None:
    """Count every puzzle two ways and write the corpus if they agree."""
    rng = random.Random(15)
    made = generated(rng)
    items: list[tuple[str, str, dict[str, Any]]] = []
    items += [("published", t, {}) for t in PUBLISHED]
    items += [("generated", t, o) for t, o in made]
    items += [("unsolvable", t, o) for t, o in unsolvable(made)]
    items += [("unsolvable", t, {}) for t in NONE]
    items += [("many", t, o) for t, o in MANY]
    rows = []
    cache: dict[str, int | None] = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    for kind, text, options in items:
        puzzle = parse(text, **options)
        engine = count(puzzle)
        naive: int | None
        key = json.dumps([text, options], sort_keys=True)
        if key in cache:
            naive, seconds = cache[key], 0.0
        else:
            naive, seconds = naive_count(puzzle)
            cache[key] = naive
            CACHE.parent.mkdir(parents=True, exist_ok=True)
            CACHE.write_text(json.dumps(cache))
        print(f"{kind:10} {text:45} engine {engine:7} naive {naive} ({seconds:.1f} s)", flush=True)
        if naive != engine:
            raise SystemExit(f"counts differ on {text!r}: engine {engine}, naive {naive}")
        rows.append({"kind": kind, "puzzle": text, "options": options, "count": engine})
    OUT.write_text(json.dumps({"puzzles": rows}, indent=1) + "\n")
    print(f"wrote {len(rows)} puzzles to {OUT}")


if __name__ == "__main__":
    main()
