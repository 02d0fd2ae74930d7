"""The HTML pages through Flask's test client: form, Post/Redirect/Get, job page, CSRF."""

from __future__ import annotations

import html
import re
import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from jobstore import JobStore
from tests.support.processes import ROOT, wait_job
from tests.support.web import submit_form as submit
from tests.support.web import token

TEMPLATES = ROOT / "web" / "templates"


def job_id_of(response: Any) -> str:
    """Return the job id a 303 redirect points to."""
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    match = re.fullmatch(r"/jobs/([0-9a-f-]{36})", response.headers["Location"])
    assert match
    return match.group(1)


def test_form_has_fields_and_famous_puzzles(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    for name in ("puzzle", "mode", "leading_zeros", "base", "csrf_token"):
        assert f'name="{name}"' in page
    assert page.count('value="SEND + MORE = MONEY"') == 1
    assert page.count('<form method="post"') >= 6


def test_famous_puzzle_is_one_click_away(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    page = client.get("/").get_data(as_text=True)
    first = re.search(r'<form method="post" action="/jobs" class="inline">(.*?)</form>', page, re.S)
    assert first
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', first.group(1)))
    assert fields["puzzle"] == "SEND + MORE = MONEY" and fields["csrf_token"]
    job = wait_job(job_store, job_id_of(client.post("/jobs", data=fields)))
    assert job.solution == {"S": 9, "E": 5, "N": 6, "D": 7, "M": 1, "O": 0, "R": 8, "Y": 2}


def test_prefill_from_query(client: FlaskClient) -> None:
    page = client.get("/?puzzle=TO%20%2B%20GO%20%3D%20OUT&mode=enumerate&base=12")
    text = page.get_data(as_text=True)
    assert 'value="TO + GO = OUT"' in text and 'value="12"' in text
    assert 'value="enumerate" checked' in text


def test_post_redirect_get_draws_the_sum(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="SEND + MORE = MONEY"))
    wait_job(job_store, job_id)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert 'class="badge state-succeeded"' in page
    assert "9567 + 1085 = 10652" in page
    drawn = re.search(r'<pre class="sum" id="sum">(.*?)</pre>', page, re.S)
    assert drawn and "M O N E Y" in drawn.group(1)
    assert 'id="cancel"' not in page and "http-equiv" not in page
    assert "<td>9</td>" in page  # letter table


def test_no_solution_is_said(client: FlaskClient, job_store: JobStore, web_workers: Any) -> None:
    job_id = job_id_of(submit(client, puzzle="AB + DC = CBB"))
    wait_job(job_store, job_id)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "This puzzle has no solution." in page and 'id="sum"' not in page
    assert '<span id="count">0</span> <span id="count-word">solutions</span> found' in page


def test_bad_puzzle_reshows_form(client: FlaskClient) -> None:
    response = submit(client, puzzle='SEND + M"ORE = MONEY', base="16")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert 'value="SEND + M&#34;ORE = MONEY"' in page
    assert 'id="puzzle-error"' in page and "position 8" in page
    assert 'aria-invalid="true"' in page and 'value="16"' in page


def test_bad_base_reshows_form(client: FlaskClient) -> None:
    response = submit(client, puzzle="SEND + MORE = MONEY", base="ten")
    assert response.status_code == 422
    assert 'id="base-error"' in response.get_data(as_text=True)
    response = submit(client, puzzle="SEND + MORE = MONEY", base="99")
    assert response.status_code == 422 and "base" in response.get_data(as_text=True)


def test_user_text_is_escaped(client: FlaskClient) -> None:
    payload = "<script>alert(1)</script>"
    page = submit(client, puzzle=payload).get_data(as_text=True)
    assert payload not in page and html.escape(payload) in page


@pytest.mark.parametrize("sent", [None, "", "forged"])
def test_form_post_without_valid_token_is_403(client: FlaskClient, sent: str | None) -> None:
    token(client)  # the session has a token; the post does not carry it
    data = {"puzzle": "SEND + MORE = MONEY", "mode": "solve"}
    if sent is not None:
        data["csrf_token"] = sent
    response = client.post("/jobs", data=data)
    assert response.status_code == 403
    assert "security token" in response.get_data(as_text=True)


def test_cancel_from_the_page(client: FlaskClient, job_store: JobStore, web_workers: Any) -> None:
    job_id = job_id_of(submit(client, puzzle="CP + IS + FUN = TRUE", mode="enumerate", base="36"))
    try:
        wait_job(job_store, job_id, lambda job: job.solutions_found > 0)
        page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
        assert 'id="cancel"' in page and '<noscript><meta http-equiv="refresh"' in page
        assert client.post(f"/jobs/{job_id}/cancel").status_code == 403
        response = client.post(f"/jobs/{job_id}/cancel", data={"csrf_token": token(client)})
        assert response.status_code == 303 and response.headers["Location"] == f"/jobs/{job_id}"
        job = wait_job(job_store, job_id)
        assert job.state == "canceled"
        page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
        assert "state-canceled" in page and 'id="cancel"' not in page
        assert page.count("<li><code>CP + IS + FUN = TRUE | ") == 50
    finally:
        job_store.cancel(job_id)


def test_enumeration_grid_marks_forced_letters(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="ODD + ODD = EVEN", mode="enumerate"))
    wait_job(job_store, job_id)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    grid = re.search(r'<table id="grid">.*?</table>', page, re.S)
    assert grid
    row = re.search(r"<tr><th scope=\"row\">E</th>(.*?)</tr>", grid.group(0))
    assert row and '<td class="forced">2</td>' in row.group(1)  # E is 1 in both solutions
    assert page.count("<li><code>ODD + ODD = EVEN | ") == 2
    assert 'id="sum"' not in page  # two answers: the list and the grid, no single drawing


def test_enumeration_with_one_solution_is_drawn(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="SEND + MORE = MONEY", mode="enumerate"))
    wait_job(job_store, job_id)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert 'id="sum"' in page and "9567 + 1085 = 10652" in page


def test_solutions_are_paged_on_the_page(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="ABC + DEF = GHI", mode="enumerate"))
    assert wait_job(job_store, job_id).solutions_found == 1088
    page = client.get(f"/jobs/{job_id}?page=2").get_data(as_text=True)
    assert '<ol id="solutions" start="51">' in page
    assert "51–100 of 1088 stored" in page and 'rel="prev"' in page and 'rel="next"' in page


def test_unknown_job_page_is_404(client: FlaskClient) -> None:
    assert client.get(f"/jobs/{uuid.uuid4()}").status_code == 404
    assert client.get("/jobs/not-an-id").status_code == 404


@pytest.mark.parametrize("path", ["/", "/api/openapi.json", "/static/job.js", "/nope", "/healthz"])
def test_security_headers_everywhere(client: FlaskClient, path: str) -> None:
    headers = client.get(path).headers
    csp = headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "script-src 'self'" in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"


def test_no_inline_script_or_style_in_templates() -> None:
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text()
        assert re.search(r"<script(?![^>]*\bsrc=)", text) is None, template.name
        assert re.search(r"<[^>]*\s(on\w+|style)=", text) is None, template.name
