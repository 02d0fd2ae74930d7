"""Real headless chromium against gunicorn, real workers and a real Redis: a compose job from
its form, its page listing the puzzles as they are found, and one of them solved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.browser import new_tab, serious_violations
from tests.support.words import long_words

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DONE = "#job[data-done='true']"


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh 1280 px English tab with JavaScript."""
    with new_tab(browser) as tab:
        yield tab


def test_a_compose_job_lists_its_puzzles_as_they_come(
    page: Any, live_server: str, artifacts: Path
) -> None:
    page.goto(live_server + "/")
    page.click("#compose-link")
    # 115 words and about 1,500 results: 20 s of composing and rating them on one process.
    page.fill("#words", "\n".join(long_words(120)))
    page.click("#submit")
    page.wait_for_url(f"{live_server}/jobs/*")
    job_id = page.url.rsplit("/", 1)[1]
    # Puzzles appear while the job still runs (the page puts its live part in place).
    page.wait_for_selector("#results tbody tr", timeout=60_000)
    assert page.locator("#job").get_attribute("data-done") == "false"
    assert page.locator("#state").get_attribute("data-state") == "running"
    assert serious_violations(page) == []
    page.screenshot(path=str(artifacts / "compose-running.png"), full_page=True)
    page.click("#cancel")  # a cancel keeps what was found
    page.wait_for_selector(DONE, timeout=30_000)
    assert page.locator("#state").get_attribute("data-state") == "canceled"
    body = requests.get(f"{live_server}/api/jobs/{job_id}/results?limit=50", timeout=10).json()
    shown = page.locator("#results tbody code.puzzle").all_inner_texts()
    assert shown == [item["puzzle"] for item in body["items"]] and body["total"] > 0
    first = shown[0]
    page.locator("button.solve").first.click()  # a solve job of its own, at once
    page.wait_for_selector("#answer-line", timeout=30_000)
    assert page.locator("#job").get_attribute("data-mode") == "solve"
    assert first.split(" = ")[0].split(" + ")[0] in page.locator("#answer-line").inner_text()
    page.goto(live_server + "/")  # this browser's recent jobs: the compose job, then the solve
    page.wait_for_selector("#your-jobs-list li")
    listed = page.locator("#your-jobs-list").inner_text()
    assert "Compose puzzles" in listed and long_words(120)[0] in listed and first in listed
    assert page.csp == [] and page.dialogs == [] and page.errors == []


def test_the_compose_form_says_what_is_wrong_in_japanese(browser: Any, live_server: str) -> None:
    with new_tab(browser) as tab:
        tab.goto(live_server + "/compose?lang=ja")
        tab.fill("#words", "ひとつ")
        tab.click("#submit")
        assert "異なる語を 2 つ以上" in tab.locator("#words-error").inner_text()
        assert tab.locator("#words").get_attribute("aria-invalid") == "true"
        assert serious_violations(tab) == []
