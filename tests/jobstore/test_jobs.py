"""Jobs on real celery workers: answers, progress, partial results, cancel, dedup, queues."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from jobstore import Job, JobStore, State
from tests.support.puzzles import LONG, holds

DATA = Path(__file__).resolve().parents[1] / "data" / "exercism-alphametics.json"
# Billions of solutions, progress rising steadily: many minutes of work whatever the engine's
# speed; tests cancel it (or let a time limit end it) once they have seen what they need.
COUNTS: list[tuple[str, dict[str, Any], int]] = [
    ("NUM + BER = PLAY", {}, 96),
    ("BILL + GATES = GREAT", {}, 74),
    ("ABC + DEF = GHI", {}, 1088),
    ("BASE + BALL = GAMES", {"leading_zeros": "allow"}, 3),
    ("SEND + MORE = MONEY", {"base": 16}, 28),
    ("AB + DC = CBB", {}, 0),
]

pytestmark = pytest.mark.usefixtures("celery_workers")


def running_with_solutions(job: Job) -> bool:
    """The job runs and has stored some solutions."""
    return job.state is State.RUNNING and job.solutions_found > 0


def test_conformance_solve_jobs(store: JobStore, wait_job: Any) -> None:
    """Every exercism case as a solve job succeeds with the expected solution (or none)."""
    cases = json.loads(DATA.read_text())["cases"]
    jobs = [(case, store.submit("solve", case["puzzle"])) for case in cases]
    for case, submitted in jobs:
        job = wait_job(store, submitted.id, timeout=60)
        assert job.state is State.SUCCEEDED, job.to_dict()
        assert job.solution == case["expected"], (case["description"], job)
        assert job.solutions_found == (0 if case["expected"] is None else 1)
        assert job.progress == 1.0 and job.to_dict()["finished"] is not None


def test_enumerate_counts_and_grid(store: JobStore, wait_job: Any) -> None:
    """Enumerate jobs store every solution, valid and distinct, and a matching grid."""
    jobs = [
        (text, options, n, store.submit("enumerate", text, options)) for text, options, n in COUNTS
    ]
    for text, options, expected, submitted in jobs:
        job = wait_job(store, submitted.id, timeout=60)
        assert (job.state, job.solutions_found) == (State.SUCCEEDED, expected), text
        page = store.solutions(job.id, 0, 5000)
        assert page is not None and page.total == expected and not page.truncated
        assert len({tuple(sorted(s.items())) for s in page.items}) == expected
        assert all(holds(text, options, s) for s in page.items)
        grid = store.grid(job.id)
        assert grid is not None and set(grid) == set(job.puzzle) - set(" +=")
        for letter, row in grid.items():
            assert sum(row) == expected
            assert row == [sum(1 for s in page.items if s[letter] == d) for d in range(len(row))]


def test_long_enumeration_progress_partial_results_dedup_and_cancel(
    store: JobStore, wait_job: Any
) -> None:
    """Progress rises while partial solutions are readable; a cancel ends it within 100 ms."""
    job = store.submit("enumerate", *LONG)
    wait_job(store, job.id, running_with_solutions, timeout=30)
    assert store.submit("enumerate", "a+b+c+d+e==f+g+h+i", {"base": 16}).id == job.id
    seen: list[float] = []
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        current = store.get(job.id)
        assert current is not None and current.state is State.RUNNING
        seen.append(current.progress)
        page = store.solutions(job.id, 0, 50)
        assert page is not None and page.total > 0 and len(page.items) == min(50, page.total)
        time.sleep(0.1)
    assert seen == sorted(seen) and seen[-1] > seen[0] > 0.0 and seen[-1] < 1.0
    page = store.solutions(job.id, 0, 200)
    assert page is not None and all(holds(LONG[0], LONG[1], s) for s in page.items)
    running = store.get(job.id)
    assert running is not None and running.eta is not None and running.eta > 0

    result = store.cancel(job.id)
    assert result is not None and result[1] is True
    ended = wait_job(store, job.id, timeout=5)
    assert ended.state is State.CANCELED and ended.progress >= seen[-1]
    assert ended.finished - ended.cancel_requested < 0.1, "cancel took >= 100 ms"
    # Partial results kept: every one found, or the job's storage cap of them when a fast run
    # found more before the cancel (then the page says it was truncated, and why).
    cap = store.settings.max_stored_solutions
    page = store.solutions(job.id, 0, 10)
    assert page is not None and page.total == min(ended.solutions_found, cap) > 0
    assert page.truncated is (ended.solutions_found > cap), page
    assert ended.truncated_reason == ("cap" if ended.solutions_found > cap else "")
    assert store.cancel(job.id)[1] is False  # type: ignore[index]
    assert store.submit("enumerate", *LONG).id != job.id  # a cancelled job is not reused
    store.cancel(store.submitted[-1])  # type: ignore[attr-defined]


def test_queued_job_cancelled_never_runs(store: JobStore, wait_job: Any) -> None:
    """A job cancelled while queued behind a long one never starts its search."""
    blocker = store.submit("enumerate", *LONG)
    wait_job(store, blocker.id, lambda j: j.state is State.RUNNING, timeout=30)
    # A big one too: a small job would go ahead of the blocker (it yields to the first lane).
    queued = store.submit("enumerate", "A + B + C + D + E = F + G + H + I", {"base": 13})
    assert store.get(queued.id).state is State.QUEUED  # type: ignore[union-attr]
    result = store.cancel(queued.id)
    assert result is not None and result[1] is True and result[0].state is State.CANCELED
    store.cancel(blocker.id)
    wait_job(store, blocker.id, timeout=5)
    time.sleep(0.5)  # the worker has taken the queued message by now
    after = store.get(queued.id)
    assert after is not None and after.state is State.CANCELED
    assert after.started is None and after.attempt == 0 and after.nodes == 0
    assert store.solutions(queued.id).total == 0  # type: ignore[union-attr]


def test_solve_jobs_are_prompt_while_enumerate_workers_are_busy(
    store: JobStore, wait_job: Any
) -> None:
    """Short solve jobs finish promptly while the enumerate worker runs a long job."""
    blocker = store.submit("enumerate", *LONG)
    wait_job(store, blocker.id, lambda j: j.state is State.RUNNING, timeout=30)
    for base in (10, 11, 12, 13, 14):
        started = time.monotonic()
        job = wait_job(store, store.submit("solve", "SEND + MORE = MONEY", {"base": base}).id)
        assert job.state is State.SUCCEEDED and holds(
            "SEND + MORE = MONEY", {"base": base}, job.solution
        )
        assert time.monotonic() - started < 3.0
    assert store.get(blocker.id).state is State.RUNNING  # type: ignore[union-attr]


def test_health_counts_workers(store: JobStore) -> None:
    """Health sees Redis and the session's solve and enumerate workers."""
    health = store.health()
    assert health["redis"] is True
    assert health["workers"]["solve"] >= 1 and health["workers"]["enumerate"] >= 1


def test_every_key_written_by_workers_has_a_ttl(
    store: JobStore, redis_client: Any, wait_job: Any
) -> None:
    """After real runs, every key under the prefix has a TTL, but for the few kept for good:
    the stats hash (counters must not reset; its fields are a fixed set) and kombu's own
    (its bindings and unacked index; kombu manages them)."""
    wait_job(store, store.submit("enumerate", "FLY + FLY + FLY = AWAY").id)
    keys = list(redis_client.scan_iter(match=f"{store.prefix}:*"))
    assert any(key.endswith(":grid") for key in keys)
    assert any(":workers:" in key for key in keys)
    kept = {store.keys.stats}
    lasting = {key for key in keys if key not in kept and not key.startswith(store.keys.broker)}
    assert store.keys.stats in keys
    assert all(redis_client.ttl(key) > 0 for key in lasting), {
        k: redis_client.ttl(k) for k in lasting if redis_client.ttl(k) <= 0
    }
