"""A cap on CPU-heavy work running at once in this process (estimates): the work beyond it is
refused at once (429 `busy`) with an honest Retry-After, the time the first running one is
expected to take still, from the durations this process measured of the last ones.

The work runs in the process itself (web.offload): two estimates at once take no less time than
one after the other, but each one more takes the interpreter from /healthz and the long polls.
"""

from __future__ import annotations

import itertools
import math
import statistics
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app

HISTORY = 16  # measured durations a Retry-After is worked out from (the latest ones)


class Saturated(Exception):
    """Every slot of this process for the work is taken: retry after `retry_after` seconds."""

    def __init__(self, what: str, retry_after: float) -> None:
        """Keep what is saturated and the expected seconds until a slot frees."""
        self.what = what
        self.expected = retry_after
        self.retry_after = max(1, math.ceil(retry_after))  # whole seconds, as the header says
        super().__init__(f"This server is working out as many {what}s as it can at once.")


class Slots:
    """At most `total` runs of one kind of work at once in this process (0: no cap)."""

    def __init__(self, what: str, total: int, expected: float) -> None:
        """`expected`: the seconds one run takes, until runs have been measured."""
        self.what = what
        self.total = total
        self._expected = expected
        self._lock = threading.Lock()
        self._running: dict[int, float] = {}  # run -> when it started (monotonic)
        self._durations: deque[float] = deque(maxlen=HISTORY)
        self._runs = itertools.count()

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Run the block in a slot, measured; Saturated at once when none is free."""
        with self._lock:
            now = time.monotonic()
            if 0 < self.total <= len(self._running):
                raise Saturated(self.what, self._left(now))
            run = next(self._runs)
            self._running[run] = now
        try:
            yield
        finally:
            with self._lock:
                started = self._running.pop(run)
                self._durations.append(time.monotonic() - started)

    def typical(self) -> float:
        """The seconds one run takes: the median of the last ones measured."""
        with self._lock:
            return self._typical()

    def _typical(self) -> float:
        """typical(), under the lock."""
        return statistics.median(self._durations) if self._durations else self._expected

    def _left(self, now: float) -> float:
        """Seconds until the first running run is expected to end (under the lock)."""
        typical = self._typical()
        return min(
            (max(0.0, typical - (now - started)) for started in self._running.values()), default=0.0
        )


def estimate_slots() -> Slots:
    """This process's slots for estimates (ALPHAMETIC_MAX_ESTIMATES)."""
    slots: Slots = current_app.extensions["alphametic.estimate_slots"]
    return slots
