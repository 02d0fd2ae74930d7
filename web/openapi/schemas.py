"""JSON Schemas of the API's bodies (the components of the OpenAPI document).

One schema per concept (a mode, a state, the options, a solution, why a list was cut), referred
to wherever it appears: a generated client then has one type for each, not one per field.
"""

from __future__ import annotations

from typing import Any

import alphametic
from alphametic.compose import ADDENDS as COMPOSE_ADDENDS
from alphametic.compose import LONGEST_WORD
from alphametic.compose import SOLUTIONS as COMPOSE_SOLUTIONS
from alphametic.explain.difficulty import LABELS
from jobstore import Mode, ResultOrder, State
from web.openapi.puzzle import puzzle_schema
from web.openapi.responses import ref

MODES = [mode.value for mode in Mode]
STATES = [state.value for state in State]

LINKS = ("self", "cancel", "export", "page")  # every job's
MODE_LINKS = ("solutions", "grid", "results")  # by its mode
NULL_TIME = {"type": ["string", "null"], "format": "date-time"}


STORAGE_LEFT = {
    "type": ["integer", "null"],
    "minimum": 0,
    "description": "Solutions this client's jobs may still store (its storage budget; null: "
    "no budget). In an estimate, and in the answer to a submission only.",
}


def schemas(max_page: int) -> dict[str, Any]:
    """Return the component schemas."""
    solution_or_null = {"oneOf": [ref("Solution"), {"type": "null"}]}
    return {
        "Mode": {"type": "string", "enum": MODES, "description": "What a job does."},
        "State": {"type": "string", "enum": STATES, "description": "Where a job is."},
        "LeadingZeros": {
            "type": "string",
            "enum": [policy.value for policy in alphametic.LeadingZeros],
            "description": "Which words may start with 0.",
        },
        "Solution": {
            "type": "object",
            "additionalProperties": {"type": "integer", "minimum": 0},
            "description": "Letter -> digit.",
        },
        "TruncatedReason": {
            "type": "string",
            "enum": ["cap", "budget"],
            "description": "What cut a job's list of solutions: `cap`, the job's cap on stored "
            "solutions; `budget`, its client's storage budget (a later identical submission "
            "starts a new run once the budget has room).",
        },
        "ResultOrder": {
            "type": "string",
            "enum": [order.value for order in ResultOrder],
            "description": "How a compose job's results are listed: `found`, in the order they "
            "were found (a running job's list only grows at its end); `easiest` or `hardest`, "
            "by difficulty score (results without one, K > 1 solutions, last; ties by puzzle).",
        },
        "Problem": {
            "type": "object",
            "required": ["type", "title", "status", "detail", "code"],
            "properties": {
                "type": {"type": "string"},
                "title": {"type": "string"},
                "status": {"type": "integer"},
                "detail": {"type": "string"},
                "code": {
                    "type": "string",
                    "pattern": "^[a-z][a-z0-9_]*$",
                    "description": "What went wrong, as a stable snake_case code to branch on "
                    "(detail is for people and may be reworded). A bad puzzle or option value "
                    "has the engine's code (empty, unexpected_character, base_out_of_range, "
                    "fixed_letter_absent, ...); any other problem the code of its type "
                    "(invalid_request, rate_limited, unknown_job, ...).",
                    "examples": ["unexpected_character", "invalid_request"],
                },
                "field": {"type": "string"},
                "position": {
                    "type": ["integer", "null"],
                    "description": "A bad puzzle only: the character at fault, as a 0-based "
                    "offset in the text as sent (detail counts from 1, as people do).",
                },
                "cap": {"type": "integer", "minimum": 1},
                "bad_words": {
                    "type": "array",
                    "description": "A compose list's words that are not one word of letters "
                    "(code not_a_word), every one at once: each `word` as sent and the `chars` "
                    "at fault (`char`, `codepoint`, Unicode `name`, whether a combining `mark`; "
                    "none for an item of several words). `options.skip_bad_words` leaves them "
                    "out instead.",
                    "items": {"type": "object"},
                },
                "may_exist": {
                    "type": "boolean",
                    "description": "A 503 only: true when the request may have been carried "
                    "out all the same (Redis did not confirm it): `job_id` names the job it "
                    "made, which the same submission sent again finds (counted once); false: "
                    "nothing was written.",
                },
                "job_id": {"type": "string"},
            },
        },
        "Options": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "base": {
                    "type": "integer",
                    "minimum": alphametic.MIN_BASE,
                    "maximum": alphametic.MAX_BASE,
                    "default": 10,
                },
                "leading_zeros": {**ref("LeadingZeros"), "default": "multi-letter"},
                "fixed": {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 35},
                    "description": "Letters whose digit is given in advance (not for compose).",
                },
                "addends": {
                    "type": "integer",
                    "minimum": COMPOSE_ADDENDS[0],
                    "maximum": COMPOSE_ADDENDS[1],
                    "description": "Compose only: words added in each sum (2 when not given).",
                },
                "distinct_words": {
                    "type": "boolean",
                    "description": "Compose only: no word twice in a sum (the words added are "
                    "distinct, and the result is none of them), as Cryptator composes; false "
                    "when not given: a word may repeat as an addend.",
                },
                "count_only": {
                    "type": "boolean",
                    "description": "Compose only: count the puzzles (the job's `found`) without "
                    "listing or rating them; false when not given.",
                },
                "solutions": {
                    "type": "integer",
                    "minimum": COMPOSE_SOLUTIONS[0],
                    "maximum": COMPOSE_SOLUTIONS[1],
                    "description": "Compose only: the number of solutions a sum must have (1 when "
                    "not given).",
                },
                "skip_bad_words": {
                    "type": "boolean",
                    "description": "Compose only: leave out the words that are not one word of "
                    "letters (a word with a vowel or tone mark such as ที่, a digit) instead of "
                    "refusing the list (false when not given); the job's options then name them "
                    "in `skipped_words`.",
                },
                "skipped_words": {
                    "type": "array",
                    "items": {"type": "string"},
                    "readOnly": True,
                    "description": "Compose with skip_bad_words only: the words left out, as "
                    "sent, each once.",
                },
            },
        },
        "JobRequest": {
            "type": "object",
            "additionalProperties": False,
            "description": "`puzzle` for every mode but compose, `words` for compose.",
            "properties": {
                "puzzle": puzzle_schema(),
                "words": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": LONGEST_WORD},
                    "description": "Compose only: the word list (each a word of letters; at "
                    "least two different ones, at most the server's limit).",
                },
                "mode": {**ref("Mode"), "default": Mode.SOLVE.value},
                "options": ref("Options"),
                "fresh": {
                    "type": "boolean",
                    "default": False,
                    "description": "Start a new run even when an identical job exists (it "
                    "counts against the rate and the cap of unfinished jobs like any job).",
                },
            },
        },
        "JobStatus": {
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
            ],  # fmt: skip
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "mode": ref("Mode"),
                "puzzle": {
                    "type": "string",
                    "description": "The puzzle; a compose job's words, space separated.",
                },
                "options": ref("Options"),
                "state": ref("State"),
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
                "solution": solution_or_null,
                "truncated": {"type": "boolean", "description": "Stored fewer than found."},
                "truncated_reason": {
                    "oneOf": [ref("TruncatedReason"), {"type": "null"}],
                    "description": "What cut the list; null when nothing did.",
                },
                "storage_left": STORAGE_LEFT,
                "limit_at": {
                    **NULL_TIME,
                    "description": "When the job will stop at its time limit, when that comes "
                    "before the end of its search (the ETA then counts to it).",
                },
                "queue_position": {
                    "type": ["integer", "null"],
                    "minimum": 1,
                    "description": "While queued: 1 means it is next.",
                },
                "expected_start": {**NULL_TIME, "description": "While queued: a rough guess."},
                "deleted": {**NULL_TIME, "description": "When its solutions were deleted."},
                "clients": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "How many clients hold the job: identical submissions share "
                    "it, and a cancel or delete by one of several only lets go of it.",
                },
            },
        },
        "Job": {
            "allOf": [
                ref("JobStatus"),
                {
                    "type": "object",
                    "required": ["links"],
                    "properties": {
                        "links": {
                            "type": "object",
                            "required": list(LINKS),
                            "properties": {
                                name: {"type": "string"} for name in (*LINKS, *MODE_LINKS)
                            },
                            "description": "A compose job has `results`; every other job "
                            "`solutions` and `grid`.",
                        },
                    },
                },
            ],
            "description": "A job's status and the links to its other resources.",
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
                        "properties": {"solution": ref("Solution"), "line": {"type": "string"}},
                    },
                },
            },
        },
        "ResultsPage": {
            "type": "object",
            "required": ["job", "order", "offset", "limit", "total", "truncated", "done", "items"],
            "description": "A page of a compose job's results, in the order asked.",
            "properties": {
                "job": {"type": "string"},
                "order": ref("ResultOrder"),
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": max_page},
                "total": {"type": "integer", "minimum": 0},
                "truncated": {"type": "boolean", "description": "The results cap cut the run."},
                "done": {"type": "boolean"},
                "next": {"type": "string"},
                "items": {"type": "array", "maxItems": max_page, "items": ref("Composed")},
            },
        },
        "Composed": {
            "type": "object",
            "required": ["puzzle", "solutions", "solution", "difficulty"],
            "properties": {
                "puzzle": {"type": "string"},
                "solutions": {"type": "integer", "minimum": 1},
                "solution": {
                    "oneOf": [ref("Solution"), {"type": "null"}],
                    "description": "Its solution when it has only one.",
                },
                "difficulty": {
                    "oneOf": [
                        {
                            "type": "object",
                            "required": ["score", "label"],
                            "properties": {
                                "score": {"type": "integer", "minimum": 0},
                                "label": {"type": "string", "enum": [name for name, _ in LABELS]},
                            },
                        },
                        {"type": "null"},
                    ],
                    "description": "How hard it is to solve by reasoning (one solution only).",
                },
            },
        },
        "Grid": {
            "type": "object",
            "required": ["job", "base", "total", "letters"],
            "properties": {
                "job": {"type": "string"},
                "base": {
                    "type": "integer",
                    "minimum": alphametic.MIN_BASE,
                    "maximum": alphametic.MAX_BASE,
                },
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
        "Estimate": {
            "type": "object",
            "required": [
                "puzzle",
                "options",
                "nodes",
                "solutions",
                "exact",
                "seconds",
                "time_limit",
                "storage_cap",
                "exceeds_time_limit",
                "exceeds_storage_cap",
                "storage_left",
                "exceeds_storage_left",
            ],  # fmt: skip
            "properties": {
                "puzzle": {"type": "string"},
                "options": ref("Options"),
                "nodes": {"type": "number", "minimum": 0, "description": "Search-tree size."},
                "solutions": {
                    "type": "number",
                    "minimum": 0,
                    "description": "Solutions: exact when `exact`, else extrapolated.",
                },
                "exact": {"type": "boolean"},
                "seconds": {"type": "number", "minimum": 0, "description": "Rough enumerate time."},
                "time_limit": {"type": "number", "description": "An enumeration's soft limit."},
                "storage_cap": {"type": "integer", "description": "Solutions stored per job."},
                "exceeds_time_limit": {"type": "boolean"},
                "exceeds_storage_cap": {"type": "boolean"},
                "storage_left": STORAGE_LEFT,
                "exceeds_storage_left": {
                    "type": "boolean",
                    "description": "An enumeration would find more than `storage_left` (with "
                    "none left, it would store nothing).",
                },
            },
        },
        "Explanation": _explanation(solution_or_null),
        "ExplanationPending": {
            "type": "object",
            "required": ["job", "state", "links"],
            "properties": {
                "job": {"type": "string", "format": "uuid"},
                "state": {"type": "string", "enum": ["queued", "running"]},
                "links": {
                    "type": "object",
                    "required": ["self"],
                    "properties": {"self": {"type": "string"}},
                },
            },
        },
        "Health": {
            "type": "object",
            "required": ["status"],
            "properties": {
                "status": {"type": "string", "enum": ["ok", "ready", "not ready"]},
                "reasons": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Why not ready (only then).",
                },
                "redis": {"type": "boolean"},
                "breaker": {
                    "type": "string",
                    "enum": ["open", "closed"],
                    "description": "open: a Redis call timed out and none has been answered "
                    "since; this process answers 503 at once meanwhile (not ready).",
                },
                "workers": {"type": "object", "additionalProperties": {"type": "integer"}},
                "replicas": {
                    "type": "object",
                    "required": ["connected", "floor"],
                    "properties": {
                        "connected": {"type": "integer", "minimum": 0},
                        "floor": {"type": "integer", "minimum": 0},
                    },
                    "description": "Replicas connected to the Redis master, and the fewest "
                    "that writes need (ALPHAMETIC_MIN_REPLICAS, with Sentinel): below it, "
                    "not ready (by default 1 with Sentinel). At a floor of 0, 0 connected "
                    "with Sentinel: writes go on, degraded.",
                },
                "engine": {
                    "type": "string",
                    "description": "Which engine runs plain sums here: native or python (why).",
                },
            },
        },
    }


