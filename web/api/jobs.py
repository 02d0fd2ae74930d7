"""The JSON API: create, inspect, page through and cancel jobs."""

from __future__ import annotations

from typing import Any, NoReturn

from flask import Blueprint, Response, current_app, json, jsonify, request, url_for

from alphametic import PuzzleError
from alphametic.compose import FAULTS as COMPOSE_FAULTS
from jobstore import Job, Mode, NotHeld, OptionsError, ResultOrder, Submission, TooManyJobs
from jobstore.admission import check_options
from web.api import estimates, export
from web.bodies import check_json_depth, whole_number
from web.clients import (
    charged,
    charged_upfront,
    client_id,
    count_read,
    queue,
    storage_left,
)
from web.drawings import page_items
from web.errors import puzzle as puzzle_sayings
from web.errors.problems import ApiProblem
from web.i18n import locale_tag
from web.openapi.document import MAX_OFFSET, build_document
from web.store import canonical_id, job_or_none, store
from web.waiting import waited

bp = Blueprint("api", __name__, url_prefix="/api")

JOB_FIELDS = {"puzzle", "mode", "options", "fresh", "words"}


def _invalid(detail: str, field: str) -> ApiProblem:
    """Build the 422 problem for a malformed request field."""
    return ApiProblem(422, detail, slug="invalid-request", field=field)


def _option_problem(exc: OptionsError) -> ApiProblem:
    """The 422 problem of a mode or options of the wrong JSON shape, naming its field."""
    return ApiProblem(422, str(exc), slug="invalid-request", field=exc.field)


def _compose_problem(exc: PuzzleError) -> ApiProblem:
    """The 422 problem of a compose request's words or counts: a type of its own (its code's
    slug), its code and field, and its detail in the request's language (English too: the
    pages' sentence); else, a base or a policy, the engine error's problem."""
    if exc.code not in COMPOSE_FAULTS:
        return _puzzle_problem(exc)
    detail = puzzle_sayings.message(exc)
    slug = exc.code.value.replace("_", "-")
    named = {"bad_words": exc.params["faults"]} if "faults" in exc.params else {}
    return ApiProblem(
        422, detail, slug=slug, field=exc.field, code=exc.code, language=locale_tag(), **named
    )


def _puzzle_problem(exc: PuzzleError) -> ApiProblem:
    """The 422 problem of an engine error, with its code: a bad puzzle (and where), or a bad
    option value, naming the option ("options.fixed.E", ...).

    Its detail is in the request's language (Accept-Language, as /explain): the engine's own
    English sentence ("at character 6", counted from 1), else the pages' sentence for the code;
    `position` stays a 0-based offset (5)."""
    lang = locale_tag()
    detail = str(exc) if lang == "en" else puzzle_sayings.message(exc)
    if exc.field != "puzzle":
        return ApiProblem(
            422, detail, slug="puzzle-error", field=exc.field, code=exc.code, language=lang
        )
    return ApiProblem(
        422, detail, slug="puzzle-error", field="puzzle", position=exc.position, code=exc.code,
        language=lang,
    )  # fmt: skip


def _require_json() -> None:
    """Refuse (415) a request that is not declared application/json."""
    if request.mimetype != "application/json":
        sent = request.mimetype or "no Content-Type"
        detail = f"Send the request as application/json (got {sent})."
        raise ApiProblem(415, detail, slug="unsupported-media-type", field="Content-Type")


def _json_body() -> dict[str, Any]:
    """Parse the request body as a JSON object or raise a 422 problem."""
    _require_json()
    raw = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
    check_json_depth(raw)  # 422 before json.loads can hit the recursion limit
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise _invalid(f"The body is not valid JSON: {exc}.", "body") from exc
    if not isinstance(body, dict):
        raise _invalid("The body must be a JSON object with a 'puzzle' field.", "body")
    return body


