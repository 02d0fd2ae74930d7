"""A compose list's bad words (Thai words with vowel and tone marks, a digit) named all at once
in the request's language, on the form and in the API, each with its mark as the solve form
names it; and `skip_bad_words` (the form's checkbox) leaving them out, named on the job.
Flask's test client against a real Redis and real workers."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from flask.testing import FlaskClient

from jobstore import JobStore
from tests.support.processes import wait_job
from tests.support.web import assert_problem, token

MARKED = ["ที่", "ไม่", "เป็น"]  # common words: each with a vowel or tone mark, or both
PLAIN = ["การ", "ใน", "ของ", "คน"]
TYPED = [PLAIN[0], *MARKED, PLAIN[1], "M0RE", PLAIN[2], PLAIN[3]]


def words_error(page: str) -> str:
    """The message under the compose form's words."""
    found = re.search(r'id="words-error" role="alert">(.*?)</p>', page, re.S)
    assert found, page[:3000]
    return unescape(found.group(1))


def post_form(client: FlaskClient, **fields: str) -> Any:
    """Send the compose form as a browser does (with its CSRF token)."""
    return client.post("/compose", data={"csrf_token": token(client), **fields})


@pytest.mark.parametrize(
    ("lang", "says"),
    [
        ("en", ["These 4 words are not made of letters only", "the mark ◌่ (U+0E48, THAI "
                "CHARACTER MAI EK)", "“0” (U+0030, DIGIT ZERO)", "skip the words"]),
        ("ja", ["次の語は文字だけでできていません", "記号 ◌่（U+0E48、THAI CHARACTER MAI EK）",
                "「0」（U+0030、DIGIT ZERO）", "飛ばす"]),
        ("th", ["คำต่อไปนี้ไม่ได้มีแต่ตัวอักษร", "เครื่องหมาย ◌่ (U+0E48, THAI CHARACTER MAI EK)",
                "“0” (U+0030, DIGIT ZERO)", "ข้ามคำ"]),
    ],
)  # fmt: skip
def test_the_form_names_every_bad_word_at_once(
    client: FlaskClient, lang: str, says: list[str]
) -> None:
    client.get(f"/compose?lang={lang}")
    response = post_form(client, words="\n".join(TYPED))
    assert response.status_code == 422
    message = words_error(response.get_data(as_text=True))
    for said in says:
        assert said in message, message
    named = re.findall(r"([^\s：／/]+?)(?:: |（)(?:the mark|記号|“|「|เครื่องหมาย)", message)
    assert named == [*MARKED, "M0RE"], message  # every one of them, each once, in order
    assert "U+0E35" in message  # ที่'s vowel mark as well as its tone mark
    page = response.get_data(as_text=True)
    assert "\n".join(TYPED) + "</textarea>" in page  # the list comes back as typed


@pytest.mark.parametrize(("accept", "says"), [("en", "These 4 words"), ("ja", "次の語は")])
def test_the_api_names_every_bad_word_at_once(client: FlaskClient, accept: str, says: str) -> None:
    answer = client.post(
        "/api/jobs", json={"mode": "compose", "words": TYPED}, headers={"Accept-Language": accept}
    )
    problem = assert_problem(answer, 422)
    assert (problem["field"], problem["code"]) == ("words", "not_a_word")
    assert says in problem["detail"] and "U+0E48" in problem["detail"], problem
    named = {fault["word"]: fault["chars"] for fault in problem["bad_words"]}
    assert list(named) == [*MARKED, "M0RE"]
    assert [c["codepoint"] for c in named["ที่"]] == ["U+0E35", "U+0E48"]
    assert named["ไม่"] == [
        {"char": "\u0e48", "codepoint": "U+0E48", "mark": True, "name": "THAI CHARACTER MAI EK"}
    ]


def test_the_api_skips_the_bad_words_and_names_them_on_the_job(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    body = {"mode": "compose", "words": [*TYPED, "ไม่"], "options": {"skip_bad_words": True}}
    answer = client.post("/api/jobs", json=body)
    assert answer.status_code == 202, answer.get_data(as_text=True)
    job = answer.get_json()
    assert job["puzzle"] == " ".join(PLAIN)
    assert job["options"]["skip_bad_words"] is True
    assert job["options"]["skipped_words"] == [*MARKED, "M0RE"]
    wait_job(job_store, job["id"], timeout=60)
    status = client.get(f"/api/jobs/{job['id']}").get_json()
    assert status["state"] == "succeeded" and status["options"]["skipped_words"] == [
        *MARKED,
        "M0RE",
    ]
    page = client.get(f"/jobs/{job['id']}?lang=th").get_data(as_text=True)
    found = re.search(r'<p class="note" id="skipped">(.*?)</p>', page, re.S)
    assert found, page[:3000]
    assert "ข้ามคำที่ไม่ได้มีแต่ตัวอักษร 4 คำ" in found.group(1)
    assert "ที่ ไม่ เป็น M0RE" in unescape(found.group(1))
    # Without the option the same list is refused; false is the same as not asking.
    same = {"mode": "compose", "words": TYPED, "options": {"skip_bad_words": False}}
    assert_problem(client.post("/api/jobs", json=same), 422)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_skip_bad_words_must_be_true_or_false(client: FlaskClient, value: Any) -> None:
    body = {"mode": "compose", "words": PLAIN, "options": {"skip_bad_words": value}}
    problem = assert_problem(client.post("/api/jobs", json=body), 422)
    assert (problem["field"], problem["code"]) == ("options.skip_bad_words", "invalid_request")


def test_the_form_s_checkbox_skips_them_and_edit_keeps_it(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    client.get("/compose?lang=ja")
    assert 'id="skip_bad_words" name="skip_bad_words" value="1">' in client.get(
        "/compose"
    ).get_data(as_text=True)
    response = post_form(client, words="\n".join(TYPED), skip_bad_words="1", base="10")
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    job = wait_job(job_store, job_id, timeout=60)
    assert job.options["skipped_words"] == [*MARKED, "M0RE"]
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "文字だけでない 4 語を飛ばしました" in page
    form = client.get(f"/compose?from={job_id}").get_data(as_text=True)
    assert 'id="skip_bad_words" name="skip_bad_words" value="1" checked>' in form
    assert "\n".join(PLAIN) + "</textarea>" in form
