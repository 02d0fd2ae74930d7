"""Pieces that always finish: cut by measured speed, resumed in order, yielded only between.

The first tests run the cursor in process (real searches, no servers); the others run jobs on
real workers with a tiny time slice, so that every run must take turns: before, a run handed
its worker over mid-piece at every progress write after its slice and the next run searched
that piece again from its start, so a piece longer than the slice never completed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

import alphametic
from alphametic.linear.native import engine
from jobstore import Job, JobStore, Settings, State
from jobstore.lanes import lane_for
from jobstore.model import FIRST
from tests.support.chaos import wait_until
from tests.support.counters import assert_counters_only_rise, watch
from tests.support.puzzles import all_compact, engine_list
from worker import cursor as cursor_module
from worker.cursor import MAX_CUTS, PIECE_SECONDS, Cursor, Pieces, Position, children

# Both engines, solutions spread over the whole tree.
ORDERED: list[tuple[str, dict[str, Any]]] = [
    ("A + B + C + D = E + F + G + H", {}),  # coefficient form
    ("A + B + CD - CD = E + F", {}),  # zero-coefficient letters (lazy permutation runs)
    ("A * B * C = D + E + F", {}),  # the step search
    ("AB * CD = EF * GH", {}),  # products on both sides (SOLVE steps)
]
# Counts of about a second each on an idle machine (the step search, on the engine that runs),
# both in the first lane under the settings of taking_turns below, so they run as one piece at
# first and yield to each other whichever the worker takes first. Base 12 and 20 took 0.2-0.4 s
# once the machine was idle: the first ended before it was ever cut into pieces, so it never
# yielded (the test failed 5 runs in 6). The native step core is 15-75x faster: bigger ones.
TURNS: list[tuple[str, dict[str, Any]]] = (
    [
        ("AB * CD = EF * GH", {"base": 22}),  # estimated 5.5e6 reference nodes, 1.0 s
        ("NORTH * WEST = EAST * SOUTH", {"base": 14}),  # estimated 1.3e6, 1.0 s
    ]
    if engine() == "native"
    else [
        ("AB * CD = EF * GH", {"base": 15}),  # estimated 9.6e6 reference nodes, 1.0 s
        ("A * B * C * D = E + F + G", {"base": 26}),  # estimated 8.7e5, 1.1 s
    ]
)
# The first band's bound under which both are small jobs.
TURNS_SMALL = 2e7


def solutions_of(puzzle: alphametic.Puzzle, prefix: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every solution under a prefix, in search order."""
    return list(alphametic.Search(puzzle, prefix=prefix).solutions())


@pytest.mark.parametrize(("text", "options"), ORDERED)
def test_a_finer_cut_refines_a_piece_in_its_own_order(text: str, options: dict[str, Any]) -> None:
    """Under every piece of one or two letters, its children (alphametic.shards under its
    prefix) are the deeper cut's pieces there, in the same order, with the same shares, and
    their solutions one after another are the piece's own, in its order."""
    puzzle = alphametic.parse(text, **options)
    whole = solutions_of(puzzle, ())
    for depth in (1, 2):
        deeper = alphametic.shards(puzzle, depth + 1)
        for prefix, _share in alphametic.shards(puzzle, depth):
            parts = children(puzzle, prefix)
            under = [(p, w) for p, w in deeper if p[:depth] == prefix]
            total = sum(w for _, w in under)
            assert [p for p, _ in parts] == [p for p, _ in under]
            assert [w for _, w in parts] == pytest.approx([w / total for _, w in under])
            joined = [s for p, _ in parts for s in solutions_of(puzzle, p)]
            assert joined == solutions_of(puzzle, prefix)
        assert [s for p, _ in deeper for s in solutions_of(puzzle, p)] == whole


def stop_after(checks: int) -> Callable[[alphametic.Search], bool]:
    """A search check that stops the search at its `checks`-th look."""
    seen = [0]

    def check(search: alphametic.Search) -> bool:
        seen[0] += 1
        return seen[0] >= checks

    return check


