"""Every page in every language passes axe-core (WCAG 2 A/AA) and fits a 390 px phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.browser import (
    NARROW,
    WIDE,
    horizontal_overflow,
    new_tab,
    rule_violations,
    serious_violations,
)
from tests.support.processes import wait_for

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LANGS = ["en", "ja", "th"]


def finished_job(url: str, puzzle: str, mode: str, base: int = 10) -> str:
    """Run a job through the API until it ends; return its page's path."""
    body: dict[str, Any] = {"puzzle": puzzle, "mode": mode, "options": {"base": base}}
    job = requests.post(url + "/api/jobs", json=body, timeout=10).json()
    status = url + f"/api/jobs/{job['id']}"
    wait_for(lambda: requests.get(status, timeout=10).json()["state"] == "succeeded", 60)
    return f"/jobs/{job['id']}"


@pytest.fixture(scope="module")
def pages(live_server: str) -> dict[str, str]:
    """Paths of the pages to check: the form, an error, a solve, two enumerations."""
    return {
        "form": "/",
        "form-error": "/?puzzle=SEND%20%2B%20MORE&base=40",
        "solve": finished_job(live_server, "SEND + MORE = MONEY", "solve"),
        "enumerate": finished_job(live_server, "CP + IS + FUN = TRUE", "enumerate", 16),
        "wide": finished_job(live_server, "CP + IS + FUN = TRUE", "enumerate", 17),
        "none": finished_job(live_server, "AB + DC = CBB", "solve"),
    }


def open_page(tab: Any, live_server: str, path: str) -> None:
    """Go to a page; for the form error, submit it so the error is drawn."""
    tab.goto(live_server + path)
    if "base=40" in path:
        tab.click("#submit")
        tab.locator("#base-error").wait_for()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_no_serious_accessibility_violations(
    browser: Any, live_server: str, pages: dict[str, str], lang: str, width: int
) -> None:
    with new_tab(browser, width=width, lang=lang) as tab:
        for name, path in pages.items():
            open_page(tab, live_server, path)
            assert tab.locator("html").get_attribute("lang") == lang
            found = serious_violations(tab)
            assert found == [], f"{name} ({lang}, {width} px): {found}"
            assert tab.errors == [] and tab.csp == [], name


@pytest.mark.parametrize("javascript", [True, False])
@pytest.mark.parametrize("lang", LANGS)
def test_no_horizontal_scroll_at_390_px(
    browser: Any,
    live_server: str,
    pages: dict[str, str],
    artifacts: Path,
    lang: str,
    javascript: bool,
) -> None:
    with new_tab(browser, width=NARROW, lang=lang, javascript=javascript) as tab:
        for name, path in pages.items():
            open_page(tab, live_server, path)
            assert horizontal_overflow(tab) == 0, f"{name} ({lang}) scrolls sideways"
            if javascript:
                tab.screenshot(path=str(artifacts / f"390-{lang}-{name}.png"), full_page=True)
        # The base-17 grid is wider than the phone: it scrolls inside its own box.
        tab.goto(live_server + pages["wide"])
        box = tab.locator("section.grid .scroll")
        assert box.evaluate("el => el.scrollWidth > el.clientWidth")
        assert box.get_attribute("tabindex") == "0"  # reachable by keyboard to scroll


@pytest.mark.parametrize("lang", LANGS)
def test_landmarks_have_names_of_their_own(
    browser: Any, live_server: str, pages: dict[str, str], lang: str
) -> None:
    """Best-practice landmark-unique: no two regions (a section and the table box inside it)
    go by the same name, on the pages with tables too (a compose job's)."""
    words = ["AB", "BA", "CC", "ABC", "CAB", "BCA", "A", "B"]
    body: dict[str, Any] = {"mode": "compose", "words": words, "options": {"base": 6}}
    job = requests.post(live_server + "/api/jobs", json=body, timeout=10).json()
    status = live_server + f"/api/jobs/{job['id']}"
    wait_for(lambda: requests.get(status, timeout=10).json()["state"] == "succeeded", 60)
    with new_tab(browser, lang=lang) as tab:
        for name, path in {**pages, "compose": f"/jobs/{job['id']}"}.items():
            open_page(tab, live_server, path)
            # A page that reloads itself once its steps are ready would cut the check short.
            tab.wait_for_function("() => !document.querySelector('[data-pending]')")
            found = rule_violations(tab, ["landmark-unique"])
            assert found == [], f"{name} ({lang}): {found}"
        tab.goto(live_server + pages["enumerate"])  # the check can fail: a twin region
        tab.evaluate(
            "() => document.querySelector('section.grid .scroll')"
            ".setAttribute('aria-labelledby', 'grid-title')"
        )
        assert rule_violations(tab, ["landmark-unique"]) != []


def test_form_focus_order(browser: Any, live_server: str) -> None:
    with new_tab(browser) as tab:
        tab.goto(live_server + "/")
        tab.focus("#puzzle")
        order = []
        for _ in range(5):
            tab.keyboard.press("Tab")
            order.append(
                tab.evaluate("() => document.activeElement.id || document.activeElement.value")
            )
        assert order == ["solve", "leading_zeros", "base", "fixed", "submit"]


def test_progress_bar_is_labelled(browser: Any, live_server: str, pages: dict[str, str]) -> None:
    with new_tab(browser, lang="ja") as tab:
        tab.goto(live_server + pages["enumerate"])
        bar = tab.locator("#progress")
        assert bar.get_attribute("aria-label") == "進み具合"
        assert bar.get_attribute("aria-valuetext") == "100.0%"
        assert bar.evaluate("el => el.max === 1 && el.value === 1")


def test_axe_finds_a_planted_violation(browser: Any, live_server: str) -> None:
    """The check can fail: a field stripped of its label is reported."""
    with new_tab(browser) as tab:
        tab.goto(live_server + "/")
        tab.evaluate("() => document.querySelector('label[for=puzzle]').remove()")
        assert "label" in {v["id"] for v in serious_violations(tab)}


@pytest.mark.parametrize(("lang", "width", "base"), [("en", WIDE, 35), ("th", NARROW, 34)])
def test_running_page_is_accessible(
    browser: Any, live_server: str, lang: str, width: int, base: int
) -> None:
    """The live page while its script rewrites it: Cancel, the moving bar, new rows."""
    # Minutes of work, so still running while it is checked; a base of each case's own, as
    # an identical submission could be answered with the job the other case just cancelled.
    body: dict[str, Any] = {"puzzle": "CP + IS + FUN = TRUE", "mode": "enumerate"}
    body["options"] = {"base": base}
    job = requests.post(live_server + "/api/jobs", json=body, timeout=10).json()
    try:
        with new_tab(browser, width=width, lang=lang) as tab:
            tab.goto(live_server + f"/jobs/{job['id']}")
            tab.wait_for_function(
                "() => document.getElementById('state').dataset.state === 'running'"
                " && document.querySelectorAll('#solutions tbody tr').length > 0"
            )
            assert serious_violations(tab) == []
            assert horizontal_overflow(tab) == 0
    finally:
        requests.post(live_server + f"/api/jobs/{job['id']}/cancel", json={}, timeout=10)
