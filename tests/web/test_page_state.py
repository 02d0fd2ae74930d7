"""Defects a QA pass found in a real browser: language links that lost the page (or gave a
405 after a form error), the submit button after Back, notes that claimed a canceled job
counted everything, squeezed tables and headings, English inside translated form errors, focus
lost after the last step, and Japanese sentences joined with spaces.
"""

from __future__ import annotations

import dataclasses
import html
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

from jobstore import JobStore, State
from tests.support.browser import horizontal_overflow, new_tab
from tests.support.processes import wait_job
from tests.support.web import submit_form
from web.pages import jobtext, views

FAMOUS = "/?puzzle=CP+%2B+IS+%2B+FUN+%3D+TRUE&base=24&mode=enumerate"


def language_links(page: str) -> dict[str, str]:
    """The language switcher's links on a page: language -> href (unescaped)."""
    found = re.findall(r'<a lang="(\w+)" hreflang="\w+" href="([^"]*)"', page)
    return {lang: html.unescape(href) for lang, href in found}


def query_of(href: str) -> dict[str, list[str]]:
    """A link's query string, parsed."""
    return parse_qs(urlsplit(href).query, keep_blank_values=True)


def create(client: FlaskClient, puzzle: str, mode: str = "solve") -> str:
    """Queue a job through the API and return its id."""
    response = client.post("/api/jobs", json={"puzzle": puzzle, "mode": mode})
    assert response.status_code == 202, response.get_data(as_text=True)
    job_id: str = response.get_json()["id"]
    return job_id


# 1. Language links keep the page.


def test_language_links_keep_the_query_string(client: FlaskClient) -> None:
    links = language_links(client.get(FAMOUS + "&lang=en").get_data(as_text=True))
    assert set(links) == {"ja", "th"}
    query = query_of(links["th"])
    assert query == {
        "puzzle": ["CP + IS + FUN = TRUE"],
        "base": ["24"],
        "mode": ["enumerate"],
        "lang": ["th"],
    }


def test_language_links_keep_the_page_and_pick(
    client: FlaskClient, job_store: JobStore, web_workers: Any
) -> None:
    job_id = create(client, "ODD + ODD = EVEN", "enumerate")
    wait_job(job_store, job_id)
    page = client.get(f"/jobs/{job_id}?page=1&pick=2&lang=ja").get_data(as_text=True)
    links = language_links(page)
    assert set(links) == {"en", "th"}
    assert query_of(links["en"]) == {"page": ["1"], "pick": ["2"], "lang": ["en"]}
    assert urlsplit(links["en"]).path == ""  # the same address


def test_language_links_after_a_form_error_lead_to_the_filled_form(client: FlaskClient) -> None:
    response = submit_form(client, puzzle="SEND + MORE = MONEY", mode="count", base="1")
    assert response.status_code == 422  # POST /jobs drew the form: its address is no page
    href = language_links(response.get_data(as_text=True))["ja"]
    assert urlsplit(href).path == "/"
    assert query_of(href) == {
        "puzzle": ["SEND + MORE = MONEY"],
        "mode": ["count"],
        "base": ["1"],
        "leading_zeros": ["multi-letter"],
        "fixed": [""],
        "lang": ["ja"],
    }
    page = client.get(href)
    assert page.status_code == 200
    assert "SEND + MORE = MONEY" in page.get_data(as_text=True)


# 3. The truncated notes say what a job has counted.


@pytest.mark.parametrize(
    ("state", "reason", "words"),
    [
        (State.SUCCEEDED, "budget", "this job counted every solution but"),
        (State.CANCELED, "budget", "every solution found so far"),
        (State.RUNNING, "budget", "every solution found so far"),
        (State.SUCCEEDED, "cap", "the counts above cover them all"),
        (State.FAILED, "cap", "cover every solution found so far"),
    ],
)
def test_truncated_notes_depend_on_the_state(
    client: FlaskClient,
    job_store: JobStore,
    web_workers: Any,
    monkeypatch: pytest.MonkeyPatch,
    state: State,
    reason: str,
    words: str,
) -> None:
    job_id = create(client, "ODD + ODD = EVEN", "enumerate")
    real = wait_job(job_store, job_id)
    job = dataclasses.replace(real, state=state, truncated=True, truncated_reason=reason)
    stored = job_store.solutions(job_id, offset=0, limit=views.PAGE_SIZE)
    assert stored is not None
    cut = dataclasses.replace(stored, truncated=True)

    class Cut:
        """The job store, its solutions cut short."""

        def solutions(self, *args: Any, **kwargs: Any) -> Any:
            return cut

        def __getattr__(self, name: str) -> Any:
            return getattr(job_store, name)

    monkeypatch.setattr(views, "job_or_none", lambda _id: job)
    monkeypatch.setattr(views, "store", Cut)
    page = client.get(f"/jobs/{job_id}?lang=en").get_data(as_text=True)
    note = re.search(r'<p class="note" id="truncated">(.*?)</p>', page, re.S)
    assert note is not None and words in note.group(1)


# 5. Fixed-digit conflicts in the page's language.

CONFLICTS = [
    ("E=5, E=6", {"ja": "E に 5 と 6 の2つの数字", "th": "E ถูกกำหนดไว้สองค่า"}),
    ("E=5, M=5", {"ja": "E と M がどちらも 5 に", "th": "E และ M ถูกกำหนดเป็น 5 ทั้งคู่"}),
    ("S=0", {"ja": "S は語の先頭にある", "th": "S เป็น 0 ไม่ได้"}),
]


