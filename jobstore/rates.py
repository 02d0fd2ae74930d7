"""Per-client rates of job-creating requests, counted in Redis by the submit scripts.

The counting itself is Lua (lua_scripts/rate.lua, shared by create and count), so a valid
submission is counted, deduplicated, capped, recorded and queued in one round trip; the web
front end turns ALPHAMETIC_RATE_LIMIT into Rates and RateLimited into 429 answers.
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


class RateLimited(Exception):
    """The client sent more job-creating requests than one of its Rates allows."""

    def __init__(self, rates: Sequence[Rate], retry_after: int) -> None:
        """Keep the limit (as words) and the seconds until its window resets."""
        self.rate = " and ".join(rate.text for rate in rates)
        self.retry_after = max(1, retry_after)
        super().__init__(
            f"Too many jobs created; the limit is {self.rate} per client. "
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
    """The client's counter for each rate window."""
    keys = Keys(prefix)
    return [keys.rate(client, rate.amount, rate.seconds) for rate in rates]


def rate_args(rates: Sequence[Rate]) -> list[int]:
    """amount, seconds of each rate, flattened for the scripts."""
    return [value for rate in rates for value in (rate.amount, rate.seconds)]
