"""The compose pages through Flask's test client, against a real Redis and real workers: the
form's errors under their fields in the page's language, and a job page listing what the API
lists, each puzzle with its link to solve it."""

from __future__ import annotations

import re
import uuid
from dataclasses import replace
from html import unescape
from typing import Any

import pytest
from flask.testing import FlaskClient

from alphametic.wordlists import word_list
from jobstore import JobStore, State
from tests.support.processes import wait_job
from tests.support.web import assert_problem, make_app, token
from tests.support.words import SMALL, brute
from web.pages import compose as compose_pages


def post_form(client: FlaskClient, **fields: str) -> Any:
    """Send the compose form as a browser does (with its CSRF token)."""
    return client.post("/compose", data={"csrf_token": token(client), **fields})


def test_the_form_page_is_there_and_linked_from_the_puzzle_form(client: FlaskClient) -> None:
    assert 'href="/compose"' in client.get("/").get_data(as_text=True)
    page = client.get("/compose?words=SEND%0AMORE&addends=3").get_data(as_text=True)
    assert 'id="compose-form"' in page and "SEND\nMORE</textarea>" in page
    assert 'name="addends" min="1" max="10" value="3"' in page


def test_a_built_in_list_fills_the_words_in(client: FlaskClient) -> None:
    """The list chooser (a GET form) fills the box with a list's most frequent words."""
    page = client.get("/compose?list=th&first=30").get_data(as_text=True)
    assert "\n".join(word_list("th", 30)) + "</textarea>" in page
    assert '<option value="th" selected>ไทย</option>' in page
    assert 'name="first" min="2" max="2000" value="30"' in page
    page = client.get("/compose?list=en&first=1").get_data(as_text=True)  # at least two
    assert "\n".join(word_list("en", 2)) + "</textarea>" in page
    page = client.get("/compose?list=xx&lang=ja").get_data(as_text=True)  # unknown: nothing
    assert '<option value="ja" selected>日本語</option>' in page
    assert re.search(r'name="words"[^>]*>\s*</textarea>', page)
    assert "用意された語のリストから始める" in page


# 100 distinct three-letter words: ten addends make 4.3e13 sets, more than any run can walk.
HUNDRED = [a + b + c for a in "ABCDE" for b in "FGHIJ" for c in "KLMN"]


@pytest.mark.parametrize(
    ("fields", "field", "lang", "says"),
    [
        ({"words": "\n".join(HUNDRED), "addends": "10"}, "addends", "ja", "足す 10 語を選ぶ"),
        ({"words": " ".join(HUNDRED), "addends": "10"}, "addends", "en", "42,634,215,112,710"),
        ({"words": "SEND"}, "words", "en", "at least two different words"),
        ({"words": "SEND M0RE"}, "words", "en", "letters only"),
        ({"words": "A B", "addends": "0"}, "addends", "en", "from 1 to 10"),
        ({"words": "A B", "addends": "two"}, "addends", "ja", "1 から 10"),
        ({"words": "A B", "solutions": "0"}, "solutions", "th", "ตั้งแต่ 1 ถึง 1000"),
        ({"words": "A B", "base": "99"}, "base", "en", "from 2 to 36"),
    ],
)
def test_a_bad_form_shows_its_error_under_its_field(
    client: FlaskClient, fields: dict[str, str], field: str, lang: str, says: str
) -> None:
    client.get(f"/compose?lang={lang}")
    response = post_form(client, **fields)
    assert response.status_code == 422
    found = re.search(
        rf'id="{field}-error" role="alert">(.*?)</p>', response.get_data(as_text=True)
    )
    assert found and says in unescape(found.group(1)), found


