"""How big an enumeration would be, in a fraction of a second: for the form's warning and the API.

Two engine figures, both cheap and bounded: `alphametic.size` / `alphametic.seconds` (a
deterministic sample of the search tree, calibrated against measured search time by
bench/estimates.py: at most ~0.15 s of CPU) and a count of the solutions that runs at most
BUDGET seconds (exact when it finishes, else extrapolated from the share of the tree it
covered). One request spends at most about CPU_BUDGET seconds of CPU; a client runs one
estimate at a time (the job store's marker, JobStore.alone), a process runs at most
ALPHAMETIC_MAX_ESTIMATES at once (web.slots) and each is charged to the client's rate of
job-creating requests (web.api.jobs).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Mapping
from typing import Any

from flask import Flask

import alphametic
from alphametic.language.folding import fold, fold_letter
from jobstore import Mode, OptionsError
from jobstore.admission import normalise
from web.bodies import whole_number
from web.clients import client_id
from web.offload import offload
from web.slots import estimate_slots
from web.store import store

BUDGET = 0.1  # seconds of counting one estimate may spend
# CPU seconds one estimate takes at most: the engine's sample (bounded by its node and probe
# budgets, ~0.15 s on the slowest puzzles of bench/estimates.json) plus the bounded count.
CPU_BUDGET = 0.3
# How long a client's estimate marker lives at most (it is removed when the estimate ends).
ALONE_SECONDS = 10.0
MAX_QUERY = 1000  # characters of a puzzle sent in a URL (a request line: web.bodies, 4 KiB)
MAX_FIXED = 200
# Rough speeds of one enumerate worker on the reference machine: the shard threshold is "about a
# second of search" in nodes, and storing runs at about half a million solutions a second
# (CP + IS + FUN = TRUE in base 24: 1,131,120 solutions in about 2 s).
SOLUTIONS_PER_SECOND = 500_000.0


def parse_fixed(text: str) -> dict[str, int]:
    """Read fixed digits typed as "E=5, M=1" (or "E5 M1", or full-width "Ｅ＝５、Ｍ＝１", or
    "い=2"); OptionsError on anything else, the engine's PuzzleError for a letter typed with
    two digits. Letters fold as the puzzle's do (fold_letter)."""
    fixed: dict[str, int] = {}
    folded = fold(text)[0]
    for part in folded.replace(",", " ").replace(";", " ").replace("、", " ").split():
        letter, _, written = part.partition("=") if "=" in part else (part[:1], "", part[1:])
        letter = fold_letter(letter.strip())
        # Decimal ASCII digits only, like the JSON API's integers ('²'.isdigit() holds, but
        # int('²') raises; int() reads '٥' and '1_0').
        digit = whole_number(written)
        if len(letter) != 1 or not letter.isalpha():
            raise OptionsError(f"cannot read fixed digit {part!r}: write E=5", "options.fixed")
        if digit is None or digit < 0:
            raise OptionsError(f"cannot read fixed digit {part!r}: write E=5", "options.fixed")
        if fixed.get(letter, digit) != digit:
            raise _twice(letter, fixed[letter], digit)
        fixed[letter] = digit
    return fixed


def _twice(letter: str, first: int, second: int) -> alphametic.PuzzleError:
    """The engine's error of a letter given two digits (its code, its English)."""
    # A JSON object cannot repeat a key, so the API meets this only as {"A": 1, "a": 2}, where
    # the engine refuses it; typed text would otherwise keep the last digit without a word.
    return alphametic.PuzzleError(
        alphametic.ErrorCode.LETTER_FIXED_TWICE,
        field="options.fixed",
        letter=letter,
        first=first,
        second=second,
    )


def options_from_query(args: Mapping[str, str]) -> dict[str, Any]:
    """The options of an estimate request, read from its query string."""
    options: dict[str, Any] = {}
    if args.get("base"):
        base = whole_number(args["base"])
        if base is None:
            low, high = alphametic.MIN_BASE, alphametic.MAX_BASE
            message = f"'base' must be an integer from {low} to {high}."
            raise OptionsError(message, "options.base")
        options["base"] = base
    if args.get("leading_zeros"):
        options["leading_zeros"] = args["leading_zeros"]
    if args.get("fixed"):
        if len(args["fixed"]) > MAX_FIXED:
            raise OptionsError(f"'fixed' is longer than {MAX_FIXED} characters.", "options.fixed")
        options["fixed"] = parse_fixed(args["fixed"])
    return options


@functools.lru_cache(maxsize=512)
def _measure(text: str, options: str) -> tuple[float, float, bool, float]:
    """(search nodes, solutions, whether that count is exact, listing seconds) of a puzzle."""
    _, puzzle = normalise(Mode.SOLVE.value, text, json.loads(options))
    size = alphametic.size(puzzle)
    deadline = time.monotonic() + BUDGET
    search = alphametic.Search(puzzle, check=lambda _s: time.monotonic() > deadline)
    found = search.count()
    if not search.stopped:
        solutions, exact = float(found), True
    else:
        # The sample sees the whole tree; the share counted so far reads its first digits'
        # subtrees as typical (and says only "at least" when it covered nothing).
        share = search.progress
        solutions = size.solutions or (found / share if share > 0 else float(found))
        solutions, exact = max(solutions, float(found)), False
    seconds = alphametic.seconds(puzzle, enumerate=True, solutions=solutions)
    return size.nodes, solutions, exact, seconds


def for_request(text: str, options: Mapping[str, Any], app: Flask) -> dict[str, Any]:
    """The estimate body: solutions, seconds, and whether an enumeration would hit a cap.

    Raises Busy while another estimate of this client runs (one at a time per client), and
    Saturated while this process runs as many as it may.
    """
    given = json.dumps(dict(options), sort_keys=True)
    with store().alone(client_id(), "estimate", ALONE_SECONDS):
        with estimate_slots().hold():  # Saturated: this process runs its share of estimates
            nodes, solutions, exact, listing = offload(lambda: _measure(text, given))
    settings = app.extensions["alphametic.settings"]
    # Storing the solutions costs the worker more than finding them, beyond some size.
    seconds = max(listing, solutions / SOLUTIONS_PER_SECOND)
    limit = float(settings.soft_limit(Mode.ENUMERATE))
    cap = int(settings.max_stored_solutions)
    return {
        "puzzle": text,
        "options": dict(options),
        "nodes": nodes,
        "solutions": solutions,
        "exact": exact,
        "seconds": seconds,
        "time_limit": limit,
        "storage_cap": cap,
        "exceeds_time_limit": seconds > limit,
        "exceeds_storage_cap": solutions > cap,
    }
