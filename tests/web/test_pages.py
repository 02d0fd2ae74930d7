"""The HTML pages through Flask's test client: form, Post/Redirect/Get, job page, CSRF."""

from __future__ import annotations

import html
import re
import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient

from jobstore import JobStore, explanations
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
    for name in ("puzzle", "mode", "leading_zeros", "base", "fixed", "csrf_token"):
        assert f'name="{name}"' in page
    assert page.count('<form method="post"') == 1  # famous puzzles are links, not forms
    assert 'href="/?puzzle=SEND+%2B+MORE+%3D+MONEY&amp;mode=solve&amp;base=10"' in page
    assert "1,131,120 solutions in about 2 seconds" in page and "long job" not in page


def test_famous_puzzle_fills_the_form(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    links = re.findall(r'<a href="([^"]+)" class="famous-link">', page)
    assert len(links) == 13
    filled = client.get(html.unescape(links[-1])).get_data(as_text=True)
    assert ">\nCP + IS + FUN = TRUE</textarea>" in filled and 'value="24"' in filled
    assert re.search(r'value="enumerate"[^>]*\s+checked', filled)
    assert '<span class="with-script">Find all solutions</span>' in filled
    assert re.search(r'<textarea id="puzzle"[^>]* autofocus', filled)  # focus on the puzzle


def test_prefill_from_query(client: FlaskClient) -> None:
    page = client.get("/?puzzle=TO%20%2B%20GO%20%3D%20OUT&mode=enumerate&base=12&fixed=O%3D1")
    text = page.get_data(as_text=True)
    assert ">\nTO + GO = OUT</textarea>" in text and 'value="12"' in text and 'value="O=1"' in text
    assert re.search(r'value="enumerate"[^>]*\s+checked', text)


@pytest.mark.parametrize(
    ("mode", "label"), [("solve", "Solve"), ("enumerate", "Find all solutions")]
)
def test_submit_button_follows_the_mode(client: FlaskClient, mode: str, label: str) -> None:
    text = client.get(f"/?mode={mode}").get_data(as_text=True)
    # The mode's word with scripts (form.js keeps it), a word true of every mode without.
    button = re.search(r'<button type="submit" id="submit">(.*?)</button>', text)
    assert button and button.group(1) == (
        f'<span class="with-script">{label}</span><span class="no-script">Start</span>'
    )
    assert "autofocus" not in text  # nothing chosen yet: the page starts at its top


def test_post_redirect_get_draws_the_sum(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="SEND + MORE = MONEY"))
    wait_job(job_store, job_id)
    # Worked out first (an earlier test may have done it already): while the explanation is
    # pending the page refreshes itself, as it should.
    assert explanations.wait(job_store, job_id, "127.0.0.1", (), 30).status == "done"
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert 'class="badge state-succeeded"' in page and "<title>Finished · SEND" in page
    assert "9567 + 1085 = 10652" in page and "Finished: solved." in page
    drawn = re.search(r'<pre class="sum" id="sum">(.*?)</pre>', page, re.S)
    assert drawn and "M O N E Y" in drawn.group(1)
    assert 'id="cancel"' not in page and "http-equiv" not in page
    assert "<td>9</td>" in page  # letter table
    assert 'id="run-again"' in page and 'id="edit"' in page


def test_a_small_solve_tells_the_positions_it_tried(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    # One piece, a few nodes: its final write carries them all (it used to say 0).
    job_id = job_id_of(submit(client, puzzle="SEND + MORE = MONEY", base="10"))
    job = wait_job(job_store, job_id)
    assert job.state == "succeeded" and job.nodes > 0
    status = client.get(f"/api/jobs/{job_id}").get_json()
    assert status["nodes"] == job.nodes > 0
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    shown = re.search(r'<dd id="nodes">([0-9,]+)</dd>', page)
    assert shown and int(shown.group(1).replace(",", "")) == job.nodes


def test_no_solution_is_said(client: FlaskClient, job_store: JobStore, web_workers: Any) -> None:
    for mode in ("solve", "enumerate"):
        job_id = job_id_of(submit(client, puzzle="AB + DC = CBB", mode=mode))
        wait_job(job_store, job_id)
        page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
        assert "This puzzle has no solution." in page and 'id="sum"' not in page
        assert "Finished: this puzzle has no solution." in page
        assert '<dd id="count">0</dd>' in page


def test_bad_puzzle_reshows_form(client: FlaskClient) -> None:
    response = submit(client, puzzle='SEND + M"ORE = MONEY', base="16")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert ">\nSEND + M&#34;ORE = MONEY</textarea>" in page
    assert 'id="puzzle-error"' in page and "Character 9: “&#34;” (U+0022) cannot be used" in page
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
    fields = {"puzzle": "CP + IS + FUN = TRUE", "mode": "enumerate", "base": "36"}
    warned = submit(client, **fields).get_data(as_text=True)
    assert 'id="size-warning"' in warned and "more than the 1,000,000 a job may store" in warned
    job_id = job_id_of(submit(client, **fields, confirm="1"))
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
        assert 'class="forced"' not in page  # a canceled search proves nothing forced
        assert page.count('<tr><th scope="row"><a href=') == 50
    finally:
        job_store.cancel(job_id)


def test_enumeration_grid_marks_forced_letters(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="ODD + ODD = EVEN", mode="enumerate"))
    wait_job(job_store, job_id)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    grid = re.search(r'<table id="grid" class="numbers">.*?</table>', page, re.S)
    assert grid
    row = re.search(r"<tr><th scope=\"row\">E</th>(.*?)</tr>", grid.group(0))
    assert row and '<td class="forced">2</td>' in row.group(1)  # E is 1 in both solutions
    assert page.count('<tr><th scope="row"><a href=') == 2
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
    rows = re.findall(r'<tr><th scope="row"><a href="[^"]*pick=(\d+)#answer">([\d,]+)</a>', page)
    assert [int(n) for n, _ in rows] == list(range(51, 101))
    assert "51–100 of 1,088 stored" in page and 'max="22"' in page
    assert 'rel="prev" id="prev-page">' in page and 'rel="next" id="next-page">' in page


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


