"""Real headless chromium against gunicorn, a real worker and a real Redis: the flows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.browser import NARROW, new_tab

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

XSS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "javascript:alert(1)"]
DONE = "#job[data-done='true']"


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh 1280 px English tab with JavaScript."""
    with new_tab(browser) as tab:
        yield tab


def settled(page: Any) -> None:
    """Wait for a finished job's page that reloads itself no more: drawn done, with no
    explanation still pending (its reload, when the steps are ready, could race a goto)."""
    page.wait_for_selector(DONE)
    page.wait_for_function("() => !document.querySelector('#explain[data-pending]')")


def submit(page: Any, url: str, puzzle: str, mode: str = "solve", base: int = 10) -> None:
    """Fill the form and submit it."""
    page.goto(url + "/")
    page.fill("#puzzle", puzzle)
    page.check(f"input[name=mode][value={mode}]")
    page.fill("#base", str(base))
    page.click("#submit")


def test_send_more_money(page: Any, live_server: str, artifacts: Path) -> None:
    submit(page, live_server, "SEND + MORE = MONEY")
    page.wait_for_url(f"{live_server}/jobs/*")
    line = page.locator("#answer-line")
    line.wait_for()  # the poller reloads the page once the job is done
    assert "9567 + 1085 = 10652" in line.inner_text()
    drawn = page.locator("#sum").inner_text()
    assert "S E N D" in drawn and "M O N E Y" in drawn
    assert page.locator("#state").get_attribute("data-state") == "succeeded"
    assert page.title() == "Finished · SEND + MORE = MONEY"
    assert page.locator("#cancel").count() == 0
    assert page.locator("#status").get_attribute("aria-live") == "polite"
    page.click("#edit")  # edit and resubmit: the form comes back filled in
    assert page.locator("#puzzle").input_value() == "SEND + MORE = MONEY"
    page.screenshot(path=str(artifacts / "02-solve-done.png"), full_page=True)
    assert page.csp == [] and page.dialogs == [] and page.errors == []


def test_submit_button_and_famous_puzzles(page: Any, live_server: str) -> None:
    page.goto(live_server + "/")
    assert page.locator("#submit").inner_text() == "Solve"
    page.check("input[name=mode][value=enumerate]")
    assert page.locator("#submit").inner_text() == "Find all solutions"
    page.click("text=CP + IS + FUN = TRUE >> nth=2")  # the base-24 one fills the form
    page.wait_for_url(f"{live_server}/?puzzle=*")  # (read the old page, it raced in a run)
    page.wait_for_load_state()
    assert page.locator("#puzzle").input_value() == "CP + IS + FUN = TRUE"
    assert page.locator("#base").input_value() == "24"
    assert page.locator("#submit").inner_text() == "Find all solutions"
    assert "/jobs/" not in page.url  # filled, not submitted


def test_focus_follows_the_choice_and_ctrl_enter_submits(page: Any, live_server: str) -> None:
    page.goto(live_server + "/")
    assert page.evaluate("document.activeElement.tagName") == "BODY"  # nothing chosen yet
    page.locator(".famous-link", has_text="SEND + MORE = MONEY").first.click()  # form, filled
    page.wait_for_url(f"{live_server}/?puzzle=*")
    page.wait_for_load_state()
    assert page.evaluate("document.activeElement.id") == "puzzle"
    page.fill("#puzzle", "ODD + ODD = EVEN")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(f"{live_server}/jobs/*")
    settled(page)
    page.click("#edit")  # edit and resubmit: straight into the puzzle
    page.wait_for_url(f"{live_server}/?from=*")
    page.wait_for_load_state()
    assert page.evaluate("document.activeElement.id") == "puzzle"
    assert page.locator("#puzzle").input_value() == "ODD + ODD = EVEN"
    page.keyboard.press("Meta+Enter")
    page.wait_for_url(f"{live_server}/jobs/*")
    assert page.csp == [] and page.errors == []


