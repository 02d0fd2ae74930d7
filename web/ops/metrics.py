"""GET /metrics: Prometheus figures read from Redis at scrape time.

Every figure comes from the job store (counters and histograms kept by the Lua transitions,
queue lengths, heartbeats, Redis's own INFO), so whichever gunicorn process answers a scrape
gives the same numbers, and workers need no port of their own: no multiprocess files at all.
When Redis cannot be reached the scrape still answers, with alphametic_store_up 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from flask import Blueprint, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.core import (
    CollectorRegistry,
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from jobstore import JobStore, Unavailable
from jobstore.admin import stats
from jobstore.connection import UNREACHABLE
from web.store import store

bp = Blueprint("metrics", __name__)

# Redis figures: stats key -> (metric name, help).
REDIS = {
    "connected_slaves": (
        "alphametic_redis_replicas_connected",
        "Replicas connected to the master (with Sentinel, each confirms every write).",
    ),
    "used_memory": ("alphametic_redis_memory_used_bytes", "Memory Redis uses (INFO used_memory)."),
    "maxmemory": ("alphametic_redis_memory_max_bytes", "Redis maxmemory (0: no limit)."),
    "used_memory_peak": ("alphametic_redis_memory_peak_bytes", "Peak memory Redis used."),
    "aof_enabled": ("alphametic_redis_aof_enabled", "1 when Redis keeps an append-only file."),
    "aof_last_write_ok": (
        "alphametic_redis_aof_last_write_ok",
        "1 when the last AOF write worked.",
    ),
    "aof_current_size": ("alphametic_redis_aof_size_bytes", "Size of the append-only file."),
    "rdb_changes_since_last_save": (
        "alphametic_redis_changes_since_last_save",
        "Writes since the last snapshot.",
    ),
}
HISTOGRAMS = {
    "duration": ("alphametic_job_duration_seconds", "mode", "Run time of finished jobs."),
    "queue_wait": ("alphametic_queue_wait_seconds", "mode", "Time from submission to start."),
    "cancel_latency": ("alphametic_cancel_latency_seconds", "", "Time from cancel to canceled."),
}


def _le(bound: float) -> str:
    """A bucket bound as Prometheus writes it."""
    return "+Inf" if math.isinf(bound) else repr(float(bound))


def _histogram(name: str, label: str, doc: str, series: Mapping[str, Any]) -> Metric:
    """One histogram family from {label value: Histogram(buckets, count, sum)}."""
    family = HistogramMetricFamily(name, doc, labels=[label] if label else [])
    for value, histogram in sorted(series.items()):
        buckets = [(_le(bound), float(count)) for bound, count in histogram.buckets]
        if not buckets or buckets[-1][0] != "+Inf":
            buckets.append(("+Inf", float(histogram.count)))
        family.add_metric([value] if label else [], buckets, float(histogram.sum))
    return family


def _labelled(family: CounterMetricFamily | GaugeMetricFamily, rows: Iterable[Any]) -> Metric:
    """Fill a family from (labels, value) rows, sorted so every scrape lists them alike."""
    for labels, value in sorted(rows):
        family.add_metric(list(labels), float(value))
    return family


def families(figures: Mapping[str, Any]) -> Iterator[Metric]:
    """The metric families of one stats() reading."""
    yield GaugeMetricFamily("alphametic_store_up", "1 when Redis answered this scrape.", 1)
    counter = CounterMetricFamily
    submitted = counter("alphametic_jobs_submitted", "Jobs submitted.", labels=["mode"])
    yield _labelled(submitted, (((m,), n) for m, n in figures["submitted"].items()))
    finished = counter("alphametic_jobs_finished", "Jobs ended.", labels=["mode", "state"])
    yield _labelled(finished, (((m, s), n) for (m, s), n in figures["finished"].items()))
    redelivered = counter(
        "alphametic_redeliveries", "Jobs delivered again (lost worker, ...).", labels=["reason"]
    )
    yield _labelled(redelivered, (((r,), n) for r, n in figures["redeliveries"].items()))
    rejected = counter(
        "alphametic_task_messages_rejected",
        "Task messages a worker refused to run (foreign: not sent by the job store).",
        labels=["reason"],
    )
    refused = {"foreign": 0, **figures.get("rejected", {})}  # the series exists before any
    yield _labelled(rejected, (((r,), n) for r, n in refused.items()))
    jobs = GaugeMetricFamily("alphametic_jobs", "Unfinished jobs now.", labels=["state"])
    yield _labelled(jobs, (((s,), n) for s, n in figures["jobs"].items()))
    waiting = GaugeMetricFamily(
        "alphametic_queue_messages", "Task messages waiting in the broker.", labels=["queue"]
    )
    yield _labelled(waiting, (((q,), n) for q, n in figures["queue_messages"].items()))
    workers = GaugeMetricFamily(
        "alphametic_workers", "Workers with a recent heartbeat.", labels=["queue"]
    )
    yield _labelled(workers, (((q,), n) for q, n in figures["workers"].items()))
    for key, (name, label, doc) in HISTOGRAMS.items():
        yield _histogram(name, label, doc, figures["histograms"].get(key, {}))
    for key, (name, doc) in REDIS.items():
        if key in figures["redis"]:
            yield GaugeMetricFamily(name, doc, float(figures["redis"][key]))


class StoreCollector(Collector):
    """Reads the store's figures once per scrape."""

    def __init__(self, job_store: JobStore) -> None:
        """Collect from this store."""
        self.store = job_store

    def collect(self) -> Iterator[Metric]:
        """Every family, or only alphametic_store_up 0 when Redis is away."""
        try:
            figures = stats(self.store)
        except UNREACHABLE:
            figures = None
        except Unavailable:
            figures = None
        if figures is None:
            yield GaugeMetricFamily("alphametic_store_up", "1 when Redis answered this scrape.", 0)
            return
        yield from families(figures)


@bp.get("/metrics")
def metrics() -> Response:
    """The Prometheus text exposition of the store's figures."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(store()))
    body = generate_latest(registry)
    return Response(body, content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
