"""The README's screenshots, in each language: the form, a running enumeration, a finished solve.

They are written to tests/artifacts/web/docs/; copy them to docs/ when the pages change.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.browser import new_tab

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LANGS = ["en", "ja", "th"]
TALL = {"width": 1280, "height": 1000}


@pytest.fixture(scope="module")
def running(live_server: str) -> Iterator[str]:
    """A long enumeration (base 36), running while the pictures are taken; cancelled after."""
    body: dict[str, Any] = {
        "puzzle": "CP + IS + FUN = TRUE",
        "mode": "enumerate",
        "options": {"base": 36},
    }
    job = requests.post(live_server + "/api/jobs", json=body, timeout=10).json()
    try:
        yield f"/jobs/{job['id']}"
    finally:
        requests.post(live_server + f"/api/jobs/{job['id']}/cancel", json={}, timeout=10)


@pytest.mark.parametrize("lang", LANGS)
def test_screenshots(
    browser: Any, live_server: str, artifacts: Path, running: str, lang: str
) -> None:
    folder = artifacts / "docs"
    folder.mkdir(exist_ok=True)
    with new_tab(browser, lang=lang) as tab:
        tab.set_viewport_size(TALL)
        tab.goto(live_server + "/?puzzle=SEND%20%2B%20MORE%20%3D%20MONEY")
        assert tab.locator("html").get_attribute("lang") == lang
        tab.screenshot(path=str(folder / f"form-{lang}.png"), full_page=True)
        tab.goto(live_server + running)
        tab.wait_for_function(
            "() => document.getElementById('state').dataset.state === 'running'"
            " && parseInt(document.getElementById('count').textContent.replace(/\\D/g, '')) > 0"
        )
        tab.wait_for_timeout(1500)  # let the clock and counters move
        tab.screenshot(path=str(folder / f"running-{lang}.png"))
        tab.goto(live_server + "/")
        tab.fill("#puzzle", "SEND + MORE = MONEY")
        tab.click("#submit")
        tab.locator("#sum").wait_for()
        tab.locator("#steps").wait_for()  # the page reloads once a worker has worked them out
        tab.screenshot(path=str(folder / f"solved-{lang}.png"), full_page=True)
        assert tab.errors == [] and tab.csp == []
