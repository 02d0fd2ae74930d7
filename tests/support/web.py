"""Web test helpers: the app on test settings, problem responses, the form's token."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from web import create_app

PROBLEM = "application/problem+json"
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def make_app(settings: Any, **config: Any) -> Flask:
    """Build an app on these settings with a high rate limit unless told otherwise."""
    base: dict[str, Any] = {
        "SETTINGS": settings,
        "TESTING": True,
        "RATE_LIMIT": "10000/minute",
        "READ_RATE_LIMIT": "100000/minute",
    }
    base.update(config)
    return create_app(base)


def as_client(app: Flask, address: str) -> FlaskClient:
    """A test client whose requests come from this address (the client's identity)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def assert_problem(response: Any, status: int) -> dict[str, Any]:
    """Check an RFC 9457 problem response and return its body."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body: dict[str, Any] = response.get_json(force=True)
    assert body["status"] == status
    assert body["type"].startswith("/api/problems/")
    assert body["title"] and body["detail"]
    # Every problem has a stable code: an engine error's own, else its type's slug with "_".
    slug = body["type"].removeprefix("/api/problems/")
    assert slug == "puzzle-error" or body["code"] == slug.replace("-", "_"), body
    assert re.fullmatch(r"[a-z][a-z0-9_]*", body["code"]), body
    return body


def token(client: FlaskClient) -> str:
    """Load the form and return its CSRF token."""
    found = TOKEN.search(client.get("/").get_data(as_text=True))
    assert found
    return found.group(1)


def submit_form(client: FlaskClient, **fields: str) -> Any:
    """Submit the puzzle form with a valid token."""
    data = {"mode": "solve", "leading_zeros": "multi-letter", "base": "10", **fields}
    return client.post("/jobs", data={"csrf_token": token(client), **data})