def test_out_of_range_page_is_clamped(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="ABC + DEF = GHI", mode="enumerate"))
    wait_job(job_store, job_id)
    for asked in ("100000000000000000000", "23", "-5"):
        page = client.get(f"/jobs/{job_id}?page={asked}").get_data(as_text=True)
        last = asked != "-5"
        assert ("1,051–1,088 of 1,088 stored" in page) is last
        assert ("1–50 of 1,088 stored" in page) is not last
        assert 'rel="next" id="next-page" hidden>' in page or not last


def test_picked_solution_is_drawn_as_a_sum(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = job_id_of(submit(client, puzzle="ABC + DEF = GHI", mode="enumerate"))
    wait_job(job_store, job_id)
    assert 'id="sum"' not in client.get(f"/jobs/{job_id}?page=2").get_data(as_text=True)
    page = client.get(f"/jobs/{job_id}?page=2&pick=51").get_data(as_text=True)
    picked = job_store.solutions(job_id, offset=50, limit=1)
    assert picked is not None
    digits = "".join(str(picked.items[0][c]) for c in "ABC")
    drawn = re.search(r'<pre class="sum" id="sum">(.*?)</pre>', page, re.S)
    assert drawn and " ".join(digits) in drawn.group(1).replace("  ", " ")
    # Named above the sum, and marked in the table: the one row picked.
    assert '<h2 id="answer-title">Solution 51 of 1,088</h2>' in page
    marked = re.findall(
        r'<tr class="picked" aria-current="true"><th scope="row"><a [^>]*>([\d,]+)<', page
    )
    assert marked == ["51"]
    japanese = client.get(f"/jobs/{job_id}?page=2&pick=51&lang=ja").get_data(as_text=True)
    assert '<h2 id="answer-title">解 51 / 1,088</h2>' in japanese


def test_favicon(client: FlaskClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert b"<svg" in response.data


def test_count_mode_from_the_form(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    form = client.get("/?mode=count").get_data(as_text=True)
    assert 'value="count"' in form and "Count the solutions" in form
    assert '<span class="with-script">Count</span>' in form
    job_id = job_id_of(submit(client, puzzle="CP + IS + FUN = TRUE", mode="count", base="24"))
    assert wait_job(job_store, job_id, timeout=60).solutions_found == 1_131_120
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "Count the solutions" in page
    # The count, said once (the status line), besides its place among the counters.
    assert 'aria-live="polite">Finished: 1,131,120 solutions.</p>' in page
    outside = re.sub(r'<section class="explain".*?</section>', "", page, flags=re.S)
    assert outside.count("1,131,120") == 2 and '<dd id="count">1,131,120</dd>' in page
    assert 'id="solutions"' not in page and 'id="export-csv"' not in page


def test_no_shared_cache_keeps_a_page_or_a_job(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    """The form and job pages (they carry the session's CSRF token) and the API's job answers
    are private and revalidated; a static file keeps its own caching."""
    job_id = submit(client, puzzle="TO + GO = OUT").headers["Location"].rsplit("/", 1)[1]
    for path in ("/", f"/jobs/{job_id}", f"/api/jobs/{job_id}", f"/api/jobs/{job_id}/solutions"):
        cache = client.get(path).headers.get("Cache-Control", "")
        assert {"private", "no-cache"} <= {d.strip() for d in cache.split(",")}, (path, cache)
    assert "private" not in client.get("/static/job.js").headers.get("Cache-Control", "")