def admitted(body: dict[str, Any]) -> Submission:
    """The job request's fields checked, its puzzle parsed and sized once (422 otherwise)."""
    unknown = sorted(set(body) - JOB_FIELDS)
    if unknown:
        raise _invalid(f"Unknown field(s): {', '.join(unknown)}.", "body")
    if body.get("mode") == Mode.COMPOSE.value:
        return _admitted_compose(body)
    if "words" in body:
        raise _invalid("'words' goes with the mode 'compose' only.", "words")
    puzzle = body.get("puzzle")
    if not isinstance(puzzle, str):
        raise _invalid("'puzzle' is required and must be a string.", "puzzle")
    try:
        return store().admit(body.get("mode", Mode.SOLVE.value), puzzle, body.get("options"))
    except OptionsError as exc:
        raise _option_problem(exc) from exc
    except PuzzleError as exc:
        raise _puzzle_problem(exc) from exc


def _admitted_compose(body: dict[str, Any]) -> Submission:
    """A compose request's words and options checked once (422 otherwise)."""
    if "puzzle" in body:
        raise _invalid("A compose job takes 'words', not 'puzzle'.", "puzzle")
    if "words" not in body:
        raise _invalid("'words' is required: a list of words.", "words")
    try:
        return store().admit_compose(body["words"], body.get("options"))
    except OptionsError as exc:
        raise _option_problem(exc) from exc
    except PuzzleError as exc:
        raise _compose_problem(exc) from exc


def _fresh(body: dict[str, Any]) -> bool:
    """The request's `fresh` flag (a new run even when an identical job exists), or 422."""
    fresh = body.get("fresh", False)
    if not isinstance(fresh, bool):
        raise _invalid("'fresh' must be true or false.", "fresh")
    return fresh


def job_body(job: Job) -> dict[str, Any]:
    """Return the job's status body with links to its other resources."""
    body: dict[str, Any] = job.to_dict()
    body["links"] = {
        "self": url_for("api.get_job", job_id=job.id),
        "cancel": url_for("api.cancel_job", job_id=job.id),
        "export": url_for("api.export_job", job_id=job.id, format="csv"),
        "page": url_for("pages.job_page", job_id=job.id),
    }
    if job.mode is Mode.COMPOSE:  # puzzles, not solutions: no solutions or grid of its own
        body["links"]["results"] = url_for("api.get_results", job_id=job.id)
    else:
        body["links"]["solutions"] = url_for("api.get_solutions", job_id=job.id)
        body["links"]["grid"] = url_for("api.get_grid", job_id=job.id)
    return body


def _solving_job(job_id: str) -> Job:
    """The job, unless missing or a compose job (404: its puzzles are at its results link)."""
    job = job_or_none(job_id) or _missing(job_id)
    if job.mode is Mode.COMPOSE:
        detail = f"Job '{job_id}' is a compose job: the puzzles it found are at its results link."
        raise ApiProblem(404, detail, slug="not-found", field="id")
    return job


def status_response(job: Job, status: int = 200, **extra: Any) -> Response:
    """Answer with the job's status body (and `extra` fields), plus Retry-After while it is
    still going."""
    response = jsonify({**job_body(job), **extra})
    response.status_code = status
    if not job.done:
        response.headers["Retry-After"] = str(current_app.config["POLL_SECONDS"])
    return response


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    """Read an integer query argument within [low, high] or raise a 422 problem."""
    raw = request.args.get(name)
    if raw is None:
        return default
    value = whole_number(raw)  # ASCII digits: int() would read '1_0' and '١٠' as 10
    if value is None:
        raise _invalid(f"'{name}' must be an integer written in the digits 0-9.", name)
    if not low <= value <= high:
        raise _invalid(f"'{name}' must be between {low} and {high} (got {value}).", name)
    return value


