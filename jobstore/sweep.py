"""The heartbeat's sweeps: re-queue jobs whose worker died, send again messages gone astray.

A running job whose lease (renewed with every progress write) has expired lost its worker, so
reap() sends it to its queue again at once, instead of waiting for the broker's visibility
timeout; so does one whose holder is a process of the sweeping machine that no longer exists
(a worker killed whole, or its pool process killed mid-job): the worker says which processes
are dead (worker/holder.py). The claim script then starts a new attempt and the old one,
should it still be alive, is stale and can no longer write. resend_lost() sends again the
message of a job queued a while whose message left its queue without a run (see there),
counting one sent before a failover (master_since) like one sent before a restart. When in
doubt a sweep sends a job again and never ends it: only a purge, which names the messages it
deletes, cancels jobs.
Each worker's heartbeat thread runs both (worker/heartbeat.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from . import transitions
from .handle import Handle
from .messages import task_message
from .model import Mode
from .shards import finish, parent_of, stop
from .transitions import Resent
from .workers import silent_after

# The logger these lines always had: the heartbeat thread runs the sweeps (JSON logs name it).
log = logging.getLogger("worker.heartbeat")

# Whether a holder ("{host}|{pid}|...") is a process of this machine that no longer exists.
IsDead = Callable[[str], bool]


def reap(handle: Handle, is_dead: IsDead, limit: int = 50) -> list[str]:
    """Re-queue running jobs whose lease expired or whose holder died here; returns their ids."""
    client, keys, settings = handle.client, handle.keys, handle.settings
    now = time.time()
    renewed = now + settings.lease_seconds
    expired = client.zrangebyscore(keys.leases, "-inf", now, 0, limit)
    candidates = [(job_id, "") for job_id in expired]
    candidates += dead_holders(handle, is_dead, limit)
    requeued = []
    for job_id, dead in candidates:
        found = message_for(handle, job_id)
        if found is None:
            client.zrem(keys.leases, job_id)
            continue
        _mode, lane_key, waiting, message = found
        reap = transitions.Reap(keys, job_id, now, renewed, dead, message, lane_key, waiting)
        if handle.scripts.call(reap):
            why = f"its holder {dead} is dead" if dead else "lease expired"
            log.warning("job %s lost its worker (%s): re-queued", job_id, why)
            requeued.append(job_id)
    return requeued


def resend_lost(handle: Handle, limit: int = 100) -> list[str]:
    """Send again the messages of jobs queued a while whose queue is empty; their ids.

    A message popped by a worker whose connection then dropped (a Redis restart) is parked
    unacknowledged until the broker's visibility timeout (40 min by default). With prefetch
    disabled a worker pops a message only to run it at once, so a job still queued two
    heartbeats after its message went out, with nothing left in its queue and its message
    parked, lost it: it is sent again (a needless re-send costs only a refused duplicate
    delivery). A message an operator's `celery purge` deleted is named in the broker's purged
    hash (worker/broker.py): its job ends canceled "purged". A message found nowhere else went
    with a worker lost since it popped it (its link cut while it waited in its pop, or killed,
    maybe to start again under the same name, so its heartbeats prove nothing): once missing
    for missing_for() seconds, it is sent again (resend.lua).
    """
    client, keys, settings = handle.client, handle.keys, handle.settings
    now = time.time()
    cutoff = now - max(2.0, 2 * settings.heartbeat_interval)
    # A message sent before Redis last started, or before this server became master (a
    # failover), may have been popped by a reply lost on the way: such a job is sent again at
    # once (resend.lua).
    info = client.info()
    started = now - int(info.get("uptime_in_seconds", 0)) + 1
    started = max(started, master_since(handle, str(info.get("master_replid", "")), now))
    resent = []
    for job_id in client.zrangebyscore(keys.queued, "-inf", cutoff, 0, limit):
        found = message_for(handle, job_id)
        if found is None:
            client.zrem(keys.queued, job_id)
            continue
        mode, lane_key, _waiting, message = found
        resend = transitions.Resend(
            keys, job_id, mode, lane_key, now, cutoff, settings.ttl, message, started,
            missing_for(settings.heartbeat_interval),
        )  # fmt: skip
        outcome = Resent(handle.scripts.call(resend))
        if outcome is Resent.SENT:
            log.warning("job %s queued but its queue is empty: message sent again", job_id)
            resent.append(job_id)
        elif outcome is Resent.PURGED:
            log.warning("job %s: a purge deleted its message: canceled", job_id)
        elif outcome is Resent.SHARD_PURGED:
            parent = parent_of(job_id)
            if parent is not None:
                log.warning("job %s: a purge deleted a shard's message: canceled", parent)
                stop(handle, parent, user=True)
                finish(handle, parent)
    return resent


def missing_for(interval: float) -> float:
    """Seconds a message may be nowhere before it is sent again: as long as a worker takes to
    count as gone (jobstore/workers.py); one that popped it has parked or claimed it by then."""
    return silent_after(interval)


def master_since(handle: Handle, replid: str, now: float) -> float:
    """When the server answering became the master it is, as the sweeps first saw it (0: it
    is the first one they knew). A promoted replica takes a new replication id: one not seen
    before, while others were, is a failover, dated by the first sweep that saw it."""
    if not replid:
        return 0.0
    client, key = handle.client, handle.keys.masters
    with client.pipeline(transaction=False) as pipe:
        pipe.hget(key, replid)
        pipe.expire(key, handle.settings.ttl)
        seen, _ = pipe.execute()
    if seen is None:
        seen = repr(now) if client.hlen(key) else "0"
        if not client.hsetnx(key, replid, seen):
            seen = client.hget(key, replid) or seen
        client.expire(key, handle.settings.ttl)
        if seen != "0":
            log.warning("redis: a new master (replication id %s): a failover", replid[:8])
    return float(seen)


def message_for(handle: Handle, job_id: str) -> tuple[Mode, str, str, str] | None:
    """(mode, lane list, its waiting set, a new task message) for sending a job again, or None
    when it is gone."""
    keys = handle.keys
    mode, lane = handle.client.hmget(keys.job(job_id), "mode", "lane")
    if mode is None:
        return None
    lane_no = int(lane or 0)
    message = task_message(Mode(mode), job_id, handle.settings.ttl, lane_no)
    return Mode(mode), keys.lane(Mode(mode), lane_no), keys.waiting(Mode(mode), lane_no), message


def dead_holders(handle: Handle, is_dead: IsDead, limit: int) -> list[tuple[str, str]]:
    """(job id, holder) of leased jobs held by a process of this machine that no longer exists.

    A whole worker killed on this machine is then noticed within one heartbeat interval
    instead of one lease; holders on other machines are left to their lease.
    """
    client, keys = handle.client, handle.keys
    job_ids = client.zrange(keys.leases, 0, limit - 1)
    with client.pipeline(transaction=False) as pipe:
        for job_id in job_ids:
            pipe.hget(keys.job(job_id), "holder")
        holders = pipe.execute()
    return [(j, h) for j, h in zip(job_ids, holders, strict=True) if h and is_dead(h)]
