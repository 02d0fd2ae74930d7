"""The OpenAPI 3.1 document of the JSON API, built from the app's caps."""

from __future__ import annotations

from typing import Any

from flask import Flask

import alphametic

PROBLEM = "application/problem+json"
MAX_OFFSET = 10**9
LINKS = ("self", "solutions", "cancel", "grid", "page")
UUID4 = "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
JOB_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "format": "uuid", "pattern": UUID4},
    "description": "The job's id (a uuid4).",
}
NULL_TIME = {"type": ["string", "null"], "format": "date-time"}
RETRY_AFTER = {
    "description": "Seconds to wait before asking again.",
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
}


def _problem(description: str, retry: bool = False) -> dict[str, Any]:
    """Describe a problem+json error response."""
    response: dict[str, Any] = {
        "description": description,
        "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    if retry:
        response["headers"] = {"Retry-After": RETRY_AFTER}
    return response


def _json(ref: str, description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """Describe a JSON response whose body is the named schema."""
    response: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
    }
    if headers:
        response["headers"] = headers
    return response


def _schemas(max_page: int) -> dict[str, Any]:
    """Return the component schemas."""
    digit_map = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
    return {
        "Problem": {
            "type": "object",
            "required": ["type", "title", "status", "detail"],
            "properties": {
                "type": {"type": "string"},
                "title": {"type": "string"},
                "status": {"type": "integer"},
                "detail": {"type": "string"},
                "field": {"type": "string"},
                "position": {"type": ["integer", "null"]},
            },
        },
        "Options": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "base": {"type": "integer", "minimum": 2, "maximum": 36, "default": 10},
                "leading_zeros": {
                    "type": "string",
                    "enum": ["multi-letter", "allow", "every-word"],
                    "default": "multi-letter",
                },
                "fixed": {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 35},
                    "description": "Letters whose digit is given in advance.",
                },
            },
        },
        "JobRequest": {
            "type": "object",
            "required": ["puzzle"],
            "additionalProperties": False,
            "properties": {
                "puzzle": {
                    "type": "string",
                    "maxLength": alphametic.MAX_CHARS,
                    "examples": ["SEND + MORE = MONEY"],
                },
                "mode": {"type": "string", "enum": ["solve", "enumerate"], "default": "solve"},
                "options": {"$ref": "#/components/schemas/Options"},
            },
        },
        "Job": {
            "type": "object",
            "required": [
                "id",
                "mode",
                "puzzle",
                "options",
                "state",
                "created",
                "started",
                "finished",
                "attempt",
                "progress",
                "nodes",
                "solutions_found",
                "elapsed",
                "eta",
                "error",
                "solution",
                "links",
            ],  # fmt: skip
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "mode": {"type": "string", "enum": ["solve", "enumerate"]},
                "puzzle": {"type": "string"},
                "options": {"type": "object"},
                "state": {
                    "type": "string",
                    "enum": ["queued", "running", "succeeded", "failed", "canceled"],
                },
                "created": {"type": "string", "format": "date-time"},
                "started": NULL_TIME,
                "finished": NULL_TIME,
                "attempt": {"type": "integer", "minimum": 0},
                "progress": {"type": "number", "minimum": 0, "maximum": 1},
                "nodes": {"type": "integer", "minimum": 0},
                "solutions_found": {"type": "integer", "minimum": 0},
                "elapsed": {"type": ["number", "null"], "minimum": 0},
                "eta": {"type": ["number", "null"], "minimum": 0},
                "error": {"type": ["string", "null"]},
                "solution": {"oneOf": [digit_map, {"type": "null"}]},
                "links": {
                    "type": "object",
                    "required": list(LINKS),
                    "properties": {name: {"type": "string"} for name in LINKS},
                },
            },
        },
        "SolutionsPage": {
            "type": "object",
            "required": ["job", "offset", "limit", "total", "truncated", "done", "items"],
            "properties": {
                "job": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": max_page},
                "total": {"type": "integer", "minimum": 0},
                "truncated": {"type": "boolean"},
                "done": {"type": "boolean"},
                "next": {"type": "string"},
                "items": {
                    "type": "array",
                    "maxItems": max_page,
                    "items": {
                        "type": "object",
                        "required": ["solution", "line"],
                        "properties": {"solution": digit_map, "line": {"type": "string"}},
                    },
                },
            },
        },
        "Grid": {
            "type": "object",
            "required": ["job", "base", "total", "letters"],
            "properties": {
                "job": {"type": "string"},
                "base": {"type": "integer", "minimum": 2, "maximum": 36},
                "total": {"type": "integer", "minimum": 0},
                "letters": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "array",
                        "items": {"type": "integer", "minimum": 0},
                    },
                },
            },
        },
        "Health": {
            "type": "object",
            "required": ["status"],
            "properties": {
                "status": {"type": "string", "enum": ["ok", "ready", "not ready"]},
                "redis": {"type": "boolean"},
                "workers": {"type": "object", "additionalProperties": {"type": "integer"}},
            },
        },
    }