def wait_arg() -> float:
    """Read ?wait= (seconds, up to MAX_WAIT) or raise a 422 problem; 0 when absent."""
    raw = request.args.get("wait")
    if raw is None:
        return 0.0
    high = float(current_app.config["MAX_WAIT"])
    try:
        value = float(raw)
    except ValueError:
        raise _invalid("'wait' must be a number of seconds.", "wait") from None
    if not 0 <= value <= high:  # also refuses nan
        raise _invalid(f"'wait' must be between 0 and {high:g} seconds (got {raw}).", "wait")
    return value


@bp.post("/jobs")
@charged
def create_job() -> Response:
    """Queue a job and answer 202 with its status and Location (after ?wait= at most)."""
    wait = wait_arg()
    body = _json_body()
    fresh = _fresh(body)
    submission = admitted(body)
    try:
        job = queue(submission, fresh=fresh)
    except TooManyJobs as exc:
        retry = {"Retry-After": str(exc.retry_after)}
        raise ApiProblem(429, str(exc), slug="too-many-jobs", cap=exc.cap, headers=retry) from exc
    response = status_response(waited(job, wait), 202, storage_left=storage_left())
    response.headers["Location"] = url_for("api.get_job", job_id=job.id)
    return response


@bp.get("/jobs/<job_id>")
def get_job(job_id: str) -> Response:
    """Answer with the job's status body (once it has ended, or after ?wait= seconds)."""
    count_read()  # a client whose waits answer at once cannot poll faster than its rate
    wait = wait_arg()
    return status_response(waited(job_or_none(job_id) or _missing(job_id), wait))


@bp.post("/jobs/<job_id>/cancel")
def cancel_job(job_id: str) -> Response:
    """Cancel the job (idempotent) and answer with its status body."""
    # A browser sends a cross-site POST without asking first only with no Content-Type or a
    # form's or text's: requiring JSON (the body may be empty) keeps other sites from cancelling.
    _require_json()
    canonical = canonical_id(job_id)
    try:
        result = store().cancel(canonical, client_id()) if canonical else None
    except NotHeld:
        _not_held(job_id, "cancel")
    if result is None:
        _missing(job_id)
    return status_response(result[0])


@bp.delete("/jobs/<job_id>")
def delete_job(job_id: str) -> Response:
    """Remove an ended job's stored solutions (only a client holding it may)."""
    canonical = canonical_id(job_id)
    try:
        outcome = store().delete(canonical, client_id()) if canonical else "gone"
    except NotHeld:
        _not_held(job_id, "delete")
    if outcome == "gone":
        _missing(job_id)
    if outcome == "running":
        raise ApiProblem(
            409, "The job has not ended: cancel it first.", slug="job-running", field="state"
        )
    job = job_or_none(job_id) or _missing(job_id)
    return status_response(job)


@bp.get("/jobs/<job_id>/solutions")
def get_solutions(job_id: str) -> Response:
    """Answer with one page of the job's solutions."""
    job = _solving_job(job_id)
    offset = _int_arg("offset", 0, 0, MAX_OFFSET)
    cap = int(current_app.config["MAX_PAGE_SIZE"])
    limit = _int_arg("limit", min(100, cap), 1, cap)
    page = store().solutions(job.id, offset=offset, limit=limit)
    if page is None:
        _missing(job_id)
    body = {
        "job": job.id,
        "offset": offset,
        "limit": limit,
        "total": page.total,
        "truncated": page.truncated,
        "done": job.done,
        "items": page_items(job, page.items),
    }
    if offset + limit < page.total:
        body["next"] = url_for(
            "api.get_solutions", job_id=job.id, offset=offset + limit, limit=limit
        )
    return jsonify(body)


