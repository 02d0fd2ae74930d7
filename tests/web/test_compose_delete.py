"""Deleting a compose job's puzzles from its page, through Flask's test client against a real
Redis and real workers: only its holders see the button and may post it, not while it runs,
each refusal said about puzzles in the page's language."""

from __future__ import annotations

from typing import Any

from flask import Flask

from jobstore import JobStore
from tests.support.processes import wait_job
from tests.support.web import as_client, token
from tests.support.words import long_words

# This file's own list (identical jobs are shared: another file's would lose its results).
WORDS = "AB BA CC ABC CAB BCA A B AD DAB DD BD"


def test_only_a_holder_deletes_a_compose_job_s_puzzles_once_it_ended(
    app: Flask, job_store: JobStore, web_workers: Any
) -> None:
    owner, stranger = as_client(app, "10.8.1.1"), as_client(app, "10.8.1.2")
    fields = {"words": WORDS, "addends": "2", "solutions": "1", "base": "9"}
    posted = owner.post("/compose", data={"csrf_token": token(owner), **fields})
    assert posted.status_code == 303, posted.text[:2000]
    job_id = posted.headers["Location"].rsplit("/", 1)[1]
    wait_job(job_store, job_id, timeout=60)
    found = owner.get(f"/api/jobs/{job_id}/results").get_json()["total"]
    assert found > 0
    page = owner.get(f"/jobs/{job_id}?lang=ja").text
    assert 'id="delete"' in page and "見つかったパズルを削除" in page
    assert 'id="run-again"' in page
    assert 'id="delete"' not in stranger.get(f"/jobs/{job_id}").text
    refused = stranger.post(f"/jobs/{job_id}/delete?lang=th", data={"csrf_token": token(stranger)})
    assert refused.status_code == 403 and "ลบปริศนาได้" in refused.text
    assert owner.get(f"/api/jobs/{job_id}/results").get_json()["total"] == found
    # The button asks first (a page of its own, without JavaScript too): nothing goes yet.
    asked = owner.post(f"/jobs/{job_id}/delete?lang=ja", data={"csrf_token": token(owner)})
    assert asked.status_code == 200 and "このジョブが見つけた問題を削除しますか？" in asked.text
    assert 'name="confirm" value="1"' in asked.text and f'href="/jobs/{job_id}"' in asked.text
    assert owner.get(f"/api/jobs/{job_id}/results").get_json()["total"] == found
    sure = {"csrf_token": token(owner), "confirm": "1"}
    deleted = owner.post(f"/jobs/{job_id}/delete", data=sure)
    assert deleted.status_code == 303 and deleted.headers["Location"].endswith(f"/jobs/{job_id}")
    after = owner.get(f"/jobs/{job_id}?lang=th").text
    assert 'id="deleted"' in after and "ปริศนาที่งานนี้พบถูกลบแล้ว" in after
    assert 'id="delete"' not in after and 'class="solve' not in after
    # Only what still means something: no empty table, order, pages or downloads.
    for dead in ('id="results"', 'id="order"', 'class="pager"', "export-csv", "export-jsonl"):
        assert dead not in after, dead
    assert owner.get(f"/api/jobs/{job_id}/results").get_json()["total"] == 0


def test_a_running_compose_job_is_not_deleted(
    app: Flask, job_store: JobStore, web_workers: Any
) -> None:
    owner = as_client(app, "10.8.2.1")
    fields = {"words": "\n".join(long_words(120)), "base": "11"}
    posted = owner.post("/compose", data={"csrf_token": token(owner), **fields})
    job_id = posted.headers["Location"].rsplit("/", 1)[1]
    try:
        assert 'id="delete"' not in owner.get(f"/jobs/{job_id}").text
        refused = owner.post(f"/jobs/{job_id}/delete?lang=ja", data={"csrf_token": token(owner)})
        assert refused.status_code == 403, refused.text[:500]
        assert "先に取り消してから、パズルを削除してください" in refused.text
    finally:
        job_store.cancel(job_id)
    wait_job(job_store, job_id, timeout=30)
    assert 'id="delete"' in owner.get(f"/jobs/{job_id}").text  # canceled: its puzzles may go
