"""RFC 9457 problem details: one helper builds every error response of the JSON API.

Every problem carries a stable `code`: an engine error's own (alphametic.ErrorCode), else the
ProblemCode of its type's slug ("invalid-request" -> "invalid_request").
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from flask import Response, json

PROBLEM_TYPE = "application/problem+json"
TYPE_BASE = "/api/problems/"

TITLES = {
    400: "Bad request",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Request body too large",
    414: "Request line too long",
    415: "Unsupported media type",
    422: "Invalid request",
    429: "Too many requests",
    431: "Header too large",
    500: "Internal server error",
    503: "Service unavailable",
}


class ProblemCode(StrEnum):
    """The code of every problem that is not an engine error: its type's slug, with '_'."""

    BAD_REQUEST = "bad_request"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_YOUR_JOB = "not_your_job"
    NOT_FOUND = "not_found"
    UNKNOWN_JOB = "unknown_job"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    CONFLICT = "conflict"
    JOB_RUNNING = "job_running"
    BODY_TOO_LARGE = "body_too_large"
    REQUEST_LINE_TOO_LONG = "request_line_too_long"
    HEADER_TOO_LARGE = "header_too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    INVALID_REQUEST = "invalid_request"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_JOBS = "too_many_jobs"
    TOO_MANY_WRONG_TOKENS = "too_many_wrong_tokens"
    BUSY = "busy"
    STORAGE_SHARE = "storage_share"  # the client's storing jobs hold its share of Redis
    EXPLANATION_BUSY = "explanation_busy"
    INTERNAL_ERROR = "internal_error"
    EXPLANATION_FAILED = "explanation_failed"
    UNAVAILABLE = "unavailable"
    ERROR = "error"  # a status with no slug of its own

    @property
    def slug(self) -> str:
        """The last part of the problem's type URI."""
        return self.value.replace("_", "-")


_BY_SLUG = {code.slug: code for code in ProblemCode}

SLUGS = {
    400: "bad-request",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    413: "body-too-large",
    414: "request-line-too-long",
    415: "unsupported-media-type",
    422: "invalid-request",
    429: "rate-limited",
    431: "header-too-large",
    500: "internal-error",
    503: "unavailable",
}


def problem(
    status: int,
    detail: str,
    *,
    slug: str | None = None,
    title: str | None = None,
    headers: dict[str, str] | None = None,
    code: str | None = None,
    language: str | None = None,
    **extra: Any,
) -> Response:
    """Build an application/problem+json response with type, title, status, detail and code.

    `code`: an engine error's code; else the ProblemCode of the slug. `language`: the tag of
    a detail said in the request's language (sent as Content-Language, and the answer varies
    with what chose it); None for the problems said in English alone.
    """
    slug = slug or SLUGS.get(status, ProblemCode.ERROR.slug)
    body: dict[str, Any] = {
        "type": TYPE_BASE + slug,
        "title": title or TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "code": str(code or _BY_SLUG.get(slug, ProblemCode.ERROR)),
    }
    body.update(extra)
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    if language is not None:
        response.headers["Content-Language"] = language
        response.vary.update(("Accept-Language", "Cookie"))
    return response


class ApiProblem(Exception):
    """Raised inside API views to answer with a problem response."""

    def __init__(
        self, status: int, detail: str, *, slug: str | None = None,
        language: str | None = None, **extra: Any,
    ) -> None:  # fmt: skip
        """Keep what the problem response needs (`language`: see problem())."""
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.slug = slug
        self.language = language
        self.extra = extra

    def response(self) -> Response:
        """Turn the exception into its problem+json response."""
        return problem(
            self.status, self.detail, slug=self.slug, language=self.language, **self.extra
        )