@pytest.mark.parametrize(("text", "options"), ORDERED)
def test_runs_stopped_anywhere_resume_to_the_engines_list(
    text: str, options: dict[str, Any]
) -> None:
    """Runs stopped after ever more checks, each resumed from the text of the checkpoint the
    one before left (cut finely at first: a speed guessed far too slow), hand out exactly
    the engine's list and count; progress only rises and the checkpoint only moves on."""
    puzzle = alphametic.parse(text, **options)
    expected = solutions_of(puzzle, ())
    got: list[tuple[int, ...]] = []
    at: Position | None = Position((), 0, 1e4)
    passed = progress = 0.0
    for run in range(40):
        cursor = Cursor(puzzle, (), 1.0, at)
        assert cursor.progress >= passed - 1e-12  # the pieces left of the checkpoint
        got += cursor.solutions(stop_after(2 * 2**run), 0.0001)
        assert cursor.progress >= progress
        passed, progress = cursor.done, cursor.progress
        at = Position.parse(cursor.position().text(), puzzle)
        if cursor.over:
            break
    assert got == expected and progress == 1.0
    counted = sum(Cursor(puzzle, (), 1.0, Position((), 0, 1e4)).count(lambda s: False, 0.01))
    assert counted == len(expected)


def test_a_long_piece_is_cut_finer_on_the_spot_when_that_loses_nothing() -> None:
    """A count misjudged as one small piece is cut into smaller ones once it runs long, and
    one that must yield gives its piece up at once, leaving a checkpoint at a finer piece."""
    puzzle = alphametic.parse(TURNS[0][0], **TURNS[0][1])
    cursor = Cursor(puzzle, (), 1.0, None, small=True)  # one piece: no estimate
    assert cursor.position().prefix == ()
    checks = [0]
    asked: list[bool] = []

    def must_yield(search: alphametic.Search) -> bool:
        # Told to yield at its third look (by count, not by clock: a fast engine or a fast
        # machine must not finish the piece first).
        checks[0] += 1
        if checks[0] < 3:
            return False
        asked.append(cursor.yield_now())
        return True

    assert list(cursor.count(must_yield, 0.01)) == [] and asked == [True]
    position = cursor.position()
    assert position.prefix is not None and len(position.prefix) >= 1 and position.skip == 0
    assert position.rate > 0  # measured: the next run cuts its pieces to fit
    resumed = Cursor(puzzle, (), 1.0, Position.parse(position.text(), puzzle))
    total = sum(resumed.count(lambda s: False, 0.01))
    assert total == alphametic.count(puzzle) and resumed.over


