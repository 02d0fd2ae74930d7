"""Browser hardening: security headers, a session-bound CSRF token and the rate limiter."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, abort, current_app, request, session
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

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


def _rate_limit() -> str:
    """Read the configured limit, e.g. "60/minute", at request time."""
    return str(current_app.config["RATE_LIMIT"])


def init_limiter(app: Flask, storage_uri: str, key_prefix: str) -> Limiter:
    """Attach a Redis-backed Flask-Limiter and limit the job-creating views."""
    limiter = Limiter(
        key_func=get_remote_address,
        app=app,
        storage_uri=storage_uri,
        key_prefix=key_prefix,
        # Off: Flask-Limiter would stamp its window's Retry-After (~60 s) on every 202 and
        # status reply, telling pollers to wait a minute; our 429 handler sets its own.
        headers_enabled=False,
        strategy="fixed-window",
        # With Redis down the limiter must not turn every request into a 500:
        # the job store answers 503 by itself.
        swallow_errors=True,
        enabled=bool(app.config.get("RATELIMIT_ENABLED", True)),
    )
    shared = limiter.shared_limit(_rate_limit, scope="job-create", methods=["POST"])
    for endpoint in RATE_LIMITED_VIEWS:
        view: Callable[..., Any] = app.view_functions[endpoint]
        app.view_functions[endpoint] = shared(view)
    return limiter


def init_security(app: Flask) -> None:
    """Register headers and the CSRF helper for templates."""
    app.after_request(add_security_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["CSRF_FIELD"] = CSRF_FIELD
