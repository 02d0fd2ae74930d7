"""Fairness and bounded storage (issue 14): small jobs under load, big jobs taking turns, and
Redis under a hostile storage sequence; clients taking turns (issue 21).

Usage: python bench/fairness.py [small|turns|storage|misjudged ...]   (default: all four)

- small: one solve and one enumerate worker process (`make run`'s default) busy with a
  100-shard enumeration and an unsolvable 60 s solve; small jobs of both modes are submitted one
  after another over HTTP (POST ?wait=): latency from submit to the answer, p50/p99.
- turns: two big enumerations on one enumerate worker: the progress each makes in 20 s.
- misjudged: one solve worker process; products estimated small that search for many seconds
  (`ABCDE * FGHIJ = KLMNOPQRST`, base 36): one client's 20, four clients' 20 each, and four
  clients submitting one a second and canceling their oldest for 45 s; another client's small
  solves (store.submit + wait) one after another: latency from submit to the answer.
- storage: the hostile sequence of the issue (four 140-byte requests for 26-letter base-36
  enumerations with leading zeros allowed) from one client: Redis memory before and after.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Client, machine, ms, percentile, system  # noqa: E402

from jobstore import JobStore  # noqa: E402
from tests.support.puzzles import MISJUDGING, misjudged_products  # noqa: E402
from tests.support.turns import sample, streams, submit_products  # noqa: E402

HUGE = ("A + B + C + D + E = F + G + H + I", {"base": 16})
ENDLESS = (
    "A + B + C + D + E + F + G + H + I + J + K = L + M + N + O + P + Q + R + S + T + U + V",
    {"base": 22},
)
OTHER = ("A + B + C + D + E = F + G + H + I", {"base": 15})
SMALL = [
    ("solve", "SEND + MORE = MONEY"),
    ("enumerate", "ODD + ODD = EVEN"),
    ("solve", "TO + GO = OUT"),
    ("enumerate", "TWO + TWO = FOUR"),
]
HOSTILE = "QWERTYUIOPASDFGHJKLZXCVBNM = QWERTYUIOPASDFGHJKLZXCVBNM"


def wait_running(store: JobStore, job_id: str, timeout: float = 60) -> None:
    """Wait until a job has started and moved."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.get(job_id)
        if job is not None and job.progress > 0:
            return
        time.sleep(0.05)
    raise TimeoutError(f"job {job_id} did not start")


def small() -> None:
    """Small-job latency while both queues are busy with long jobs."""
    with system("fair-small", (("solve", 1), ("enumerate", 1)), web_workers=2) as s:
        store, client = s.store, Client(s.url)
        huge = store.submit("enumerate", *HUGE)
        endless = store.submit("solve", *ENDLESS)
        wait_running(store, huge.id)
        wait_running(store, endless.id)
        times: dict[str, list[float]] = {"solve": [], "enumerate": []}
        for round_no in range(15):
            for mode, puzzle in SMALL:
                started = time.perf_counter()
                status, body = client.request(
                    "POST", "/api/jobs?wait=30",
                    {"puzzle": puzzle, "mode": mode, "options": {"base": 10 + round_no}},
                )  # fmt: skip
                if status != 202 or body.get("state") != "succeeded":
                    raise RuntimeError(f"{mode} {puzzle}: {status} {str(body)[:200]}")
                times[mode].append(time.perf_counter() - started)
        both = times["solve"] + times["enumerate"]
        for mode, values in times.items():
            print(f"small {mode:9s} under load: {ms(values)}   ({len(values)} jobs)")
        print(f"small, all under load:     {ms(both)}   max {max(both) * 1e3:.0f} ms")
        for job in (huge, endless):
            state = store.get(job.id)
            print(f"  long job {job.mode}: attempt {state.attempt if state else '?'}, still going")
            store.cancel(job.id)
        yielded = store.stats()["redeliveries"].get("yielded", 0)
        print(f"  hand-backs to let others run: {yielded}")


