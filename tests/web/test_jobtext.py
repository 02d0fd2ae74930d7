"""What the job page says about where a job stands: queue place, honest ETA, the end."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from jobstore import Job, Mode, Settings, State
from tests.support.web import make_app
from web.pages import jobtext


def job(state: State, mode: Mode = Mode.ENUMERATE, **fields: Any) -> Job:
    """A job record as the store would hand it over (started 100 s ago unless told)."""
    now = time.time()
    return Job(
        id="00000000-0000-4000-8000-000000000000",
        mode=mode,
        puzzle="CP + IS + FUN = TRUE",
        options={"base": 36},
        state=state,
        created=now - 100,
        started=fields.pop("started", now - 100),
        read_at=now,
        **fields,
    )


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "Will stop at its 30 min limit at"), ("ja", "制限時間の 30分 に達するため"),
     ("th", "จะหยุดเมื่อครบเวลาจำกัด 30 นาที")],
)  # fmt: skip
def test_eta_says_when_the_limit_comes_first(app: Flask, lang: str, words: str) -> None:
    running = job(State.RUNNING, progress=0.02, eta=1700.0)
    info = {"limit_at": "2026-11-30T14:32:00.000Z"}
    with app.test_request_context(f"/?lang={lang}"):
        text = jobtext.eta_text(running, info, 1800.0)
    assert words in text and "14:32 UTC" in text
    assert re.search(r"3[56]\.0%", text)  # 2 % in 100 s, so about 36 % when 1,700 s more pass


def test_eta_is_plain_when_the_job_ends_in_time(app: Flask) -> None:
    with app.test_request_context("/"):
        assert jobtext.eta_text(job(State.RUNNING, eta=75.0), {}, 1800.0) == (
            "Time left: about 1 min 15 s."
        )
        assert jobtext.eta_text(job(State.RUNNING), {}, 1800.0) == "Time left: unknown."
        assert jobtext.eta_text(job(State.SUCCEEDED), {}, 1800.0) == ""


def test_queue_text_gives_place_and_start(app: Flask) -> None:
    info = {"queue_position": 3, "expected_start": "2026-11-30T09:05:00.000Z"}
    with app.test_request_context("/?lang=th"):
        text = jobtext.queue_text(info)
    assert "ลำดับที่ 3" in text and "09:05 UTC" in text
    with app.test_request_context("/"):
        assert jobtext.queue_text({}) == "Waiting for a worker."


@pytest.mark.parametrize(
    ("record", "line"),
    [
        (job(State.SUCCEEDED, solutions_found=0), "Finished: this puzzle has no solution."),
        (job(State.SUCCEEDED, Mode.SOLVE, solutions_found=1), "Finished: solved."),
        (job(State.SUCCEEDED, Mode.COUNT, solutions_found=1_131_120),
         "Finished: 1,131,120 solutions."),
        (job(State.CANCELED, solutions_found=1), "Canceled after 1 solution."),
        (job(State.FAILED, error="time limit"), "Stopped at its time limit."),
    ],
)  # fmt: skip
def test_status_line(app: Flask, record: Job, line: str) -> None:
    with app.test_request_context("/"):
        assert jobtext.status_line(record, {}) == line


def test_queued_job_page_shows_its_place(fresh_settings: Callable[..., Settings]) -> None:
    """No worker reads this store's queues: the job stays queued and the page says where."""
    app = make_app(fresh_settings())
    client = app.test_client()
    first = client.post("/api/jobs", json={"puzzle": "SEND + MORE = MONEY"}).get_json()
    second = client.post("/api/jobs", json={"puzzle": "TO + GO = OUT"}).get_json()
    placed = client.get(f"/api/jobs/{second['id']}").get_json()
    assert placed["queue_position"] == 2, placed
    page = client.get(f"/jobs/{second['id']}").get_data(as_text=True)
    assert "Waiting for a worker. Number 2 in the queue." in page
    assert "Expected to start at about" in page
    assert first["state"] == "queued"
