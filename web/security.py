"""Browser hardening: security headers, what caches may keep, and a session-bound CSRF token."""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, Response, abort, request, session

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

# A shared cache must never hand one person's page to another: pages carry the session's CSRF
# token (and set its cookie), job answers a client's own jobs, /admin everything. So nothing of
# /admin is stored anywhere, and every other answer that does not say otherwise (static files
# do) is kept by the browser only, and asked for again before each use.
ADMIN_CACHE = "no-store"
PRIVATE_CACHE = "private, no-cache"

CSRF_FIELD = "csrf_token"
CSRF_SESSION_KEY = "csrf"


def add_security_headers(response: Response) -> Response:
    """Set the hardening headers on every response."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if request.path == "/admin" or request.path.startswith("/admin/"):
        response.headers["Cache-Control"] = ADMIN_CACHE
    else:
        response.headers.setdefault("Cache-Control", PRIVATE_CACHE)
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


def init_security(app: Flask) -> None:
    """Register headers and the CSRF helper for templates."""
    app.after_request(add_security_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["CSRF_FIELD"] = CSRF_FIELD
