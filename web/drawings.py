"""A stored job's solutions drawn: its puzzle parsed again (once per process, cached), each
solution as a line, a column sum or a row of digits, and the letter x digit grid."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

import alphametic
from jobstore import Job, Mode, State


@functools.lru_cache(maxsize=256)
def _puzzle(
    text: str, base: int, leading_zeros: str, fixed: tuple[tuple[str, int], ...]
) -> alphametic.Puzzle:
    """Parse a stored job's puzzle once (the job store already validated it)."""
    return alphametic.parse(text, base=base, leading_zeros=leading_zeros, fixed=dict(fixed))


def puzzle_of(job: Job) -> alphametic.Puzzle:
    """Return the engine's Puzzle for a job."""
    options = job.options or {}
    fixed = tuple(sorted((options.get("fixed") or {}).items()))
    return _puzzle(
        job.puzzle,
        int(options.get("base", 10)),
        str(options.get("leading_zeros", "multi-letter")),
        fixed,
    )


def page_items(job: Job, items: Iterable[Mapping[str, int]]) -> list[dict[str, Any]]:
    """Pair every solution with its one-line rendering."""
    items = list(items)
    if not items:
        return []  # nothing to draw (a compose job's `puzzle` is its words: no puzzle to parse)
    puzzle = puzzle_of(job)
    return [
        {"solution": dict(item), "line": alphametic.render_line(puzzle, item)} for item in items
    ]


def answer_of(job: Job, only: Mapping[str, int] | None = None) -> dict[str, Any] | None:
    """Return the drawings of a job's answer (or of an enumeration's only solution)."""
    found = job.solution or only
    if not found:
        return None
    puzzle = puzzle_of(job)
    solution = dict(found)
    return {
        "sum": alphametic.render_sum(puzzle, solution),
        "line": alphametic.render_line(puzzle, solution),
        "letters": [(letter, solution[letter]) for letter in puzzle.letters],
    }


def solution_rows(
    job: Job, items: Iterable[Mapping[str, int]], offset: int
) -> list[tuple[int, list[int]]]:
    """(1-based number, the digit of each letter in the puzzle's order) per solution."""
    letters = puzzle_of(job).letters
    return [(offset + i + 1, [item[letter] for letter in letters]) for i, item in enumerate(items)]


def grid_rows(grid: Mapping[str, list[int]] | None, job: Job) -> dict[str, Any] | None:
    """Lay out letter x digit counts; a digit is marked forced only once the job is complete.

    While it runs (or after a cancel) a digit taken in every solution so far may still be
    joined by others, so nothing is highlighted before the search has covered everything.
    """
    empty = not grid or not any(any(counts) for counts in grid.values())
    if not grid or (empty and (job.done or job.mode is not Mode.ENUMERATE)):
        return None  # an enumeration's is drawn empty while it runs: the script fills it in
    base = int((job.options or {}).get("base", 10))
    complete = job.state is State.SUCCEEDED
    rows = []
    for letter in puzzle_of(job).letters:
        counts = (list(grid.get(letter, [])) + [0] * base)[:base]
        total = sum(counts)
        rows.append((letter, [(count, complete and 0 < total == count) for count in counts]))
    return {"digits": list(range(base)), "rows": rows}
