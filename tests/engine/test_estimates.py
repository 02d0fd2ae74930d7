"""The engine's size estimate against the real search: nodes, on puzzles quick to count.

Node counts do not depend on how fast the machine is, so the bound is exact and the test
deterministic; bench/estimates.py measures the estimate of seconds on longer searches.
"""

from __future__ import annotations

import pytest

from alphametic import Search, estimate, parse, seconds, size
from alphametic.search import NODES_PER_SECOND

# (puzzle, base): products, a system and sums (symmetric ones, whose count memoises, too),
# each counted in well under a second.
QUICK = [
    ("NORTH * WEST = EAST * SOUTH", 10),
    ("TWO * SIX = TWELVE", 12),
    ("ABCD * EF = GHIJK", 12),
    ("ABC * DE = FGHIJ", 14),
    ("AB * CD = EFG; EFG + HI = JKL", 12),
    ("A + B + C + D = E + F + G + H", 11),
    ("ABCD + EFGH = IJKLM", 13),
    ("ABC + DEF = GHI", 14),
    ("SEND + MORE + GOLD = MONEY", 16),
    ("CP + IS + FUN = TRUE", 24),
]


@pytest.mark.parametrize(("text", "base"), QUICK)
def test_estimated_nodes_are_within_3x_of_a_full_count(text: str, base: int) -> None:
    puzzle = parse(text, base=base)
    guess = size(puzzle).nodes
    search = Search(puzzle)
    search.count()
    assert search.nodes / 3 <= guess <= search.nodes * 3, (guess, search.nodes)


def test_the_estimate_is_deterministic_and_seconds_follow_it() -> None:
    puzzle = parse("TWO * SIX = TWELVE", base=12)
    assert size(puzzle) == size(puzzle)
    bigger = parse("TWO * SIX = TWELVE", base=16)
    assert 0 < seconds(puzzle) < seconds(bigger)
    # estimate() is the same figure on the scale of the service's node thresholds.
    assert estimate(bigger) == seconds(bigger) * NODES_PER_SECOND
    # A listing hands out every solution as well: never cheaper than the count.
    assert seconds(bigger, enumerate=True) >= seconds(bigger)


@pytest.mark.parametrize(("text", "base"), [*QUICK, ("ABCDE * FGHIJ = KLMNOPQRST", 36)])
@pytest.mark.parametrize("limit", [3e4, 3e5, 3e6])
def test_a_limit_only_cuts_short_what_is_over_it(text: str, base: int, limit: float) -> None:
    """estimate(limit=) tells over from under exactly as the full estimate does, and says
    the full figure whenever that is under the limit (the lanes ask it "is this small?")."""
    puzzle = parse(text, base=base)
    full, cut = estimate(puzzle, probes=4), estimate(puzzle, probes=4, limit=limit)
    assert (cut > limit) == (full > limit), (full, cut)
    if full <= limit:
        assert cut == full