def test_the_job_page_lists_the_puzzles_found_with_links_to_solve_them(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    response = post_form(client, words="\n".join(SMALL), base="6", leading_zeros="multi-letter")
    assert response.status_code == 303
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    wait_job(job_store, job_id, timeout=60)
    page = client.get(f"/jobs/{job_id}?lang=ja").get_data(as_text=True)
    expected = brute(SMALL, 2, 6, "multi-letter", 1)
    shown = re.findall(r'<code class="puzzle">([^<]*)</code>', page)
    assert set(shown) == set(expected)
    # Each "Solve it" is a form that POSTs the puzzle to /jobs: a solve job of its own.
    forms = re.findall(r'<form method="post" action="/jobs" class="solve-form">(.*?)</form>',
                       page, re.S)  # fmt: skip
    asked = [dict(re.findall(r'name="(\w+)" value="([^"]*)"', form)) for form in forms]
    assert {unescape(q["puzzle"]) for q in asked} == set(expected)
    assert all(q["mode"] == "solve" and q["base"] == "6" and q["csrf_token"] for q in asked)
    # Each difficulty in the page's language, under its column's heading (said once there).
    table = page[page.index('<table id="results">') : page.index("</table>")]
    badges = re.findall(r'<span class="badge difficulty-\w+">([^<]*)</span>', table)
    assert badges and all(re.fullmatch(r"\S+（\d+）", badge) for badge in badges), badges
    assert table.count("難易度") == 1 and '<th scope="col">難易度</th>' in table
    assert 'http-equiv="refresh"' not in page  # it has ended: no more refreshing


def test_the_job_page_lists_the_puzzles_by_difficulty_when_asked(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    response = post_form(client, words="\n".join(SMALL), base="6", leading_zeros="multi-letter")
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    wait_job(job_store, job_id, timeout=60)
    listed = {}
    for order in ("found", "easiest", "hardest"):
        page = client.get(f"/jobs/{job_id}?lang=th&order={order}").get_data(as_text=True)
        listed[order] = re.findall(r'<code class="puzzle">([^<]*)</code>', page)
        current = re.search(r'<a href="([^"]*)" id="order-(\w+)" aria-current="true"', page)
        assert current and current.group(2) == order, order
        assert "ง่ายที่สุดก่อน" in page  # the choice in the page's language
        if order != "found":  # the downloads follow the order shown
            assert f"format=csv&amp;order={order}" in page, order
    expected = brute(SMALL, 2, 6, "multi-letter", 1)
    assert all(set(shown) == set(expected) for shown in listed.values())
    api = client.get(f"/api/jobs/{job_id}/results?order=easiest&limit=100").get_json()
    assert listed["easiest"] == [item["puzzle"] for item in api["items"]]
    assert listed["hardest"] != listed["easiest"]


def test_compose_requests_count_against_the_rate_like_others(web_settings: Any) -> None:
    isolated = web_settings.replace(key_prefix=f"ratelimit-{uuid.uuid4().hex[:8]}")
    client = make_app(isolated, RATE_LIMIT="2/minute").test_client()
    bad = {"mode": "compose", "words": ["ONE"]}  # refused: counts, queues nothing
    assert client.post("/api/jobs", json=bad).status_code == 422
    assert client.post("/api/jobs", json={**bad, "words": ["A", "B"]}).status_code == 202
    assert_problem(client.post("/api/jobs", json=bad), 429)
    form = post_form(client, words="SEND MORE MONEY")
    assert form.status_code == 429 and int(form.headers["Retry-After"]) >= 1
    page = form.get_data(as_text=True)
    assert "SEND MORE MONEY</textarea>" in page and 'id="queue-error"' in page


def test_deleting_a_compose_job_removes_its_results(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    response = client.post("/api/jobs", json={"mode": "compose", "words": SMALL, "fresh": True})
    job_id = response.get_json()["id"]
    wait_job(job_store, job_id, timeout=60)
    assert client.get(f"/api/jobs/{job_id}/results").get_json()["total"] > 0
    assert client.delete(f"/api/jobs/{job_id}").status_code == 200
    assert client.get(f"/api/jobs/{job_id}/results").get_json()["total"] == 0


def test_a_running_jobs_page_says_when_found_puzzles_wait_for_earlier_parts(
    client: FlaskClient, job_store: JobStore
) -> None:
    # A sharded job's later parts may have found puzzles its list (in the words' order) cannot
    # show yet: its record's `found` says 5 while none is listed. Drawn for a job that is not
    # stored at all, so no worker can move it on.
    response = post_form(client, words="\n".join(SMALL), base="6")
    job = job_store.get(response.headers["Location"].rsplit("/", 1)[1])
    assert job is not None
    unseen = replace(job, id=str(uuid.uuid4()), state=State.RUNNING, solutions_found=0)
    app = client.application
    for found, lang, says in ((0, "en", None), (5, "ja", "5 問のうち 0 問")):
        with app.test_request_context(f"/jobs/{unseen.id}?lang={lang}"):
            page = compose_pages.job_page(replace(unseen, solutions_found=found))
        note = re.search(r'id="listed-so-far">([^<]*)<', page)
        assert (note and says in note.group(1)) if says else note is None, (found, note)


def test_the_form_s_checkboxes_go_into_the_job_and_back_into_the_form(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    """No word twice, count only: ticked, they are the job's options; its page says them,
    and "Edit and resubmit" ticks them again."""
    words = "\n".join(SMALL)
    response = post_form(client, words=words, base="6", distinct_words="1", count_only="1")
    assert response.status_code == 303
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    done = wait_job(job_store, job_id, timeout=60)
    assert done.options["distinct_words"] is True and done.options["count_only"] is True
    page = client.get(f"/jobs/{job_id}?lang=th").get_data(as_text=True)
    assert "ไม่ใช้คำซ้ำ" in page and 'id="count-only"' in page and "นับอย่างเดียว" in page
    assert 'id="none-yet"' not in page  # nothing listed by design, said once
    again = re.search(r'id="edit" class="button secondary" href="([^"]*)"', page)
    assert again
    form = client.get(unescape(again.group(1))).get_data(as_text=True)
    assert 'name="distinct_words" value="1" checked' in form
    assert 'name="count_only" value="1" checked' in form
    plain = post_form(client, words=words, base="6")  # unticked: not sent, false
    plain_id = plain.headers["Location"].rsplit("/", 1)[1]
    assert wait_job(job_store, plain_id, timeout=60).options["distinct_words"] is False
    fresh = client.get("/compose?lang=en").get_data(as_text=True)
    assert 'name="distinct_words" value="1">' in fresh and "No word twice in a sum" in fresh
