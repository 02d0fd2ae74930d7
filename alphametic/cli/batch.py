"""Batch mode of the command line: one puzzle per input line, one JSON object per output line."""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, TextIO

from ..language.puzzle import Puzzle, PuzzleError
from ..search import Search, as_dict
from .console import Console, catch_interrupt

__all__ = ["QUOTE", "open_batch", "result", "run_batch"]

QUOTE = 80  # most characters of a bad line quoted back in its error


def run_batch(
    source: Iterable[str], parse: Callable[[str], Puzzle], mode: str, console: Console
) -> bool:
    """Print a JSON object per non-blank line (mode first, all or count); return if any was bad.

    A Ctrl-C during a search ends the batch after printing what that search found so far
    (console.stop_requested then says so); one between two puzzles raises KeyboardInterrupt.
    """
    bad = False
    for line in _puzzle_lines(source):
        started = time.perf_counter()
        try:
            puzzle = parse(line)
        except PuzzleError as exc:
            bad = True
            _print(console, {"puzzle": _quote(line), "error": str(exc)})
            continue
        with catch_interrupt(console):  # only here: Ctrl-C while reading stdin stops at once
            found = result(puzzle, Search(puzzle, check=console.check), mode, started)
        _print(console, found)
        if console.stop_requested:
            break
    return bad


def _print(console: Console, result: dict[str, Any]) -> None:
    """Print one JSON line at once, so that a reader sees each puzzle as it is done."""
    console.line(json.dumps(result, ensure_ascii=False))
    console.flush()


def result(puzzle: Puzzle, search: Search, mode: str, started: float) -> dict[str, Any]:
    """Return the JSON object of one puzzle's search in a mode (first, all or count).

    "count" is every solution (count and all modes). First mode reports "found" instead, 0 or
    1: it proves that a solution exists (or, with 0, that none does), not how many there are.
    "complete" says the search did what the mode asks: False only when Ctrl-C cut it short
    (then nothing is proved). "exhaustive" says whether every assignment was searched, so that
    the number reported is every solution: first mode stops at its first, so "found": 1 comes
    with "exhaustive": false (ODD + ODD = EVEN has 2), and "found": 0 with true.
    """
    out: dict[str, Any] = {"puzzle": puzzle.text, "options": puzzle.options(), "mode": mode}
    if mode == "count":
        out["count"] = search.count()
    else:
        limit = None if mode == "all" else 1
        solutions = [as_dict(puzzle, c) for c in islice(search.solutions(), limit)]
        out["found" if mode == "first" else "count"] = len(solutions)
        out["solutions"] = solutions
    out["complete"] = not search.stopped
    # "complete" alone next to "found": 1 read as "this is every solution" (it never was).
    out["exhaustive"] = out["complete"] and (mode != "first" or not out["found"])
    out["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return out


def _quote(line: str) -> str:
    """Return the line, cut to its first QUOTE characters and an ellipsis if longer."""
    return line if len(line) <= QUOTE else f"{line[:QUOTE]}…"


def open_batch(name: str) -> TextIO:
    """Open the batch file, or wrap stdin for '-', decoding bad bytes as replacement chars."""
    if name == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    return open(name, encoding="utf-8", errors="replace")


def _puzzle_lines(source: Iterable[str]) -> Iterator[str]:
    """Yield the stripped lines that are neither blank nor comments (starting with '#')."""
    for line in source:
        text = line.strip()
        if text and not text.startswith("#"):
            yield text
