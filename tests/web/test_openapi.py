"""The OpenAPI document is valid 3.1 and real responses conform to it."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from jobstore import JobStore
from tests.support.processes import wait_job


@pytest.fixture(scope="module")
def document(app: Flask) -> dict[str, Any]:
    """The served OpenAPI document."""
    response = app.test_client().get("/api/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


def check(document: dict[str, Any], response: Any, path: str, method: str) -> None:
    """Validate one real response (status, content type, headers, body) against the doc."""
    operation = document["paths"][path][method]
    spec = operation["responses"].get(str(response.status_code))
    assert spec is not None, f"{method} {path}: {response.status_code} is not documented"
    assert response.mimetype in spec["content"], response.mimetype
    schema = spec["content"][response.mimetype]["schema"]
    root = {**schema, "components": document["components"]}
    Draft202012Validator(root).validate(response.get_json(force=True))
    for header in spec.get("headers", {}):
        if header == "Location" or response.status_code >= 400:
            assert header in response.headers, f"{header} missing"


def test_document_is_valid_openapi_31(document: dict[str, Any]) -> None:
    validate(document)
    assert document["openapi"].startswith("3.1")


def test_document_covers_every_api_route(app: Flask, document: dict[str, Any]) -> None:
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(("/api/", "/healthz", "/readyz")):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            routes |= {(path, m.lower()) for m in (rule.methods or set()) - {"HEAD", "OPTIONS"}}
    documented = {
        (p, m) for p, item in document["paths"].items() for m in item if m != "parameters"
    }
    assert routes == documented


def test_responses_conform(
    client: FlaskClient, document: dict[str, Any], job_store: JobStore, web_workers: Any
) -> None:
    created = client.post("/api/jobs", json={"puzzle": "ODD + ODD = EVEN", "mode": "enumerate"})
    check(document, created, "/api/jobs", "post")
    job_id = created.get_json()["id"]
    wait_job(job_store, job_id)
    check(document, client.get(f"/api/jobs/{job_id}"), "/api/jobs/{job_id}", "get")
    page = client.get(f"/api/jobs/{job_id}/solutions?limit=1")
    check(document, page, "/api/jobs/{job_id}/solutions", "get")
    assert len(page.get_json()["items"]) == 1
    check(document, client.get(f"/api/jobs/{job_id}/grid"), "/api/jobs/{job_id}/grid", "get")
    cancel = client.post(f"/api/jobs/{job_id}/cancel", json={})
    check(document, cancel, "/api/jobs/{job_id}/cancel", "post")
    solved = client.post("/api/jobs", json={"puzzle": "SEND + MORE = MONEY"}).get_json()
    wait_job(job_store, solved["id"])
    check(document, client.get(f"/api/jobs/{solved['id']}"), "/api/jobs/{job_id}", "get")
    check(document, client.get("/healthz"), "/healthz", "get")
    check(document, client.get("/readyz"), "/readyz", "get")


def test_errors_conform(client: FlaskClient, document: dict[str, Any], app: Flask) -> None:
    unknown = uuid.uuid4()
    check(document, client.get(f"/api/jobs/{unknown}"), "/api/jobs/{job_id}", "get")
    check(
        document,
        client.post(f"/api/jobs/{unknown}/cancel", json={}),
        "/api/jobs/{job_id}/cancel",
        "post",
    )
    path = "/api/jobs/{job_id}/solutions"
    check(document, client.get(f"/api/jobs/{unknown}/solutions"), path, "get")
    check(document, client.post("/api/jobs", json={"puzzle": "A + B ="}), "/api/jobs", "post")
    check(
        document, client.post("/api/jobs", data="x", content_type="text/csv"), "/api/jobs", "post"
    )
    big = "A" * (int(app.config["MAX_CONTENT_LENGTH"]) + 1)
    check(document, client.post("/api/jobs", json={"puzzle": big}), "/api/jobs", "post")
