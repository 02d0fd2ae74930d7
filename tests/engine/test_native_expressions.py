"""The expression engine's native core against its twin, the step closures: the same solutions
in the same order, the same node counts, resumable across engines, and which plans it runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from alphametic import Puzzle, PuzzleError, Search, parse
from alphametic.linear.native import ENV
from alphametic.steps import walker
from alphametic.steps.native import fits
from alphametic.steps.walker import Walk, model_for
from tests.support.engines import native_only, on, without_core
from tests.support.strategies import expressions
from worker.cursor import Cursor, Position

ROOT = Path(__file__).resolve().parents[2]
CORPUS = json.loads((ROOT / "bench" / "expressions.json").read_text())["puzzles"]
# Corpus puzzles whose Python runs take a quarter of a second or more.
SLOW = {"NORTH * WEST = EAST * SOUTH"}
# Published puzzles and device cases of the other expression tests, beside the corpus.
PUBLISHED = [
    "TWO * TWO = SQUARE",
    "ABCD / EF = GH",
    "VANDAL / 3 = BLOCK",
    "UNO + UNO + TRES = CINCO",
    "A / B * C = DE",
    "AB / C / D = E",
    "A ^ B ^ 2 = CD",
    "A * (B - C) = -D + E",
    "ABCDE * 0 = 0",
    "A * 0 = 0; A = B + 1",
    "A + 1 = A",
]


def run(
    engine: str, puzzle: Puzzle, prefix: tuple[int, ...] = ()
) -> tuple[list[tuple[int, ...]], int, int, int]:
    """Return every solution in order, the count, and the nodes of both runs, on one engine."""
    with on(engine):
        listing = Search(puzzle, prefix=prefix)
        found = list(listing.solutions())
        counting = Search(puzzle, prefix=prefix)
        total = counting.count()
    return found, total, listing.nodes, counting.nodes


def native_runs(puzzle: Puzzle) -> bool:
    """Return whether a search of the puzzle runs on the native step core now."""
    return Walk(model_for(puzzle)).native is not None


def corpus(slow: bool) -> list[pytest.param]:  # type: ignore[valid-type]
    """The expression corpus's puzzles (sums excepted), the slow ones or the others."""
    rows = [r for r in CORPUS if not parse(r["puzzle"], **r["options"]).is_linear]
    return [
        pytest.param(r["puzzle"], r["options"], id=r["puzzle"])
        for r in rows
        if (r["puzzle"] in SLOW) == slow
    ]


@native_only
@pytest.mark.parametrize(("text", "options"), corpus(slow=False))
def test_both_engines_list_the_same_solutions_on_the_corpus(
    text: str, options: dict[str, object]
) -> None:
    puzzle = parse(text, **options)  # type: ignore[arg-type]
    python, native = run("python", puzzle), run("native", puzzle)
    assert native == python
    with on("native"):
        assert native_runs(puzzle) == fits(model_for(puzzle))


@native_only
@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "options"),
    [*corpus(slow=True), pytest.param("A * B + C * D + E * F + G * H = IJ", {}, id="4 products")],
)
def test_both_engines_list_the_same_solutions_on_the_slow_ones(
    text: str, options: dict[str, object]
) -> None:
    puzzle = parse(text, **options)  # type: ignore[arg-type]
    assert run("native", puzzle) == run("python", puzzle)


@native_only
@pytest.mark.parametrize("text", PUBLISHED)
def test_both_engines_agree_on_the_published_and_device_puzzles(text: str) -> None:
    puzzle = parse(text)
    assert run("native", puzzle) == run("python", puzzle)


@native_only
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(expressions(2), expressions(1)), min_size=1, max_size=2),
    st.integers(5, 10),
    st.sampled_from(["multi-letter", "allow", "every-word"]),
    st.lists(st.integers(0, 9), max_size=2),
)
def test_both_engines_agree_on_random_expressions_and_prefixes(
    equations: list[tuple[str, str]], base: int, policy: str, prefix: list[int]
) -> None:
    text = "; ".join(f"{a} = {b}" for a, b in equations)
    try:
        puzzle = parse(text, base=base, leading_zeros=policy)
    except PuzzleError:
        assume(False)
        return
    assume(not puzzle.is_linear and len(puzzle.letters) >= 2)
    cut = tuple(prefix[: len(Search(puzzle).order)])
    assert run("native", puzzle, cut) == run("python", puzzle, cut)


