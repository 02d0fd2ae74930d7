"""Headless Debian Chromium for the page tests: launch, tabs that record trouble, axe-core.

Every browser test module makes its own module-scoped `browser` with launch(); pages come from
new_tab(), which records dialogs, CSP violations and console errors on the tab.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
AXE = Path(__file__).resolve().parents[1] / "web" / "vendor" / "axe.min.js"
WIDE, NARROW = 1280, 390
LOCALES = {"en": "en-US", "ja": "ja-JP", "th": "th-TH"}
# axe-core's WCAG 2 A and AA rules (best-practice rules are advice, not failures).
AXE_RUN = """async () => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}));
}"""


@contextmanager
def launch(playwright_api: Any) -> Iterator[Any]:
    """One headless chromium (Debian's: `playwright install` would need the network)."""
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@contextmanager
def new_tab(
    browser: Any, width: int = WIDE, lang: str = "en", javascript: bool = True
) -> Iterator[Any]:
    """A fresh context and tab at this width and language, recording dialogs and CSP errors."""
    context = browser.new_context(
        viewport={"width": width, "height": 900},
        locale=LOCALES[lang],
        java_script_enabled=javascript,
    )
    tab = context.new_page()
    tab.set_default_timeout(20_000)
    tab.dialogs, tab.csp, tab.errors = [], [], []

    def on_dialog(dialog: Any) -> None:
        tab.dialogs.append(dialog.message)
        dialog.dismiss()

    def on_console(message: Any) -> None:
        if "Content Security Policy" in message.text:
            tab.csp.append(message.text)
        elif message.type == "error" and "Failed to load resource" not in message.text:
            tab.errors.append(message.text)

    tab.on("dialog", on_dialog)
    tab.on("console", on_console)
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    try:
        yield tab
    finally:
        # Leave the app's page first: one that polls and reloads itself (job.js, explain.js)
        # was open when a context's close hung for 300 s in a full run (once in three runs).
        with suppress(Exception):
            tab.goto("about:blank", timeout=5_000)
        context.close()


def serious_violations(tab: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical WCAG 2 A/AA violations on the tab's current page."""
    # evaluate() runs outside the page's CSP, which would refuse an injected <script>.
    tab.evaluate(AXE.read_text(encoding="utf-8"))
    violations: list[dict[str, Any]] = tab.evaluate(AXE_RUN)
    return [v for v in violations if v["impact"] in ("serious", "critical")]


# One axe-core rule or a few by name (best-practice ones too), with where they fail.
AXE_RULES = """async (rules) => {
  const result = await axe.run(document, {runOnly: {type: 'rule', values: rules}});
  return result.violations.map(v => ({id: v.id, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}));
}"""


def rule_violations(tab: Any, rules: list[str]) -> list[dict[str, Any]]:
    """axe-core's violations of the named rules on the tab's current page (any impact)."""
    tab.evaluate(AXE.read_text(encoding="utf-8"))
    violations: list[dict[str, Any]] = tab.evaluate(AXE_RULES, rules)
    return violations


def horizontal_overflow(tab: Any) -> int:
    """How many pixels the page is wider than the viewport (0 when it does not scroll)."""
    width: int = tab.evaluate(
        "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - window.innerWidth"
    )
    return max(0, width)
