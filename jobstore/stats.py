"""What the deployment has done, as the Lua scripts count it in one hash (stats.lua).

The hash {prefix}:stats holds counters (`submitted:{mode}`, `finished:{mode}:{state}`,
`redeliveries:{reason}`, `rejected:{reason}`: task messages a worker refused to run) and
histograms (`{name}:{label}:le:{bound}` cumulative buckets, plus `:count` and `:sum`) for job
duration and queue wait per mode and for cancel latency. Every web process reads the same
numbers; the live gauges (jobs queued and running, messages per queue, workers, Redis memory)
are read at the same moment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import redis

from .handle import Handle
from .keys import Keys
from .model import QUEUES, Mode
from .workers import count_workers

# The bucket bounds of every histogram, as stats.lua writes them (+Inf last).
BOUNDS = (
    *("0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30"),
    *("60", "300", "1800", "+Inf"),
)
HISTOGRAMS = ("duration", "queue_wait", "cancel_latency")
# The series each histogram has from the start, at zero (a rate() or histogram_quantile() over
# a series that appears only with the first event sees nothing before it, and its first
# increase is lost): every mode for the per-mode ones, the one unlabelled cancel latency.
SERIES: dict[str, tuple[str, ...]] = {
    "duration": tuple(mode.value for mode in Mode),
    "queue_wait": tuple(mode.value for mode in Mode),
    "cancel_latency": ("",),
}


@dataclass
class Histogram:
    """Cumulative bucket counts (upper bound, count), with their count and sum."""

    buckets: list[tuple[float, int]] = field(default_factory=list)
    count: int = 0
    sum: float = 0.0


def histograms(raw: dict[str, str]) -> dict[str, dict[str, Histogram]]:
    """Histogram name -> label -> Histogram, from the hash's fields."""
    out: dict[str, dict[str, Histogram]] = {name: {} for name in HISTOGRAMS}
    labels: dict[str, set[str]] = {name: set(SERIES[name]) for name in HISTOGRAMS}
    for key in raw:
        name, _, rest = key.partition(":")
        if name in labels:
            labels[name].add(rest.rsplit(":", 2)[0] if ":le:" in rest else rest.rsplit(":", 1)[0])
    for name, found in labels.items():
        for label in found:
            stem = f"{name}:{label}"
            buckets = [(math.inf if b == "+Inf" else float(b), int(raw.get(f"{stem}:le:{b}", 0)))
                       for b in BOUNDS]  # fmt: skip
            count = int(raw.get(f"{stem}:count", 0))
            out[name][label] = Histogram(buckets, count, float(raw.get(f"{stem}:sum", 0.0)))
    return out


def counters(raw: dict[str, str], kind: str) -> dict[Any, int]:
    """The counters of one kind: `submitted` by mode, `finished` by (mode, state), ..."""
    out: dict[Any, int] = {}
    for key, value in raw.items():
        name, _, rest = key.partition(":")
        if name == kind:
            label = tuple(rest.split(":")) if kind == "finished" else rest
            out[label] = int(value)
    return out


def snapshot(client: redis.Redis, prefix: str, heartbeat_interval: float) -> dict[str, Any]:
    """Every counter, histogram and live gauge of one deployment, read at one moment."""
    keys = Keys(prefix)
    with client.pipeline(transaction=False) as pipe:
        pipe.hgetall(keys.stats)
        pipe.zcard(keys.queued)
        pipe.zcard(keys.leases)
        modes = [next(m for m in Mode if m.queue == queue) for queue in QUEUES]
        for mode in modes:
            for lane in keys.lanes(mode):
                pipe.llen(lane)
        pipe.info("memory")
        raw, queued, running, *lengths, memory = pipe.execute()
    per = len(lengths) // len(modes)
    messages = {m.queue: sum(lengths[i * per : (i + 1) * per]) for i, m in enumerate(modes)}
    return {
        "submitted": counters(raw, "submitted"),
        "finished": counters(raw, "finished"),
        "redeliveries": counters(raw, "redeliveries"),
        "rejected": counters(raw, "rejected"),
        "histograms": histograms(raw),
        "jobs": {"queued": int(queued), "running": int(running)},
        "queue_messages": messages,
        "workers": count_workers(client, prefix, heartbeat_interval),
        "redis": {
            "used_memory": int(memory.get("used_memory", 0)),
            "maxmemory": int(memory.get("maxmemory", 0)),
            "used_memory_peak": int(memory.get("used_memory_peak", 0)),
        },
    }


def count_rejected(handle: Handle, reason: str) -> None:
    """Count one task message a worker refused to run (`foreign`: not the job store's)."""
    handle.client.hincrby(handle.keys.stats, f"rejected:{reason}", 1)
