"""The OpenAPI path items of the data endpoints: the export download and the estimate."""

from __future__ import annotations

from typing import Any

import alphametic
from web.api import estimates
from web.openapi.responses import JOB_ID, body, problem, ref, too_long


def data_paths(common: dict[str, Any]) -> dict[str, Any]:
    """The path items; `common` holds the answers every job path may give (404, 414, 503)."""
    return {
        "/api/jobs/{job_id}/export": {
            "parameters": [JOB_ID],
            "get": {
                "operationId": "exportSolutions",
                "summary": "Download every stored solution, streamed (a download, not a page).",
                "description": (
                    "`csv`: a header row of the letters first (with `comment=1`, a `#` comment "
                    "line naming the puzzle, its base and options before it), then one row per "
                    "stored solution of its digits "
                    "as the pages write them (0-9, then A-Z above base 10). `jsonl`: one "
                    "letter -> digit (a number) object per line. "
                    "While the job runs, the solutions stored when the download began. "
                    "A compose job's results instead (CSV: puzzle, solutions, solution, "
                    "difficulty score and label; JSON Lines: the results as its pages give them), "
                    "in the `order` asked."
                ),
                "parameters": [
                    {
                        "name": "format",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["csv", "jsonl"], "default": "csv"},
                    },
                    {"name": "order", "in": "query", "schema": ref("ResultOrder")},
                    {
                        "name": "comment",
                        "in": "query",
                        "description": "1: a CSV starts with a `#` line naming the puzzle.",
                        "schema": {"type": "string", "enum": ["0", "1"], "default": "0"},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "The solutions.",
                        "headers": {"Content-Disposition": {"schema": {"type": "string"}}},
                        "content": {
                            "text/csv": {"schema": {"type": "string"}},
                            "application/jsonl": {"schema": {"type": "string"}},
                        },
                    },
                    "422": problem("Unknown format or order."),
                    **common,
                },
            },
        },
        "/api/estimate": {
            "get": {
                "operationId": "estimate",
                "summary": "How many solutions a puzzle has and how long listing them would take.",
                "description": (
                    "Cheap and bounded (about a tenth of a second): a count that is exact when it "
                    "finishes in that time, else extrapolated. Tells whether an enumeration would "
                    "pass its time limit or the storage cap; `count` mode has neither problem."
                ),
                "parameters": [
                    {
                        "name": "puzzle",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "maxLength": estimates.MAX_QUERY},
                        "description": (
                            "The puzzle, in the language of `JobRequest.puzzle` (in the URL: "
                            "at most 1,000 characters)."
                        ),
                        "examples": {
                            "sum": {"value": "SEND + MORE = MONEY"},
                            "product": {"value": "TWO * TWO = SQUARE"},
                            "equations": {"value": "A + A = B; B * C = AB"},
                        },
                    },
                    {
                        "name": "base",
                        "in": "query",
                        "schema": {
                            "type": "integer",
                            "minimum": alphametic.MIN_BASE,
                            "maximum": alphametic.MAX_BASE,
                        },
                    },
                    {
                        "name": "leading_zeros",
                        "in": "query",
                        "schema": ref("LeadingZeros"),
                    },
                    {
                        "name": "fixed",
                        "in": "query",
                        "schema": {"type": "string", "maxLength": estimates.MAX_FIXED},
                        "description": "Known digits as letter=digit pairs: `E=5,M=1`.",
                    },
                ],  # fmt: skip
                "responses": {
                    "200": body("Estimate", "The estimate."),
                    "422": problem("A bad puzzle or option (`field` names it)."),
                    **too_long(),  # the puzzle travels in the URL
                    "429": problem(
                        "Over the client's rate of job creation, which estimates count against, "
                        "or (type `busy`, field `client`) while another estimate of the client "
                        "runs: one runs at a time per client; or (type `busy`, no field) while "
                        "this server works out as many estimates as it may at once, Retry-After "
                        "the time the first of them is expected to take still.",
                        retry=True,
                    ),
                },
            },
        },
    }
