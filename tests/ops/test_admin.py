"""The admin API and page: 404 without a token, 401 with a wrong one, and real actions on jobs."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from jobstore import JobStore, Settings
from tests.support.ops import ADMIN_TOKEN, own_settings
from tests.support.processes import WebServer, WorkerProcess, wait_job
from tests.support.puzzles import LONG
from tests.support.web import make_app

pytestmark = pytest.mark.timeout(120)
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
TOKEN_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
SOLVES = ["SEND + MORE = MONEY", "TO + GO = OUT", "ONE + ONE = TWO", "AB + BA = CC", "I + BB = ILL"]


@pytest.fixture(scope="module")
def ops_settings(settings: Settings) -> Settings:
    """Enumerations end failed ("time limit") after 3 s: a failed job to re-queue, quickly."""
    return own_settings(
        settings, heartbeat_interval=0.5, enumerate_soft_limit=3, enumerate_hard_limit=10,
        shard_threshold=0,
    )  # fmt: skip


@pytest.fixture(scope="module")
def admin_store(ops_settings: Settings) -> Iterator[JobStore]:
    """A store to submit with client ids; its unfinished jobs are cancelled afterwards."""
    job_store = JobStore(ops_settings)
    yield job_store
    for job_id in job_store.redis.zrange(job_store.keys.jobs, 0, -1):
        job_store.cancel(job_id)


def api(server: WebServer, method: str, path: str, **kwargs: Any) -> requests.Response:
    """One call of the admin API with the right token (unless headers say otherwise)."""
    kwargs.setdefault("headers", AUTH)
    return requests.request(method, f"{server.url}/admin/api{path}", timeout=10, **kwargs)


def test_everything_admin_is_404_without_a_token(
    ops_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ALPHAMETIC_ADMIN_TOKEN: the API, the page and its forms answer as unknown paths do."""
    monkeypatch.delenv("ALPHAMETIC_ADMIN_TOKEN", raising=False)
    client = make_app(ops_settings).test_client()
    assert client.get("/admin-no-such-page").status_code == 404
    calls = [("GET", "/admin"), ("POST", "/admin/login"), ("POST", "/admin/actions"),
             ("GET", "/admin/api/jobs"), ("GET", "/admin/api/queues"),
             ("POST", "/admin/api/jobs/cancel"), ("DELETE", "/admin/api/jobs/x")]  # fmt: skip
    for method, path in calls:
        for headers in ({}, {"Authorization": "Bearer "}, AUTH):
            answer = client.open(path, method=method, headers=headers)
            assert answer.status_code == 404, (method, path, headers)


def test_a_missing_or_wrong_token_is_401(ops_web: WebServer) -> None:
    """API: 401 problem with WWW-Authenticate; page: the login form with 401; right token: 200."""
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Basic {ADMIN_TOKEN}"},
                    {"Authorization": f"Bearer {ADMIN_TOKEN}x"}):  # fmt: skip
        answer = api(ops_web, "GET", "/jobs", headers=headers)
        assert answer.status_code == 401, headers
        assert answer.headers["WWW-Authenticate"].startswith("Bearer")
        assert answer.json()["status"] == 401
        page = requests.get(f"{ops_web.url}/admin", headers=headers, timeout=10)
        assert page.status_code == 401 and 'name="token"' in page.text
    assert api(ops_web, "GET", "/jobs").status_code == 200
    assert requests.get(f"{ops_web.url}/admin", headers=AUTH, timeout=10).status_code == 200


def test_list_by_state_mode_and_client_with_paging(
    ops_web: WebServer, ops_workers: WorkerProcess, admin_store: JobStore
) -> None:
    """Five real jobs of two clients: filters pick them out and `next` pages through them."""
    ids = {"alice": [], "bob": []}  # type: dict[str, list[str]]
    for i, puzzle in enumerate(SOLVES):
        client = "alice" if i < 3 else "bob"
        ids[client].append(admin_store.submit("solve", puzzle, client=client).id)
    for job_id in ids["alice"] + ids["bob"]:
        wait_job(admin_store, job_id)
    seen: list[str] = []
    cursor = None
    while True:
        params = {"client": "alice", "limit": "2", **({"cursor": cursor} if cursor else {})}
        page = api(ops_web, "GET", "/jobs", params=params).json()
        assert len(page["items"]) <= 2
        seen += [job["id"] for job in page["items"]]
        assert all(job["client"] == "alice" for job in page["items"])
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == list(reversed(ids["alice"]))  # newest first, each once
    bob = api(ops_web, "GET", "/jobs", params={"client": "bob", "state": "succeeded"}).json()
    assert {job["id"] for job in bob["items"]} == set(ids["bob"])
    none = api(ops_web, "GET", "/jobs", params={"client": "bob", "mode": "enumerate"}).json()
    assert none["items"] == [] and none["next"] is None
    assert api(ops_web, "GET", "/jobs", params={"state": "lost"}).status_code == 422


def long_job(job_store: JobStore, client: str, letter_digit: int) -> str:
    """A long enumeration (distinct by a fixed digit, so no two are deduplicated)."""
    puzzle, options = LONG
    return job_store.submit("enumerate", puzzle, {**options, "fixed": {"A": letter_digit}},
                            client=client).id  # fmt: skip


