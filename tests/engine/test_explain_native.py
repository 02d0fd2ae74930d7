"""The explanations' native core (explain/_native.c) against its Python twins, columns.py's
_exact and remainders.py's _mod_walk: the same support, carries and node count (the
explanation's clock) on random inputs and on every column the explain corpus meets, so the
same explanations; and the process-wide cache of those looks changes no explanation."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from alphametic import parse
from alphametic.explain import columns, native, remainders
from alphametic.explain.walkthrough import Explanation, explain
from alphametic.linear.native import ENV, is_built
from tests.support import engines
from tests.support.engines import EXPECTED, without_core

ROOT = Path(__file__).resolve().parents[2]
CALIBRATION = ROOT / "tests" / "data" / "difficulty-calibration.json"
# Results of compose(word_list("en", 2000)): the slow explanations the cache and core are for.
COMPOSED = [
    "ACROSS + ANSWER = NATION",
    "ACROSS + APART = MOSTLY",
    "ACROSS + APART = SYSTEM",
    "ACROSS + ANYONE = LOVELY",
    "ACROSS + AMONG = MESSAGE",
]
COUNT_NODES = 20_000  # the count's cut-off in nodes, not seconds: the same on any machine

needs_core = pytest.mark.skipif(
    not native.is_built() and EXPECTED != "native",
    reason="the explanations' native core is not built",
)


def texts() -> list[str]:
    """Return the explain corpus: the calibration list and a few composed sums."""
    puzzles = json.loads(CALIBRATION.read_text())["puzzles"]
    return [item["puzzle"] for item in puzzles] + COMPOSED


@contextmanager
def on(engine: str) -> Iterator[None]:
    """Run the block on one engine, with the looks remembered so far forgotten."""
    columns._look.cache_clear()
    remainders._mod_look.cache_clear()
    try:
        with engines.on(engine):
            yield
    finally:
        columns._look.cache_clear()
        remainders._mod_look.cache_clear()


def shape(explanation: Explanation) -> tuple[Any, ...]:
    """Return what an explanation says: steps, solution, count, tally and difficulty."""
    e = explanation
    return (e.steps, e.solution, e.count, e.count_complete, e.tally, e.difficulty)


def c_exact(
    coefs: Any, masks: Any, carries: Any, links: Any, base: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """Return the C walk's answer, making sure the core takes the input."""
    assert native.fits_exact(coefs, masks, carries, links, base)
    from alphametic.explain import _native

    return _native.exact(coefs, masks, carries[0], carries[1], links, base)


