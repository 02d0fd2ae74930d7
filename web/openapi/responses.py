"""The pieces every path item of the document is made of: the job id, problem and JSON answers."""

from __future__ import annotations

from typing import Any

from web.bodies import MAX_HEADER_FIELD, MAX_REQUEST_LINE

PROBLEM = "application/problem+json"
UUID4 = "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
JOB_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "format": "uuid", "pattern": UUID4},
    "description": "The job's id (a uuid4).",
}
RETRY_AFTER = {
    "description": "Seconds to wait before asking again.",
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
}


def ref(name: str) -> dict[str, str]:
    """A reference to the named component schema."""
    return {"$ref": f"#/components/schemas/{name}"}


def problem(description: str, retry: bool = False) -> dict[str, Any]:
    """Describe a problem+json error response."""
    response: dict[str, Any] = {
        "description": description,
        "content": {PROBLEM: {"schema": ref("Problem")}},
    }
    if retry:
        response["headers"] = {"Retry-After": RETRY_AFTER}
    return response


def body(name: str, description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """Describe a JSON response whose body is the named schema."""
    response: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": ref(name)}},
    }
    if headers:
        response["headers"] = headers
    return response


def too_long() -> dict[str, Any]:
    """The 414 and 431 answers any request may get (the app measures what gunicorn would)."""
    return {
        "414": problem(
            f"The request line (method, path and query) is longer than {MAX_REQUEST_LINE} bytes."
        ),
        "431": problem(f"A header line is longer than {MAX_HEADER_FIELD} bytes."),
    }
