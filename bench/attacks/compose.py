"""A compose job whose every sum is pruned (issue 32): another client's latency meanwhile.

Usage: python bench/attacks/compose.py [--victims 3] [--words 100] [--addends 10]

`make run`'s defaults on two cores: one solve and two enumerate worker processes, gunicorn
behind one trusted proxy (each client its own address). The attacker POSTs a compose job of
`--words` distinct three-letter words with ten addends (every sum pruned: ten three-digit
numbers make four digits); refused (422), it falls back to the biggest list of the kind the
service admits, to still measure a walk's cancel. While it runs, another client POSTs small
enumerations one after another (`?wait=20`); then the attacker cancels, and the other client
POSTs again. Printed: each victim latency (submit to its answer), the cancel's latency
(server-side: the last end of the job and its shards minus the cancel's request; the records
end at once even when the workers walk on, so the victim after the cancel is the measure of
freed workers) and the load.
"""

from __future__ import annotations

import argparse
import os
import random
import string
import sys
import time
from math import comb
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import machine, system  # noqa: E402

from jobstore import Job, JobStore, State  # noqa: E402
from jobstore.shards import shard_id  # noqa: E402

ATTACKER, VICTIM = "198.51.100.7", "203.0.113.9"
# A new run each time (`fresh`: not the identical job an earlier victim submitted).
SMALL = {"mode": "enumerate", "puzzle": "SEND + MORE = MONEY", "fresh": True}
WAIT = 20


def words_of(count: int) -> list[str]:
    """Distinct random three-letter words."""
    pick = random.Random(32)
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(pick.choice(string.ascii_uppercase) for _ in range(3)))
    return sorted(words)


def post(url: str, path: str, client: str, body: dict[str, Any]) -> requests.Response:
    """POST JSON as a client (its address through the trusted proxy)."""
    return requests.post(url + path, json=body, headers={"X-Forwarded-For": client}, timeout=60)


def victim(url: str) -> str:
    """One small enumeration of the other client, held until it ends: its latency."""
    started = time.perf_counter()
    body = post(url, f"/api/jobs?wait={WAIT}", VICTIM, SMALL).json()
    took = time.perf_counter() - started
    return f"{took * 1e3:8.1f} ms  ({body['state']})"


def attack(url: str, words: int, addends: int) -> str:
    """Submit the attacker's compose job (the biggest admitted list, if refused): its id."""
    while True:
        body = {"mode": "compose", "words": words_of(words), "options": {"addends": addends}}
        answer = post(url, "/api/jobs", ATTACKER, body)
        sets = comb(words + addends - 1, addends)
        print(f"attacker: {words} words, {addends} addends ({sets:,} sets): {answer.status_code}")
        if answer.status_code == 202:
            return str(answer.json()["id"])
        print(f"  {answer.json().get('code')}: {answer.json().get('detail')}")
        words = words * 3 // 4


def parts(store: JobStore, job_id: str) -> list[Job]:
    """The job and each of its shards (a sharded job's work is theirs), as stored now."""
    job = store.get(job_id)
    assert job is not None
    # A shard is no job of its own (JobStore.get says None): its record, read whole.
    keys = [store.keys.job(shard_id(job_id, i)) for i in range(job.shards)]
    return [job, *(Job.from_hash(store.redis.hgetall(key)) for key in keys)]


def ended(store: JobStore, job_id: str) -> str:
    """How long after the cancel's request the job and its every shard had ended (or not)."""
    deadline = time.monotonic() + 30
    while not all(part.done for part in parts(store, job_id)):
        if time.monotonic() > deadline:
            running = sum(1 for part in parts(store, job_id) if part.state is State.RUNNING)
            return f"attacker: {running} of its job and shards still running 30 s after the cancel"
        time.sleep(0.05)
    found = parts(store, job_id)
    took = (max(part.finished or 0.0 for part in found) - (found[0].cancel_requested or 0.0)) * 1e3
    return f"attacker: its job and {len(found) - 1} shards ended {took:.1f} ms after the cancel"


def main() -> None:
    """Run the attack and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--victims", type=int, default=3)
    parser.add_argument("--words", type=int, default=100)
    parser.add_argument("--addends", type=int, default=10)
    args = parser.parse_args()
    print(machine())
    os.environ["ALPHAMETIC_PROXY_HOPS"] = "1"  # gunicorn's environment: each client its own
    workers = (("solve", 1), ("enumerate", 2))
    with system("bench-attack-compose", workers, web_workers=1) as running:
        url, store = running.url, JobStore(running.settings)
        print("victim before the attack:", victim(url))
        job_id = attack(url, args.words, args.addends)
        while (job := store.get(job_id)) is None or job.state is not State.RUNNING:
            time.sleep(0.05)
        time.sleep(3)
        for _ in range(args.victims):
            print("victim during the attack:", victim(url))
        canceled = post(url, f"/api/jobs/{job_id}/cancel", ATTACKER, {}).json()
        print("cancel answers:", canceled["state"])
        print("victim after the cancel: ", victim(url))
        print(ended(store, job_id))
        print("load:", " ".join(Path("/proc/loadavg").read_text().split()[:3]))


if __name__ == "__main__":
    main()