def _paths(max_page: int) -> dict[str, Any]:
    """Return the path items."""
    status_headers = {"Retry-After": RETRY_AFTER}
    common = {
        "404": _problem("No job with this id."),
        "503": _problem("Redis cannot be reached; retry later.", retry=True),
    }
    return {
        "/api/jobs": {
            "post": {
                "operationId": "createJob",
                "summary": "Queue a job that solves or enumerates a puzzle.",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/JobRequest"}}
                    },
                },
                "responses": {
                    "202": _json(
                        "Job",
                        "Queued (or an identical job already known); Location names the job.",
                        {"Location": {"schema": {"type": "string"}}, **status_headers},
                    ),
                    "413": _problem("The body is larger than the cap."),
                    "415": _problem("The body is not application/json."),
                    "422": _problem("Malformed JSON, bad fields, or a puzzle error."),
                    "429": _problem("Too many jobs created by this client.", retry=True),
                    "503": common["503"],
                },
            }
        },
        "/api/jobs/{job_id}": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "getJob",
                "summary": "The job's status; Retry-After while it is not finished.",
                "responses": {"200": _json("Job", "The job's status.", status_headers), **common},
            },
        },
        "/api/jobs/{job_id}/solutions": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "getSolutions",
                "summary": "One page of the solutions found so far.",
                "parameters": [
                    {
                        "name": "offset",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
                    },
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": max_page},
                    },
                ],
                "responses": {
                    "200": _json("SolutionsPage", "A page of solutions."),
                    "422": _problem("offset or limit out of range."),
                    **common,
                },
            },
        },
        "/api/jobs/{job_id}/grid": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "getGrid",
                "summary": "In how many solutions found so far each letter takes each digit.",
                "responses": {"200": _json("Grid", "Counts per letter and digit."), **common},
            },
        },
        "/api/jobs/{job_id}/cancel": {
            "parameters": [JOB_ID],
            "post": {
                "operationId": "cancelJob",
                "summary": "Cancel the job (idempotent); no body needed.",
                "responses": {
                    "200": _json("Job", "The job's status after the cancel request."),
                    "415": _problem("A body was sent that is not application/json."),
                    **common,
                },
            },
        },
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "responses": {
                    "200": {
                        "description": "The OpenAPI document.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
        "/healthz": {
            "get": {
                "operationId": "healthz",
                "summary": "The process answers.",
                "responses": {"200": _json("Health", "Alive.")},
            }
        },
        "/readyz": {
            "get": {
                "operationId": "readyz",
                "summary": "Redis reachable and at least one worker per queue.",
                "responses": {
                    "200": _json("Health", "Ready."),
                    "503": {
                        "description": "Not ready.",
                        "headers": {"Retry-After": RETRY_AFTER},
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Health"}}
                        },
                    },
                },
            }
        },
    }


def build_document(app: Flask) -> dict[str, Any]:
    """Return the whole OpenAPI 3.1 document."""
    max_page = int(app.config["MAX_PAGE_SIZE"])
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Alphametic job service",
            "version": "1.0.0",
            "description": (
                "Queue alphametic puzzles, follow their progress, page through solutions and "
                "cancel them. Errors are application/problem+json (RFC 9457); every malformed "
                "request (bad JSON, bad fields, bad puzzle, bad query) is 422. Caps: request body "
                f"{app.config['MAX_CONTENT_LENGTH']} bytes, puzzle {alphametic.MAX_CHARS} "
                f"characters and {alphametic.MAX_TERMS} terms, page size {max_page}, job "
                f"creation {app.config['RATE_LIMIT']} per client."
            ),
        },
        "paths": _paths(max_page),
        "components": {"schemas": _schemas(max_page)},
    }