def turns() -> None:
    """Progress of two big enumerations sharing one enumerate worker."""
    with system("fair-turns", (("enumerate", 1),)) as s:
        store = s.store
        first = store.submit("enumerate", *HUGE)
        wait_running(store, first.id)
        second = store.submit("enumerate", *OTHER)
        wait_running(store, second.id)
        before = [store.get(j.id) for j in (first, second)]
        time.sleep(20)
        after = [store.get(j.id) for j in (first, second)]
        gains = []
        for label, b, a in zip(("base 16", "base 15"), before, after, strict=True):
            assert a is not None and b is not None
            gains.append(a.progress - b.progress)
            print(f"turns {label}: progress {b.progress:.4%} -> {a.progress:.4%} in 20 s, "
                  f"nodes +{a.nodes - b.nodes:,}")  # fmt: skip
        nodes = [(a.nodes - b.nodes) for a, b in zip(after, before, strict=True) if a and b]
        print(f"turns: search nodes shared {nodes[0] / max(1, sum(nodes)):.0%} / "
              f"{nodes[1] / max(1, sum(nodes)):.0%}")  # fmt: skip
        for job in (first, second):
            store.cancel(job.id)


def stored_by(store: JobStore, job_id: str) -> int:
    """Solutions a job stored (a sharded one: over all its shards)."""
    fields = store.redis.hmget(store.keys.job(job_id), "stored_all", "stored_count")
    return int(fields[0] or fields[1] or 0)


def storage() -> None:
    """Redis memory under the hostile storage sequence, with the default per-client budget."""
    with system("fair-storage", (("enumerate", 1),)) as s:
        store = s.store
        used = int(store.redis.info("memory")["used_memory"])
        jobs = []
        started = time.monotonic()
        for base in (33, 34, 35, 36):
            jobs.append(
                store.submit(
                    "enumerate", HOSTILE, {"base": base, "leading_zeros": "allow"}, client="evil"
                )
            )
        samples = []
        while time.monotonic() - started < 25:
            samples.append(int(store.redis.info("memory")["used_memory"]))
            time.sleep(0.5)
        found = [store.get(j.id) for j in jobs]
        stored = sum(stored_by(store, j.id) for j in jobs)
        print(f"storage: Redis used {used / 1e6:.1f} MB before, peak {max(samples) / 1e6:.1f} MB "
              f"(+{(max(samples) - used) / 1e6:.1f} MB) over 25 s, four hostile jobs")  # fmt: skip
        print(f"storage: solutions stored {stored:,} (budget 2,000,000); "
              f"truncated: {[j.truncated_reason if j else '?' for j in found]}")  # fmt: skip
        print(f"storage: median sample {statistics.median(samples) / 1e6:.1f} MB, "
              f"p99 {percentile(samples, 99) / 1e6:.1f} MB")  # fmt: skip
        for job in jobs:
            store.cancel(job.id)


def wait_started(store: JobStore, job_id: str, timeout: float = 60) -> None:
    """Wait until a job has had a run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.get(job_id)
        if job is not None and job.started is not None:
            return
        time.sleep(0.02)
    raise TimeoutError(f"job {job_id} did not start")


def misjudged() -> None:
    """Another client's small solves while clients' products misjudged small pile up."""
    for label, clients in (("one client x 20", "a"), ("four clients x 20", "abcd")):
        with system("fair-misjudged", (("solve", 1),), **MISJUDGING) as s:
            store = s.store
            ids = []
            for k, client in enumerate(clients):
                ids += submit_products(store, client, misjudged_products(20, seed=100 + k))
            wait_started(store, ids[0])
            took = sample(store, count=8)
            store.close()  # its waiter subscription, before the system's Redis goes
            print(f"misjudged, {label}: first {took[0] * 1e3:.0f} ms, then {ms(took[1:])}, "
                  f"max {max(took) * 1e3:.0f} ms")  # fmt: skip
    with system("fair-stream", (("solve", 1),), **MISJUDGING) as s:
        store = s.store
        with streams(store, "wxyz") as errors:
            took = sample(store, seconds=45)
        store.close()
        if errors:
            raise RuntimeError(errors[0])
        third = len(took) // 3
        for part, values in (("first", took[:third]), ("last", took[-third:])):
            print(f"misjudged, four streams, {part} 15 s: {ms(values)}, "
                  f"max {max(values) * 1e3:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    print(machine())
    chosen = sys.argv[1:] or ["small", "turns", "storage", "misjudged"]
    scenarios = {"small": small, "turns": turns, "storage": storage, "misjudged": misjudged}
    for name in chosen:
        scenarios[name]()