def _explanation(solution_or_null: dict[str, Any]) -> dict[str, Any]:
    """Return the schema of GET /api/jobs/{id}/explain's body."""
    digits = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 35}}
    step = {
        "type": "object",
        "required": ["key", "params", "text", "facts"],
        "additionalProperties": False,
        "properties": {
            "key": {"type": "string", "description": "The sentence's template key."},
            "params": {"type": "object", "description": "The values the sentence is made of."},
            "text": {"type": "string", "description": "The sentence, in the asked language."},
            "facts": {
                "type": "object",
                "additionalProperties": digits,
                "description": "Letter -> the digits it can still take after this step; "
                "outside a case split true of every solution.",
            },
            "case": {
                "type": "string",
                "description": "The case split this step is in.",
                "examples": ["E = 5", "E = 5, c1 = 0"],
            },
            "fail": {"type": "boolean", "const": True, "description": "This step is a dead end."},
        },
    }
    return {
        "type": "object",
        "required": ["puzzle", "options", "solution", "steps", "difficulty"],
        "properties": {
            "puzzle": {"type": "string"},
            "options": ref("Options"),
            "solution": {
                **solution_or_null,
                "description": "The first solution; null when there is none (or the search "
                "stopped first: the last step says which).",
            },
            "steps": {"type": "array", "minItems": 1, "items": step},
            "difficulty": {
                "type": "object",
                "required": ["score", "label", "text"],
                "properties": {
                    "score": {"type": "integer", "minimum": 0},
                    "label": {"type": "string", "enum": [name for name, _ in LABELS]},
                    "text": {"type": "string", "description": "Label and score, in words."},
                },
            },
        },
    }