def test_a_speed_guessed_far_too_slow_cuts_a_bounded_number_of_pieces_between_looks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A huge sum (an estimate of ~1e12 nodes: every piece is cut down to a sliver at the
    guessed speed, through millions of pieces that die at once) still searches a piece after
    at most MAX_CUTS cuts, so the run looks at its flags between pieces: before, one run cut
    for minutes and a cancel waited until the hard time limit killed it."""
    puzzle = alphametic.parse("ABCDEFGHIJKLM + NOPQRSTUVWXYZ = TSRQPONZYXWVUA", base=36)
    cut = [0]

    def counted(puzzle: alphametic.Puzzle, prefix: tuple[int, ...]) -> Pieces:
        cut[0] += 1
        return children(puzzle, prefix)

    monkeypatch.setattr(cursor_module, "children", counted)
    cursor = Cursor(puzzle, (), 1.0, None)
    assert cursor.rate * 1e-8 > PIECE_SECONDS  # a hundred-millionth of the tree is "too long"
    looks: list[int] = []

    def pause() -> bool:
        looks.append(cut[0])
        return len(looks) > 20

    assert list(cursor.solutions(lambda s: False, 0.01, pause)) == []
    per_piece = [after - before for before, after in zip(looks, looks[1:], strict=False)]
    # A cut may follow a chain of lone children: a few splits for one cut.
    assert len(looks) == 21 and max(per_piece) <= MAX_CUTS * len(puzzle.letters), per_piece


def test_an_older_checkpoint_resumes_in_place() -> None:
    """A "depth:piece:skip" checkpoint written before the upgrade names the same piece."""
    puzzle = alphametic.parse(*ORDERED[0][:1])
    cut = alphametic.shards(puzzle, 2)
    at = Position.parse("2:5:3", puzzle)
    assert at is not None and at.prefix == cut[5][0] and at.skip == 3
    rest = list(Cursor(puzzle, (), 1.0, at).solutions(lambda s: False, 0.01))
    assert rest == [s for p, _ in cut[5:] for s in solutions_of(puzzle, p)][3:]
    assert Position.parse(f"2:{len(cut)}:0", puzzle) == Position(None)


@pytest.fixture()
def taking_turns(fresh_settings: Callable[..., Settings], worker_factory: Any) -> Settings:
    """One enumerate worker whose runs yield at every progress write once others wait."""
    settings = fresh_settings(time_slice=0.001, shard_threshold=0)
    worker_factory(settings, "enumerate")
    return settings


def one_running_then_the_other(
    store: JobStore, mode: str, puzzles: list[tuple[str, dict[str, Any]]]
) -> list[Job]:
    """Submit the first puzzle, and the second once the first runs: the worker must then
    make it take turns (both at once, it might take the quicker one first and never yield)."""
    first = store.submit(mode, *puzzles[0])
    wait_until(lambda: (store.get(first.id) or first).state is not State.QUEUED, 30, "running")
    return [first, store.submit(mode, *puzzles[1])]


def test_counts_longer_than_a_slice_finish_while_taking_turns(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """Two counts in the first lane on one worker, each a search of many slices: both end
    with the right count, having yielded to each other, their counters never going down."""
    settings = fresh_settings(time_slice=0.001, shard_threshold=0, small_search=TURNS_SMALL)
    worker_factory(settings, "enumerate")
    store = store_factory(settings)
    for text, options in TURNS:  # both small jobs: neither goes ahead by its lane
        assert lane_for(alphametic.parse(text, **options), settings.small_search) == FIRST
    jobs = one_running_then_the_other(store, "count", TURNS)
    seen = watch(store, [job.id for job in jobs], timeout=120)
    for rows, (text, options) in zip(seen, TURNS, strict=True):
        assert rows[-1][0] is State.SUCCEEDED and rows[-1][1] == 1.0
        assert rows[-1][2] == alphametic.count(alphametic.parse(text, **options))
        assert_counters_only_rise(rows)
    assert store.stats()["redeliveries"].get("yielded", 0) >= 1  # they took turns


def test_enumerations_longer_than_a_slice_finish_in_order_while_taking_turns(
    taking_turns: Settings, store_factory: Any
) -> None:
    """Two enumerations taking turns on one worker end with the engine's list each (a piece
    with solutions handed out runs to its end before the run yields), and at every poll
    stored <= found, neither ever going down."""
    store = store_factory(taking_turns)
    # The first runs for seconds of pieces on either engine (790,272 solutions to store).
    puzzles = [("A + B + C + D = E + F + G + H", {"base": 12}), ORDERED[2]]
    jobs = one_running_then_the_other(store, "enumerate", puzzles)
    seen = watch(store, [job.id for job in jobs], timeout=120)
    for rows, job, (text, options) in zip(seen, jobs, puzzles, strict=True):
        assert rows[-1][0] is State.SUCCEEDED, rows[-1]
        assert all_compact(store, job.id) == engine_list(text, options)
        assert_counters_only_rise(rows)
    assert store.stats()["redeliveries"].get("yielded", 0) >= 1  # they took turns


def test_counters_stay_consistent_across_a_cancel(
    fresh_settings: Callable[..., Settings], worker_factory: Any, store_factory: Any
) -> None:
    """A sharded enumeration on two workers, its shards taking turns, polled until and past a
    cancel: stored <= found at every poll, and progress, found and stored never go down."""
    settings = fresh_settings(time_slice=0.001, shard_threshold=1_000, shard_count=12)
    for _ in range(2):
        worker_factory(settings, "enumerate")
    store = store_factory(settings)
    job = store.submit("enumerate", "A + B + C + D + E = F + G + H + I", {"base": 12})
    wait_until(lambda: (store.get(job.id) or job).solutions_found > 50_000, 60, "solutions")
    rows: list[tuple[Any, ...]] = []
    for _ in range(20):
        rows += watch_once(store, job.id)
    store.cancel(job.id)
    rows += watch(store, [job.id], timeout=30)[0]
    assert rows[-1][0] is State.CANCELED
    # The poll that saw it canceled read its stored count just before (maybe still running,
    # when a page shows only the shards known in order): one more poll, all of it ended.
    rows += watch_once(store, job.id)
    assert_counters_only_rise(rows)
    assert rows[-1][3] == rows[-1][2] > 0  # every solution found is kept after a cancel


def watch_once(store: JobStore, job_id: str) -> list[tuple[Any, ...]]:
    """One poll of a job, as watch() takes them."""
    stored = store.compact(job_id, 0, 0)[2]
    job = store.get(job_id)
    assert job is not None
    time.sleep(0.02)
    return [(job.state, job.progress, job.solutions_found, stored)]
