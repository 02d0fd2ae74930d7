"""Which priority lane a job's message goes to, and which lanes make a run yield.

Workers always take from the lowest-numbered non-empty lane of their queue (kombu's priority
steps on Redis, all ten). The lanes form three bands (model.BANDS): a job whose whole search is
small goes to FIRST's, ahead of anything big; a big one to BIG's; shards and runs that yielded
take turns in TURNS' (dispatch.lua, putback.lua). Within a band clients take turns: a job goes
to the band's first lane plus how many jobs its client already has waiting in the band (up to
the band's last lane), so every client's first waiting job is ahead of every client's second,
and one client's pile of jobs never stands in front of another client's new one (turn.lua).

A run is placed by the search time it uses, not by its estimate alone: it yields its worker
(and resumes later from its checkpoint) as soon as a job waits in an earlier band, after a time
slice when any job waits, and a job of the FIRST band still searching after SMALL_SECONDS was
misjudged small: it yields to the others of FIRST and goes to TURNS, and for MISJUDGED_MEMORY
seconds its client's next jobs go to BIG's band even when estimated small, one turn further
back there (JobStore.submit, turn.lua): a client's stream of misjudged jobs cannot keep the
FIRST band full, ahead of everyone's big jobs. So a small job from a client with nothing else
waiting waits at most for the run on its worker to reach SMALL_SECONDS and one SMALL_SECONDS
per other client's first waiting job of the FIRST band (README, "Taking turns").
"""

from __future__ import annotations

import alphametic

from .keys import Keys
from .model import BANDS, BIG, FIRST, LANES, Mode, band_of

# A run in FIRST still searching after this long was misjudged small (the estimate samples a
# few paths; a product of long words can hide its size from them): it yields to the small
# jobs waiting, and waits its turns with the big ones from then on.
SMALL_SECONDS = 0.25
# How long a client whose job was misjudged small has its next jobs go to BIG's band.
MISJUDGED_MEMORY = 60


def sized(puzzle: alphametic.Puzzle, small: float, listing: bool) -> tuple[bool, float | None]:
    """A new job's size, worked out once when it is admitted and kept with it: whether its
    search is small (at most `small` reference nodes, Settings.small_search: its band is
    FIRST's), and its estimate (alphametic.estimate, 4 probes) when one was worked out whole,
    which the worker's pieces and shards start from (None: the worker works it out).

    A listing (an enumeration) pays for every solution it hands out too: a sum of 790,272
    solutions whose count takes 50 ms on the native core is seconds of work as a job.
    """
    if alphametic.assignments(puzzle, small) <= small:
        return True, None  # even every assignment of distinct digits is a small search
    nodes = alphametic.estimate(puzzle, probes=4, limit=small, listing=listing)
    # A step search's sample stops past the limit (cheap, but then not the whole estimate).
    return nodes <= small, nodes if puzzle.is_linear or nodes <= small else None


def lane_for(puzzle: alphametic.Puzzle, small: float, listing: bool = False) -> int:
    """The band of a new job (its first lane): FIRST when its search is small, else BIG."""
    return FIRST if sized(puzzle, small, listing)[0] else BIG


def turn_keys(keys: Keys, mode: Mode, lane: int, client: str, *, own: bool = False) -> list[str]:
    """take_turn's keys (turn.lua) for a job joining lane's band: the client's set there, its
    misjudged flag, the band's lane lists and waiting sets (own: the lane's alone)."""
    band = (lane,) if own else band_of(lane)
    lists = [keys.lane(mode, each) for each in band]
    waiting = [keys.waiting(mode, each) for each in band]
    return [keys.turns(mode, band_of(lane)[0], client), keys.misjudged(client), *lists, *waiting]


def yielding_lanes(lane: int, searched: float, time_slice: float) -> int:
    """How many lanes, from the first, hold jobs this run should yield its worker to."""
    band = band_of(lane)
    if searched >= time_slice:
        return len(LANES)
    if band[0] == FIRST and searched >= SMALL_SECONDS:
        return len(BANDS[0])  # not small after all: small jobs go first
    return LANES.index(band[0])  # every lane of an earlier band


def misjudged(lane: int, stopping: bool) -> bool:
    """Whether a run handed back from this lane was misjudged small (it yielded from FIRST)."""
    return not stopping and band_of(lane)[0] == FIRST