@pytest.mark.parametrize(("fixed", "said"), CONFLICTS)
@pytest.mark.parametrize("lang", ["ja", "th"])
def test_fixed_digit_conflicts_are_said_in_the_pages_language(
    client: FlaskClient, fixed: str, said: dict[str, str], lang: str
) -> None:
    client.get(f"/?lang={lang}")  # the cookie keeps the language for the POST
    response = submit_form(client, puzzle="SEND + MORE = MONEY", fixed=fixed)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    error = re.search(r'<p class="error" id="fixed-error" role="alert">(.*?)</p>', page, re.S)
    assert error is not None
    assert said[lang] in html.unescape(error.group(1))
    assert not re.search(r"fixed twice|both fixed|cannot be fixed", error.group(1))


# 7. Sentences joined as each language writes them.


@pytest.mark.parametrize(("lang", "gap"), [("en", " "), ("ja", ""), ("th", " ")])
def test_queue_sentences_are_joined_as_the_language_writes(app: Flask, lang: str, gap: str) -> None:
    with app.test_request_context(f"/?lang={lang}"):
        text = jobtext.queue_text({"queue_position": 2, "expected_start": 90})
        assert jobtext.js_strings(60)["gap"] == gap
    if lang == "ja":  # 。 ends each sentence, and the next follows at once
        assert "。 " not in text and text.count("。") == 3
    else:
        assert text.count(". " if lang == "en" else " ") >= 2


# Browser tests: the behaviour is JavaScript's and CSS's.


@pytest.mark.browser
@pytest.mark.slow
def test_language_link_after_a_form_error_is_no_405(browser: Any, live_server: str) -> None:
    with new_tab(browser) as tab:
        tab.goto(live_server + "/")
        tab.fill("#puzzle", "SEND + MORE = MONEY")
        tab.fill("#base", "1")
        tab.click("#submit")
        tab.wait_for_selector("#base-error")
        tab.click("a[hreflang=ja]")
        tab.wait_for_load_state()
        assert tab.locator("html").get_attribute("lang") == "ja"
        assert tab.locator("#puzzle").input_value() == "SEND + MORE = MONEY"
        assert tab.locator("#base").input_value() == "1"
        assert "405" not in tab.title()


@pytest.mark.browser
@pytest.mark.slow
def test_submit_button_follows_the_mode_after_back(browser: Any, live_server: str) -> None:
    with new_tab(browser) as tab:
        tab.goto(live_server + "/")
        tab.fill("#puzzle", "ODD + ODD = EVEN")
        tab.check("input[name=mode][value=enumerate]")
        tab.click("#submit")
        tab.wait_for_url(f"{live_server}/jobs/*")
        tab.go_back()
        tab.wait_for_function("document.readyState === 'complete'")
        assert tab.locator("input[name=mode][value=enumerate]").is_checked()
        assert tab.locator("#submit").inner_text() == "Find all solutions"
        assert tab.locator("#puzzle").input_value() == "ODD + ODD = EVEN"
        assert tab.errors == []


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("button", ["#next-step", "#all-steps"])
def test_focus_stays_on_the_steps_after_the_last_one(
    browser: Any, live_server: str, button: str
) -> None:
    with new_tab(browser) as tab:
        tab.goto(live_server + "/")
        tab.fill("#puzzle", "SEND + MORE = MONEY")
        tab.click("#submit")
        tab.wait_for_selector("#explain-controls:not([hidden])")
        total = tab.locator("#steps > li").count()
        assert total > 2
        tab.focus(button)
        while not tab.locator(button).is_disabled():
            tab.keyboard.press("Enter")
        focused = tab.evaluate(
            "() => [document.activeElement.tagName,"
            " Array.from(document.querySelectorAll('#steps > li'))"
            ".indexOf(document.activeElement)]"
        )
        # "Next step" ends on the last step; "Show all" on the first step it revealed.
        assert focused == ["LI", total - 1 if button == "#next-step" else 1]
        assert tab.errors == []


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "th"])
def test_letter_table_and_long_headings_at_375_px(
    browser: Any, live_server: str, lang: str
) -> None:
    with new_tab(browser, width=375, lang=lang) as tab:
        tab.goto(f"{live_server}/?lang={lang}")
        tab.fill("#puzzle", "SEND + MORE = MONEY")
        tab.click("#submit")
        tab.wait_for_selector("table.letters")
        for header in tab.locator("table.letters th").all():
            box = header.bounding_box()
            assert box["height"] < 40, header.inner_text()  # one line, not a letter a line
        assert horizontal_overflow(tab) == 0


@pytest.mark.browser
@pytest.mark.slow
def test_long_headings_break_between_terms(browser: Any, live_server: str) -> None:
    puzzle = " + ".join(["SEND", "MORE", "DONE", "MODE"] * 6) + " = MONEY"
    with new_tab(browser) as tab:
        tab.goto(live_server + "/")
        tab.fill("#puzzle", puzzle)
        tab.click("#submit")
        tab.wait_for_url(f"{live_server}/jobs/*")
        # The page reloads itself once the job ends: measure a load of the finished page.
        tab.wait_for_selector("#job[data-done='true']")
        tab.goto(tab.url)
        # Each line of the heading ends at a space: no word is cut.
        lines = tab.evaluate(
            """() => {
              const node = document.querySelector('h1 code.puzzle').firstChild;
              const range = document.createRange(), tops = [];
              let last = null, line = '';
              for (let i = 0; i < node.length; i++) {
                range.setStart(node, i); range.setEnd(node, i + 1);
                const top = range.getBoundingClientRect().top;
                if (last !== null && Math.abs(top - last) > 2) { tops.push(line); line = ''; }
                line += node.data[i]; last = top;
              }
              tops.push(line);
              return tops;
            }"""
        )
        words = set(puzzle.split())
        assert len(lines) > 1
        for line in lines:
            assert set(line.split()) <= words, lines
        assert horizontal_overflow(tab) == 0
