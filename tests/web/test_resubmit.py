""" "Edit and resubmit" by the job's id, on gunicorn with real workers and a real Redis: a
300-word Thai list and a 3,400-character puzzle come back whole in their forms, where carrying
them in the link's query answered 414; and the 414 and 431 pages said in the page's language."""

from __future__ import annotations

import re
import uuid
from html import unescape
from typing import Any
from urllib.parse import urlencode

import pytest
import requests

from alphametic.wordlists import word_list
from jobstore import JobStore
from scripts.webserver import limit_request_line
from tests.support.processes import wait_job
from web.bodies import MAX_HEADER_FIELD, MAX_REQUEST_LINE

pytestmark = pytest.mark.usefixtures("web_workers")

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
EDIT = re.compile(r'<a id="edit" class="button secondary" href="([^"]+)"')
# 162 equations of eight letters each side: 3,401 characters, solved at once.
LONG_PUZZLE = "; ".join(["ABCDEFGH = ABCDEFGH"] * 162) + "; AB = AB"


def posted(session: requests.Session, server: str, path: str, **fields: str) -> str:
    """Send a page's form (with the session's CSRF token); the job id it redirected to."""
    form = "/" if path == "/jobs" else path  # the puzzle form posts to /jobs
    found = TOKEN.search(session.get(server + form, timeout=10).text)
    assert found
    data = {"csrf_token": found.group(1), **fields}
    answer = session.post(server + path, data=data, allow_redirects=False, timeout=30)
    assert answer.status_code == 303, answer.text[:500]
    return str(answer.headers["Location"]).rsplit("/", 1)[1]


def textarea(page: str, name: str) -> str:
    """What a page's text box holds."""
    found = re.search(rf'<textarea[^>]*name="{name}"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, page[:2000]
    return unescape(found.group(1)).removeprefix("\n")


def test_a_300_word_thai_list_comes_back_whole_by_its_job_id(
    live_server: str, job_store: JobStore
) -> None:
    words = word_list("th", 300)
    options = {"addends": "1", "solutions": "1", "base": "10", "leading_zeros": "multi-letter"}
    old_way = "/compose?" + urlencode({"words": "\n".join(words), "addends": "1"})
    assert len(old_way) > limit_request_line  # what the link carried: past even gunicorn's cap
    with requests.Session() as session:
        job_id = posted(session, live_server, "/compose?lang=th", words="\n".join(words), **options)
        try:
            page = session.get(f"{live_server}/jobs/{job_id}?lang=th", timeout=10).text
            found = EDIT.search(page)
            assert found
            link = unescape(found.group(1))
            assert link == f"/compose?from={job_id}"
            form = session.get(live_server + link, timeout=10)
            assert form.status_code == 200
            assert textarea(form.text, "words").split("\n") == words
            assert 'name="addends" min="1" max="10" value="1"' in form.text
            # The form sends the list as a POST body: the same words, a job of the same options.
            again = posted(
                session, live_server, link, words=textarea(form.text, "words"), **options
            )
            assert again == job_id  # identical to the live or ended job: it is found again
        finally:
            job_store.cancel(job_id)


def test_a_3400_character_puzzle_comes_back_whole_by_its_job_id(
    live_server: str, job_store: JobStore
) -> None:
    assert len(LONG_PUZZLE) >= 3_400
    # The link "Edit and resubmit" was: the puzzle and its options in the query.
    fields = {"mode": "solve", "base": "12", "leading_zeros": "allow", "fixed": "A=3"}
    old_way = "/?" + urlencode({"puzzle": LONG_PUZZLE, **fields, "lang": "ja"})
    line = f"GET {old_way} HTTP/1.1"
    assert MAX_REQUEST_LINE < len(line) < limit_request_line  # the app's own 414
    with requests.Session() as session:
        refused = session.get(live_server + old_way, timeout=10)
        assert refused.status_code == 414
        assert refused.headers["Content-Type"].startswith("text/html")
        assert "アドレスが長すぎ" in refused.text  # said in Japanese, no English developer note
        assert "request line" not in refused.text and 'class="note" lang="en"' not in refused.text
        job_id = posted(session, live_server, "/jobs", puzzle=LONG_PUZZLE, **fields)
        wait_job(job_store, job_id, timeout=60)
        page = session.get(f"{live_server}/jobs/{job_id}", timeout=10).text
        found = EDIT.search(page)
        assert found and unescape(found.group(1)) == f"/?from={job_id}"
        form = session.get(live_server + unescape(found.group(1)) + "&lang=th", timeout=10).text
        assert textarea(form, "puzzle") == LONG_PUZZLE
        assert re.search(r'name="base"[^>]*value="12"', form)
        assert re.search(r'<option value="allow" selected>', form)
        assert re.search(r'name="fixed"[^>]*value="A=3"', form)


@pytest.mark.parametrize("path", ["/?from=", "/compose?from="])
def test_an_unknown_job_to_edit_is_a_404(live_server: str, path: str) -> None:
    for job_id in (str(uuid.uuid4()), "not-a-job"):
        answer = requests.get(f"{live_server}{path}{job_id}&lang=th", timeout=10)
        assert answer.status_code == 404
        assert "หมดอายุ" in answer.text  # the error page in the page's language


def test_a_solve_job_is_not_a_compose_form(live_server: str, job_store: JobStore) -> None:
    """/compose?from= takes a compose job only; / takes a compose job to its own form."""
    with requests.Session() as session:
        solve = posted(
            session,
            live_server,
            "/jobs",
            puzzle="SEND + MORE = MONEY",
            mode="solve",
            base="10",
            leading_zeros="multi-letter",
        )
        assert session.get(f"{live_server}/compose?from={solve}", timeout=10).status_code == 404
        composed = posted(
            session,
            live_server,
            "/compose",
            words="AB BA CC",
            addends="2",
            solutions="1",
            base="6",
            leading_zeros="multi-letter",
        )
        wait_job(job_store, composed, timeout=60)
        answer = session.get(f"{live_server}/?from={composed}", allow_redirects=False, timeout=10)
        assert answer.status_code == 303
        assert answer.headers["Location"].endswith(f"/compose?from={composed}")


@pytest.mark.parametrize(
    ("lang", "says_414", "says_431"),
    [
        ("en", "This address is too long", "Clear this site"),
        ("ja", "アドレスが長すぎ", "Cookie"),
        ("th", "ที่อยู่นี้ยาวเกินไป", "คุกกี้"),
    ],
)
def test_the_414_and_431_pages_are_in_the_pages_language(
    live_server: str, lang: str, says_414: str, says_431: str
) -> None:
    long_line = requests.get(
        f"{live_server}/?lang={lang}&pad={'x' * (MAX_REQUEST_LINE + 10)}", timeout=10
    )
    assert long_line.status_code == 414 and says_414 in long_line.text, long_line.text[:600]
    headers: dict[str, Any] = {"X-Pad": "p" * (MAX_HEADER_FIELD + 10)}
    big_head = requests.get(f"{live_server}/?lang={lang}", headers=headers, timeout=10)
    assert big_head.status_code == 431 and says_431 in big_head.text, big_head.text[:600]
    assert f'<html lang="{lang}"' in big_head.text
    assert "bytes" not in long_line.text and "bytes" not in big_head.text  # no developer note
