"""Real headless chromium against gunicorn, a real worker and a real Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
XSS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "javascript:alert(1)"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Debian chromium for the module."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed")
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that records dialogs and CSP violations."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(20_000)
    tab.dialogs = []
    tab.csp = []

    def on_dialog(dialog: Any) -> None:
        tab.dialogs.append(dialog.message)
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    tab.on(
        "console",
        lambda msg: tab.csp.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    yield tab
    context.close()


def submit(
    page: Any, url: str, puzzle: str, mode: str = "solve", base: int = 10, shot: Path | None = None
) -> None:
    """Fill the form (screenshot it if asked) and submit it."""
    page.goto(url + "/")
    page.fill("#puzzle", puzzle)
    page.check(f"input[name=mode][value={mode}]")
    page.fill("#base", str(base))
    if shot:
        page.screenshot(path=str(shot))
    page.click("#submit")


def test_send_more_money(page: Any, live_server: str, artifacts: Path) -> None:
    submit(page, live_server, "SEND + MORE = MONEY", shot=artifacts / "01-solve-form.png")
    page.wait_for_url(f"{live_server}/jobs/*")
    line = page.locator("#answer-line")
    line.wait_for()  # the poller reloads the page once the job is done
    assert "9567 + 1085 = 10652" in line.inner_text()
    drawn = page.locator("#sum").inner_text()
    assert "S E N D" in drawn and "M O N E Y" in drawn
    assert page.locator("#state").inner_text() == "succeeded"
    assert page.locator("#cancel").count() == 0
    assert page.locator("#status").get_attribute("aria-live") == "polite"
    page.screenshot(path=str(artifacts / "02-solve-done.png"), full_page=True)
    assert page.csp == [] and page.dialogs == []


def test_pages_work_without_javascript(browser: Any, live_server: str, artifacts: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(live_server + "/")
        page.fill("#puzzle", "CP + IS + FUN = TRUE")
        page.check("input[name=mode][value=enumerate]")
        page.fill("#base", "16")
        page.click("#submit")
        page.wait_for_url(f"{live_server}/jobs/*")
        first = page.locator("#state").inner_text()
        # No script runs: the <noscript> refresh reloads the page until the job is done.
        page.wait_for_selector("#state.state-succeeded", timeout=60_000)
        print(f"no-JS page: first seen {first!r}, then succeeded without any script")
        assert page.locator("#count").inner_text() == "39564"
        assert page.locator("#grid td.forced").count() >= 1
        page.screenshot(path=str(artifacts / "08-no-javascript.png"))
    finally:
        context.close()


def _read(page: Any) -> tuple[float, int]:
    """Return the progress bar's value and the solution count shown."""
    progress = float(page.locator("#progress").get_attribute("value") or 0)
    return progress, int(page.locator("#count").inner_text())


def test_long_enumeration_moves_and_cancels(page: Any, live_server: str, artifacts: Path) -> None:
    submit(page, live_server, "CP + IS + FUN = TRUE", mode="enumerate", base=36)
    page.wait_for_url(f"{live_server}/jobs/*")
    job_url = page.url
    try:
        page.wait_for_function(
            "() => document.getElementById('state').textContent === 'running'"
            " && parseInt(document.getElementById('count').textContent, 10) > 0"
        )
        first = _read(page)
        page.screenshot(path=str(artifacts / "03-enumerate-running.png"), full_page=True)
        # Without any reload: the poller moves the bar and the count by itself.
        page.wait_for_function(
            f"() => document.getElementById('progress').value > {first[0]}"
            f" && parseInt(document.getElementById('count').textContent, 10) > {first[1]}"
        )
        second = _read(page)
        assert second[0] > first[0] and second[1] > first[1]
        assert "%" in page.locator("#percent").inner_text()
        assert page.locator("#solutions li").count() > 0
        # The grid fills in live too: R, T and F are forced from the first solution on.
        page.wait_for_function("() => document.querySelectorAll('#grid td.forced').length >= 3")
        page.screenshot(path=str(artifacts / "04-enumerate-progressed.png"), full_page=True)
        page.click("#cancel")
        page.wait_for_function("() => document.getElementById('state').textContent === 'canceled'")
        # The poller then reloads once so the server draws the final page: wait for that page,
        # not the one being torn down (counting its list mid-reload sees nothing).
        page.wait_for_selector("#job[data-done='true']")
        page.wait_for_load_state()
        assert page.locator("#state").inner_text() == "canceled"
        assert page.locator("#cancel").count() == 0
        partial = page.locator("#solutions li")
        assert partial.count() > 0
        assert partial.first.inner_text().startswith("CP + IS + FUN = TRUE | ")
        assert "Canceled after" in page.locator("#status").inner_text()
        page.screenshot(path=str(artifacts / "05-enumerate-canceled.png"), full_page=True)
        assert page.csp == [] and page.dialogs == []
    finally:
        _cancel(page, job_url)


def _cancel(page: Any, job_url: str) -> None:
    """Cancel the job through the API whatever happened in the test."""
    page.request.post(job_url.replace("/jobs/", "/api/jobs/") + "/cancel")


@pytest.mark.parametrize("payload", XSS)
def test_xss_payloads_are_shown_as_text(
    page: Any, live_server: str, artifacts: Path, payload: str
) -> None:
    submit(page, live_server, payload)
    page.locator("#puzzle-error").wait_for()
    assert page.locator("#puzzle").input_value() == payload
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 0
    assert page.locator("a[href^='javascript']").count() == 0
    name = "xss-" + str(XSS.index(payload))
    page.screenshot(path=str(artifacts / f"06-{name}-form.png"))
    page.goto(live_server + "/?puzzle=" + playwright_quote(payload))
    assert page.locator("#puzzle").input_value() == payload
    assert page.locator("img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []


def playwright_quote(text: str) -> str:
    """URL-encode a query value."""
    from urllib.parse import quote

    return quote(text, safe="")


def test_form_post_without_csrf_token_is_refused(
    page: Any, live_server: str, artifacts: Path
) -> None:
    page.goto(live_server + "/")
    page.evaluate("() => document.querySelector('#puzzle-form input[name=csrf_token]').remove()")
    page.fill("#puzzle", "SEND + MORE = MONEY")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("#submit")
    assert posted.value.status == 403
    assert "security token" in page.locator("body").inner_text()
    page.screenshot(path=str(artifacts / "07-csrf-refused.png"))