def test_submit_button_without_scripts_says_a_word_true_of_every_mode(
    browser: Any, live_server: str
) -> None:
    with new_tab(browser, javascript=False) as page:
        page.goto(live_server + "/")
        assert page.locator("#submit").inner_text() == "Start"
        page.check("input[name=mode][value=count]")
        assert page.locator("#submit").inner_text() == "Start"
    with new_tab(browser, lang="ja") as page:  # with scripts: the mode's own word
        page.goto(live_server + "/?mode=count")
        assert page.locator("#submit").inner_text() == "数える"


@pytest.mark.parametrize("javascript", [True, False])
def test_enumeration_finishes_with_grid_table_and_export(
    browser: Any, live_server: str, javascript: bool
) -> None:
    with new_tab(browser, javascript=javascript) as page:
        submit(page, live_server, "CP + IS + FUN = TRUE", mode="enumerate", base=16)
        page.wait_for_url(f"{live_server}/jobs/*")
        # With JavaScript the poller reloads at the end; without, the <noscript> refresh does.
        page.wait_for_selector(DONE, timeout=60_000)
        assert page.locator("#count").inner_text() == "39,564"
        assert page.locator("#status").inner_text() == "Finished: 39,564 solutions."
        assert page.locator("#grid td.forced").count() >= 1
        header = page.locator("#solutions thead th").all_inner_texts()
        assert header[0] == "#" and sorted(header[1:]) == sorted("CPISFUNTRE")
        assert page.locator("#solutions tbody tr").count() == 50
        assert page.locator("#page-count").inner_text() == "of 792"
        page.fill("#page-input", "792")  # jump to the last page
        page.click("form.jump button")
        page.wait_for_url("**page=792*")
        assert page.locator("#range").inner_text() == "39,551–39,564 of 39,564 stored"
        page.click("#solutions tbody tr >> nth=0 >> a")  # draw the picked one as a sum
        page.wait_for_url("**pick=39551*")
        page.locator("#sum").wait_for()
        with page.expect_download() as download:
            page.click("#export-csv")
        assert download.value.suggested_filename.endswith(".csv")


def _read(page: Any) -> tuple[float, int]:
    """Return the progress bar's value and the solution count shown."""
    progress = float(page.locator("#progress").get_attribute("value") or 0)
    return progress, int(page.locator("#count").inner_text().replace(",", ""))


def test_long_enumeration_is_live_and_cancels(page: Any, live_server: str, artifacts: Path) -> None:
    submit(page, live_server, "CP + IS + FUN = TRUE", mode="enumerate", base=36)
    page.locator("#size-warning").wait_for()  # far past the storage cap: a warning first
    page.click("#enumerate-anyway")
    page.wait_for_url(f"{live_server}/jobs/*")
    job_url = page.url
    try:
        page.wait_for_function(
            "() => document.getElementById('state').dataset.state === 'running'"
            " && parseInt(document.getElementById('stored').textContent.replace(/,/g, '')) > 60"
        )
        first, elapsed = _read(page), page.locator("#elapsed").inner_text()
        assert page.title().startswith("Running · ")
        # Without any reload: the bar, the counts, the stored total and the clock move.
        page.wait_for_function(
            f"() => document.getElementById('progress').value > {first[0]}"
            " && parseInt(document.getElementById('count').textContent.replace(/,/g, ''))"
            f" > {first[1]}"
        )
        page.wait_for_function(
            f"() => document.getElementById('elapsed').textContent !== {elapsed!r}"
        )
        assert page.locator("#next-page").is_visible()  # more pages are stored already
        assert page.locator("#grid td.forced").count() == 0  # nothing proven while running
        assert page.locator("#progress").get_attribute("aria-valuetext", timeout=1000)
        assert page.locator("#eta").inner_text().startswith("Time left")
        page.screenshot(path=str(artifacts / "04-enumerate-running.png"), full_page=True)
        page.click("#cancel")
        page.wait_for_selector(DONE)
        page.wait_for_load_state()
        assert page.locator("#state").get_attribute("data-state") == "canceled"
        assert page.locator("#cancel").count() == 0
        assert page.locator("#solutions tbody tr").count() == 50
        assert page.locator("#status").inner_text().startswith("Canceled after ")
        assert page.locator("#grid td.forced").count() == 0
        assert page.csp == [] and page.dialogs == [] and page.errors == []
    finally:
        page.request.post(
            job_url.replace("/jobs/", "/api/jobs/") + "/cancel",
            headers={"Content-Type": "application/json"},
        )


