"""How to solve a job's puzzle: GET /api/jobs/{id}/explain and the job page's section.

The engine's explanation (alphametic.explain) is deterministic, so it is computed once per
puzzle and options and kept in this process (an lru cache); each language's rendering of it is
kept too. Explanations exist only for jobs, whose creation is rate-limited, so a client cannot
make the server explain arbitrary puzzles faster than it may submit them.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, jsonify

import alphametic
from alphametic.explain import Explanation, explain
from alphametic.explain_ja import JAPANESE
from alphametic.explain_text import ENGLISH, render
from alphametic.explain_th import THAI
from jobstore import Job
from web.i18n import select_locale
from web.jobview import job_or_none, puzzle_of
from web.offload import offload
from web.problems import ApiProblem

bp = Blueprint("explain", __name__, url_prefix="/api")
log = logging.getLogger(__name__)

#: The step sentences of each language the pages offer (web.i18n.LANGUAGES).
TABLES: dict[str, Mapping[str, str]] = {"en": ENGLISH, "ja": JAPANESE, "th": THAI}
# The engine's search for the solution, within a request: explanations of sums take well under
# a second; a puzzle the search cannot settle in this time is explained as still open.
SEARCH_SECONDS = 2.0


@functools.lru_cache(maxsize=256)
def _explanation(text: str, options: str) -> Explanation:
    """Explain a puzzle given by its text and its options as sorted JSON (computed once)."""
    given = json.loads(options)
    puzzle = alphametic.parse(
        text, base=given["base"], leading_zeros=given["leading_zeros"], fixed=given["fixed"]
    )
    return explain(puzzle, seconds=SEARCH_SECONDS)


@functools.lru_cache(maxsize=512)
def _rendered(text: str, options: str, lang: str) -> dict[str, Any]:
    """The explanation's JSON body in one language (shared: callers must not change it)."""
    explanation = _explanation(text, options)
    table = TABLES.get(lang, ENGLISH)
    body = explanation.as_json(table)
    rating = {"label": explanation.difficulty.label, "score": explanation.difficulty.score}
    body["difficulty"]["text"] = render("difficulty", rating, table, explanation.puzzle.base)
    return body


def explanation_of(job: Job, lang: str | None = None) -> dict[str, Any]:
    """The explanation of a job's puzzle as the API answers it, in lang (else the request's)."""
    puzzle = puzzle_of(job)
    options = json.dumps(puzzle.options(), sort_keys=True)
    language = lang or select_locale()
    return offload(lambda: _rendered(puzzle.text, options, language))


@bp.app_template_global("explanation")
def page_explanation(job: Job) -> dict[str, Any] | None:
    """The explanation the job page shows: once the job has ended, in the page's language."""
    if not job.done:
        return None
    try:
        return explanation_of(job)
    except Exception:  # a fault in the explainer must not take the job page down with it
        log.exception("could not explain job %s", job.id)
        return None


@bp.app_template_filter("case_depth")
def case_depth(case: str | None) -> int:
    """How deep a step sits in case splits: 0 outside, 1 for "E = 5", 2 for "E = 5, c1 = 0"."""
    return 0 if not case else case.count(",") + 1


@bp.get("/jobs/<job_id>/explain")
def explain_job(job_id: str) -> Response:
    """Answer with how to solve the job's puzzle, step by step, in the request's language."""
    job = job_or_none(job_id)
    if job is None:
        raise ApiProblem(
            404, f"No job with id '{job_id}' (it may have expired).", slug="unknown-job"
        )
    lang = select_locale()
    response = jsonify(explanation_of(job, lang))
    response.headers["Content-Language"] = lang
    response.vary.update(("Accept-Language", "Cookie"))  # ?lang= is in the URL already
    return response
