"""Issue 32, part 3: one client's 20 product enumerations against another client's jobs.

Usage: python bench/attacks/reservations.py

`make run`'s deployment (Redis with 1 GB maxmemory, one solve and one enumerate worker
process, gunicorn, its default settings), then the same with no per-client storage budget
(ALPHAMETIC_MAX_STORED_PER_CLIENT=0: only a client's share of the watermark bounds it). The
attacker (127.0.0.2) submits 20 enumerations of 36-letter base-36 products (no estimate: each
may store the cap of solutions); while they live, the victim (127.0.0.3) submits a 34-letter
product enumeration and a compose job, five rounds a second apart (fresh runs, canceled once
accepted). Printed: the attacker's answers, its 21st's, the victim's answers and latency,
Redis's memory and what is reserved, and the load. Run it in a worktree of another commit to
measure that commit's code.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from jobstore import Settings  # noqa: E402
from tests.support.processes import RedisServer, WebServer, WorkerProcess  # noqa: E402
from tests.support.shares import (  # noqa: E402
    ATTACKER,
    VICTIM,
    VICTIM_JOBS,
    Answer,
    cancel,
    products,
    submit,
)

ROUNDS = 5


def outcome(answer: Answer) -> str:
    """An answer as status, code and Retry-After."""
    refused = answer.status != 202 and answer.retry_after is not None
    retry = f" Retry-After {answer.retry_after}" if refused else ""
    return f"{answer.status} {answer.code or 'accepted'}{retry}".strip()


def main() -> None:
    """Both deployments, one after the other."""
    for budget in (Settings.max_stored_per_client, 0):
        print(f"--- per-client storage budget: {budget:,} solutions")
        attack(budget)


def attack(budget: int) -> None:
    """Start the deployment, run the attack and the victim's rounds, print the figures."""
    server = RedisServer().start()
    client = redis.Redis(port=server.port, decode_responses=True)
    client.config_set("maxmemory", "1gb")  # scripts/embedded_redis.py's
    settings = Settings(
        redis_url=server.url, key_prefix="bench-reserve", max_stored_per_client=budget
    )
    workers = [WorkerProcess(settings, "solve"), WorkerProcess(settings, "enumerate")]
    web = WebServer(settings, env={"ALPHAMETIC_RATE_LIMIT": "1000000/minute"})
    try:
        for worker in workers:
            worker.wait_ready(60)
        url = web.wait_ready(60).url
        print(f"code: {ROOT}  load: {os.getloadavg()[0]:.2f}")
        first = [submit(url, ATTACKER, job) for job in products(20)]
        print("attacker's 20:", dict(Counter(outcome(a) for a in first)))
        victims: list[Answer] = []
        for _ in range(ROUNDS):
            for job in VICTIM_JOBS:
                answer = submit(url, VICTIM, {**job, "fresh": True})
                victims.append(answer)
                if answer.status == 202:
                    cancel(url, VICTIM, answer.body["id"])
            time.sleep(1)
        print("victim's jobs:", dict(Counter(outcome(a) for a in victims)))
        seconds = [a.seconds for a in victims]
        print(f"victim latency: p50 {statistics.median(seconds) * 1000:.1f} ms, "
              f"max {max(seconds) * 1000:.1f} ms ({len(seconds)} submissions)")  # fmt: skip
        print("attacker's 21st:", outcome(submit(url, ATTACKER, products(21)[20])))
        used = int(client.info("memory")["used_memory"])
        print(f"redis used_memory {used / 1e6:.1f} MB; "
              f"reservations: {client.hlen('bench-reserve:reserved')}")  # fmt: skip
        print(f"load after: {os.getloadavg()[0]:.2f}")
    finally:
        web.cleanup()
        WorkerProcess.stop_all(workers)
        server.cleanup()


if __name__ == "__main__":
    main()