def test_cancel_many_and_see_workers_with_their_jobs(
    ops_web: WebServer, ops_workers: WorkerProcess, admin_store: JobStore
) -> None:
    """A running job shows under its worker; one bulk call (by client) cancels all of them."""
    jobs = [long_job(admin_store, "carol", d) for d in (1, 2, 3)]
    wait_job(admin_store, jobs[0], lambda job: job.state == "running", timeout=10)
    overview = api(ops_web, "GET", "/queues").json()
    running = {job["id"] for worker in overview["workers"] for job in worker["jobs"]}
    assert jobs[0] in running, overview
    assert set(overview["queues"]) == {"solve", "enumerate"}
    answer = api(ops_web, "POST", "/jobs/cancel", json={"filter": {"client": "carol"}})
    assert answer.status_code == 200
    assert answer.json()["results"] == dict.fromkeys(jobs, "canceled")
    for job_id in jobs:
        assert wait_job(admin_store, job_id, timeout=10).state == "canceled"
    again = api(ops_web, "POST", "/jobs/cancel", json={"ids": [jobs[0], "no-such-job"]})
    assert again.json()["results"] == {jobs[0]: "unchanged", "no-such-job": "unknown"}


def test_requeue_runs_a_failed_job_again(
    ops_web: WebServer, ops_workers: WorkerProcess, admin_store: JobStore
) -> None:
    """A job failed by its time limit goes back on its queue and runs again; others are 409."""
    job_id = long_job(admin_store, "dave", 4)
    first = wait_job(admin_store, job_id, timeout=20)
    assert first.state == "failed" and first.error == "time limit", first.to_dict()
    answer = api(ops_web, "POST", f"/jobs/{job_id}/requeue")
    assert answer.status_code == 200, answer.text
    rerun = wait_job(
        admin_store, job_id, lambda job: job.started not in (None, first.started), timeout=10
    )
    assert rerun.attempt == 1 and rerun.started is not None and first.finished is not None
    assert rerun.started >= first.finished
    second = wait_job(admin_store, job_id, timeout=20)
    assert second.state == "failed" and admin_store.redis.hget(f"{admin_store.keys.job(job_id)}",
                                                               "requeues") == "1"  # fmt: skip
    done = admin_store.submit("solve", "SEND + MORE = MONEY", client="dave").id
    wait_job(admin_store, done)
    assert api(ops_web, "POST", f"/jobs/{done}/requeue").status_code == 409
    assert api(ops_web, "POST", "/jobs/no-such-job/requeue").status_code == 404


def test_delete_removes_an_ended_jobs_results(
    ops_web: WebServer, ops_workers: WorkerProcess, admin_store: JobStore
) -> None:
    """DELETE drops an ended job's stored solutions; a running job is refused (409)."""
    job_id = admin_store.submit("enumerate", "TO + GO = OUT", {"leading_zeros": "allow"}).id
    assert wait_job(admin_store, job_id).state == "succeeded"
    page = admin_store.solutions(job_id)
    assert page is not None and page.total > 0
    answer = api(ops_web, "DELETE", f"/jobs/{job_id}")
    assert answer.status_code == 200, answer.text
    page = admin_store.solutions(job_id)
    assert page is None or page.total == 0
    running = long_job(admin_store, "erin", 6)
    wait_job(admin_store, running, lambda job: job.state == "running", timeout=10)
    assert api(ops_web, "DELETE", f"/jobs/{running}").status_code == 409
    admin_store.cancel(running)
    assert api(ops_web, "DELETE", "/jobs/no-such-job").status_code == 404


def test_the_page_logs_in_lists_and_cancels(
    ops_web: WebServer, ops_workers: WorkerProcess, admin_store: JobStore
) -> None:
    """A person logs in with the token, sees a job, ticks it and cancels it; all logged."""
    job_id = long_job(admin_store, "frank", 5)
    with requests.Session() as browser:
        form = browser.get(f"{ops_web.url}/admin", timeout=10)
        assert form.status_code == 401
        csrf = TOKEN_FIELD.search(form.text)
        assert csrf
        wrong = browser.post(
            f"{ops_web.url}/admin/login",
            data={"csrf_token": csrf.group(1), "token": "guess"},
            timeout=10,
        )
        assert wrong.status_code == 401
        page = browser.post(
            f"{ops_web.url}/admin/login",
            data={"csrf_token": csrf.group(1), "token": ADMIN_TOKEN},
            timeout=10,
        )
        assert page.status_code == 200 and job_id in page.text  # redirected to the listing
        # One plain Redis: no replica, no floor, and the page says what that risks.
        assert "Replicas connected: <strong>0</strong> (floor 0)" in page.text
        assert "No replica: a failover now would lose" in page.text
        forged = browser.post(
            f"{ops_web.url}/admin/actions", data={"action": "cancel", "ids": job_id}, timeout=10
        )
        assert forged.status_code == 403  # no CSRF token: refused
        done = browser.post(
            f"{ops_web.url}/admin/actions",
            timeout=10,
            data={"csrf_token": csrf.group(1), "action": "cancel", "ids": job_id},
        )
        assert done.status_code == 200 and f"{job_id}: canceled" in done.text
        # A row's own button: its id as `one`, its action in the query string.
        other = long_job(admin_store, "frank", 7)
        row = browser.post(
            f"{ops_web.url}/admin/actions?action=cancel",
            timeout=10,
            data={"csrf_token": csrf.group(1), "one": other, "action": "delete"},
        )
        assert row.status_code == 200 and f"{other}: canceled" in row.text
    assert wait_job(admin_store, job_id, timeout=10).state == "canceled"
    lines = [json.loads(line) for line in ops_web.log().splitlines() if line.startswith("{")]
    actions = [(e["admin_action"], e["job_ids"]) for e in lines if "admin_action" in e]
    assert ("cancel", [job_id]) in actions and ("login", []) in actions
    assert any(e.get("outcome") == "wrong token" for e in lines if "admin_action" in e)
