"""The OpenAPI 3.1 document of the JSON API, built from the app's caps."""

from __future__ import annotations

from typing import Any

from flask import Flask

import alphametic
from web.i18n import LANGUAGES
from web.openapi.admin import SCHEME, admin_paths, admin_schemas
from web.openapi.data import data_paths
from web.openapi.responses import JOB_ID, RETRY_AFTER, body, problem, ref, too_long
from web.openapi.schemas import schemas

MAX_OFFSET = 10**9


def _paths(max_page: int, max_wait: float) -> dict[str, Any]:
    """Return the path items."""
    status_headers = {"Retry-After": RETRY_AFTER}
    wait = {
        "name": "wait",
        "in": "query",
        "description": (
            "Seconds to hold the answer until the job has ended (long polling): the reply "
            "comes as soon as it ends, or with the unfinished status when the time is up. "
            "Answered at once when the server is already holding its share of waits, or "
            "this client's (ALPHAMETIC_CLIENT_WAITERS at once per server process)."
        ),
        "schema": {"type": "number", "minimum": 0, "maximum": max_wait},
    }
    common = {
        "404": problem("No job with this id."),
        **too_long(),
        "503": problem("Redis cannot be reached; retry later.", retry=True),
    }
    return {
        "/api/jobs": {
            "post": {
                "operationId": "createJob",
                "summary": "Queue a job that solves or enumerates a puzzle, or composes puzzles.",
                "parameters": [wait],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": ref("JobRequest")}},
                },
                "responses": {
                    "202": body(
                        "Job",
                        "Queued, or an identical job already known (not when `fresh`, nor one "
                        "whose list the client's storage budget cut while it has room again); "
                        "Location names the job. "
                        "With ?wait, the body may show the job already ended.",
                        {"Location": {"schema": {"type": "string"}}, **status_headers},
                    ),
                    "413": problem("The body is larger than the cap."),
                    "415": problem("The body is not application/json."),
                    "422": problem("Malformed JSON, bad fields, a puzzle error, or bad wait."),
                    "429": problem(
                        "Too many jobs created by this client (rate limit), or too many of its "
                        "jobs unfinished (type .../too-many-jobs, the cap in 'cap').",
                        retry=True,
                    ),
                    **too_long(),
                    "503": common["503"],
                },
            }
        },
        "/api/jobs/{job_id}": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "getJob",
                "summary": "The job's status; Retry-After while it is not finished.",
                "parameters": [wait],
                "responses": {
                    "200": body("Job", "The job's status.", status_headers),
                    "422": problem("wait out of range."),
                    "429": problem(
                        "Too many status reads by this client (ALPHAMETIC_READ_RATE_LIMIT).",
                        retry=True,
                    ),
                    **common,
                },
            },
            "delete": {
                "operationId": "deleteJob",
                "summary": "Remove an ended job's stored solutions (only a client holding it may).",
                "description": (
                    "The status stays until the job expires, with `deleted` set; what it stored "
                    "no longer counts against its submitter's storage budget. While other clients "
                    "hold the job too (identical submissions share one job), a client's delete "
                    "only lets go of it: they keep its solutions."
                ),
                "responses": {
                    "200": body("Job", "The job's status, its solutions removed (or let go of)."),
                    "403": problem("Others submitted this job: this client may not delete it."),
                    "409": problem("The job has not ended yet: cancel it first."),
                    **common,
                },
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
                    "200": body("SolutionsPage", "A page of solutions."),
                    "422": problem("offset or limit out of range."),
                    **{**common, "404": problem("No job with this id, or a compose job.")},
                },
            },
        },
        "/api/jobs/{job_id}/results": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "getResults",
                "summary": "One page of a compose job's results found so far.",
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
                    {"name": "order", "in": "query", "schema": ref("ResultOrder")},
                ],
                "responses": {
                    "200": body("ResultsPage", "A page of results."),
                    "422": problem("offset or limit out of range, or an unknown order."),
                    **{**common, "404": problem("No job with this id, or not a compose job.")},
                },
            },
        },
        "/api/jobs/{job_id}/grid": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "getGrid",
                "summary": "In how many solutions found so far each letter takes each digit.",
                "responses": {
                    "200": body("Grid", "Counts per letter and digit."),
                    **{**common, "404": problem("No job with this id, or a compose job.")},
                },
            },
        },
        "/api/jobs/{job_id}/explain": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "explainJob",
                "summary": "How to solve the job's puzzle, step by step, and how hard it is.",
                "description": (
                    "The deductions a person makes (columns and carries, leading digits, "
                    "remainders, forced letters), then case splits when deduction stalls, each "
                    "step with its sentence and the digits each letter can still take. Of the "
                    "job's puzzle, whatever its mode or state; a puzzle that is not a sum of "
                    "words gets one step saying the search does the work. Sentences in the "
                    "request's language (?lang=, the lang cookie, Accept-Language); `key` and "
                    "`params` let a client word them itself. A worker works it out, once per "
                    "job: the first request queues it (counted against the client's rate "
                    "limit like a new job; one explanation at a time per client) and, like "
                    "every request until it is ready, is answered 202 with Retry-After; "
                    "?wait= holds the answer until it is ready instead."
                ),
                "parameters": [
                    {
                        "name": "lang",
                        "in": "query",
                        "schema": {"type": "string", "examples": list(LANGUAGES)},
                        "description": "The language of the sentences: "
                        f"{', '.join(LANGUAGES)} (any other is ignored, as on the pages).",
                    },
                    {
                        **wait,
                        "description": "Seconds to hold the answer until the explanation is "
                        "ready (long polling), waiting for the client's other one first.",
                    },
                ],
                "responses": {
                    "200": body(
                        "Explanation",
                        "The explanation.",
                        {"Content-Language": {"schema": {"type": "string"}}},
                    ),
                    "202": body(
                        "ExplanationPending",
                        "A worker is working the explanation out: ask again after Retry-After.",
                        status_headers,
                    ),
                    "422": problem("wait out of range."),
                    "429": problem(
                        "Over this client's rate limit, or it waits for another explanation "
                        "(type .../explanation-busy): one at a time per client.",
                        retry=True,
                    ),
                    "500": problem("The explainer failed on this puzzle."),
                    **common,
                },
            },
        },
        **data_paths(common),
        "/api/jobs/{job_id}/cancel": {
            "parameters": [JOB_ID],
            "post": {
                "operationId": "cancelJob",
                "summary": "Cancel the job (idempotent); as application/json, no body needed.",
                "description": (
                    "Identical submissions share one job. While other clients hold it too, a "
                    "client's cancel only lets go of it: it runs on for them (`clients` counts "
                    "the holders). Clients that never submitted it may not cancel it. The request "
                    "must say `Content-Type: application/json` (its body, if any, is ignored), so "
                    "that no other site's page can send it without the browser asking first."
                ),
                "requestBody": {"required": False, "content": {"application/json": {"schema": {}}}},
                "responses": {
                    "200": body("Job", "The job's status after the cancel request."),
                    "403": problem("Others submitted this job: this client may not cancel it."),
                    "415": problem("The request is not declared application/json."),
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
                "responses": {"200": body("Health", "Alive.")},
            }
        },
        "/readyz": {
            "get": {
                "operationId": "readyz",
                "summary": "Redis answers (breaker closed here) and a worker serves each queue.",
                "responses": {
                    "200": body("Health", "Ready."),
                    "503": {
                        "description": "Not ready.",
                        "headers": {"Retry-After": RETRY_AFTER},
                        "content": {"application/json": {"schema": ref("Health")}},
                    },
                },
            }
        },
    }


def build_document(app: Flask) -> dict[str, Any]:
    """Return the whole OpenAPI 3.1 document."""
    max_page = int(app.config["MAX_PAGE_SIZE"])
    queued = app.extensions["alphametic.settings"].max_queued_per_client
    unfinished = f", at most {queued} unfinished jobs per client" if queued else ""
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
                f"creation {app.config['RATE_LIMIT']} per client{unfinished}."
            ),
        },
        "paths": {**_paths(max_page, float(app.config["MAX_WAIT"])), **admin_paths()},
        "components": {
            "schemas": {**schemas(max_page), **admin_schemas()},
            "securitySchemes": SCHEME,
        },
    }
