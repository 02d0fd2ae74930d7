"""Puzzle helpers independent of the engine's search: checks, compact encoding, shared cases."""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from typing import Any

import alphametic
from jobstore import DIGITS, JobStore

# A whole-job enumeration of ~1.5 M solutions: long enough to cancel or cap mid-way.
LONG: tuple[str, dict[str, Any]] = ("A + B + C + D + E = F + G + H + I", {"base": 16})


def encode(solution: Sequence[int]) -> str:
    """Encode a solution (digits in the puzzle's letter order) as the store keeps it."""
    return "".join(DIGITS[d] for d in solution)


def holds(puzzle: str, options: Mapping[str, Any], solution: Mapping[str, int]) -> bool:
    """True when the letter -> digit assignment is distinct and makes the puzzle's sum true."""
    parsed = alphametic.parse(puzzle, **options)

    def value(word: str) -> int:
        number = 0
        for letter in word:
            number = number * parsed.base + solution[letter]
        return number

    left = sum(sign * value(word) for sign, word in parsed.left)
    right = sum(sign * value(word) for sign, word in parsed.right)
    distinct = len(set(solution.values())) == len(solution)
    return left == right and distinct


def engine_list(text: str, options: Mapping[str, Any]) -> list[str]:
    """Every solution from the unsharded engine, compact, in its deterministic order."""
    return [encode(s) for s in alphametic.Search(alphametic.parse(text, **options)).solutions()]


def all_compact(store: JobStore, job_id: str, page: int = 50_000) -> list[str]:
    """A job's whole stored list, read through paged reads."""
    items: list[str] = []
    while True:
        _letters, texts, total, _truncated = store.compact(job_id, len(items), page)
        items += texts
        if not texts or len(items) >= total:
            return items


# Settings under which the products below are estimated small (the first band takes jobs
# estimated up to 1e15 reference nodes, where 3e5 is the default): the estimate misjudges them
# as it did before it was calibrated (issue 21), and each searches for minutes.
MISJUDGING: dict[str, Any] = {"small_search": 1e15}
PRODUCT_BASE: dict[str, Any] = {"base": 22}


def misjudged_products(count: int, seed: int = 21) -> list[str]:
    """Random products `ABCDEFGHIJK * LMNOPQRSTUV = 7xx` in base 22 (22 distinct letters; no
    solution, so a solve searches the whole tree, estimated at 1e9-1e13 reference nodes):
    under MISJUDGING the estimate puts each among the small jobs (in about 60 ms each)."""
    rng = random.Random(seed)
    texts = []
    for k in range(count):
        letters = "".join(rng.sample(string.ascii_uppercase, 22))
        texts.append(f"{letters[:11]} * {letters[11:]} = {700 + k % 100}")
    return texts
