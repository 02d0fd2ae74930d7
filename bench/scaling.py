"""System benchmarks 4-6: scale-out of one sharded job, output rate, memory; big counts.

Usage: python bench/scaling.py [scaleout|output|memory|bigjobs ...]   (default: all four)
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Client, rss_kb, system  # noqa: E402

import alphametic  # noqa: E402
from jobstore import JobStore  # noqa: E402
from tests.support.cli import timed_count  # noqa: E402
from tests.support.processes import wait_job  # noqa: E402

# 2,580,480 solutions, all stored (cap raised): 10-20 s on one worker process here.
SCALE: tuple[str, dict[str, Any]] = ("A + B + C + D + E = F + G + H + I", {"base": 12})
SCALE_CAP = 3_000_000
# 141,120 solutions, a fraction of a second of search: the output job.
OUTPUT: tuple[str, dict[str, Any]] = ("A + B + C + D + E = F + G + H + I", {})
# 2,903,040 solutions (every coefficient is 0): the memory job; 1,000,000 are stored.
MEMORY: tuple[str, dict[str, Any]] = ("ABCDE + FGHIJ = ABCDE + FGHIJ", {})


def page_items(store: JobStore, job_id: str, offset: int) -> list[dict[str, int]]:
    """One page of 5,000 decoded solutions (the API's own read)."""
    page = store.solutions(job_id, offset, 5000)
    return page.items if page is not None else []


def digest(store: JobStore, job_id: str, page: int = 100_000) -> tuple[str, int]:
    """sha256 of the stored list read in pages, and its length."""
    sha, read = hashlib.sha256(), 0
    while True:
        _letters, items, total, _truncated = store.compact(job_id, read, page)
        sha.update("".join(items).encode())
        read += len(items)
        if not items or read >= total:
            return sha.hexdigest()[:16], read


def one_big_job(label: str, processes: int, threshold: float) -> dict[str, Any]:
    """Run SCALE on one worker with `processes` pool processes; time it and digest its list."""
    prefix = f"bench-scale-{processes}-{int(threshold)}"
    changes: dict[str, Any] = {"shard_threshold": threshold, "max_stored_solutions": SCALE_CAP}
    with system(prefix, (("enumerate", processes),), **changes) as s:
        store = s.store
        started = time.time()
        # Woken by the job's end (a poll every 20 ms of a sharded job reads all its shards:
        # about a second of CPU of both cores' 15 taken from the workers it measures).
        ended = store.wait(store.submit("enumerate", *SCALE).id, 3600)
        observed = time.time() - started
        assert ended is not None and ended.state == "succeeded", ended
        job = ended
        shards = int(store.redis.hget(store.keys.job(job.id), "shards") or 0)
        sha, stored = digest(store, job.id)
    load = Path("/proc/loadavg").read_text().split()[0]
    print(
        f"   {label:<24} {observed:6.2f} s submit -> done ({job.elapsed:6.2f} s running), ", end=""
    )
    print(f"{shards:3} shards, {job.solutions_found:,} solutions, list {sha}, load {load}")
    return {"seconds": observed, "digest": sha, "found": job.solutions_found, "stored": stored}


def bench_scaleout() -> dict[str, Any]:
    """4. One big enumerate job on 1 and on 2 worker processes (sharded), plus unsharded."""
    print(f"4. scale-out: {SCALE[0]} base 12, one job, every solution stored")
    # Alternating runs, best of three: other work on a shared machine only ever slows a run
    # down.
    runs = [one_big_job(f"{n} process(es), sharded", n, 2e6) for n in (1, 2) * 3]
    one = min(runs[0::2], key=lambda r: r["seconds"])
    two = min(runs[1::2], key=lambda r: r["seconds"])
    whole = one_big_job("1 process, unsharded", 1, 0.0)
    speedup = one["seconds"] / two["seconds"]
    same = len({r["digest"] for r in [*runs, whole]}) == 1
    verdict = "met" if speedup >= 1.8 and same else "NOT met"
    print(f"   speed-up 2 vs 1 processes (best of three each): {speedup:.2f}x "
          f"(vs unsharded: {whole['seconds'] / two['seconds']:.2f}x); identical lists: {same}; "
          f"goal >= 1.8x: {verdict}")  # fmt: skip
    return {"speedup": speedup, "identical": same, "one": one, "two": two, "whole": whole}


def bench_output() -> dict[str, float]:
    """5. Solutions per second: engine alone, engine into Redis, out through the paged API."""
    puzzle = alphametic.parse(OUTPUT[0], **OUTPUT[1])
    started = time.perf_counter()
    count = sum(1 for _ in alphametic.Search(puzzle).solutions())
    engine = count / (time.perf_counter() - started)
    with system("bench-output", (("enumerate", 1),), web_workers=1) as s:
        store, client = s.store, Client(s.url)
        job_id = client.submit(OUTPUT[0], "enumerate", OUTPUT[1])
        job = wait_job(store, job_id, timeout=3600, interval=0.02)
        assert job.elapsed is not None
        into = job.solutions_found / job.elapsed
        read = 0
        started = time.perf_counter()
        while read < job.solutions_found:
            page = client.get_json(f"/api/jobs/{job.id}/solutions", {"offset": read, "limit": 500})
            read += len(page["items"])
        http = read / (time.perf_counter() - started)
        started = time.perf_counter()
        direct = sum(len(page_items(store, job.id, o)) for o in range(0, read, 5000))
        store_rate = direct / (time.perf_counter() - started)
    print(f"5. output: {OUTPUT[0]}, {count:,} solutions")
    print(f"   engine alone (in process)           {engine:12,.0f} solutions/s")
    print(f"   engine -> Redis (job running time)  {into:12,.0f} solutions/s")
    print(f"   Redis -> HTTP API (pages of 500)    {http:12,.0f} solutions/s")
    print(f"   Redis -> JobStore.solutions (5000)  {store_rate:12,.0f} solutions/s")
    return {"engine": engine, "into_redis": into, "http": http, "store": store_rate}


class Sampler(threading.Thread):
    """Samples the peak RSS of some processes every 20 ms until stopped."""

    def __init__(self, pids: Any) -> None:
        super().__init__(daemon=True)
        self.pids = pids  # callable returning the current pids to watch
        self.peak: dict[int, int] = {}
        self.halt = threading.Event()

    def run(self) -> None:
        """Sample until halted."""
        while not self.halt.is_set():
            for pid in self.pids():
                self.peak[pid] = max(self.peak.get(pid, 0), rss_kb(pid))
            time.sleep(0.02)


def memory_run(label: str, threshold: float) -> dict[str, float]:
    """Enumerate MEMORY on one worker process; peak RSS of worker and Redis, Redis growth."""
    with system(f"bench-mem-{label}", (("enumerate", 1),), shard_threshold=threshold) as s:
        worker, server = s.workers[0], s.redis
        info = redis.Redis.from_url(s.settings.redis_url)
        before = int(info.info("memory")["used_memory"])
        redis_before = rss_kb(server.pid or 0)
        sampler = Sampler(lambda: [worker.pid, *worker.children()])
        sampler.start()
        store = s.store
        job = wait_job(store, store.submit("enumerate", *MEMORY).id, timeout=3600, interval=0.1)
        sampler.halt.set()
        sampler.join()
        after = int(info.info("memory")["used_memory"])
        redis_peak = rss_kb(server.pid or 0, "VmHWM")
        first = store.solutions(job.id, 0, 0)
        stored = first.total if first is not None else 0
    compact = stored * len(alphametic.parse(MEMORY[0]).letters)
    worker_peak = max(v for pid, v in sampler.peak.items() if pid != worker.pid) / 1024
    growth = (after - before) / compact
    print(f"   {label:<9} {job.solutions_found:,} solutions in {job.elapsed:5.1f} s, "
          f"{stored:,} stored ({compact / 2**20:.1f} MiB compact)")  # fmt: skip
    print(f"   {'':<9} worker pool process peak RSS {worker_peak:6.1f} MiB "
          f"(main process {sampler.peak[worker.pid] / 1024:.1f} MiB); Redis used_memory "
          f"+{(after - before) / 2**20:.1f} MiB = {growth:.2f}x compact, "
          f"RSS {redis_before / 1024:.1f} -> peak {redis_peak / 1024:.1f} MiB")  # fmt: skip
    return {"worker_mb": worker_peak, "redis_growth": growth, "found": job.solutions_found}


def bench_memory() -> dict[str, Any]:
    """6. Peak RSS of a worker process and of Redis while enumerating >= 10^6 solutions."""
    print(f"6. memory: {MEMORY[0]} (1 worker process; default cap 1,000,000 stored)")
    variants = (("sharded", 2e6), ("unsharded", 0.0))
    runs = {label: memory_run(label, threshold) for label, threshold in variants}
    ok = all(r["worker_mb"] < 150 and r["redis_growth"] <= 1.2 for r in runs.values())
    print(
        f"   goal worker < 150 MB and Redis growth <= compact + 20%: {'met' if ok else 'NOT met'}"
    )
    return runs


# The big sharded counts (200 and 342 solutions): jobs that used to never finish.
BIG_COUNT = "NORTH * WEST = EAST * SOUTH"


def bench_bigjobs() -> dict[int, dict[str, float]]:
    """7. The big counts as jobs on 2 enumerate worker processes against the command line."""
    print(f"7. big counts: {BIG_COUNT}, as a job (2 enumerate processes) and on the command line")
    results = {}
    for base in (15, 16):
        count, cli = timed_count(BIG_COUNT, base)
        with system(f"bench-big-{base}", (("enumerate", 2),)) as s:
            started = time.time()
            job_id = s.store.submit("count", BIG_COUNT, {"base": base}).id
            job = wait_job(s.store, job_id, timeout=3600, interval=0.2)
            took = time.time() - started
        load = Path("/proc/loadavg").read_text().split()[0]
        print(f"   base {base}: command line {cli:6.1f} s ({count} solutions), job {took:6.1f} s "
              f"({job.state.value}, {job.solutions_found} solutions) = {took / cli:.2f}x, "
              f"load {load}")  # fmt: skip
        results[base] = {"cli": cli, "job": took, "found": job.solutions_found}
    return results


BENCHES = {
    "scaleout": bench_scaleout,
    "output": bench_output,
    "memory": bench_memory,
    "bigjobs": bench_bigjobs,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(BENCHES):
        BENCHES[name]()
