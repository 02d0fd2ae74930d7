"""Which priority lane a new job's message goes to, and which lanes make a run yield.

Workers always take from the lowest-numbered non-empty lane of their queue (kombu's priority
steps on Redis). A job whose whole search is small goes to FIRST, ahead of anything big; a big
one to BIG; shards and runs that yielded take turns in TURNS (dispatch.lua, putback.lua). A
running job yields its worker (and resumes later from its checkpoint) as soon as a job waits
in a lane before its own, and after a time slice when any job waits (a job in FIRST that runs
past SMALL_SECONDS yields to the others in FIRST): so a small job never waits for a long one to
end, even one misjudged small, and big jobs progress at comparable rates.
"""

from __future__ import annotations

import alphametic

from .model import BIG, FIRST, LANES, TURNS

# A search of at most this many nodes (~0.1 s) counts as small.
SMALL_NODES = 3e5
# A run in FIRST still searching after this long was misjudged small (the estimate samples a
# few paths; a product of long words can hide its size from them): it yields to the small
# jobs waiting, and waits its turns with the big ones from then on.
SMALL_SECONDS = 0.25


def lane_for(puzzle: alphametic.Puzzle) -> int:
    """The lane of a new job: FIRST when its search is small, else BIG."""
    assignments, product = 1, 1
    for k in range(len(puzzle.letters)):
        product *= puzzle.base - k
        assignments += product
        if assignments > SMALL_NODES:
            break
    if assignments <= SMALL_NODES:
        return FIRST  # even every assignment of distinct digits is a small search
    return FIRST if alphametic.estimate(puzzle, probes=4) <= SMALL_NODES else BIG


def yielding_lanes(lane: int, searched: float, time_slice: float) -> int:
    """How many lanes, from the first, hold jobs this run should yield its worker to."""
    before = LANES.index(lane) if lane in LANES else len(LANES)
    if searched >= time_slice:
        return max(before, LANES.index(TURNS) + 1)
    if lane == FIRST and searched >= SMALL_SECONDS:
        return LANES.index(FIRST) + 1  # not small after all: small jobs go first
    return before
