"""GET /metrics: values move as real jobs run, and every gunicorn process gives the same ones."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from jobstore import Mode, Settings
from tests.support.compose import ROOT
from tests.support.processes import WebServer, WorkerProcess, free_port, wait_for
from tests.support.web import make_app

pytestmark = pytest.mark.timeout(180)
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
SEND_MORE: dict[str, Any] = {"puzzle": "SEND + MORE = MONEY", "mode": "solve"}
ENUMERATE: dict[str, Any] = {
    "puzzle": "TO + GO = OUT",
    "mode": "enumerate",
    "options": {"leading_zeros": "allow"},
}
# Redis's own memory figures change between two scrapes whatever the app does.
MOVING = re.compile(r"alphametic_redis_")


def scrape(url: str) -> Samples:
    """One scrape on a new connection (so the gunicorn processes take turns), parsed."""
    answer = requests.get(f"{url}/metrics", headers={"Connection": "close"}, timeout=10)
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Type"].startswith("text/plain")
    samples: Samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value (0 when absent: a counter not yet incremented)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def run_jobs(url: str) -> list[dict[str, object]]:
    """Submit a solve and an enumerate job and wait for both to end (long polling)."""
    ended = []
    for body in (SEND_MORE, ENUMERATE):
        answer = requests.post(f"{url}/api/jobs?wait=30", json=body, timeout=40)
        assert answer.status_code in (200, 202), answer.text
        job = answer.json()
        while job["state"] in ("queued", "running"):
            job = requests.get(f"{url}/api/jobs/{job['id']}?wait=30", timeout=40).json()
        ended.append(job)
    return ended


def pids_serving(server: WebServer, path: str) -> set[int]:
    """Processes whose JSON access lines show they answered `path`."""
    pids = set()
    for line in server.log().splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            if entry.get("logger") == "alphametic.access" and entry.get("path") == path:
                pids.add(int(entry["process"]))
    return pids


def test_values_move_as_jobs_run_and_agree_across_processes(
    ops_web: WebServer, ops_workers: WorkerProcess
) -> None:
    """Counters, histograms and gauges move with two real jobs; 24 scrapes agree exactly."""
    before = scrape(ops_web.url)
    assert value(before, "alphametic_store_up") == 1
    wait_for(lambda: value(scrape(ops_web.url), "alphametic_workers", queue="solve") >= 1, 10)
    jobs = run_jobs(ops_web.url)
    assert [job["state"] for job in jobs] == ["succeeded", "succeeded"], jobs
    # The transitions count in Redis; reading the figures needs no settling, but the two
    # processes must have seen the same end, so take them once it shows.
    wait_for(
        lambda: value(scrape(ops_web.url), "alphametic_jobs_finished_total", mode="enumerate",
                      state="succeeded") > value(before, "alphametic_jobs_finished_total",
                                                 mode="enumerate", state="succeeded"),
        10,
    )  # fmt: skip
    scrapes = [scrape(ops_web.url) for _ in range(24)]
    steady = [{k: v for k, v in s.items() if not MOVING.match(k[0])} for s in scrapes]
    assert all(s == steady[0] for s in steady), "scrapes disagree"
    assert len(pids_serving(ops_web, "/metrics")) == 2, "both gunicorn processes must answer"
    after = scrapes[-1]
    for mode in ("solve", "enumerate"):
        moved = {
            name: value(after, name, **labels) - value(before, name, **labels)
            for name, labels in (
                ("alphametic_jobs_submitted_total", {"mode": mode}),
                ("alphametic_jobs_finished_total", {"mode": mode, "state": "succeeded"}),
                ("alphametic_job_duration_seconds_count", {"mode": mode}),
                ("alphametic_queue_wait_seconds_count", {"mode": mode}),
            )
        }
        assert moved == dict.fromkeys(moved, 1.0), (mode, moved)
        inf = value(after, "alphametic_job_duration_seconds_bucket", mode=mode, le="+Inf")
        assert inf == value(after, "alphametic_job_duration_seconds_count", mode=mode)
    assert value(after, "alphametic_jobs", state="running") == 0
    assert value(after, "alphametic_queue_messages", queue="solve") == 0
    assert value(after, "alphametic_workers", queue="enumerate") >= 1
    assert value(after, "alphametic_redis_memory_used_bytes") > 0


def test_a_scrape_without_redis_says_the_store_is_down(settings: Settings) -> None:
    """Redis away: /metrics still answers 200, with alphametic_store_up 0 and nothing else."""
    gone = settings.replace(redis_url=f"redis://127.0.0.1:{free_port()}/0", redis_timeout=0.5)
    client = make_app(gone).test_client()
    started = time.monotonic()
    answer = client.get("/metrics")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    names = {s.name for f in text_string_to_metric_families(text) for s in f.samples}
    assert names == {"alphametic_store_up"}
    assert "alphametic_store_up 0.0" in text
    assert time.monotonic() - started < 10


def test_every_histogram_series_is_there_at_zero_before_any_job(fresh_settings: Any) -> None:
    """A new deployment's first scrape has each histogram's series, every bucket at 0 (before,
    alphametic_cancel_latency_seconds had no series until the first cancel)."""
    client = make_app(fresh_settings()).test_client()
    answer = client.get("/metrics")
    assert answer.status_code == 200
    samples: Samples = {}
    for family in text_string_to_metric_families(answer.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    expected: list[tuple[str, dict[str, str]]] = [("alphametic_cancel_latency_seconds", {})] + [
        (name, {"mode": mode.value})
        for name in ("alphametic_job_duration_seconds", "alphametic_queue_wait_seconds")
        for mode in Mode
    ]
    for name, labels in expected:
        key = (f"{name}_count", tuple(sorted(labels.items())))
        assert samples.get(key) == 0.0, (key, sorted(k for k in samples if name in k[0]))
        inf = (f"{name}_bucket", tuple(sorted({**labels, "le": "+Inf"}.items())))
        assert samples.get(inf) == 0.0, inf


def dashboard_metrics() -> set[str]:
    """Every alphametic_* series the Grafana dashboard's queries use."""
    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert exprs
    return {name for expr in exprs for name in re.findall(r"\balphametic_\w+", expr)}


def test_the_dashboard_queries_only_series_the_server_exports(ops_web: WebServer) -> None:
    """Each metric a panel queries is declared by a real scrape (a renamed one breaks this)."""
    text = requests.get(f"{ops_web.url}/metrics", timeout=10).text
    suffixes = {"counter": ("_total",), "gauge": ("",), "histogram": ("_bucket", "_count", "_sum")}
    exported = {
        name + suffix
        for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)
        for suffix in suffixes[kind]
    }
    exported = {n.replace("_total_total", "_total") for n in exported}
    used = dashboard_metrics()
    assert "alphametic_job_duration_seconds_bucket" in used
    assert used <= exported, used - exported