def py_exact(
    coefs: Any, masks: Any, carries: Any, links: Any, base: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """Return the Python walk's answer in the C walk's shape."""
    size = 1
    for mask in masks:
        size *= max(1, mask.bit_count())
    found = columns._exact(coefs, masks, carries, links, base, size)
    return found.masks, found.carry_in, found.carry_out, found.cost


def random_column(rng: random.Random) -> tuple[Any, ...]:
    """Return a random column: coefficients, digit masks, carries, links and base."""
    base = rng.randint(2, 36)
    n = rng.randint(0, 6)
    coefs = [rng.choice([-3, -2, -1, 1, 1, 2, 3, rng.randint(-60, 60)]) for _ in range(n)]
    masks = []
    for _ in range(n):
        if rng.random() < 0.5:
            masks.append(rng.randint(1, (1 << base) - 1))
        else:  # a few digits, as late in an explanation
            masks.append(sum(1 << rng.randrange(base) for _ in range(rng.randint(1, 4))))
    top = rng.randint(1, n + 2)
    carry_in = tuple(sorted(rng.sample(range(-1, top + 1), rng.randint(1, 3))))
    carry_out = tuple(sorted(rng.sample(range(-top, top + 1), rng.randint(1, 3))))
    links = tuple(
        sorted(
            (i, rng.randrange(i), rng.randint(-base // 3, base // 3))
            for i in range(1, n)
            if rng.random() < 0.25
        )
    )
    return coefs, tuple(masks), (carry_in, carry_out), links, base


def size_of(masks: tuple[int, ...]) -> int:
    """Return the digit combinations of the masks."""
    size = 1
    for mask in masks:
        size *= mask.bit_count()
    return size


@needs_core
def test_the_c_exact_walk_agrees_with_python_on_random_columns() -> None:
    rng = random.Random(2026)
    tried = 0
    while tried < 3000:
        coefs, masks, carries, links, base = random_column(rng)
        if size_of(masks) > 20_000:
            continue
        tried += 1
        args = (coefs, masks, carries, links, base)
        assert c_exact(*args) == py_exact(*args), args


@needs_core
def test_the_c_remainder_walk_agrees_with_python_on_random_arguments() -> None:
    rng = random.Random(7)
    from alphametic.explain import _native

    for _ in range(3000):
        base = rng.randint(2, 36)
        n = rng.randint(0, 4)
        weights = tuple(rng.randint(-5, 5) for _ in range(n))
        masks = tuple(
            rng.randint(0, (1 << base) - 1) & rng.randint(0, (1 << base) - 1) for _ in range(n)
        )
        if size_of(masks) > 20_000:
            continue
        modulus = rng.randint(1, 36)
        target = rng.randrange(modulus)
        assert native.fits_mod(weights, masks, target, modulus)
        expected = remainders._mod_walk(weights, masks, target, modulus)
        assert _native.mod_support(weights, masks, target, modulus) == expected


@needs_core
def test_the_c_walks_agree_on_every_look_of_the_explain_corpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looks: list[tuple[Any, ...]] = []
    mods: list[tuple[Any, ...]] = []
    exact, mod_walk = columns._exact, remainders._mod_walk

    def record(*args: Any) -> columns.ColumnResult:
        looks.append(args)
        return exact(*args)

    def record_mod(*args: Any) -> tuple[int, ...] | None:
        mods.append(args)
        return mod_walk(*args)

    monkeypatch.setattr(columns, "_exact", record)
    monkeypatch.setattr(remainders, "_mod_walk", record_mod)
    with on("python"):
        for text in texts():
            explain(parse(text), count_nodes=COUNT_NODES)
    monkeypatch.undo()
    assert len(looks) > 1000 and mods
    from alphametic.explain import _native

    for coefs, masks, carries, links, base, _ in looks:
        args = (coefs, masks, carries, links, base)
        assert c_exact(*args) == py_exact(*args), args
    for weights, masks, target, modulus in mods:
        assert native.fits_mod(weights, masks, target, modulus)
        found = _native.mod_support(weights, masks, target, modulus)
        assert found == mod_walk(weights, masks, target, modulus)


@needs_core
def test_explanations_are_the_same_with_and_without_the_c_walks() -> None:
    puzzles = [parse(text) for text in texts()]
    with on("python"):
        plain = [shape(explain(p, count_nodes=COUNT_NODES)) for p in puzzles]
    with on("native"):
        fast = [shape(explain(p, count_nodes=COUNT_NODES)) for p in puzzles]
    for text, a, b in zip(texts(), plain, fast, strict=True):
        assert a == b, text


def test_remembered_looks_change_no_explanation() -> None:
    # The second pass finds every look remembered; the clock must run as on the first.
    puzzles = [parse(text) for text in COMPOSED]
    with on("python"):
        first = [shape(explain(p, count_nodes=COUNT_NODES)) for p in puzzles]
        second = [shape(explain(p, count_nodes=COUNT_NODES)) for p in puzzles]
        assert columns._look.cache_info().hits > 0
    assert first == second


def test_inputs_outside_the_core_run_in_python() -> None:
    column = ([1] * 65, (1,) * 65, ((0,), (0,)), (), 10)
    assert not native.fits_exact(*column)
    assert not native.fits_exact([1], (1 << 64,), ((0,), (0,)), (), 10)
    assert not native.fits_exact([1], (1,), ((0, 0), (0,)), (), 10)  # carries must be distinct
    assert not native.fits_exact([1, 1], (1, 2), ((0,), (0,)), ((2, 1, 1),), 10)
    assert not native.fits_exact([1 << 41], (1,), ((0,), (0,)), (), 10)
    assert not native.fits_mod([1], (1,), 0, 0)
    with on("native" if is_built() else "python"):
        assert native.exact(*column) is None


def test_without_the_explain_core_everything_runs_on_python_and_says_so() -> None:
    # Only the explanations' core missing (a half-built install): "native" means every core.
    cli = without_core("alphametic.explain._native")
    out = cli("['--version']")
    assert out.returncode == 0 and out.stdout.strip().endswith("(native core not built))")
    refused = cli("['solve', 'SEND + MORE = MONEY']", **{ENV: "native"})
    assert refused.returncode == 2 and "alphametic.explain._native" in refused.stderr
