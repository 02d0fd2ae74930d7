"""System benchmarks 1-3: HTTP latency next to a bare Celery round trip, throughput, cancel.

Usage: python bench/latency.py [latency|throughput|cancel ...]   (default: all three)
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # noqa: E402
    TERMINAL,
    Client,
    ms,
    percentile,
    random_additions,
    system,
)

import alphametic  # noqa: E402
from tests.support.processes import wait_for  # noqa: E402

BENCH = Path(__file__).resolve().parent
# Many minutes of search with steadily rising progress: always running when cancelled.
LONG = ("A + B + C + D + E = F + G + H + I", {"base": 16})


def engine_seconds(puzzle: str) -> float:
    """Parse plus first solution in this process: the engine's own share of a solve job."""
    # Uncached, as a worker meets a new puzzle: the engine keeps recent puzzles' plans.
    forget = getattr(importlib.import_module("alphametic.linear.plan"), "forget_plans", None)
    if forget is not None:
        forget()
    started = time.perf_counter()
    next(alphametic.Search(alphametic.parse(puzzle)).solutions(), None)
    return time.perf_counter() - started


class BareCelery:
    """A bare `celery -A noop worker` (concurrency 1) and a client for its no-op task."""

    def __init__(self, url: str) -> None:
        os.environ["NOOP_REDIS_URL"] = url
        self.log = Path(tempfile.mkstemp(prefix="bench-noop-", suffix=".log")[1])
        env = {**os.environ, "PYTHONPATH": str(BENCH)}
        cmd = [sys.executable, "-m", "celery", "-A", "noop", "worker", "-c", "1", "-l", "INFO"]
        cmd += ["-n", f"noop{os.getpid()}@%h", "--without-gossip", "--without-mingle"]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                cmd, cwd=BENCH, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        wait_for(lambda: " ready." in self.log.read_text(errors="replace"), 60, what="noop")
        self.task: Any = importlib.import_module("noop").noop

    def round_trips(self, count: int) -> list[float]:
        """Seconds of delay().get() for `count` no-op tasks, one after another."""
        times = []
        for _ in range(count):
            started = time.perf_counter()
            self.task.delay().get(timeout=30)
            times.append(time.perf_counter() - started)
        return times

    def stop(self) -> None:
        """Stop the worker and its pool."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        self.log.unlink(missing_ok=True)


def bench_latency(count: int = 500) -> dict[str, float]:
    """1. Submit -> finished over HTTP, sequential, next to a bare Celery no-op round trip.

    Three ways a client learns the end: one POST holding its answer (?wait=), a POST then a
    GET holding its answer, and a POST then GETs polled every millisecond. Each way gets its
    own distinct puzzles (no result is reused).
    """
    puzzles = random_additions(3 * count)
    engine = [min(engine_seconds(p) for _ in range(3)) for p in puzzles[:count]]
    with system("bench-latency", (("solve", 1),), web_workers=1) as s:
        bare_celery = BareCelery(s.redis.url_for(1))
        try:
            client, store = Client(s.url), s.store
            bare_celery.round_trips(20)  # warm-up
            bare: list[float] = []
            for warm in random_additions(20, seed=99):
                client.create(warm, wait=10)
            ways: dict[str, Callable[[str], dict[str, Any]]] = {
                "POST ?wait": lambda p: client.create(p, wait=10),
                "POST, GET ?wait": lambda p: client.status(client.submit(p), wait=10),
                "POST, GET polls 1 ms": lambda p: client.wait(client.submit(p), 0.001),
            }
            observed: dict[str, list[float]] = {way: [] for way in ways}
            recorded, stages = [], []
            for i, (way, run) in enumerate(ways.items()):
                for j, puzzle in enumerate(puzzles[i * count : (i + 1) * count]):
                    # Alternating blocks, each back to back: 25 bare round trips before every
                    # 50 jobs, so both meet the same machine (whose speed drifts by half from
                    # minute to minute here) and both run warm.
                    if j % 50 == 0:
                        bare += bare_celery.round_trips(25)
                    started = time.time()
                    body = run(puzzle)
                    observed[way].append(time.time() - started)
                    assert body["state"] == "succeeded", body
                    if i:
                        continue
                    job = store.get(body["id"])
                    assert job is not None and job.finished is not None and job.started
                    recorded.append(job.finished - started)
                    # (request -> record created, created -> claimed, claimed -> finished,
                    # finished -> answer received)
                    stages.append(
                        (
                            job.created - started,
                            job.started - job.created,
                            job.finished - job.started,
                            observed[way][-1] - recorded[-1],
                        )
                    )
        finally:
            bare_celery.stop()
    first = observed["POST ?wait"]
    goal = 2 * percentile(bare, 50) + percentile(engine, 50)
    print(f"1. latency: {count} distinct solve jobs (5-8 letters) per way, HTTP submit -> finished")
    for way, times in observed.items():
        print(f"   {way:22s}  {ms(times)}")
    print(f"   recorded (in Redis)     {ms(recorded)}   (POST ?wait jobs)")
    print(f"   bare Celery no-op       {ms(bare)}   (n={len(bare)}, same Redis, in between)")
    print(f"   engine alone            {ms(engine)}")
    names = (
        "request -> created",
        "created -> claimed",
        "claimed -> finished",
        "finished -> answer",
    )
    parts = "; ".join(
        f"{name} {percentile([s[i] for s in stages], 50) * 1e3:.1f}" for i, name in enumerate(names)
    )
    print(f"   stages of POST ?wait, p50 ms: {parts}")
    verdict = "met" if percentile(first, 50) <= goal else "NOT met"
    print(f"   goal POST ?wait p50 <= 2 x bare p50 + engine p50 = {goal * 1e3:.1f} ms: {verdict}")
    polled = observed["POST, GET polls 1 ms"]
    return {
        "latency_p50": percentile(first, 50),
        "latency_p99": percentile(first, 99),
        "get_wait_p50": percentile(observed["POST, GET ?wait"], 50),
        "polled_p50": percentile(polled, 50),
        "polled_p99": percentile(polled, 99),
        "recorded_p50": percentile(recorded, 50),
        "bare_p50": percentile(bare, 50),
        "bare_p99": percentile(bare, 99),
        "engine_p50": percentile(engine, 50),
        "goal": goal,
    }


def bench_throughput() -> dict[str, float]:
    """2. Distinct solve jobs per second over HTTP: long polling, then 100 ms and 20 ms polls."""
    out = throughput(1000, poll=None)
    throughput(500, poll=0.1, seed=3)
    throughput(500, poll=0.02, seed=4)
    return out


def until_done(client: Client, puzzle: str) -> dict[str, Any]:
    """POST ?wait, then GET ?wait until the job ended (a 20 ms pause if answered at once)."""
    body = client.create(puzzle, wait=10)
    while body["state"] not in TERMINAL:
        asked = time.monotonic()
        body = client.status(body["id"], wait=10)
        if body["state"] not in TERMINAL and time.monotonic() - asked < 0.01:
            time.sleep(0.02)  # no wait slot was free: the server answered at once
    return body


def throughput(
    count: int, clients: int = 16, poll: float | None = 0.1, seed: int = 2
) -> dict[str, float]:
    """Closed loop: each of `clients` threads submits a job and waits (poll=None: long polls,
    else GETs every `poll` seconds) until it is done."""
    puzzles = random_additions(count, seed=seed)
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[float] = []
    pending = iter(puzzles)

    def run(client: Client) -> None:
        while True:
            with lock:
                puzzle = next(pending, None)
            if puzzle is None:
                return
            started = time.time()
            try:
                if poll is None:
                    body = until_done(client, puzzle)
                else:
                    body = client.wait(client.submit(puzzle), poll)
                ok = body["state"] == "succeeded"
            except Exception as error:  # noqa: BLE001 (count it, keep the load going)
                ok, body = False, {"error": repr(error)}
            with lock:
                (latencies if ok else errors).append(time.time() - started)

    with system("bench-throughput", (("solve", 2),), web_workers=2) as s:
        threads = [threading.Thread(target=run, args=(Client(s.url),)) for _ in range(clients)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
    rate = len(latencies) / wall
    setup = "1 worker x 2 processes, gunicorn 2 x 8 threads"
    how = "?wait long polls" if poll is None else f"polls every {poll * 1e3:.0f} ms"
    print(f"2. throughput: {count} distinct solve jobs, {clients} HTTP clients ", end="")
    print(f"({how}), {setup}")
    print(f"   {rate:.1f} jobs/s ({wall:.1f} s), {len(errors)} errors; latency {ms(latencies)}")
    return {"jobs_per_s": rate, "errors": len(errors), "tp_latency_p50": percentile(latencies, 50)}


def cancel_runs(client: Client, store: Any, runs: int) -> tuple[list[float], list[float]]:
    """Start LONG, let it run 0.2 s, cancel over HTTP; (observed, recorded) seconds per run."""
    observed, recorded = [], []
    for _ in range(runs):
        job_id = client.submit(LONG[0], "enumerate", LONG[1])
        client.wait(job_id, 0.005, until=("running",))
        time.sleep(0.2)
        started = time.time()
        client.cancel(job_id)
        body = client.status(job_id, wait=10)
        observed.append(time.time() - started)
        assert body["state"] == "canceled", body
        job = store.get(job_id)
        recorded.append(job.finished - job.cancel_requested)
    return observed, recorded


def bench_cancel(runs: int = 50, sharded_runs: int = 20) -> dict[str, float]:
    """3. Cancel request -> canceled, over running jobs (whole and sharded)."""
    out: dict[str, float] = {}
    print(f"3. cancel latency: request -> canceled, {LONG[0]} base 16 after 0.2 s of running")
    for label, threshold, n in (("whole", 0.0, runs), ("sharded", 2e6, sharded_runs)):
        with system(
            f"bench-cancel-{label}", (("enumerate", 2),), 1, shard_threshold=threshold
        ) as s:
            observed, recorded = cancel_runs(Client(s.url), s.store, n)
        print(f"   {label:>7} job, n={n:2}: observed (?wait)     {ms(observed)}")
        print(f"   {'':>7}        recorded (in Redis)  {ms(recorded)}")
        out[f"cancel_{label}_p50"] = percentile(observed, 50)
        out[f"cancel_{label}_p99"] = percentile(observed, 99)
        out[f"cancel_{label}_recorded_p99"] = percentile(recorded, 99)
    verdict = "met" if out["cancel_whole_p99"] <= 0.1 else "NOT met"
    print(f"   goal p99 <= 100 ms (whole job, observed): {verdict}")
    return out


BENCHES = {"latency": bench_latency, "throughput": bench_throughput, "cancel": bench_cancel}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(BENCHES):
        BENCHES[name]()
