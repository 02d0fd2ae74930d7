"""The operator's API under /admin/api/ (web/admin/api.py): its paths, bodies and bearer scheme."""

from __future__ import annotations

from typing import Any

from web.openapi.responses import body, problem, ref

# Where the admin API is off (no ALPHAMETIC_ADMIN_TOKEN), every path answers 404.
SECURITY: list[dict[str, list[str]]] = [{"adminToken": []}]
SCHEME = {
    "adminToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "The admin token (ALPHAMETIC_ADMIN_TOKEN), as `Authorization: Bearer "
        "<token>`. Without one configured the admin API answers 404 everywhere.",
    }
}
ADMIN_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "The job's id.",
}
RESULT = {"type": "string", "description": "What became of the job."}


def _refusals() -> dict[str, Any]:
    """The answers every admin operation may give instead."""
    return {
        "401": problem("No admin token, or the wrong one (WWW-Authenticate says Bearer)."),
        "404": problem("The admin API is off here, or no such job."),
        "429": problem(
            "This address sent too many wrong tokens (type .../too-many-wrong-tokens).",
            retry=True,
        ),
    }


def _outcome(summary: str, operation_id: str, more: dict[str, Any]) -> dict[str, Any]:
    """One operation on one job, answered {id, result}."""
    return {
        "operationId": operation_id,
        "summary": summary,
        "security": SECURITY,
        "responses": {
            "200": body("AdminOutcome", "What happened to the job."),
            **_refusals(),
            **more,
        },
    }


def admin_paths() -> dict[str, Any]:
    """The path items of the admin API."""
    conflict = {"409": problem("The job is not in a state this applies to.")}
    return {
        "/admin/api/jobs": {
            "get": {
                "operationId": "adminListJobs",
                "summary": "Jobs newest first, filtered; `next` is the cursor of the next page.",
                "security": SECURITY,
                "parameters": [
                    {"name": "state", "in": "query", "schema": ref("State")},
                    {"name": "mode", "in": "query", "schema": ref("Mode")},
                    {"name": "client", "in": "query", "schema": {"type": "string"}},
                    {"name": "cursor", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 500},
                    },
                ],
                "responses": {
                    "200": body("AdminJobs", "A page of jobs."),
                    "422": problem("A bad filter, cursor or limit (`field` names it)."),
                    **_refusals(),
                },
            }
        },
        "/admin/api/jobs/cancel": {
            "post": {
                "operationId": "adminCancelJobs",
                "summary": "Cancel the jobs named by id, or the unfinished ones a filter matches.",
                "security": SECURITY,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": ref("AdminCancel")}},
                },
                "responses": {
                    "200": body("AdminCancelResults", "Each job's outcome."),
                    "422": problem("Neither ids nor a filter, or a bad filter."),
                    **_refusals(),
                },
            }
        },
        "/admin/api/jobs/{job_id}": {
            "parameters": [ADMIN_ID],
            "delete": _outcome("Delete an ended job's stored data.", "adminDeleteJob", conflict),
        },
        "/admin/api/jobs/{job_id}/cancel": {
            "parameters": [ADMIN_ID],
            "post": _outcome("Cancel one job.", "adminCancelJob", {}),
        },
        "/admin/api/jobs/{job_id}/requeue": {
            "parameters": [ADMIN_ID],
            "post": _outcome("Start a failed job over under its id.", "adminRequeueJob", conflict),
        },
        "/admin/api/queues": {
            "get": {
                "operationId": "adminQueues",
                "summary": "Messages waiting and workers alive per queue; each worker's jobs.",
                "security": SECURITY,
                "responses": {"200": body("AdminQueues", "Queues and workers."), **_refusals()},
            }
        },
    }


def admin_schemas() -> dict[str, Any]:
    """The admin API's body schemas."""
    filter_ = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "state": ref("State"),
            "mode": ref("Mode"),
            "client": {"type": "string"},
        },
    }
    running = {
        "type": "object",
        "required": ["id", "mode", "puzzle", "holder", "process", "progress", "attempt"],
        "properties": {
            "id": {"type": "string"},
            "mode": {"type": ["string", "null"]},
            "puzzle": {"type": ["string", "null"]},
            "holder": {"type": "string"},
            "process": {"type": "string"},
            "progress": {"type": "number"},
            "attempt": {"type": "integer"},
        },
    }
    return {
        "AdminJob": {
            "allOf": [
                ref("JobStatus"),
                {
                    "type": "object",
                    "required": ["client", "holder"],
                    "properties": {
                        "client": {"type": "string", "description": "Who submitted it."},
                        "holder": {"type": "string", "description": "The worker running it."},
                    },
                },
            ]
        },
        "AdminJobs": {
            "type": "object",
            "required": ["items", "next", "total"],
            "properties": {
                "items": {"type": "array", "items": ref("AdminJob")},
                "next": {"type": ["string", "null"], "description": "The next page's cursor."},
                "total": {"type": "integer", "minimum": 0},
            },
        },
        "AdminCancel": {
            "type": "object",
            "properties": {
                "ids": {"type": "array", "items": {"type": "string"}, "maxItems": 1000},
                "filter": filter_,
            },
        },
        "AdminCancelResults": {
            "type": "object",
            "required": ["results"],
            "properties": {
                "results": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "string",
                        "enum": ["canceled", "unchanged", "unknown"],
                    },
                    "description": "Job id -> whether this call canceled it.",
                }
            },
        },
        "AdminOutcome": {
            "type": "object",
            "required": ["id", "result"],
            "properties": {"id": {"type": "string"}, "result": RESULT},
        },
        "AdminQueues": {
            "type": "object",
            "required": ["queues", "workers"],
            "properties": {
                "queues": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "required": ["messages", "workers"],
                        "properties": {
                            "messages": {"type": "integer", "minimum": 0},
                            "workers": {"type": "integer", "minimum": 0},
                        },
                    },
                },
                "workers": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "queues", "last_seen", "jobs"],
                        "properties": {
                            "name": {"type": "string"},
                            "queues": {"type": "array", "items": {"type": "string"}},
                            "last_seen": {"type": "number"},
                            "jobs": {"type": "array", "items": running},
                        },
                    },
                },
            },
        },
    }
