"""Batch mode of the command line: one puzzle per input line, one JSON object per output line."""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, TextIO

from .puzzle import Puzzle, PuzzleError
from .search import Search, as_dict

__all__ = ["QUOTE", "open_batch", "run_batch"]

QUOTE = 80  # most characters of a bad line quoted back in its error


def run_batch(source: Iterable[str], parse: Callable[[str], Puzzle], mode: str) -> bool:
    """Print a JSON object per non-blank line (mode first, all or count); return if any was bad."""
    bad = False
    for line in _puzzle_lines(source):
        started = time.perf_counter()
        try:
            puzzle = parse(line)
        except PuzzleError as exc:
            bad = True
            print(json.dumps({"puzzle": _quote(line), "error": str(exc)}), flush=True)
            continue
        print(json.dumps(_result(puzzle, mode, started)), flush=True)
    return bad


def _result(puzzle: Puzzle, mode: str, started: float) -> dict[str, Any]:
    """Return the JSON object for one puzzle."""
    result: dict[str, Any] = {"puzzle": puzzle.text, "options": puzzle.options()}
    search = Search(puzzle)
    if mode == "count":
        result["count"] = search.count()
    else:
        limit = None if mode == "all" else 1
        solutions = [as_dict(puzzle, c) for c in islice(search.solutions(), limit)]
        result["count"] = len(solutions)
        result["solutions"] = solutions
    result["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return result


def _quote(line: str) -> str:
    """Return the line, cut to its first QUOTE characters and an ellipsis if longer."""
    return line if len(line) <= QUOTE else f"{line[:QUOTE]}…"


def open_batch(name: str) -> TextIO:
    """Open the batch file, or wrap stdin for '-', decoding bad bytes as replacement chars."""
    if name == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    return open(name, encoding="utf-8", errors="replace")


def _puzzle_lines(source: Iterable[str]) -> Iterator[str]:
    """Yield the stripped non-blank lines."""
    for line in source:
        text = line.strip()
        if text:
            yield text