@bp.get("/jobs/<job_id>/results")
def get_results(job_id: str) -> Response:
    """Answer with one page of a compose job's results, in the order they were found or by
    difficulty (?order=easiest|hardest)."""
    job = job_or_none(job_id) or _missing(job_id)
    if job.mode is not Mode.COMPOSE:
        detail = f"Job '{job_id}' is not a compose job: its solutions are at its solutions link."
        raise ApiProblem(404, detail, slug="not-found", field="id")
    offset = _int_arg("offset", 0, 0, MAX_OFFSET)
    cap = int(current_app.config["MAX_PAGE_SIZE"])
    limit = _int_arg("limit", min(100, cap), 1, cap)
    order = _order_arg()
    items, total = store().composed(job.id, offset, limit, order)
    body = {
        "job": job.id,
        "order": order.value,
        "offset": offset,
        "limit": limit,
        "total": total,
        "truncated": job.truncated,
        "done": job.done,
        "items": items,
    }
    if offset + limit < total:
        body["next"] = url_for(
            "api.get_results", job_id=job.id, offset=offset + limit, limit=limit, order=order.value
        )
    return jsonify(body)


def _order_arg() -> ResultOrder:
    """Read ?order= (how a compose job's results are listed) or raise a 422 problem."""
    order = request.args.get("order", ResultOrder.FOUND.value)
    if order not in set(ResultOrder):
        choices = ", ".join(ResultOrder)
        raise _invalid(f"'order' must be one of {choices} (got {order}).", "order")
    return ResultOrder(order)


@bp.get("/jobs/<job_id>/grid")
def get_grid(job_id: str) -> Response:
    """Answer with letter -> solutions per digit, over every solution found so far."""
    job = _solving_job(job_id)
    grid = store().grid(job.id)
    if grid is None:
        _missing(job_id)
    total = sum(next(iter(grid.values()), []))
    return jsonify(job=job.id, base=job.options.get("base", 10), total=total, letters=grid)


@bp.get("/jobs/<job_id>/export")
def export_job(job_id: str) -> Response:
    """Stream every stored solution as CSV (a header of letters first; `?comment=1`: a `#`
    line naming the puzzle before it) or JSON Lines."""
    job = job_or_none(job_id) or _missing(job_id)
    kind = request.args.get("format", "csv")
    if kind not in export.FORMATS:
        raise _invalid(f"'format' must be {' or '.join(export.FORMATS)} (got {kind}).", "format")
    comment = request.args.get("comment", "0")
    if comment not in ("0", "1"):
        raise _invalid(f"'comment' must be 0 or 1 (got {comment}).", "comment")
    return export.response(store(), job, kind, _order_arg(), comment == "1")


@bp.get("/estimate")
@charged_upfront  # a tenth of a second of counting costs like a job-creating request
def estimate() -> Response:
    """Estimate an enumeration's size and time (cheap, bounded) before submitting it."""
    args = request.args
    if len(args.get("puzzle", "")) > estimates.MAX_QUERY:
        detail = f"'puzzle' is longer than {estimates.MAX_QUERY} characters here; POST the job."
        raise _invalid(detail, "puzzle")
    try:
        options = check_options(estimates.options_from_query(args))
        found = estimates.for_request(str(args.get("puzzle", "")), options, current_app)
    except OptionsError as exc:
        raise _option_problem(exc) from exc
    except PuzzleError as exc:
        raise _puzzle_problem(exc) from exc
    left = storage_left()
    exceeds = left is not None and found["solutions"] > left
    return jsonify({**found, "storage_left": left, "exceeds_storage_left": exceeds})


@bp.get("/openapi.json")
def openapi() -> Response:
    """Serve the OpenAPI 3.1 document describing this API."""
    return jsonify(build_document(current_app))


def _not_held(job_id: str, action: str) -> NoReturn:
    """Raise the 403 problem for a client acting on a job that others submitted."""
    detail = f"Job '{job_id}' was submitted by other clients: only they may {action} it."
    raise ApiProblem(403, detail, slug="not-your-job", field="id")


def _missing(job_id: str) -> NoReturn:
    """Raise the 404 problem for an unknown job id."""
    raise ApiProblem(404, f"No job with id '{job_id}' (it may have expired).", slug="unknown-job")
