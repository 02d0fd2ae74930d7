"""Caps (body size, puzzle size, page size) and the per-client rate limit on job creation."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

import alphametic
from jobstore import JobStore
from tests.support.web import as_client, assert_problem, make_app
from web import create_app
from web.api import estimates


def test_body_over_cap_is_413(web_settings: Any) -> None:
    client = make_app(web_settings, MAX_CONTENT_LENGTH=1024).test_client()
    response = client.post("/api/jobs", json={"puzzle": "A" * 2000})
    assert "1024 bytes" in assert_problem(response, 413)["detail"]
    response = client.post("/api/jobs", json={"puzzle": "A" * 900})
    assert response.status_code == 422  # under the cap: the engine judges the puzzle


def test_form_body_over_cap_is_413_page(web_settings: Any) -> None:
    client = make_app(web_settings, MAX_CONTENT_LENGTH=1024).test_client()
    response = client.post("/jobs", data={"puzzle": "A" * 2000, "csrf_token": "x"})
    assert response.status_code == 413 and response.mimetype == "text/html"
    assert 'href="/?lang=ja"' in response.text  # the language links lead home: nothing to keep


def test_puzzle_length_cap(client: FlaskClient) -> None:
    puzzle = "A" * (alphametic.MAX_CHARS + 1) + " = B"
    problem = assert_problem(client.post("/api/jobs", json={"puzzle": puzzle}), 422)
    assert f"{alphametic.MAX_CHARS:,}" in problem["detail"]


def test_puzzle_term_cap(client: FlaskClient) -> None:
    puzzle = " + ".join(["A"] * (alphametic.MAX_TERMS + 1)) + " = B"
    problem = assert_problem(client.post("/api/jobs", json={"puzzle": puzzle}), 422)
    assert f"{alphametic.MAX_TERMS:,} terms" in problem["detail"]


def test_page_size_cap(web_settings: Any, web_workers: Any) -> None:
    client = make_app(web_settings, MAX_PAGE_SIZE=5).test_client()
    job = client.post("/api/jobs", json={"puzzle": "TWO + TWO = FOUR", "mode": "enumerate"})
    url = job.get_json()["links"]["solutions"]
    problem = assert_problem(client.get(url + "?limit=6"), 422)
    assert "between 1 and 5" in problem["detail"]
    assert client.get(url + "?limit=5").status_code == 200
    assert client.get(url).get_json()["limit"] == 5  # the default never exceeds the cap


def test_rate_limit_and_recovery(web_settings: Any) -> None:
    # Its own key prefix, so no other test's requests count against this window.
    isolated = web_settings.replace(key_prefix=f"ratelimit-{uuid.uuid4().hex[:8]}")
    client = make_app(isolated, RATE_LIMIT="3/2 seconds").test_client()
    bad = {"puzzle": "A + B"}  # refused by the engine: counts, but queues nothing
    for _ in range(3):
        assert client.post("/api/jobs", json=bad).status_code == 422
    limited = client.post("/api/jobs", json=bad)
    problem = assert_problem(limited, 429)
    assert "3 per 2 second" in problem["detail"]
    wait = int(limited.headers["Retry-After"])
    assert 1 <= wait <= 3
    form = client.post("/jobs", data={"csrf_token": _token(client), "puzzle": "A + B"})
    assert form.status_code == 422  # refused for what was typed: no rate spent, none asked
    form = client.post("/jobs", data={"csrf_token": _token(client), "puzzle": "TO + GO = OUT"})
    assert form.status_code == 429 and form.mimetype == "text/html"  # the form shares the budget
    assert 1 <= int(form.headers["Retry-After"]) <= 3
    # The form comes back as it was typed, the reason under it in the page's language.
    japanese = client.post(
        "/jobs?lang=ja", data={"csrf_token": _token(client), "puzzle": "いち＋いち＝にい"}
    )
    page = japanese.get_data(as_text=True)
    assert japanese.status_code == 429 and "いち＋いち＝にい" in page
    seconds = japanese.headers["Retry-After"]
    assert f"{seconds} 秒後にもう一度お試しください" in page  # said in Japanese, with its wait
    assert "Too many jobs" not in page
    assert client.get("/api/openapi.json").status_code == 200  # reads are not limited
    time.sleep(wait + 0.2)
    assert client.post("/api/jobs", json=bad).status_code == 422


def test_invalid_form_posts_do_not_spend_the_rate_meant_for_jobs(web_settings: Any) -> None:
    """An empty or malformed form sent again and again is answered by its errors, and the
    next valid post is still a job (it was "too many jobs", with no number of seconds)."""
    isolated = web_settings.replace(key_prefix=f"ratelimit-{uuid.uuid4().hex[:8]}")
    client = make_app(isolated, RATE_LIMIT="3/minute").test_client()
    for typed in ("", "", "A + B", "", "A +", "", "SEND + MORE = MONEY (", ""):
        answer = client.post("/jobs", data={"csrf_token": _token(client), "puzzle": typed})
        assert answer.status_code == 422, (typed, answer.status_code)
    valid = client.post("/jobs", data={"csrf_token": _token(client), "puzzle": "TO + GO = OUT"})
    assert valid.status_code == 303


@pytest.mark.parametrize(
    ("lang", "saying"),
    [
        ("en", "Try again in {seconds} seconds."),
        ("ja", "{seconds} 秒後にもう一度お試しください。"),
        ("th", "โปรดลองอีกครั้งในอีก {seconds} วินาที"),
    ],
)
def test_the_forms_rate_limit_says_how_many_seconds(
    web_settings: Any, lang: str, saying: str
) -> None:
    """Over the rate, the form says the seconds to wait (Retry-After's), in its language."""
    isolated = web_settings.replace(key_prefix=f"ratelimit-{uuid.uuid4().hex[:8]}")
    client = make_app(isolated, RATE_LIMIT="2/minute").test_client()
    for puzzle in ("TO + GO = OUT", "ODD + ODD = EVEN"):
        data = {"csrf_token": _token(client), "puzzle": puzzle}
        assert client.post(f"/jobs?lang={lang}", data=data).status_code == 303
    data = {"csrf_token": _token(client), "puzzle": "SEND + MORE = MONEY"}
    limited = client.post(f"/jobs?lang={lang}", data=data)
    assert limited.status_code == 429
    seconds = int(limited.headers["Retry-After"])
    assert 55 <= seconds <= 60
    assert saying.format(seconds=seconds) in limited.get_data(as_text=True)


def test_a_busy_estimate_says_to_retry_when_the_running_one_answers(web_settings: Any) -> None:
    """A client's second estimate while its first runs is told 1 s (an estimate takes well
    under a second), not the 10 s its marker may live."""
    isolated = web_settings.replace(key_prefix=f"busy-{uuid.uuid4().hex[:8]}")
    client = as_client(make_app(isolated), "10.9.9.9")
    with JobStore(isolated).alone("10.9.9.9", "estimate", estimates.ALONE_SECONDS):
        busy = client.get("/api/estimate", query_string={"puzzle": "SEND + MORE = MONEY"})
    assert_problem(busy, 429)
    assert busy.headers["Retry-After"] == "1"


def test_rate_limit_counts_clients_behind_a_trusted_proxy(web_settings: Any) -> None:
    isolated = web_settings.replace(key_prefix=f"ratelimit-{uuid.uuid4().hex[:8]}")
    client = make_app(isolated, RATE_LIMIT="2/minute", PROXY_HOPS=1).test_client()

    def post(address: str) -> int:
        headers = {"X-Forwarded-For": address}
        return client.post("/api/jobs", json={"puzzle": "A + B"}, headers=headers).status_code

    assert [post("203.0.113.7") for _ in range(3)] == [422, 422, 429]
    assert post("198.51.100.9") == 422  # another client behind the same proxy
    untrusted = make_app(isolated, RATE_LIMIT="2/minute").test_client()
    codes = [
        untrusted.post("/api/jobs", json={"puzzle": "A + B"}, headers={"X-Forwarded-For": ip})
        for ip in ("192.0.2.1", "192.0.2.2", "192.0.2.3")
    ]
    assert [r.status_code for r in codes] == [422, 422, 429]  # without PROXY_HOPS: not trusted


def _token(client: FlaskClient) -> str:
    """Return the form's CSRF token."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/").get_data(as_text=True))
    assert found
    return found.group(1)


def test_limits_come_from_the_environment(web_settings: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("ALPHAMETIC_RATE_LIMIT", "7/hour")
    monkeypatch.setenv("ALPHAMETIC_MAX_BODY", "2048")
    monkeypatch.setenv("ALPHAMETIC_MAX_PAGE_SIZE", "9")
    app = create_app({"SETTINGS": web_settings})
    assert app.config["RATE_LIMIT"] == "7/hour"
    assert app.config["MAX_CONTENT_LENGTH"] == 2048 and app.config["MAX_PAGE_SIZE"] == 9
    info = app.test_client().get("/api/openapi.json").get_json()["info"]["description"]
    assert "2048 bytes" in info and "page size 9" in info and "7/hour" in info


@pytest.mark.parametrize(
    ("name", "value"), [("ALPHAMETIC_RATE_LIMIT", "lots"), ("ALPHAMETIC_MAX_BODY", "big")]
)
def test_bad_limit_settings_fail_at_start(
    web_settings: Any, monkeypatch: Any, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        create_app({"SETTINGS": web_settings})
