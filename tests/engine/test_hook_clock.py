"""Every job mode's engine entry asks its stop hook on a clock, whatever it finds: on inputs
whose every candidate is pruned (no solution, no result) the hook still comes at most GAP
apart, from the start to the end of the run (a cancel or a stop must get through at once)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alphametic import Search, parse
from alphametic.compose import Tally, compose

# The most wall time allowed between two asks of the hook (the engine asks every 10 ms; the
# machine running the tests is shared and loaded, so the bound is generous).
GAP = 0.05
# Each run is stopped by its hook after this long (or ends earlier).
RUN = 0.3


@pytest.fixture(autouse=True)
def no_collector() -> Iterator[None]:
    """The engine's loops are measured, not the cycle collector's pauses: a full collection
    over a big search's objects takes 50-100 ms wherever it strikes (it is off meanwhile)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Clock:
    """A stop hook that notes when it is asked, and says stop after RUN seconds."""

    def __init__(self) -> None:
        """Start the clock."""
        self.stamps = [time.perf_counter()]

    def __call__(self, *_: object) -> bool:
        """Note the ask; stop once RUN has passed."""
        self.stamps.append(time.perf_counter())
        return self.stamps[-1] - self.stamps[0] > RUN

    def widest(self) -> float:
        """The widest gap between two asks, the start and the end of the run included."""
        stamps = [*self.stamps, time.perf_counter()]
        return max(b - a for a, b in zip(stamps, stamps[1:], strict=False))


@st.composite
def pruned_lists(draw: st.DrawFn) -> tuple[list[str], int, int]:
    """A word list, a base and a count of addends whose every sum is pruned: words of one
    length L >= 2 (none may start with 0), at least `base` addends, so every sum has more
    than L digits and no word of the list can be its result."""
    base = draw(st.integers(2, 10))
    addends = draw(st.integers(base, 10))
    length = draw(st.integers(2, 4))
    alphabet = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    word = st.lists(alphabet, min_size=length, max_size=length).map("".join)
    words = draw(st.lists(word, min_size=20, max_size=60, unique=True))
    return words, base, addends


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pruned_lists())
def test_compose_asks_its_hook_while_every_sum_is_pruned(
    case: tuple[list[str], int, int],
) -> None:
    words, base, addends = case
    clock, tally = Clock(), Tally()
    # Up to a second or two of sets, stopped after RUN: a walk that never asks fails.
    found = list(compose(words, addends=addends, base=base, tally=tally, stop=clock, end=200_000))
    assert found == [] and tally.searched == 0  # every candidate pruned, none searched
    assert tally.position > 0
    assert clock.widest() <= GAP


@st.composite
def long_sums(draw: st.DrawFn) -> str:
    """A sum of two long words in base 36 whose search runs a while (many letters, most of its
    tree pruned column by column)."""
    letters = draw(st.permutations("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    size = draw(st.integers(8, 12))
    first, second = "".join(letters[:size]), "".join(letters[size : 2 * size])
    result = "".join(draw(st.lists(st.sampled_from(letters), min_size=size, max_size=size + 1)))
    return f"{first} + {second} = {result}"


ENTRIES: dict[str, Callable[[Search], object]] = {
    "solve": lambda search: next(search.solutions(), None),
    "enumerate": lambda search: sum(1 for _ in search.solutions()),
    "count": lambda search: search.count(),
}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_sums(), st.sampled_from(sorted(ENTRIES)))
def test_searches_ask_their_hook_on_a_clock(text: str, mode: str) -> None:
    clock = Clock()
    search = Search(parse(text, base=36), check=clock)
    ENTRIES[mode](search)
    assert clock.widest() <= GAP


def test_a_candidate_with_a_long_count_asks_the_hook_as_it_is_searched() -> None:
    """A base-36 candidate whose column count takes minutes (its letters have ~10^15 ways to
    take distinct digits) is searched by the engine, which asks the hook as it goes: the run
    ends within GAP of its RUN whatever the candidate costs."""
    clock = Clock()
    words = ["TQKSA", "CZVX", "ODIKML"]
    started = time.perf_counter()
    list(compose(words, base=36, stop=clock))
    assert time.perf_counter() - started < RUN + 5 * GAP
    assert clock.widest() <= GAP


def test_heavy_candidates_are_decided_as_the_columns_decide_them() -> None:
    """Sending many-lettered candidates to the search engine changes no result: a list composed
    with every candidate heavy gives the sums and solutions the columns give."""
    import alphametic.compose as composer

    words = "send more money to go out one two ten net sun fun run".split()
    columns = [(c.puzzle.text, c.solutions) for c in compose(words, addends=2)]
    heavy, composer.HEAVY = composer.HEAVY, 0
    try:
        searched = [(c.puzzle.text, c.solutions) for c in compose(words, addends=2)]
    finally:
        composer.HEAVY = heavy
    assert searched == columns
    assert columns  # the list does compose
