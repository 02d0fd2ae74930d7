"""Per-client rates of requests, counted in Redis: job-creating ones by the submit scripts,
status reads on their own.

The counting itself is Lua (lua_scripts/rate.lua, shared by create and count), so a valid
submission is counted, deduplicated, capped, recorded and queued in one round trip; the web
front end turns ALPHAMETIC_RATE_LIMIT (and ALPHAMETIC_READ_RATE_LIMIT) into Rates and
RateLimited into 429 answers. Each kind of request has counters of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .keys import Keys


@dataclass(frozen=True)
class Rate:
    """At most `amount` job-creating requests per `seconds` from one client."""

    amount: int
    seconds: int
    text: str  # as people say it, e.g. "60 per 1 minute"
    kind: str = "create"  # what it counts: a key of REQUESTS


# The kinds of requests counted, as the 429's sentence names them.
REQUESTS = {"create": "jobs created", "read": "status reads"}


class RateLimited(Exception):
    """The client sent more requests of one kind than one of its Rates allows."""

    def __init__(self, rates: Sequence[Rate], retry_after: int) -> None:
        """Keep the limit (as words), what it counts and the seconds until its window resets."""
        self.rate = " and ".join(rate.text for rate in rates)
        self.what = REQUESTS[rates[0].kind if rates else "create"]
        self.retry_after = max(1, retry_after)
        super().__init__(
            f"Too many {self.what}; the limit is {self.rate} per client. "
            f"Retry in {self.retry_after} s."
        )


class Busy(Exception):
    """The client already runs work of this kind, which it may run only one at a time."""

    def __init__(self, what: str, retry_after: int) -> None:
        """Keep what runs and the seconds after which it is over at the latest."""
        self.what = what
        self.retry_after = max(1, retry_after)
        super().__init__(f"Another {what} of this client is running; one runs at a time.")


def rate_keys(prefix: str, client: str, rates: Sequence[Rate]) -> list[str]:
    """The client's counter for each rate window (a kind other than create has its own)."""
    keys = Keys(prefix)
    return [
        keys.rate(
            client if rate.kind == "create" else f"{rate.kind}:{client}", rate.amount, rate.seconds
        )
        for rate in rates
    ]


def rate_args(rates: Sequence[Rate]) -> list[int]:
    """amount, seconds of each rate, flattened for the scripts."""
    return [value for rate in rates for value in (rate.amount, rate.seconds)]