@native_only
def test_sizing_runs_measure_the_same_on_both_engines() -> None:
    # The estimates' sample (capped runs stopped by an exception from tick, LINEAR tails
    # counted apart) runs on the native core too: the same figures, deterministic as before.
    texts = [(r["puzzle"], r["options"]) for r in CORPUS] + [
        ("NORTH * WEST = EAST * SOUTH", {"base": base}) for base in (11, 13, 15)
    ]
    for text, options in texts:
        puzzle = parse(text, **options)
        if puzzle.is_linear:
            continue
        figures = []
        for engine in ("python", "native"):
            with on(engine):
                model_for.cache_clear()
                model = model_for(puzzle)
                figures.append((walker.measure(model, 48_000), walker.measure(model, 8_000, 1e5)))
        assert figures[0] == figures[1], text


@native_only
def test_the_native_core_runs_the_plans_it_fits() -> None:
    products = parse("NORTH * WEST = EAST * SOUTH")
    with on("native"):
        assert native_runs(products)
    with on("python"):
        assert not native_runs(products)
    # A word in an exponent runs on it while the power fits int64 (9 ** 9 does, 9 ** 99 not);
    # values past int64 run on the closures (Python integers), exactly all the same.
    assert fits(model_for(parse("J ^ B = BUIF")))
    huge = parse("A ^ BC = DEFGHIJ")
    wide = parse("ABCDEFGHIJ * KLMNOPQRST = ZYXWVUTSRQPONM", base=36)
    assert not fits(model_for(huge)) and not fits(model_for(wide))
    with on("native"):
        assert not native_runs(wide) and not native_runs(huge)
        assert Search(parse("J ^ B = BUIF")).count() == 1
    assert run("native", huge) == run("python", huge)


@native_only
@pytest.mark.parametrize("rate", [0.05, 20.0], ids=["one piece", "pieces"])
@pytest.mark.parametrize(("first", "then"), [("native", "python"), ("python", "native")])
def test_a_job_stopped_on_one_engine_resumes_on_the_other(
    first: str, then: str, rate: float
) -> None:
    puzzle = parse("A * B + C * D = E + F + G + H")
    whole = run("python", puzzle)[0]
    before: list[tuple[int, ...]] = []
    with on(first):
        # A job of that speed (seconds per tree: a big one is cut into pieces by its first
        # letters), stopped by its hook part-way through a piece.
        cursor = Cursor(puzzle, (), rate, Position((), 0, rate))
        before.extend(cursor.solutions(lambda _: len(before) > 5_000, 0.0))
        at = Position.parse(cursor.position().text(), puzzle)
    assert 0 < len(before) < len(whole) and at is not None
    # One piece: it resumes by skipping the solutions handed out; pieces: at a later piece.
    assert at.skip > 0 if rate < 1 else bool(at.prefix)
    with on(then):
        after = list(Cursor(puzzle, (), rate, at).solutions(lambda _: False, 1.0))
    # Every solution handed out before the checkpoint, then the rest: the exact list.
    assert before + after == whole


@native_only
def test_a_hook_stops_the_native_step_search_and_sees_its_progress() -> None:
    puzzle = parse("A * B + C * D = E + F + G + H")
    with on("native"):
        seen: list[float] = []

        def watch(search: Search) -> bool:
            seen.append(search.progress)
            return False

        search = Search(puzzle, check=watch, check_interval=0.0)
        assert native_runs(puzzle) and search.count() == 23_616
        assert seen == sorted(seen) and len(set(seen)) > 3 and search.progress == 1.0
        for mode in ("count", "solutions"):
            stopped = Search(puzzle, check=lambda s: s.nodes > 2_000, check_interval=0.0)
            found = stopped.count() if mode == "count" else len(list(stopped.solutions()))
            assert stopped.stopped and found < 23_616 and stopped.progress < 1.0


def test_without_the_step_core_everything_runs_on_python_and_says_so() -> None:
    # Only the expression engine's core missing (a half-built install): "native" means both.
    cli = without_core("alphametic.steps._native")
    out = cli("['--version']")
    assert out.returncode == 0 and out.stdout.strip().endswith("(native core not built))")
    solved = cli("['solve', '--count', 'TWO * TWO = SQUARE']")
    assert solved.returncode == 0 and "3" in solved.stdout
    refused = cli("['solve', 'TWO * TWO = SQUARE']", **{ENV: "native"})
    assert refused.returncode == 2 and "alphametic.steps._native" in refused.stderr