def test_your_jobs_are_listed_in_this_browser_only(browser: Any, live_server: str) -> None:
    with new_tab(browser) as page:
        page.goto(live_server + "/")
        assert page.locator("#your-jobs").is_hidden()
        submit(page, live_server, "ODD + ODD = EVEN", mode="enumerate")
        settled(page)
        page.goto(live_server + "/")
        item = page.locator("#your-jobs-list li").first
        item.wait_for()
        assert "ODD + ODD = EVEN" in item.inner_text() and "Finished" in item.inner_text()
        # The same puzzle counted in base 12: a second line that says how it differs.
        submit(page, live_server, "ODD + ODD = EVEN", mode="count", base=12)
        settled(page)
        page.goto(live_server + "/")
        page.locator("#your-jobs-list li >> nth=1").wait_for()
        lines = page.locator("#your-jobs-list li").all_inner_texts()
        assert "Count the solutions" in lines[0] and "base 12" in lines[0], lines
        assert "Find every solution" in lines[1] and "base" not in lines[1], lines
        assert lines[0] != lines[1] and all(":" in line for line in lines), lines  # a time
        page.click("#your-jobs-list li >> nth=1 >> a")
        page.wait_for_selector(DONE)
    with new_tab(browser) as other:  # another browser profile: nothing of the first
        other.goto(live_server + "/")
        other.wait_for_timeout(300)
        assert other.locator("#your-jobs-list li").count() == 0


@pytest.mark.parametrize("javascript", [True, False])
def test_language_switch_is_remembered(browser: Any, live_server: str, javascript: bool) -> None:
    with new_tab(browser, width=NARROW, javascript=javascript) as page:
        page.goto(live_server + "/")
        page.click("a[hreflang=th]")
        assert page.locator("html").get_attribute("lang") == "th"
        page.goto(live_server + "/")  # the cookie keeps it
        assert page.locator("h1").inner_text() == "ไขปริศนาอักษรแทนเลข"
        page.fill("#puzzle", "SEND + MORE = MONEY")
        page.fill("#base", "37")
        page.click("#submit")
        assert "ตั้งแต่ 2 ถึง 36" in page.locator("#base-error").inner_text()


