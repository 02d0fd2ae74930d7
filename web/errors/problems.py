"""RFC 9457 problem details: one helper builds every error response of the JSON API."""

from __future__ import annotations

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
    **extra: Any,
) -> Response:
    """Build an application/problem+json response with type, title, status and detail."""
    body: dict[str, Any] = {
        "type": TYPE_BASE + (slug or SLUGS.get(status, "error")),
        "title": title or TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    body.update(extra)
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


class ApiProblem(Exception):
    """Raised inside API views to answer with a problem response."""

    def __init__(self, status: int, detail: str, *, slug: str | None = None, **extra: Any):
        """Keep what the problem response needs."""
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.slug = slug
        self.extra = extra

    def response(self) -> Response:
        """Turn the exception into its problem+json response."""
        return problem(self.status, self.detail, slug=self.slug, **self.extra)
