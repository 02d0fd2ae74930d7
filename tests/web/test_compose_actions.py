"""What a setter expects around a compose job, in real headless chromium against gunicorn, real
workers and a real Redis: "Run again" and "Delete" on its page as on other jobs' pages, "Solve
it" submitting a solve job, a job's end shown as soon as it ends, "Edit and resubmit" bringing a
300-word Thai list back whole, and the bad words of a list named at once or skipped."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from alphametic.wordlists import word_list
from tests.support.browser import new_tab, serious_violations
from tests.support.words import long_words

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DONE = "#job[data-done='true']"
# A list of this file's own (identical jobs are shared: another file's would be deleted here).
WORDS = ["AB", "BA", "CC", "ABC", "CAB", "BCA", "A", "B", "AD", "DAB", "DC", "CD"]


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh 1280 px English tab with JavaScript."""
    with new_tab(browser) as tab:
        yield tab


def compose_from_form(page: Any, server: str, words: list[str], base: str = "7") -> str:
    """Fill the compose form and submit it; the new job's id (the page is its page)."""
    page.goto(server + "/compose")
    page.fill("#words", "\n".join(words))
    page.fill("#base", base)
    page.click("#submit")
    page.wait_for_url(f"{server}/jobs/*")
    return str(page.url.rsplit("/", 1)[1].split("?")[0])


def results(server: str, job_id: str) -> dict[str, Any]:
    """The job's results as the API lists them."""
    answer = requests.get(f"{server}/api/jobs/{job_id}/results?limit=500", timeout=10)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_run_again_then_delete_on_a_compose_job_page(
    page: Any, live_server: str, artifacts: Path
) -> None:
    first = compose_from_form(page, live_server, WORDS)
    page.wait_for_selector(DONE, timeout=60_000)
    listed = page.locator("#results tbody code.puzzle").all_inner_texts()
    assert listed and listed == [item["puzzle"] for item in results(live_server, first)["items"]]
    assert page.locator("#delete").is_visible()
    page.click("#run-again")  # a new run of the same words and options, not the same job
    page.wait_for_url(f"{live_server}/jobs/*")
    again = page.url.rsplit("/", 1)[1]
    assert again != first
    page.wait_for_selector(DONE, timeout=60_000)
    assert page.locator("#state").get_attribute("data-state") == "succeeded"
    assert sorted(page.locator("#results tbody code.puzzle").all_inner_texts()) == sorted(listed)
    status = requests.get(f"{live_server}/api/jobs/{again}", timeout=10).json()
    assert status["options"]["base"] == 7 and status["puzzle"] == " ".join(WORDS)
    page.screenshot(path=str(artifacts / "compose-ended-actions.png"), full_page=True)
    page.click("#delete")  # asked first, on a page of its own; then its puzzles go
    page.locator("#confirm-delete").wait_for()
    assert serious_violations(page) == []
    page.click("#confirm-delete")
    page.wait_for_selector("#deleted")
    assert page.locator("#results tbody tr").count() == 0
    assert page.locator("#delete").count() == 0
    assert results(live_server, again)["total"] == 0
    assert results(live_server, first)["total"] == len(listed)  # the other run keeps its own
    assert serious_violations(page) == []
    assert page.csp == [] and page.dialogs == [] and page.errors == []


def test_solve_it_submits_a_solve_job(page: Any, live_server: str) -> None:
    compose_from_form(page, live_server, WORDS[:-1], base="8")
    page.wait_for_selector(DONE, timeout=60_000)
    first = page.locator("#results tbody code.puzzle").first.inner_text()
    page.locator("button.solve").first.click()  # no form in between: the job's own page
    page.wait_for_url(f"{live_server}/jobs/*")
    assert page.locator("#job").get_attribute("data-mode") == "solve"
    page.wait_for_selector("#answer-line", timeout=30_000)
    job_id = page.url.rsplit("/", 1)[1]
    status = requests.get(f"{live_server}/api/jobs/{job_id}", timeout=10).json()
    assert status["mode"] == "solve" and status["puzzle"] == first
    assert status["options"]["base"] == 8 and status["state"] == "succeeded"
    assert page.errors == []


def test_a_compose_job_s_end_shows_at_once(page: Any, live_server: str) -> None:
    """The page waits on the job's end (a long poll), not a two-second timer: a job canceled
    just after the page loaded shows it ended well within a second."""
    words = list(long_words(120))
    job_id = compose_from_form(page, live_server, words, base="10")
    assert page.locator("#job").get_attribute("data-done") == "false"
    canceled = time.monotonic()
    answer = requests.post(
        f"{live_server}/api/jobs/{job_id}/cancel",
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    page.wait_for_selector(DONE, timeout=10_000)
    shown = time.monotonic() - canceled
    assert page.locator("#state").get_attribute("data-state") == "canceled"
    assert page.locator("#cancel").count() == 0  # the actions follow the end too
    assert shown < 0.9, shown  # the old two-second timer showed it only at its first turn
    # A small job: from the click to its end on the page, not two seconds.
    page.goto(live_server + "/compose")
    page.fill("#words", "\n".join(WORDS[:-2]))
    page.fill("#base", "9")
    started = time.monotonic()
    page.click("#submit")
    page.wait_for_selector(DONE, timeout=10_000)
    assert time.monotonic() - started < 1.8
    assert page.errors == []


def test_edit_and_resubmit_brings_a_300_word_thai_list_back(page: Any, live_server: str) -> None:
    words = word_list("th", 300)
    page.goto(live_server + "/compose?lang=th")
    page.fill("#words", "\n".join(words))
    page.fill("#addends", "1")
    page.fill("#base", "11")  # not test_resubmit's job (identical jobs are shared)
    page.click("#submit")
    page.wait_for_url(f"{live_server}/jobs/*")
    job_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector(DONE, timeout=60_000)
    page.click("#edit")
    page.wait_for_selector("#compose-form")
    assert page.url == f"{live_server}/compose?from={job_id}"
    assert page.locator("#words").input_value().split("\n") == words
    assert page.locator("#addends").input_value() == "1"
    assert page.locator("#base").input_value() == "11"
    assert page.locator("html").get_attribute("lang") == "th"
    page.click("#submit")  # the same list and options: the job that exists
    page.wait_for_url(f"{live_server}/jobs/{job_id}")
    assert page.errors == []


def test_bad_words_named_at_once_then_skipped(browser: Any, live_server: str) -> None:
    with new_tab(browser, lang="ja") as tab:
        tab.goto(live_server + "/compose")
        tab.fill("#words", "การ\nที่\nใน\nไม่\nของ\nเป็น\nคน")
        tab.click("#submit")
        said = tab.locator("#words-error").inner_text()
        assert "次の語は文字だけでできていません" in said
        for word in ("ที่", "ไม่", "เป็น", "U+0E48", "THAI CHARACTER MAI EK"):
            assert word in said, said
        assert serious_violations(tab) == []
        tab.check("#skip_bad_words")  # the list is still there, as typed
        tab.click("#submit")
        tab.wait_for_url(f"{live_server}/jobs/*")
        assert "ที่ ไม่ เป็น" in tab.locator("#skipped").inner_text()
        tab.locator("details.words summary").click()
        assert tab.locator("details.words p").inner_text() == "การ ใน ของ คน"
        assert tab.errors == []
