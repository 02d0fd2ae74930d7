"""Clients take turns in each band of lanes, without workers: where each message goes.

A job's lane is its band's first plus how many jobs its client already has waiting in the band
(jobstore/lanes.py, turn.lua); before, every small job went to the one first lane, first in
first out across clients.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import redis

from jobstore import JobStore, Mode, Settings
from jobstore.attempt import Attempt
from jobstore.handle import Handle
from jobstore.model import BIG, TURNS

SMALL = [("SEND + MORE = MONEY", {"base": base}) for base in range(10, 20)]


@pytest.fixture()
def quiet(fresh_settings: Callable[..., Settings], store_factory: Any) -> JobStore:
    """A store on a database no worker consumes: submitted jobs stay queued."""
    store: JobStore = store_factory(fresh_settings(), wait_leftovers=False)
    return store


def raw(store: JobStore) -> redis.Redis:
    """A decoded client on the store's database."""
    return redis.Redis.from_url(store.settings.redis_url, decode_responses=True)


def message_lane(store: JobStore, job_id: str) -> tuple[int, int]:
    """(the record's lane, the priority its message tells kombu) of a queued job."""
    lane, message = raw(store).hmget(store.keys.job(job_id), "lane", "message")
    return int(lane or -1), int(json.loads(message or "{}")["properties"]["priority"])


def test_each_clients_first_waiting_job_goes_ahead_of_every_clients_second(
    quiet: JobStore,
) -> None:
    """One client's four small jobs take the first band's lanes 0, 1, 2, 2; another client's
    first job goes to lane 0, second in the queue (behind only the first client's first)."""
    many = [quiet.submit("solve", *SMALL[i], client="many") for i in range(4)]
    assert [job.lane for job in many] == [0, 1, 2, 2]
    other = quiet.submit("solve", *SMALL[4], client="other")
    assert other.lane == 0 and other.queue_position == 2
    later = quiet.get(many[1].id)
    assert later is not None and later.queue_position == 3
    # kombu's restore of an unacked message sends it back by its priority: the same lane.
    assert [message_lane(quiet, job.id) for job in (*many, other)] == [
        (0, 0), (1, 1), (2, 2), (2, 2), (0, 0)
    ]  # fmt: skip
    lists = [raw(quiet).llen(quiet.keys.lane(Mode.SOLVE, lane)) for lane in range(4)]
    assert lists == [2, 1, 2, 0]


def test_a_job_no_longer_waiting_leaves_its_clients_count(quiet: JobStore) -> None:
    """A canceled job, or one a worker claimed, no longer counts towards its client's turn."""
    first, second = (quiet.submit("solve", *SMALL[i], client="c") for i in range(2))
    assert (first.lane, second.lane) == (0, 1)
    quiet.cancel(first.id)
    assert quiet.submit("solve", *SMALL[2], client="c").lane == 1  # only the second waits
    Attempt(Handle.of(raw(quiet), quiet.settings), second.id).claim("test|x|1", mode=Mode.SOLVE)
    assert quiet.submit("solve", *SMALL[3], client="c").lane == 1  # only the third waits


def test_yields_take_their_clients_turn_and_a_misjudged_client_waits_one_more(
    quiet: JobStore,
) -> None:
    """Runs that yield go to the TURNS band by their client's turn there; a yield out of the
    first band (misjudged small) sends that client's next small job to the BIG band, a turn
    back; a stopping worker's job goes back to the front of its own lane."""
    client = raw(quiet)
    jobs = [quiet.submit("solve", *SMALL[i], client="m") for i in range(3)]
    lanes = []
    for job in jobs[:2]:
        attempt = Attempt(Handle.of(client, quiet.settings), job.id)
        assert attempt.claim("test|x|1", mode=Mode.SOLVE).status == "run"
        assert attempt.put_back(
            Mode.SOLVE, TURNS, front=False, reason="yielded", client="m", misjudged=True
        )
        lanes.append(message_lane(quiet, job.id))
    # The second: one of its client's waiting there, and one turn more (misjudged).
    assert lanes == [(TURNS, TURNS), (TURNS + 2, TURNS + 2)]
    assert quiet.submit("solve", *SMALL[5], client="fresh").lane == 0
    # m's next small job: to the big jobs' band, a turn back (none of m's waits there yet).
    assert quiet.submit("solve", *SMALL[6], client="m").lane == BIG + 1
    stopping = Attempt(Handle.of(client, quiet.settings), jobs[2].id)
    assert stopping.claim("test|x|1", mode=Mode.SOLVE).status == "run"
    assert stopping.put_back(Mode.SOLVE, 0, front=True, reason="stopped", client="m")
    assert message_lane(quiet, jobs[2].id) == (0, 0)
    # Workers pop from the right: the stopped job's message is the next one taken there.
    nxt = json.loads(client.lindex(quiet.keys.lane(Mode.SOLVE, 0), -1) or "{}")
    assert nxt == json.loads(client.hget(quiet.keys.job(jobs[2].id), "message") or "{}")
