"""What the victim of an attack does while it is timed: small solves, one after the other,
each in a base of its own (so none is answered from an earlier job), timed to their answer.
Shared by the attack helpers (tests/support/estimating.py, tests/support/hangups.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from tests.support.loopback import session

TIMEOUT = 60.0  # seconds any one request may take


class SolveFigures(Protocol):
    """Where the solves' seconds and states, and the errors, are written (under `lock`)."""

    solves: list[tuple[float, str]]
    errors: list[str]
    lock: threading.Lock


def small_solves(
    source: str,
    url: str,
    figures: SolveFigures,
    going: Callable[[], bool],
    pause: Callable[[], object],
) -> None:
    """`source`'s small solves (`POST ?wait=30` of TO + GO = OUT), a base each, while going()."""
    with session(source) as http:
        for base in range(10, 37):
            if not going():
                return
            body: dict[str, Any] = {"puzzle": "TO + GO = OUT", "options": {"base": base}}
            started = time.perf_counter()
            try:
                answer = http.post(f"{url}/api/jobs?wait=30", json=body, timeout=TIMEOUT)
                state = str(answer.json().get("state", answer.status_code))
            except (OSError, ValueError) as error:
                figures.errors.append(f"solve: {error!r}")
                continue
            with figures.lock:
                figures.solves.append((time.perf_counter() - started, state))
            pause()
