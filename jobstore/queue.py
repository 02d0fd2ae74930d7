"""Where a queued job stands: how many messages are ahead of its own, and when it may start.

A worker takes from the first non-empty lane of its queue, and from a lane's list the oldest
message first (kombu pushes on the left and pops on the right). A job's record keeps the text
of its current message, so its place is the lanes before its own plus its distance from the
right end of its own lane (LPOS).
"""

from __future__ import annotations

import time

from .handle import Handle
from .model import LANES, Job, Mode
from .workers import alive_since


def queued_by_store(handle: Handle, job_id: str, task_id: str) -> bool:
    """Whether an unmarked message is the one the job's record holds (a message queued before
    MARK existed, by an older release during an upgrade: it must still run its job)."""
    stored = handle.client.hget(handle.keys.job(job_id), "message")
    return bool(stored) and f'"{task_id}"' in str(stored)


def place(handle: Handle, job: Job, message: str) -> Job:
    """The job with queue_position (1: next) and expected_start filled in, when it is queued."""
    client, keys, settings = handle.client, handle.keys, handle.settings
    mode = Mode(job.mode)
    mine = keys.lane(mode, job.lane)
    before = [keys.lane(mode, lane) for lane in LANES if lane < job.lane]
    with client.pipeline(transaction=False) as pipe:
        for lane in before:
            pipe.llen(lane)
        pipe.llen(mine)
        pipe.lpos(mine, message)
        pipe.hmget(keys.stats, f"duration:{mode.value}:sum", f"duration:{mode.value}:count")
        pipe.zcount(keys.workers(mode.queue), alive_since(settings.heartbeat_interval), "+inf")
        *ahead, length, index, (total, count), alive = pipe.execute()
    if index is None:
        return job  # taken by a worker a moment ago, or lost (the sweep sends it again)
    job.queue_position = sum(ahead) + int(length) - int(index)
    # Each message ahead takes a worker for a typical run, but no longer than a time slice.
    typical = float(total or 0) / int(count) if count else settings.time_slice
    wait = (job.queue_position - 1) * min(typical, settings.time_slice) / max(1, int(alive))
    job.expected_start = time.time() + wait
    return job
