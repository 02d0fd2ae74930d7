"""Identical submissions from different clients share one job; through the HTTP API, a cancel
or delete by one of them only lets go of it, and clients that never submitted it get 403."""

from __future__ import annotations

from typing import Any

from flask import Flask

from jobstore import JobStore, State
from tests.support.processes import wait_job
from tests.support.web import as_client, assert_problem, token

# Unique to this file, so no other test's job is handed out instead.
LONG = {"puzzle": "CP + IS + FUN = TRUE", "mode": "enumerate", "options": {"base": 35}}
SMALL = {"puzzle": "TWO + TWO = FOUR", "mode": "enumerate", "options": {"base": 11}}


def test_a_shared_running_job_runs_on_until_its_last_holder_cancels(
    app: Flask, job_store: JobStore, web_workers: Any
) -> None:
    """B's cancel lets go (200, still running); C's is refused (403); A's cancels it."""
    a, b, c = (as_client(app, f"10.7.0.{n}") for n in (1, 2, 3))
    first = a.post("/api/jobs", json=LONG).get_json()
    try:
        shared = b.post("/api/jobs", json=LONG).get_json()
        assert shared["id"] == first["id"] and shared["clients"] == 2
        let_go = b.post(f"/api/jobs/{first['id']}/cancel", json={})
        assert let_go.status_code == 200, let_go.get_json()
        body = let_go.get_json()
        assert body["state"] in ("queued", "running") and body["clients"] == 1
        refused = assert_problem(c.post(f"/api/jobs/{first['id']}/cancel", json={}), 403)
        assert refused["field"] == "id" and refused["type"].endswith("/not-your-job")
        assert_problem(c.delete(f"/api/jobs/{first['id']}"), 403)
        page = c.post(f"/jobs/{first['id']}/cancel?lang=ja", data={"csrf_token": token(c)})
        assert page.status_code == 403 and "取り消せるのは送信した人だけ" in page.text
        assert "security token" not in page.text and "セキュリティ" not in page.text
        english = c.post(f"/jobs/{first['id']}/cancel?lang=en", data={"csrf_token": token(c)})
        assert "only they can cancel it" in english.text and "security token" not in english.text
        assert b.get(f"/api/jobs/{first['id']}").get_json()["state"] in ("queued", "running")
        ended = a.post(f"/api/jobs/{first['id'].upper()}/cancel", json={})  # an id in upper case
        assert ended.status_code == 200
        done = wait_job(job_store, first["id"])
        assert done.state is State.CANCELED
    finally:
        job_store.cancel(first["id"])


def test_a_shared_jobs_solutions_stay_for_the_others_after_one_deletes(
    app: Flask, job_store: JobStore, web_workers: Any
) -> None:
    """A's DELETE lets go (its solutions stay for B); B's DELETE removes them."""
    a, b = as_client(app, "10.7.1.1"), as_client(app, "10.7.1.2")
    job = a.post("/api/jobs", json=SMALL).get_json()
    assert b.post("/api/jobs", json=SMALL).get_json()["id"] == job["id"]
    found = wait_job(job_store, job["id"]).solutions_found
    assert found > 0
    let_go = a.delete(f"/api/jobs/{job['id']}")
    assert let_go.status_code == 200 and let_go.get_json()["deleted"] is None
    assert b.get(f"/api/jobs/{job['id']}/solutions").get_json()["total"] == found
    gone = b.delete(f"/api/jobs/{job['id']}")
    assert gone.status_code == 200 and gone.get_json()["deleted"]
    assert a.get(f"/api/jobs/{job['id']}/solutions").get_json()["total"] == 0
    anew = a.post("/api/jobs", json=SMALL).get_json()
    assert anew["id"] != job["id"]  # a deleted job is not handed out again
    wait_job(job_store, anew["id"])
