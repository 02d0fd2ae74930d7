"""The native core against its twin, the pure-Python engine: same answers, same order, resumable
across engines; the engine switch; the fallback when the core is missing or cannot be built."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from itertools import islice
from pathlib import Path
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphametic import Puzzle, Search, parse
from alphametic.cli.main import main
from alphametic.linear import core
from alphametic.linear.native import ENV, _core, cores, fits, is_built, native_batches
from alphametic.linear.plan import forget_plans, plan_for
from tests.support.engines import EXPECTED, native_only, on
from tests.support.strategies import puzzles
from worker.cursor import Cursor, Position

ROOT = Path(__file__).resolve().parents[2]


def corpus() -> list[tuple[str, str]]:
    """Return bench/corpus.py's mixed corpus of sums as (kind, text)."""
    spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "bench" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cast(list[tuple[str, str]], module.corpus())


CASES = json.loads((ROOT / "tests" / "data" / "exercism-alphametics.json").read_text())["cases"]
# Puzzles beside the corpora: zero-coefficient letters, bases, policies, many solutions.
EXTRA: list[tuple[str, dict[str, object]]] = [
    ("CP + IS + FUN = TRUE", {"base": 16}),
    ("SEND + MORE = MONEY", {"base": 16}),
    ("A + B + C + D = E + F + G + H", {}),
    ("ABCDE + FGHIJ = ABCDE + FGHIJ", {}),
    ("AB + BA + CD - CD = EFE", {}),
    ("TWO + TWO = FOUR", {"leading_zeros": "allow"}),
    ("SEND + MORE = MONEY", {"fixed": {"E": 5}}),
]


def run(engine: str, puzzle: Puzzle, prefix: tuple[int, ...] = ()) -> tuple[list[object], int]:
    """Return every solution in order and the count, on one engine."""
    with on(engine):
        return list(Search(puzzle, prefix=prefix).solutions()), Search(
            puzzle, prefix=prefix
        ).count()
    raise AssertionError("unreachable")


def test_the_native_core_is_built_when_it_is_expected() -> None:
    # CI sets ALPHAMETIC_ENGINE=native: a build that silently fell back must fail here.
    if EXPECTED != "native":
        pytest.skip(f"{ENV} is not native in this session")
    assert is_built()


@native_only
@pytest.mark.slow
def test_both_engines_give_the_same_lists_on_the_public_corpora() -> None:
    items: list[tuple[str, dict[str, object]]] = (
        [(p, {}) for _, p in corpus()] + [(c["puzzle"], {}) for c in CASES] + EXTRA
    )
    for text, options in items:
        puzzle = parse(text, **options)  # type: ignore[arg-type]
        python, native = run("python", puzzle), run("native", puzzle)
        assert native == python, text
        assert len(python[0]) == python[1], text


@native_only
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(puzzles(), st.lists(st.integers(0, 9), max_size=3))
def test_both_engines_agree_on_random_puzzles_and_prefixes(
    puzzle: Puzzle, prefix: list[int]
) -> None:
    order = Search(puzzle).order
    cut = tuple(prefix[: len(order)])
    assert run("native", puzzle, cut) == run("python", puzzle, cut)


@native_only
def test_count_mode_visits_the_same_nodes_on_both_engines() -> None:
    # The native core keeps counting.py's memo with its probe rule, so from a cold plan (the
    # Python memo lives in the cached plan) both count the same nodes, recurring states too.
    texts = [p for kind, p in corpus() if kind == "classic"] + [t for t, o in EXTRA if not o]
    for text in texts:
        nodes = []
        for engine in ("python", "native"):
            forget_plans()
            with on(engine):
                search = Search(parse(text))
                search.count()
            nodes.append(search.nodes)
        assert nodes[0] == nodes[1], text


@pytest.mark.parametrize("name", ["python", "native"])
@pytest.mark.parametrize(
    "text",
    [
        "A + B + C + D + E = F + G + H + I + J",  # digit sum 45 is odd: none, symmetric
        "AB + CD + EF + GH = IJ + IJ + IJ",
        "ABC + DEF = GHIJ + A",
    ],
)
def test_first_mode_visits_no_more_nodes_than_count_mode(name: str, text: str) -> None:
    """A dead end met again is skipped in first and all modes as count mode skips it."""
    if name == "native" and not is_built():
        pytest.skip("the native core is not built")
    visited = {}
    with on(name):
        for mode in ("count", "first", "all"):
            forget_plans()
            search = Search(parse(text))
            if mode == "count":
                found = search.count()
            else:
                found = len(list(islice(search.solutions(), 1 if mode == "first" else None)))
            visited[mode] = (search.nodes, found)
    assert visited["first"][0] <= visited["count"][0], visited
    assert visited["first"][1] == min(visited["count"][1], 1), visited
    assert visited["all"][1] == visited["count"][1], visited


@native_only
def test_the_native_core_runs_the_plain_sums_it_fits() -> None:
    with on("native"):
        assert cores(plan_for(parse("SEND + MORE = MONEY")))[0] is native_batches
    with on("python"):
        assert cores(plan_for(parse("SEND + MORE = MONEY")))[0] is not native_batches
    # Coefficients too big for int64 sums go to the Python engine, which is exact.
    wide = parse(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ + ZYXWVUTSRQPONMLKJIHGFEDCBA = ZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
        base=36,
    )
    assert not fits(plan_for(wide))


