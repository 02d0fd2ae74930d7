"""The pages in English, Japanese and Thai: the locale of a request and the numbers it shows.

The locale comes from ?lang= (then remembered in a cookie), else that cookie, else the
browser's Accept-Language, else English. Pages are translated, and so are the JSON API's
explanations and the details of its puzzle errors (by code); its other problem details stay
English (web/README.md).
"""

from __future__ import annotations

import decimal
from pathlib import Path
from typing import Any

import flask_babel  # type: ignore[import-untyped]
from flask import Flask, Response, has_request_context, request

# The languages offered, each named in itself (for the language switcher).
LANGUAGES = {"en": "English", "ja": "日本語", "th": "ไทย"}
DEFAULT = "en"
COOKIE = "lang"
COOKIE_AGE = 365 * 24 * 3600
TRANSLATIONS = Path(__file__).resolve().parent / "translations"


def gettext(text: str, **values: Any) -> str:
    """Translate a sentence into the request's language, filling in its %(name)s values."""
    return str(flask_babel.gettext(text, **values))


def ngettext(singular: str, plural: str, n: int, **values: Any) -> str:
    """Translate a sentence whose form depends on n (count= gives the number as written)."""
    return str(flask_babel.ngettext(singular, plural, n, **values))


def lazy_gettext(text: str) -> Any:
    """A sentence translated when it is shown (for module-level tables of labels)."""
    return flask_babel.lazy_gettext(text)


_ = gettext
_l = lazy_gettext


def select_locale() -> str:
    """The language of this request: ?lang=, the cookie, Accept-Language, else English."""
    if not has_request_context():
        return DEFAULT  # an app context without a request (CLI, tests): English
    asked = request.args.get("lang", "")
    if asked in LANGUAGES:
        return asked
    kept = request.cookies.get(COOKIE, "")
    if kept in LANGUAGES:
        return kept
    return request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT


def locale_tag() -> str:
    """The current locale as a BCP 47 tag for <html lang> and Intl in the browser."""
    locale = flask_babel.get_locale()
    return str(locale).replace("_", "-") if locale is not None else DEFAULT


def remember(response: Response) -> Response:
    """Keep a language chosen with ?lang= in a cookie; pages (error pages too) say their
    language and vary by what chose it. The admin pages are English alone."""
    if request.path.startswith("/api/"):
        return response
    asked = request.args.get("lang", "")
    if asked in LANGUAGES and request.cookies.get(COOKIE) != asked:
        response.set_cookie(COOKIE, asked, max_age=COOKIE_AGE, samesite="Lax", httponly=True)
    if response.mimetype == "text/html":
        if not request.path.startswith("/admin"):
            response.headers.setdefault("Content-Language", locale_tag())
        response.vary.update(("Accept-Language", "Cookie"))
    return response


def number(value: float | int | None) -> str:
    """A count formatted for the locale, with its thousands separators (digits enough for
    any count: Babel rounds in the decimal context, 28 digits by default)."""
    with decimal.localcontext() as context:
        context.prec = max(context.prec, len(f"{value or 0:.0f}") + 8)
        return str(flask_babel.format_decimal(value or 0))


def percent(progress: float | None) -> str:
    """A 0..1 progress as a percentage with one decimal, formatted for the locale."""
    return str(flask_babel.format_decimal(100 * (progress or 0), format="#,##0.0")) + "%"


def duration(seconds: float | None) -> str:
    """A number of seconds for people: "1 h 2 min", "3 min 4 s", "5 s" (in the locale)."""
    if seconds is None:
        return gettext("unknown")
    whole = max(0, int(round(seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return gettext("%(h)s h %(m)s min", h=number(hours), m=minutes)
    if minutes and not secs:
        return gettext("%(m)s min", m=minutes)
    if minutes:
        return gettext("%(m)s min %(s)s s", m=minutes, s=secs)
    return gettext("%(s)s s", s=secs)


def init_i18n(app: Flask) -> None:
    """Install Flask-Babel with our locale selector, the cookie and the number filters."""
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    flask_babel.Babel(app, locale_selector=select_locale)
    app.after_request(remember)
    app.jinja_env.globals.update(LANGUAGES=LANGUAGES, locale_tag=locale_tag)
    app.jinja_env.filters.update(number=number, percent=percent, duration=duration)
