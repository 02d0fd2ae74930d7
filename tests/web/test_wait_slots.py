"""Wait slots are shared per client (issue 32, part 4): a client holds at most its share of
this process's long-poll slots (an IPv6 client is its /64), and status reads count against a
rate of their own. The hang-up and attack cases over real HTTP: test_wait_attack.py."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest
from flask import Flask

from tests.support.web import as_client, assert_problem
from web.clients import client_of
from web.waiting import WaitSlots

SLOW = 30.0  # seconds: far more than an answer at once takes, far less than the wait asked


def timed_wait(app: Flask, address: str, wait: float) -> float:
    """Seconds a POST ?wait= from this address took (its job stays queued)."""
    started = time.monotonic()
    response = as_client(app, address).post(f"/api/jobs?wait={wait:g}", json={"puzzle": "A = B"})
    assert response.status_code == 202 and response.get_json()["state"] == "queued"
    return time.monotonic() - started


def test_slots_are_capped_in_all_and_per_client() -> None:
    slots = WaitSlots(total=3, per_client=2)
    with contextlib.ExitStack() as held:
        assert held.enter_context(slots.hold("a")) and held.enter_context(slots.hold("a"))
        assert not held.enter_context(slots.hold("a"))  # a's share is taken
        assert held.enter_context(slots.hold("b"))
        assert not held.enter_context(slots.hold("c"))  # every slot is taken
        assert slots.held() == 3
    assert slots.held() == 0  # all given back


@pytest.mark.parametrize(
    ("holder", "same", "other"),
    [
        ("10.0.0.5", "10.0.0.5", "10.0.0.6"),
        # One IPv6 client is its /64: another address in it is the same client.
        ("2001:db8::1", "2001:db8::ffff:1", "2001:db8:0:1::1"),
    ],
)
def test_a_client_past_its_share_is_answered_at_once_others_wait(
    idle_app: Callable[..., Flask], holder: str, same: str, other: str
) -> None:
    app = idle_app(MAX_WAITERS=8, CLIENT_WAITERS=1)
    with app.extensions["alphametic.wait_slots"].hold(client_of(holder)) as free:
        assert free
        assert timed_wait(app, same, 30) < SLOW  # no slot for this client: at once
        assert timed_wait(app, other, 0.5) >= 0.5  # another client's wait runs its course


def test_clients_of_addresses() -> None:
    assert client_of("192.0.2.7") == "192.0.2.7"
    assert client_of("2001:db8:1:2:3:4:5:6") == client_of("2001:db8:1:2::9") == "2001:db8:1:2::/64"
    assert client_of("::ffff:192.0.2.7") == "192.0.2.7"


def test_status_reads_have_a_rate_of_their_own(idle_app: Callable[..., Flask]) -> None:
    app = idle_app(READ_RATE_LIMIT="3/minute", RATE_LIMIT="100/minute")
    client = as_client(app, "10.0.0.7")
    job = client.post("/api/jobs", json={"puzzle": "A = B"}).get_json()
    for _ in range(3):
        assert client.get(f"/api/jobs/{job['id']}").status_code == 200
    refused = client.get(f"/api/jobs/{job['id']}?wait=5")
    body = assert_problem(refused, 429)
    assert body["code"] == "rate_limited" and "status reads" in body["detail"], body
    assert int(refused.headers["Retry-After"]) >= 1
    # Submits count on their own counters, and other clients read on.
    assert client.post("/api/jobs", json={"puzzle": "A = C"}).status_code == 202
    assert as_client(app, "10.0.0.8").get(f"/api/jobs/{job['id']}").status_code == 200