@native_only
@pytest.mark.parametrize(("first", "then"), [("native", "python"), ("python", "native")])
def test_a_job_stopped_on_one_engine_resumes_on_the_other(first: str, then: str) -> None:
    puzzle = parse("A + B + C + D = E + F + G + H")
    whole = run("python", puzzle)[0]
    before: list[tuple[int, ...]] = []
    with on(first):
        # Cut into pieces as a big job is (a measured speed of 1 s per tree: pieces of about
        # a quarter of it), stopped by its hook part-way through a piece.
        cursor = Cursor(puzzle, (), 1.0, Position((), 0, 1.0))
        before.extend(cursor.solutions(lambda _: len(before) > 30_000, 0.0))
        at = Position.parse(cursor.position().text(), puzzle)
    assert 0 < len(before) < len(whole) and at is not None and at.prefix and at.skip > 0
    with on(then):
        after = list(Cursor(puzzle, (), 1.0, at).solutions(lambda _: False, 1.0))
    # Every solution handed out before the checkpoint, then the rest: the exact list.
    assert before + after == whole


@native_only
def test_a_hook_stops_the_native_search_and_progress_ends_at_one() -> None:
    puzzle = parse("A + B + C + D + E = F + G + H + I")
    with on("native"):
        seen: list[float] = []

        def watch(search: Search) -> bool:
            seen.append(search.progress)
            return False

        search = Search(puzzle, check=watch, check_interval=0.0)
        assert search.count() == 141_120
        assert seen == sorted(seen) and search.progress == 1.0 and len(seen) > 1
        stopped = Search(puzzle, check=lambda _: True, check_interval=0.0)
        assert stopped.count() < 141_120 and stopped.stopped


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run Python code in a fresh interpreter with ALPHAMETIC_ENGINE and friends set."""
    environ = {k: v for k, v in os.environ.items() if k != ENV} | env
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=120
    )


# The extension hidden, as on a machine that had no compiler when the project was installed.
HIDDEN = (
    "import sys; sys.modules['alphametic.linear._native'] = None; "
    "from alphametic.cli.main import main; "
)


def test_without_the_native_core_everything_runs_on_python_and_says_so() -> None:
    out = _python(HIDDEN + "sys.exit(main(['--version']))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("(engine: python (native core not built))")
    solved = _python(
        HIDDEN + "sys.exit(main(['solve', '--count', 'A + B + C + D = E + F + G + H']))"
    )
    assert solved.returncode == 0 and "93312" in solved.stdout.replace(",", "")


def test_native_required_but_missing_refuses_to_start() -> None:
    out = _python(HIDDEN + "sys.exit(main(['solve', 'SEND + MORE = MONEY']))", **{ENV: "native"})
    assert out.returncode == 2
    assert "ALPHAMETIC_ENGINE=native but the native core" in out.stderr
    bad = _python(HIDDEN + "sys.exit(main(['solve', 'SEND + MORE = MONEY']))", **{ENV: "fast"})
    assert bad.returncode == 2 and "expected one of auto, native, python" in bad.stderr


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no cc")
def test_the_build_without_a_compiler_installs_without_the_core(tmp_path: Path) -> None:
    shutil.copy(ROOT / "setup.py", tmp_path)
    for part in ("linear", "steps", "explain"):
        (tmp_path / "alphametic" / part).mkdir(parents=True)
        shutil.copy(ROOT / "alphametic" / part / "_native.c", tmp_path / "alphametic" / part)
    build = [
        sys.executable,
        "setup.py",
        "-q",
        "build_ext",
        "--build-lib",
        "lib",
        "--build-temp",
        "t",
    ]
    env = {k: v for k, v in os.environ.items() if k != ENV}
    out = subprocess.run(
        build, cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**env, "CC": "false"}
    )
    assert out.returncode == 0, out.stderr
    assert "native core not built" in out.stderr
    assert not list((tmp_path / "lib").rglob("_native*.so"))
    strict = subprocess.run(
        build,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "CC": "false", ENV: "native"},
    )
    assert strict.returncode != 0
    built = subprocess.run(
        build, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    assert built.returncode == 0, built.stderr
    assert len(list((tmp_path / "lib").rglob("_native*.so"))) == 3  # every core


def test_version_names_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    with on("python"):
        assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip().endswith("(engine: python (forced))")
    if is_built():
        with on("native"):
            assert main(["--version"]) == 0
        assert capsys.readouterr().out.strip().endswith("(engine: native)")


@native_only
def test_the_core_comes_back_after_its_loop_turns_and_resumes_exactly() -> None:
    """count() and solve() return after `turns` loop turns with nodes of their budget left
    (a node may cost base * base turns: the clock is looked at all the same), and calls cut
    that short resume to the same count, solutions and node count as one call."""
    puzzle = parse("A + B + C + D = E + F + G + H", base=12)
    plan = plan_for(puzzle, ())
    start = core.given(plan, [0] * plan.n + plan.fixed_digits)

    def run(turns: int) -> tuple[int, list[tuple[int, ...]], int, int]:
        """(count, solutions, nodes spent counting, calls cut short by their turns)."""
        counter = _core(plan, [0] * plan.n + plan.fixed_digits, *start)
        solver = _core(plan, [0] * plan.n + plan.fixed_digits, *start)
        total = spent = short = 0
        done = False
        while not done:
            found, left, _depth, done = counter.count(1 << 40, turns)
            total, spent, short = total + found, spent + (1 << 40) - left, short + (not done)
        solutions: list[tuple[int, ...]] = []
        done = False
        while not done:
            batch, _left, _depth, done = solver.solve(1 << 40, 1 << 30, turns)
            solutions += batch
        return total, solutions, spent, short

    whole = run(0)
    cut = run(1000)
    assert whole[3] == 0 and cut[3] > 10  # without a limit one call; with it, many
    assert cut[:3] == whole[:3] and whole[0] == len(whole[1]) > 0
