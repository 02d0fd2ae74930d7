"""Every error answer: problem+json for the API and probes, the error page for people."""

from __future__ import annotations

import logging

from flask import Flask, Response, current_app, render_template, request
from werkzeug.exceptions import Forbidden, HTTPException

from jobstore import Busy, Full, RateLimited, StorageFull, Unavailable
from web.errors.problems import TITLES, ApiProblem, problem
from web.slots import Saturated

log = logging.getLogger(__name__)

JSON_PATHS = ("/api/", "/admin/api/", "/healthz", "/readyz")


class Refusal(Forbidden):
    """A page's 403 with its own reason, already in the page's language (the error page's
    stock 403 sentence is about the form's security token)."""

    def __init__(self, reason: str) -> None:
        """Keep the reason to show."""
        super().__init__(description=reason)
        self.reason = reason


def error_response(
    status: int,
    detail: str,
    headers: dict[str, str] | None = None,
    title: str = "",
    reason: str = "",
) -> Response:
    """Answer an error as problem+json on JSON paths, as the error page otherwise (saying
    `reason` when given, else the status's own sentence)."""
    headers = headers or {}
    if request.path.startswith(JSON_PATHS):
        return problem(status, detail, headers=headers)
    title = title or TITLES.get(status, "Error")
    page = render_template("error.html", status=status, title=title, detail=detail, reason=reason)
    return Response(page, status=status, headers=headers)


def invalid(detail: str, field: str) -> ApiProblem:
    """The 422 problem of a malformed request field, to raise (answered as problem+json)."""
    return ApiProblem(422, detail, slug="invalid-request", field=field)


def _http_error(exc: HTTPException) -> Response:
    """Answer an HTTP error (404, 405, 413, ...) with a detail a person can act on."""
    status = exc.code or 500
    allowed = getattr(exc, "valid_methods", None)
    headers = {"Allow": ", ".join(allowed)} if status == 405 and allowed else {}
    if status == 413:
        cap = current_app.config["MAX_CONTENT_LENGTH"]
        detail = f"The request body is larger than the cap of {cap} bytes."
    elif status == 404:
        detail = f"Nothing at {request.path}."
    elif status == 405:
        detail = f"{request.method} is not allowed on {request.path}."
    else:
        detail = str(exc.description)
    reason = exc.reason if isinstance(exc, Refusal) else ""
    return error_response(status, detail, headers, title=exc.name, reason=reason)


def rate_limited(exc: RateLimited) -> Response:
    """Answer 429 with Retry-After: the seconds until the client's exceeded window resets."""
    detail = f"Too many {exc.what}; the limit is {exc.rate} per client. Retry later."
    return error_response(429, detail, {"Retry-After": str(exc.retry_after)})


def _busy(exc: Busy) -> Response:
    """Answer 429 with Retry-After while the client's previous estimate (or the like) runs."""
    detail = f"Another {exc.what} of yours is running; send the next one when it has answered."
    headers = {"Retry-After": str(exc.retry_after)}
    if request.path.startswith(JSON_PATHS):
        return problem(429, detail, slug="busy", headers=headers, field="client")
    return error_response(429, detail, headers)


def _saturated(exc: Saturated) -> Response:
    """Answer 429 with Retry-After while this process runs as many estimates as it may: the
    seconds until the first of them is expected to end."""
    detail = (
        f"This server is working out as many {exc.what}s as it can at once; "
        f"retry in {exc.retry_after} s."
    )
    headers = {"Retry-After": str(exc.retry_after)}
    if request.path.startswith(JSON_PATHS):
        return problem(429, detail, slug="busy", headers=headers)
    return error_response(429, detail, headers)


def _unavailable(exc: Unavailable) -> Response:
    """Answer 503 with Retry-After while Redis cannot be reached. A write whose outcome is
    unknown says the job may exist (`may_exist`, `job_id`): the same request sent again
    finds it; otherwise (`may_exist` false) nothing was written."""
    log.warning("job store unavailable: %s", exc)
    detail = "The job store (Redis) cannot be reached right now; retry in a few seconds."
    if exc.may_exist:
        detail += f" The job may have been created all the same (id {exc.job_id}): sending the"
        detail += " same submission again finds it and counts it once."
    headers = {"Retry-After": "5"}
    if request.path.startswith(JSON_PATHS):
        if exc.may_exist:
            return problem(503, detail, headers=headers, job_id=exc.job_id, may_exist=True)
        return problem(503, detail, headers=headers, may_exist=False)
    return error_response(503, detail, headers)


def _full(exc: Full) -> Response:
    """Answer 503 with Retry-After while Redis is at its memory limit (it refused a write)."""
    log.warning("job store full: %s", exc)
    detail = (
        "The job store (Redis) is full right now and takes no new work; retry in a few seconds."
    )
    return error_response(503, detail, {"Retry-After": str(exc.retry_after)})


def _storage_full(exc: StorageFull) -> Response:
    """Answer 503 with Retry-After while Redis is above its memory watermark."""
    return error_response(503, str(exc), {"Retry-After": str(exc.retry_after)})


def _server_error(exc: Exception) -> Response:
    """Log an unexpected error and answer 500 without leaking internals."""
    log.exception("unhandled error on %s %s", request.method, request.path)
    return error_response(500, "Something went wrong on our side; the error has been logged.")


def register_errors(app: Flask) -> None:
    """Install the error handlers."""
    app.register_error_handler(ApiProblem, lambda exc: exc.response())
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Unavailable, _unavailable)
    app.register_error_handler(Full, _full)
    app.register_error_handler(RateLimited, rate_limited)
    app.register_error_handler(Busy, _busy)
    app.register_error_handler(Saturated, _saturated)
    app.register_error_handler(StorageFull, _storage_full)
    app.register_error_handler(Exception, _server_error)