@pytest.mark.parametrize("payload", XSS)
def test_xss_payloads_are_shown_as_text(page: Any, live_server: str, payload: str) -> None:
    submit(page, live_server, payload)
    page.locator("#puzzle-error").wait_for()
    assert page.locator("#puzzle").input_value() == payload
    assert page.locator("img").count() == 0
    assert page.locator("script:not([src])").count() == 0
    assert page.locator("a[href^='javascript']").count() == 0
    page.goto(live_server + "/?puzzle=" + quote(payload, safe=""))
    assert page.locator("#puzzle").input_value() == payload
    assert page.locator("img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []


def test_form_post_without_csrf_token_is_refused(page: Any, live_server: str) -> None:
    page.goto(live_server + "/")
    page.evaluate("() => document.querySelector('#puzzle-form input[name=csrf_token]').remove()")
    page.fill("#puzzle", "SEND + MORE = MONEY")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("#submit")
    assert posted.value.status == 403
    assert "security token" in page.locator("body").inner_text()
    assert re.search(r"Error 403", page.locator("h1").inner_text())


@pytest.mark.parametrize("javascript", [True, False])
def test_warning_offers_count_instead(browser: Any, live_server: str, javascript: bool) -> None:
    with new_tab(browser, lang="ja", javascript=javascript) as page:
        submit(page, live_server, "CP + IS + FUN = TRUE", mode="enumerate", base=24)
        warning = page.locator("#size-warning")
        warning.wait_for()  # 1,131,120 solutions: more than the 1,000,000 a job may store
        assert "1,000,000" in warning.inner_text()
        page.click("#count-instead")
        page.wait_for_url(f"{live_server}/jobs/*")
        page.wait_for_selector(DONE, timeout=60_000)
        assert page.locator("#status").inner_text() == "完了: 解は 1,131,120 個です。"
        assert page.locator("#counted").count() == 0  # said once, not twice
        assert page.locator("#solutions").count() == 0


def test_japanese_form_solves_full_width_send_more_money(
    browser: Any, live_server: str, artifacts: Path
) -> None:
    """Seed 000's title as a Japanese input method types it: full-width ＋ and ＝."""
    with new_tab(browser, lang="ja") as page:
        page.goto(live_server + "/")
        assert page.locator("html").get_attribute("lang") == "ja"
        page.locator("#puzzle").press_sequentially("SEND＋MORE＝MONEY")
        page.click("#submit")
        page.wait_for_url(f"{live_server}/jobs/*")
        page.locator("#answer-line").wait_for()
        assert "9567 + 1085 = 10652" in page.locator("#answer-line").inner_text()
        assert page.locator("#sum").inner_text().splitlines() == [
            "  S E N D      9 5 6 7",
            "+ M O R E    + 1 0 8 5",
            "---------    ---------",
            "M O N E Y    1 0 6 5 2",
        ]
        page.screenshot(path=str(artifacts / "24-ja-full-width.png"), full_page=True)
        assert page.csp == [] and page.dialogs == [] and page.errors == []


def test_japanese_form_names_a_full_width_mistake_in_japanese(
    browser: Any, live_server: str
) -> None:
    with new_tab(browser, lang="ja") as page:
        page.goto(live_server + "/")
        page.locator("#puzzle").press_sequentially("いち＋いち！＝にい")
        page.click("#submit")
        error = page.locator("#puzzle-error").inner_text()
        assert "6 文字目: 「！」（U+FF01）は使えない文字です" in error
        assert "unexpected" not in error


def test_a_phone_sees_that_the_sum_and_grid_go_on_sideways(browser: Any, live_server: str) -> None:
    """At 390 px a long column sum and a base-16 letter x digit grid are wider than the
    screen: each scrolls sideways inside its box, which shows a shadow at the edge with more
    beyond."""
    with new_tab(browser, width=NARROW) as page:
        seen = []
        for puzzle, base, selector in (
            ("DONALD + GERALD = ROBERT", 10, "#sum"),
            ("SEND + MORE = MONEY", 16, "#grid"),
        ):
            job = page.request.post(
                f"{live_server}/api/jobs?wait=30",
                data={"puzzle": puzzle, "mode": "enumerate", "options": {"base": base}},
            ).json()
            # Its explanation worked out first: the page reloads itself once it is ready.
            page.request.get(f"{live_server}/api/jobs/{job['id']}/explain?wait=30")
            page.goto(f"{live_server}/jobs/{job['id']}?pick=1")
            page.wait_for_selector(DONE)
            seen.append(
                page.evaluate(
                    "(s) => { const box = document.querySelector(s).closest('.scroll');"
                    " const style = getComputedStyle(box);"
                    " return [box.scrollWidth > box.clientWidth, style.overflowX,"
                    " (style.backgroundImage.match(/radial-gradient/g) || []).length,"
                    " box.getBoundingClientRect().right <= innerWidth]; }",
                    selector,
                )
            )
        # Wider than the screen, scrolling inside a box that fits, with a shadow each side.
        assert seen == [[True, "auto", 2, True], [True, "auto", 2, True]], seen
        assert page.errors == [] and page.csp == []
