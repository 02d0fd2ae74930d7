"""Estimates are bounded in total (issue 32, part 6): a process works out at most
ALPHAMETIC_MAX_ESTIMATES at once and refuses the rest at once, 429 `busy` with a Retry-After
worked out from the durations it measured. The storm over real HTTP: test_estimate_storm.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from jobstore import Settings
from tests.support.web import as_client, assert_problem, make_app
from web.slots import Saturated, Slots

QUERY = {"puzzle": "SEND + MORE = MONEY"}


def test_an_estimate_beyond_the_cap_is_busy_at_once(
    fresh_settings: Callable[..., Settings],
) -> None:
    app = make_app(fresh_settings(), MAX_ESTIMATES=1)
    client = as_client(app, "10.0.1.1")
    with app.extensions["alphametic.estimate_slots"].hold():  # another client's estimate
        started = time.monotonic()
        refused = client.get("/api/estimate", query_string=QUERY)
        assert time.monotonic() - started < 5
    body = assert_problem(refused, 429)
    assert body["code"] == "busy" and int(refused.headers["Retry-After"]) >= 1, body
    # Once it has ended the client's next one is worked out (the refusal held nothing).
    assert client.get("/api/estimate", query_string=QUERY).status_code == 200
    app.extensions["alphametic.store"].close()


def test_retry_after_is_the_measured_time_left() -> None:
    """Before any run the expected duration is the one given; after, what was measured."""
    first = refusal(Slots("estimate", 1, expected=0.3))
    assert first.retry_after == 1 and first.expected <= 0.3
    measured = Slots("estimate", 1, expected=0.3)
    with measured.hold():
        time.sleep(1.2)  # one run measured at 1.2 s
    typical = measured.typical()
    assert 1.2 <= typical < 2
    refused = refusal(measured)
    assert 0.7 < refused.expected <= typical and refused.retry_after == 2


def refusal(slots: Slots) -> Saturated:
    """What a run is told while another one has just started."""
    started, release = threading.Event(), threading.Event()

    def run() -> None:
        with slots.hold():
            started.set()
            release.wait(30)

    runner = threading.Thread(target=run)
    runner.start()
    try:
        assert started.wait(30)
        with pytest.raises(Saturated) as refused, slots.hold():
            pass
    finally:
        release.set()
        runner.join(30)
    return refused.value
