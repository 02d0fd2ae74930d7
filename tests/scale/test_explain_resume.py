"""An explanation given back at every chance resumes where it stood (issue 32, part 5).

Runs of worker/explain.py, each giving way as soon as it may (no slice, and a small job waits
in the first band: no worker runs to take it), claim the explanation and resume from the
checkpoint the one before gave it back with, as a worker's do. They end with exactly the
explanation one uninterrupted run gives (the engine's explain()): the deductions cut short
once and then kept, the searches resumed piece by piece, the first solution, the count and the
CPU budget carried along. Before, every run started over from nothing, so such runs never
ended.

Real searches, a real Redis and the job store's scripts; the runs are in process (not a
worker's task), so the test sees each checkpoint kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import alphametic
from alphametic.explain.walkthrough import Explanation, explain
from jobstore import JobStore, Settings, explanations
from jobstore.explanations import Explained, Explaining
from jobstore.handle import handle_for
from jobstore.transitions import ExplainClaimed
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
    store = JobStore(fresh_settings())  # no workers: the runs are this test's
    store.submit("enumerate", "ODD + ODD = EVEN")  # small: it waits in the first band
    given_back: list[Progress] = []
    for text, options in PUZZLES:
        kept, explanation = given_back_runs(store, store.submit("solve", text, options).id)
        expected = explain(alphametic.parse(text, **options), seconds=SEARCH_SECONDS)
        assert explanation.as_data() == expected.as_data(), text
        # The deductions were cut short once, then done whole and kept.
        assert kept[0].cut and kept[0].deduced is None, text
        assert all(each.deduced == kept[1].deduced for each in kept[1:]), text
        given_back += kept[1:]
    # The searches were given back mid-way and resumed, again and again: for the first
    # solution, and for the count.
    assert sum(each.first is None for each in given_back) >= 10
    assert sum(each.first is not None and each.at != "" for each in given_back) >= 10


def given_back_runs(store: JobStore, job_id: str) -> tuple[list[Progress], Explanation]:
    """Ask for the job's explanation, then run it (claim, work, give back or end, as a worker
    does) until a run ends it: the checkpoints the runs gave it back with, and the explanation."""
    assert explanations.ask(store, job_id, "10.0.0.1").status is Explained.QUEUED
    key, handle = store.keys.explanation(job_id), handle_for(store.settings)
    # A first run gives it back at once, its search cut as finely as a very slow one would be:
    # many pieces, so many runs.
    first = Explaining(handle, job_id, store.redis.hget(key, "task"))
    assert first.claim("test").status is ExplainClaimed.RUN
    assert first.give_back(Progress(at=Position((), 0, SLOW).text()).text())
    kept: list[Progress] = []
    for _ in range(MAX_RUNS):
        explaining = Explaining(handle, job_id, store.redis.hget(key, "task"))
        claimed = explaining.claim("test")
        assert claimed.status is ExplainClaimed.RUN and explaining.small_job_waits()
        progress = Progress.parse(claimed.checkpoint)
        puzzle = alphametic.parse(claimed.puzzle, **(claimed.options or {}))
        try:
            explanation = Run(explaining, puzzle, progress, slice_=0.0).explain()
        except GiveWay:
            assert explaining.give_back(progress.text())
            kept.append(Progress.parse(store.redis.hget(key, "cp")))
            continue
        assert explaining.done(explanation.as_data()) and not store.redis.hexists(key, "cp")
        return kept, explanation
    raise AssertionError(f"job {job_id}: no end after {MAX_RUNS} runs")
