"""How big an enumeration would be, in a tenth of a second: for the form's warning and the API.

Two engine figures, both cheap and bounded: `alphametic.estimate` (Knuth's probe estimate of the
search tree, deterministic) and a count of the solutions that runs at most BUDGET seconds (exact
when it finishes, else extrapolated from the share of the tree it covered).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Mapping
from typing import Any

from flask import Flask

import alphametic
from jobstore import Mode, OptionsError
from jobstore.admission import OptionValueError, normalise
from web.bodies import whole_number
from web.offload import offload

BUDGET = 0.1  # seconds of counting one estimate may spend
MAX_QUERY = 1000  # characters of a puzzle sent in a URL (gunicorn reads request lines of 4 KiB)
MAX_FIXED = 200
# Rough speeds of one enumerate worker on the reference machine: the shard threshold is "about a
# second of search" in nodes, and storing runs at about half a million solutions a second
# (CP + IS + FUN = TRUE in base 24: 1,131,120 solutions in about 2 s).
SOLUTIONS_PER_SECOND = 500_000.0


def parse_fixed(text: str) -> dict[str, int]:
    """Read fixed digits typed as "E=5, M=1" (or "E5 M1"); OptionsError on anything else."""
    fixed: dict[str, int] = {}
    for part in text.replace(",", " ").replace(";", " ").split():
        letter, _, written = part.partition("=") if "=" in part else (part[:1], "", part[1:])
        letter = letter.strip().upper()
        # Decimal ASCII digits only, like the JSON API's integers ('²'.isdigit() holds, but
        # int('²') raises; int() reads '٥' and '1_0').
        digit = whole_number(written)
        if len(letter) != 1 or not letter.isascii() or not letter.isalpha():
            raise OptionsError(f"cannot read fixed digit {part!r}: write E=5", "options.fixed")
        if digit is None or digit < 0:
            raise OptionsError(f"cannot read fixed digit {part!r}: write E=5", "options.fixed")
        if fixed.get(letter, digit) != digit:
            raise _twice(letter, fixed[letter], digit)
        fixed[letter] = digit
    return fixed


def _twice(letter: str, first: int, second: int) -> OptionValueError:
    """The error of a letter given two digits, as the engine words it for the JSON API."""
    # A JSON object cannot repeat a key, so the API meets this only as {"A": 1, "a": 2}, where
    # the engine refuses it; typed text would otherwise keep the last digit without a word.
    detail = f"letter {letter} is fixed twice, to {first} and {second}"
    return OptionValueError(detail, "options.fixed", "conflict")


def options_from_query(args: Mapping[str, str]) -> dict[str, Any]:
    """The options of an estimate request, read from its query string."""
    options: dict[str, Any] = {}
    if args.get("base"):
        base = whole_number(args["base"])
        if base is None:
            raise OptionsError("'base' must be an integer from 2 to 36.", "options.base")
        options["base"] = base
    if args.get("leading_zeros"):
        options["leading_zeros"] = args["leading_zeros"]
    if args.get("fixed"):
        if len(args["fixed"]) > MAX_FIXED:
            raise OptionsError(f"'fixed' is longer than {MAX_FIXED} characters.", "options.fixed")
        options["fixed"] = parse_fixed(args["fixed"])
    return options


@functools.lru_cache(maxsize=512)
def _measure(text: str, options: str) -> tuple[float, float, bool]:
    """(search-tree nodes, solutions, whether that count is exact) of one parsed puzzle."""
    _, puzzle = normalise(Mode.SOLVE.value, text, json.loads(options))
    nodes = alphametic.estimate(puzzle)
    deadline = time.monotonic() + BUDGET
    search = alphametic.Search(puzzle, check=lambda _s: time.monotonic() > deadline)
    found = search.count()
    if not search.stopped:
        return nodes, float(found), True
    share = search.progress
    # Nothing covered yet says only "at least what was found": a lower bound, not a guess.
    return nodes, (found / share if share > 0 else float(found)), False


def for_request(text: str, options: Mapping[str, Any], app: Flask) -> dict[str, Any]:
    """The estimate body: solutions, seconds, and whether an enumeration would hit a cap."""
    given = json.dumps(dict(options), sort_keys=True)
    nodes, solutions, exact = offload(lambda: _measure(text, given))
    settings = app.extensions["alphametic.settings"]
    per_second = max(float(settings.shard_threshold), 1.0)
    seconds = max(nodes / per_second, solutions / SOLUTIONS_PER_SECOND)
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
