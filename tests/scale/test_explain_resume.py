"""An explanation given back at every chance resumes where it stood (issue 32, part 5).

Runs of worker/explain.py, each giving way as soon as it may (no slice, and a small job waits
in the first band: no worker runs to take it), resume from the checkpoint the one before kept,
as the explanation request keeps it. They end with exactly the explanation one uninterrupted
run gives (the engine's explain()): the deductions cut short once and then kept, the searches
resumed piece by piece, the first solution, the count and the CPU budget carried along.
Before, every run started over from nothing, so such runs never ended.

Real searches and a real Redis; the runs are in process, so each give-back is seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import alphametic
from alphametic.explain.walkthrough import Explanation, explain
from jobstore import JobStore, Settings
from jobstore.explanations import Explaining
from jobstore.handle import handle_for
from worker.cursor import Position
from worker.explain import SEARCH_SECONDS, GiveWay, Progress, Run

# Searches and counts that end well within their CPU budgets: coefficient form and step
# search, one solution, several, none.
PUZZLES: list[tuple[str, dict[str, Any]]] = [
    ("SEND + MORE = MONEY", {}),
    ("TO + GO = OUT", {"base": 14}),
    ("DOUBLE + DOUBLE + TOIL = TROUBLE", {}),
    ("VANDAL / 3 = BLOCK", {}),
    ("GDA * B = DJGH; GDA * A = DHJA; DHJA0 + DJGH = DGEJH", {}),
    ("A + A = B; B * C = AB", {}),
    ("AB + BA = CC + A", {}),
    ("AB * CD = EF * GH", {}),
    ("ABC + DEF = GHI", {}),
    ("TO + GO = OUT", {"base": 24}),
]
SLOW = 10.0  # seconds per share of the tree a run starts from: pieces of 2.5 % at most
MAX_RUNS = 5_000


def test_an_explanation_given_back_at_every_chance_ends_as_one_run_would(
    fresh_settings: Callable[..., Settings],
) -> None:
    settings = fresh_settings()
    JobStore(settings).submit("enumerate", "ODD + ODD = EVEN")  # small: it waits, first band
    explaining = Explaining(handle_for(settings), "job", "task")
    assert explaining.small_job_waits()
    given_back: list[Progress] = []
    for text, options in PUZZLES:
        puzzle = alphametic.parse(text, **options)
        kept, explanation = given_back_runs(explaining, puzzle)
        assert explanation.as_data() == explain(puzzle, seconds=SEARCH_SECONDS).as_data(), text
        # The deductions were cut short once, then done whole and kept.
        assert kept[0].cut and kept[0].deduced is None, text
        assert all(each.deduced == kept[1].deduced for each in kept[1:]), text
        given_back += kept[1:]
    # The searches were given back mid-way and resumed, again and again: for the first
    # solution, and for the count.
    assert sum(each.first is None for each in given_back) >= 10
    assert sum(each.first is not None and each.at != "" for each in given_back) >= 10


def given_back_runs(
    explaining: Explaining, puzzle: alphametic.Puzzle
) -> tuple[list[Progress], Explanation]:
    """Run the puzzle's explanation until a run ends it: the checkpoints kept on the way, and
    the explanation."""
    # The search starts cut as finely as a very slow one would be: many pieces, many runs.
    progress = Progress(at=Position((), 0, SLOW).text())
    kept = []
    for _ in range(MAX_RUNS):
        try:
            explanation = Run(explaining, puzzle, progress, slice_=0.0).explain()
        except GiveWay:
            kept.append(Progress.parse(progress.text()))  # as the explanation request keeps it
            progress = Progress.parse(progress.text())  # (the next run moves its own on)
            continue
        return kept, explanation
    raise AssertionError(f"{puzzle.text}: no end after {MAX_RUNS} runs")
