"""Flask front end: the JSON API and the HTML pages over the job store."""

from __future__ import annotations

import logging
import os
import secrets
import threading
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, render_template, request
from limits import parse_many
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from web.problems import ApiProblem, problem
from web.security import init_security, limit_job_creation
from worker.config import Settings
from worker.jobs import JobStore, Rate, RateLimited, Unavailable

log = logging.getLogger(__name__)

# Config keys read from the environment, with their defaults.
ENV_CONFIG: dict[str, tuple[str, Any]] = {
    "RATE_LIMIT": ("ALPHAMETIC_RATE_LIMIT", "60/minute"),
    "MAX_CONTENT_LENGTH": ("ALPHAMETIC_MAX_BODY", 64 * 1024),
    "MAX_PAGE_SIZE": ("ALPHAMETIC_MAX_PAGE_SIZE", 500),
    "POLL_SECONDS": ("ALPHAMETIC_POLL_SECONDS", 1),
    # Long polling (?wait=): the longest wait a request may ask for, and how many requests of
    # one web process may wait at once (each holds a gunicorn thread; the rest answer at once).
    "MAX_WAIT": ("ALPHAMETIC_MAX_WAIT", 30.0),
    "MAX_WAITERS": ("ALPHAMETIC_MAX_WAITERS", 4),
    "SECRET_KEY": ("ALPHAMETIC_SECRET_KEY", None),
    # Reverse proxies in front of the app whose X-Forwarded-For is trusted (0: none), so the
    # rate limit counts real clients rather than the proxy.
    "PROXY_HOPS": ("ALPHAMETIC_PROXY_HOPS", 0),
}
JSON_PATHS = ("/api/", "/healthz", "/readyz")


def _config(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Merge defaults, environment variables and explicit overrides."""
    config: dict[str, Any] = {}
    for key, (env_name, default) in ENV_CONFIG.items():
        raw = os.environ.get(env_name, "").strip()
        try:
            config[key] = type(default)(raw) if raw and default is not None else raw or default
        except ValueError:
            raise ValueError(f"{env_name}={raw!r} is not a {type(default).__name__}") from None
    config.update(overrides)
    try:
        parse_many(str(config["RATE_LIMIT"]))
    except ValueError:
        raise ValueError(
            f"ALPHAMETIC_RATE_LIMIT={config['RATE_LIMIT']!r} is not a rate like '60/minute'"
        ) from None
    if not config["SECRET_KEY"]:
        # Sessions only carry the CSRF token; a per-process key is enough for one process,
        # several gunicorn workers need ALPHAMETIC_SECRET_KEY set.
        config["SECRET_KEY"] = secrets.token_hex(32)
    return config


def _settings(config: Mapping[str, Any]) -> Settings:
    """Return the job settings: from the env, or given, with REDIS_URL/KEY_PREFIX overrides."""
    settings = config.get("SETTINGS") or Settings.from_env()
    changes = {
        field: config[key]
        for key, field in (("REDIS_URL", "redis_url"), ("KEY_PREFIX", "key_prefix"))
        if key in config
    }
    return settings.replace(**changes) if changes else settings


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app: blueprints, job store, rate limit, headers and error handlers."""
    app = Flask(__name__)
    app.config.update(_config(config or {}))
    app.config.update(SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True)
    hops = int(app.config["PROXY_HOPS"])
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    settings = _settings(app.config)
    app.extensions["alphametic.settings"] = settings
    app.extensions["alphametic.store"] = JobStore(settings)
    app.extensions["alphametic.wait_slots"] = threading.BoundedSemaphore(
        max(1, int(app.config["MAX_WAITERS"]))
    )

    from web import api, health, pages

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(health.bp)
    init_security(app)
    app.extensions["alphametic.rates"] = _rates(app.config)
    limit_job_creation(app)
    _register_errors(app)
    return app


def _wants_json() -> bool:
    """Tell whether the request is for the JSON API (errors as problem+json)."""
    return request.path.startswith(JSON_PATHS)


def _http_error(exc: HTTPException) -> Any:
    """Answer an HTTP error as problem+json for the API, as a page otherwise."""
    status = exc.code or 500
    headers: dict[str, str] = {}
    allowed = getattr(exc, "valid_methods", None)
    if status == 405 and allowed:
        headers["Allow"] = ", ".join(allowed)
    detail = _detail(exc, status)
    if _wants_json():
        return problem(status, detail, headers=headers)
    page = render_template("error.html", status=status, title=exc.name, detail=detail)
    return Response(page, status=status, headers=headers)


def _detail(exc: HTTPException, status: int) -> str:
    """Return an error detail a person can act on."""
    from flask import current_app

    if status == 413:
        cap = current_app.config["MAX_CONTENT_LENGTH"]
        return f"The request body is larger than the cap of {cap} bytes."
    if status == 404:
        return f"Nothing at {request.path}."
    if status == 405:
        return f"{request.method} is not allowed on {request.path}."
    return str(exc.description)


def _rates(config: Mapping[str, Any]) -> tuple[Rate, ...]:
    """Per-client rates of job creation from RATE_LIMIT (none when RATELIMIT_ENABLED is off)."""
    if not config.get("RATELIMIT_ENABLED", True):
        return ()
    items = parse_many(str(config["RATE_LIMIT"]))
    return tuple(Rate(item.amount, item.get_expiry(), str(item)) for item in items)


def _rate_limited(exc: RateLimited) -> Any:
    """Answer 429 with Retry-After: the seconds until the client's exceeded window resets."""
    detail = f"Too many jobs created; the limit is {exc.rate} per client. Retry later."
    headers = {"Retry-After": str(exc.retry_after)}
    if _wants_json():
        return problem(429, detail, headers=headers)
    page = render_template("error.html", status=429, title="Too many requests", detail=detail)
    return Response(page, status=429, headers=headers)


def _unavailable(exc: Unavailable) -> Any:
    """Answer 503 with Retry-After while Redis cannot be reached."""
    log.warning("job store unavailable: %s", exc)
    detail = "The job store (Redis) cannot be reached right now; retry in a few seconds."
    headers = {"Retry-After": "5"}
    if _wants_json():
        return problem(503, detail, headers=headers)
    page = render_template("error.html", status=503, title="Service unavailable", detail=detail)
    return Response(page, status=503, headers=headers)


def _server_error(exc: Exception) -> Any:
    """Log an unexpected error and answer 500 without leaking internals."""
    log.exception("unhandled error on %s %s", request.method, request.path)
    detail = "Something went wrong on our side; the error has been logged."
    if _wants_json():
        return problem(500, detail)
    page = render_template("error.html", status=500, title="Server error", detail=detail)
    return Response(page, status=500)


def _register_errors(app: Flask) -> None:
    """Install the error handlers."""
    app.register_error_handler(ApiProblem, lambda exc: exc.response())
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Unavailable, _unavailable)
    app.register_error_handler(RateLimited, _rate_limited)
    app.register_error_handler(Exception, _server_error)
