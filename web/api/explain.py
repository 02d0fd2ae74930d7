"""How to solve a job's puzzle: GET /api/jobs/{id}/explain and the job page's section.

Nothing is worked out here: a worker works the explanation out, once per job, and keeps it
with the job in a form of no language (jobstore/explanations.py, worker/explain.py); this
module asks for it and renders the kept steps in the request's language. The first request
queues it, counted against the client's rates like a new job (one explanation at a time per
client); until it is ready the API answers 202 with Retry-After (or holds the answer with
?wait=, as a job's status does) and the job page says it is being worked out.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, g, jsonify, url_for

from alphametic.explain.languages import TABLES
from alphametic.explain.text import ENGLISH, render
from alphametic.explain.walkthrough import Explanation
from jobstore import Job, Mode, RateLimited, Unavailable, explanations
from jobstore.explanations import Asked, Explained
from web.api.jobs import wait_arg
from web.clients import client_id, rates
from web.errors.problems import ApiProblem
from web.i18n import select_locale
from web.store import job_or_none, store
from web.waiting import hung_up, wait_slot

bp = Blueprint("explain", __name__, url_prefix="/api")
log = logging.getLogger(__name__)

PAGE_WAIT = 5  # seconds the job page's script lets each of its requests for the steps wait


def rendered(data: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The API's JSON body of a kept explanation, its sentences in one language."""
    explanation = Explanation.from_data(data)
    table = TABLES.get(lang, ENGLISH)
    body = explanation.as_json(table)
    rating = {"label": explanation.difficulty.label, "score": explanation.difficulty.score}
    body["difficulty"]["text"] = render("difficulty", rating, table, explanation.puzzle.base)
    return body


def ask(job: Job, wait: float = 0.0) -> Asked:
    """The job's explanation for this client, queued if nobody asked yet (waiting up to
    `wait` seconds while it is worked out, when this process has a wait slot free)."""
    if wait > 0:
        with wait_slot() as free:
            if free:
                return explanations.wait(
                    store(), job.id, client_id(), rates(), wait, gone=hung_up()
                )
    return explanations.ask(store(), job.id, client_id(), rates())


def _page_asked(job: Job) -> Asked | None:
    """What the job page's request got for the job (asked once per request), or None."""
    memo: dict[str, Asked | None] = g.setdefault("alphametic_explanations", {})
    if job.id not in memo:
        try:
            memo[job.id] = ask(job)
        except Unavailable:
            memo[job.id] = None
    return memo[job.id]


@bp.app_template_global("explanation")
def page_explanation(job: Job) -> dict[str, Any] | None:
    """The explanation the job page shows once the job has ended, in the page's language:
    its body; {"pending": seconds} while it is being worked out; None when there is none."""
    if not job.done:
        return None
    asked = _page_asked(job)
    if asked is None or asked.status in (Explained.GONE, Explained.FAILED):
        return None
    if asked.body is None:
        return {"pending": asked.retry_after, "poll": _poll_url(job)}
    try:
        return rendered(asked.body, select_locale())
    except Exception:  # a fault in rendering must not take the job page down with it
        log.exception("could not render the explanation of job %s", job.id)
        return None


@bp.app_template_global("explanation_pending")
def explanation_pending(job: Job) -> bool:
    """Whether the job page waits for its explanation (without JavaScript it refreshes)."""
    shown = page_explanation(job)
    return shown is not None and "pending" in shown


def _poll_url(job: Job) -> str:
    """Where the job page's script asks for the steps (holding each answer a while)."""
    return url_for("explain.explain_job", job_id=job.id, wait=PAGE_WAIT)


@bp.app_template_filter("case_depth")
def case_depth(case: str | None) -> int:
    """How deep a step sits in case splits: 0 outside, 1 for "E = 5", 2 for "E = 5, c1 = 0"."""
    return 0 if not case else case.count(",") + 1


@bp.get("/jobs/<job_id>/explain")
def explain_job(job_id: str) -> Response:
    """Answer with how to solve the job's puzzle, step by step, in the request's language;
    202 with Retry-After while a worker works it out (?wait= holds the answer until then)."""
    wait = wait_arg()
    job = job_or_none(job_id)
    if job is not None and job.mode is Mode.COMPOSE:
        detail = f"Job '{job_id}' composes puzzles: each of its results has its own explanation."
        raise ApiProblem(404, detail, slug="not-found", field="id")
    asked = ask(job, wait) if job is not None else Asked(Explained.GONE)
    if job is None or asked.status == Explained.GONE:
        raise ApiProblem(
            404, f"No job with id '{job_id}' (it may have expired).", slug="unknown-job"
        )
    if asked.body is not None:
        lang = select_locale()
        response = jsonify(rendered(asked.body, lang))
        response.headers["Content-Language"] = lang
        response.vary.update(("Accept-Language", "Cookie"))  # ?lang= is in the URL already
        return response
    return _unfinished(job.id, asked)


def _unfinished(job_id: str, asked: Asked) -> Response:
    """The answer while the explanation is not ready: 202, or why it is not being made (the
    job named by its canonical id)."""
    retry = {"Retry-After": str(asked.retry_after)}
    if asked.status == Explained.LIMITED:
        raise RateLimited(rates(), asked.retry_after)
    if asked.status == Explained.BUSY:
        raise ApiProblem(
            429,
            "One explanation at a time per client: another one you asked for is being worked "
            f"out. Retry in {asked.retry_after} s.",
            slug="explanation-busy",
            field="job_id",
            headers=retry,
        )
    if asked.status == Explained.FAILED:
        raise ApiProblem(
            500, "The explainer failed on this puzzle.", slug="explanation-failed", field="job_id"
        )
    body = {
        "job": job_id,
        "state": asked.status,  # queued | running
        "links": {"self": url_for("explain.explain_job", job_id=job_id)},
    }
    response = jsonify(body)
    response.status_code = 202
    response.headers.update(retry)
    return response
