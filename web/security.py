"""Browser hardening: security headers, a session-bound CSRF token, counting job creations."""

from __future__ import annotations

import functools
import hmac
import secrets
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, abort, g, request, session

from web.jobview import count_request
from worker.jobs import RateLimited, Unavailable

# No inline script or style anywhere: the poller lives in static/job.js.
CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}

CSRF_FIELD = "csrf_token"
CSRF_SESSION_KEY = "csrf"

# The views whose POSTs create jobs share one per-client budget.
RATE_LIMITED_VIEWS = ("api.create_job", "pages.create_job")


def add_security_headers(response: Response) -> Response:
    """Set the hardening headers on every response."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def csrf_token() -> str:
    """Return this session's CSRF token, creating it on first use."""
    token = session.get(CSRF_SESSION_KEY)
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_SESSION_KEY] = token
    return token


def check_csrf() -> None:
    """Refuse (403) a form POST whose token does not match the session's."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    expected = session.get(CSRF_SESSION_KEY)
    sent = request.form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not expected or not sent:
        abort(403, description="The form's security token is missing; reload the page and retry.")
    if not hmac.compare_digest(expected.encode(), sent.encode()):
        abort(403, description="The form's security token does not match; reload and retry.")


def counted(view: Callable[..., Any]) -> Callable[..., Any]:
    """Count every job-creating POST against the client's rates, refused ones too.

    A request that reaches JobStore.submit is counted by its script (the same round trip that
    queues the job); one refused before (bad JSON, a form error) is counted here afterwards,
    and answered 429 instead when that takes the client over its rate.
    """

    @functools.wraps(view)
    def inner(*args: Any, **kwargs: Any) -> Any:
        g.rate_counted = False
        try:
            response = view(*args, **kwargs)
        except (RateLimited, Unavailable):
            raise
        except Exception:
            if not g.rate_counted:
                count_request()
            raise
        if not g.rate_counted:
            count_request()
        return response

    return inner


def limit_job_creation(app: Flask) -> None:
    """Wrap the job-creating views so every request to them counts (they share one budget)."""
    for endpoint in RATE_LIMITED_VIEWS:
        app.view_functions[endpoint] = counted(app.view_functions[endpoint])


def init_security(app: Flask) -> None:
    """Register headers and the CSRF helper for templates."""
    app.after_request(add_security_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["CSRF_FIELD"] = CSRF_FIELD
