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

from jobstore import JobStore, Settings
from tests.support.processes import wait_job
from tests.support.web import assert_problem, make_app
from web.bodies import MAX_HEADER_FIELD, MAX_REQUEST_LINE

ADMIN_TOKEN = "test-admin-token-openapi-0123456789abcdef"


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
        if rule.rule.startswith(("/api/", "/admin/api/", "/healthz", "/readyz")):
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


def test_too_long_requests_are_documented_problems(
    client: FlaskClient, document: dict[str, Any]
) -> None:
    """A request line over MAX_REQUEST_LINE bytes is 414, a header line over MAX_HEADER_FIELD
    431: problem+json under /api/ (gunicorn's limits sit above: the app answers), the error page
    elsewhere; at the caps exactly, the request goes through."""
    path = f"/api/jobs/{uuid.uuid4()}"
    pad = MAX_REQUEST_LINE - len(f"GET {path}?pad= HTTP/1.1")
    at_cap = client.get(f"{path}?pad={'x' * pad}")
    assert at_cap.status_code == 404
    over = client.get(f"{path}?pad={'x' * (pad + 1)}")
    assert_problem(over, 414)
    check(document, over, "/api/jobs/{job_id}", "get")
    padding = "p" * (MAX_HEADER_FIELD - len("X-Padding: \r\n"))
    assert client.get(path, headers={"X-Padding": padding}).status_code == 404
    too_big = client.get(path, headers={"X-Padding": padding + "p"})
    assert assert_problem(too_big, 431)["type"] == "/api/problems/header-too-large"
    check(document, too_big, "/api/jobs/{job_id}", "get")
    page = client.get(f"/?pad={'x' * MAX_REQUEST_LINE}")
    assert page.status_code == 414 and page.mimetype == "text/html"


def test_admin_responses_conform(
    web_settings: Settings, document: dict[str, Any], job_store: JobStore, web_workers: Any
) -> None:
    admin = make_app(web_settings, ADMIN_TOKEN=ADMIN_TOKEN).test_client()
    admin.environ_base["REMOTE_ADDR"] = "10.88.0.1"
    auth = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    scheme = document["components"]["securitySchemes"]["adminToken"]
    assert scheme == {**scheme, "type": "http", "scheme": "bearer"}
    listing = admin.get("/admin/api/jobs?limit=5", headers=auth)
    check(document, listing, "/admin/api/jobs", "get")
    check(document, admin.get("/admin/api/queues", headers=auth), "/admin/api/queues", "get")
    refused = admin.get("/admin/api/queues")
    assert_problem(refused, 401)
    check(document, refused, "/admin/api/queues", "get")
    check(document, admin.get("/admin/api/jobs?state=nope", headers=auth), "/admin/api/jobs", "get")
    unknown = str(uuid.uuid4())
    bulk = admin.post("/admin/api/jobs/cancel", json={"ids": [unknown]}, headers=auth)
    check(document, bulk, "/admin/api/jobs/cancel", "post")
    assert bulk.get_json()["results"] == {unknown: "unknown"}
    one = admin.post(f"/admin/api/jobs/{unknown}/cancel", headers=auth)
    check(document, one, "/admin/api/jobs/{job_id}/cancel", "post")
    job_id = admin.post("/api/jobs", json={"puzzle": "AB + BA = CC", "fresh": True}).get_json()
    wait_job(job_store, job_id["id"])
    gone = admin.delete(f"/admin/api/jobs/{job_id['id']}", headers=auth)
    check(document, gone, "/admin/api/jobs/{job_id}", "delete")
    requeue = admin.post(f"/admin/api/jobs/{job_id['id']}/requeue", headers=auth)
    check(document, requeue, "/admin/api/jobs/{job_id}/requeue", "post")
