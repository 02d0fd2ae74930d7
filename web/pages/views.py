"""HTML pages: the puzzle form and the job page (Post/Redirect/Get, no JavaScript needed)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import (
    Blueprint,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from alphametic import PuzzleError, render
from jobstore import Job, Mode, NotHeld, OptionsError, RateLimited, TooManyJobs, Unavailable
from web.api import estimates
from web.clients import charged, client_id, queue, storage_left, uncharged
from web.drawings import answer_of, grid_rows, solution_rows
from web.errors import answers
from web.errors.answers import Refusal
from web.i18n import _, _l, duration, locale_tag, ngettext, number
from web.pages import compose, forms, jobtext
from web.paging import pager
from web.security import check_csrf
from web.store import canonical_id, job_or_none, store

bp = Blueprint("pages", __name__)
bp.before_request(check_csrf)

PAGE_SIZE = 50
MAX_PAGE = 10**9  # page numbers beyond any job's stored solutions are clamped to the last page
# (puzzle, mode, base, what the visitor gets): famous puzzles that fill the form.
FAMOUS = [
    ("SEND + MORE = MONEY", "solve", 10, _l("Dudeney, 1924")),
    ("FORTY + TEN + TEN = SIXTY", "solve", 10, _l("one answer")),
    ("DONALD + GERALD = ROBERT", "solve", 10, _l("a classic")),
    ("ODD + ODD = EVEN", "enumerate", 10, _l("2 solutions")),
    ("CP + IS + FUN = TRUE", "enumerate", 10, _l("72 solutions")),
    ("ABC + DEF = GHI", "enumerate", 10, _l("1,088 solutions")),
    ("TWO * TWO = SQUARE", "enumerate", 10, _l("a product: 3 solutions")),
    ("ABCD / EF = GH", "enumerate", 10, _l("an exact division: 52 solutions")),
    ("NAUGHT ^ 2 = ZERO ^ 3", "solve", 10, _l("powers: one answer")),
    ("A + A = B; B * C = AB", "enumerate", 10, _l("two equations: 3 solutions")),
    ("TOM * 13 = DALEY", "solve", 10, _l("a number among the words: one answer")),
    ("CP + IS + FUN = TRUE", "enumerate", 16, _l("39,564 solutions")),
    ("CP + IS + FUN = TRUE", "enumerate", 24, _l("1,131,120 solutions in about 2 seconds")),
]
# Famous puzzles in the page's own script, after the others (counts: tests/engine/test_unicode).
LOCAL_FAMOUS = {
    "ja": [("いち + いち = にい", "enumerate", 10, _l("kana as letters: 4 solutions"))],
    "th": [("กข + ขก = คค", "enumerate", 10, _l("Thai letters: 32 solutions"))],
}


def _show_form(
    values: dict[str, str], errors: dict[str, str], status: int = 422, **extra: Any
) -> Any:
    """Render the form page; 422 (or status) when it is re-shown because of errors."""
    choices = forms.modes()
    button = next((b for v, _label, b in choices if v == values["mode"]), choices[0][2])
    page = render_template(
        "index.html",
        form=values,
        errors=errors,
        bounds=forms.BOUNDS,
        famous=FAMOUS + LOCAL_FAMOUS.get(locale_tag(), []),
        policies=forms.POLICIES,
        modes=choices,
        button=button,
        can_count=any(v == "count" for v, _label, _b in choices),
        state_labels=jobtext.state_labels(),
        # "Your recent jobs" lists compose jobs too (jobs.js).
        mode_labels={value: label for value, label, _button in choices}
        | {Mode.COMPOSE.value: _("Compose puzzles")},
        room=_room_note(),
        **extra,
    )
    return (page, status) if errors else page


@bp.get("/")
def index() -> Any:
    """Show the puzzle form, prefilled from the query string if given, or from a stored job
    (`?from=<job id>`: "Edit and resubmit", which no puzzle's length can take past the
    request line's cap). A job is read as its page reads it: whoever has its id."""
    source = request.args.get("from")
    if source is None:
        # A famous puzzle (or a link) filled it in: the puzzle field is where to go on.
        focus = "puzzle" in request.args
        return _show_form(forms.form_values(request.args), {}, focus=focus)
    job = job_or_none(source)
    if job is None:
        abort(404, description="No job with this id (it may have expired).")
    if job.mode is Mode.COMPOSE:  # its words go to the compose form
        return redirect(compose.again_link(job), code=303)
    return _show_form(forms.job_values(job), {}, focus=True)


@bp.get("/favicon.ico")
def favicon() -> Response:
    """The site icon where browsers look for it first."""
    static = str(current_app.static_folder)
    return send_from_directory(static, "favicon.svg", mimetype="image/svg+xml", max_age=86400)


def _room_note() -> str | None:
    """The form's note on the client's storage budget, once it leaves less than a job's cap."""
    try:
        left = storage_left()
    except Unavailable:
        return None  # the form loads without Redis; submitting says it is away
    settings = current_app.extensions["alphametic.settings"]
    if left is None or left >= settings.max_stored_solutions:
        return None
    if left == 0:
        return _(
            "Your storage budget is used up: an enumeration now would count its solutions but "
            "store none. Deleting the stored solutions of jobs you no longer need (on their "
            "pages) makes room."
        )
    return ngettext(
        "You have room to store %(count)s more solution.",
        "You have room to store %(count)s more solutions.",
        left,
        count=number(left),
    )


def _size_warning(values: dict[str, str], options: dict[str, Any]) -> str | None:
    """A warning when an enumeration would run past its time limit, storage cap or the client's
    storage budget, else None.

    confirm=1 ("List them anyway") skips every warning; confirm=size ("Run again", whose
    size was accepted before) only those of size: the budget may have run out since.
    """
    confirm = request.form.get("confirm")
    if values["mode"] != Mode.ENUMERATE.value or confirm == "1":
        return None
    try:
        found = estimates.for_request(values["puzzle"], options, current_app)
    except (ValueError, PuzzleError):
        return None  # cannot happen once admitted; the estimate is only a warning
    about = number(round(found["solutions"]))
    left = storage_left()
    if left == 0 and found["solutions"] > 0:
        return _(
            "Your storage budget is used up: this enumeration would count its solutions but "
            "store none of them. Count them instead, or first delete the stored solutions of "
            "jobs you no longer need (on their pages)."
        )
    if confirm:
        return None
    if not (found["exceeds_time_limit"] or found["exceeds_storage_cap"]):
        if left is not None and found["solutions"] > left:
            return _(
                "This puzzle has about %(count)s solutions, but your storage budget has room "
                "for only %(left)s more: the rest would be counted, not stored.",
                count=about,
                left=number(left),
            )
        return None
    if found["exceeds_storage_cap"]:
        return _(
            "This puzzle has about %(count)s solutions, more than the %(cap)s a job may store. "
            "Counting them takes far less time.",
            count=about,
            cap=number(found["storage_cap"]),
        )
    return _(
        "Listing every solution would take about %(time)s, longer than the %(limit)s a job "
        "may run. Counting them takes far less time.",
        time=duration(found["seconds"]),
        limit=duration(found["time_limit"]),
    )


@bp.post("/jobs")
@charged
def create_job() -> Any:
    """Queue a job from the form and redirect to its page, or re-show the form with errors."""
    values = forms.form_values(request.form)
    if request.form.get("instead") == "count":
        values["mode"] = "count"
    try:
        options = forms.form_options(values)
        submission = store().admit(values["mode"], values["puzzle"], options)
    except PuzzleError as exc:
        uncharged()  # what was typed is refused: no job, no rate spent
        if exc.field != "puzzle":  # an option value the engine refuses, under its field
            return _show_form(values, {forms.field_of(exc): forms.option_message(exc)})
        caret = render.caret(values["puzzle"], exc.position)
        return _show_form(values, {"puzzle": forms.puzzle_message(exc)}, caret=caret)
    except OptionsError as exc:
        uncharged()
        return _show_form(values, {forms.field_of(exc): forms.option_message(exc)})
    warning = _size_warning(values, options)
    if warning:
        # The warning's buttons send the form again: a Run again stays a new run.
        return _show_form(values, {}, 200, warning=warning, fresh=request.form.get("fresh"))
    try:
        # "Run again" asks for a new run, not the identical job that exists (fresh).
        job = queue(submission, request.form.get("fresh") == "1")
    except TooManyJobs as exc:
        page, status = _show_form(values, {"queue": forms.queue_message(exc.cap)}, 429)
        return page, status, {"Retry-After": str(exc.retry_after)}
    return redirect(url_for("pages.job_page", job_id=job.id), code=303)


@bp.errorhandler(RateLimited)
def rate_limited(exc: RateLimited) -> Any:
    """Over the client's rate: the form again as it was typed, the reason under it, 429."""
    if request.endpoint != "pages.create_job":
        return answers.rate_limited(exc)  # the error page
    values = forms.form_values(request.form)
    page, status = _show_form(values, {"queue": forms.rate_message(exc.retry_after)}, 429)
    return page, status, {"Retry-After": str(exc.retry_after)}


@bp.get("/jobs/<job_id>")
def job_page(job_id: str) -> Any:
    """Show a job's state, progress, counters, answer, solutions and (for enumerations) grid."""
    asked = min(MAX_PAGE, max(1, request.args.get("page", 1, type=int) or 1))
    # The stored list before the counters: both only grow, so what is shown stored is never
    # more than what is shown found.
    key = canonical_id(job_id)
    page = store().solutions(key, (asked - 1) * PAGE_SIZE, PAGE_SIZE) if key else None
    job = job_or_none(job_id)
    if job is None:
        abort(404, description="No job with this id (it may have expired).")
    released = request.args.get("released") == "1"
    if job.mode is Mode.COMPOSE:  # its results, not solutions
        return compose.job_page(job, _can_delete(job, job.to_dict()), released)
    total = page.total if page else 0
    page_no, last, offset = pager(total, asked, PAGE_SIZE)
    if page is not None and offset != page.offset:  # asked past the end: show the last page
        page = store().solutions(job.id, offset=offset, limit=PAGE_SIZE)
    items = page.items if page else []
    info = job.to_dict()
    settings = current_app.extensions["alphametic.settings"]
    return render_template(
        "job.html",
        job=job,
        info=info,
        state_label=jobtext.state_labels()[job.state.value],
        mode_label=jobtext.mode_label(job),
        policy_label=forms.policy_label(str(job.options.get("leading_zeros", "multi-letter"))),
        status_line=jobtext.status_line(job, info),
        eta_text=jobtext.eta_text(job, info, settings.soft_limit(job.mode)),
        sentence_gap=jobtext.sentence_gap(),
        strings=jobtext.js_strings(settings.soft_limit(job.mode)),
        answer=answer_of(job, _picked(job, page_no, items, total)),
        picked=_pick_number(page_no, items),
        rows=solution_rows(job, items, offset),
        letters=list(job.letters),
        total=total,
        truncated=page.truncated if page else False,
        offset=offset,
        page_no=page_no,
        last_page=last,
        page_size=PAGE_SIZE,
        grid=grid_rows(store().grid(job.id), job) if job.mode is not Mode.SOLVE else None,
        fixed=", ".join(f"{k}={v}" for k, v in (job.options.get("fixed") or {}).items()),
        can_delete=_can_delete(job, info),
        released=released,
    )


def _can_delete(job: Job, info: dict[str, Any]) -> bool:
    """Whether the page offers this visitor to delete the job's stored solutions (a holder's
    ended enumeration or compose job whose solutions or puzzles are still there)."""
    storing = job.mode in (Mode.ENUMERATE, Mode.COMPOSE)
    if not storing or not job.done or info.get("deleted"):
        return False
    return store().holds(job.id, client_id())


def _pick_number(page_no: int, items: list[dict[str, int]]) -> int | None:
    """The number of the solution picked in the table (?pick=N) when it is on this page."""
    pick = request.args.get("pick", type=int)
    offset = (page_no - 1) * PAGE_SIZE
    return pick if pick is not None and offset < pick <= offset + len(items) else None


def _picked(job: Job, page_no: int, items: list[dict[str, int]], total: int) -> Any:
    """The solution to draw: the one picked in the table (?pick=N), or a job's only one."""
    pick = _pick_number(page_no, items)
    if pick is not None:
        return items[pick - (page_no - 1) * PAGE_SIZE - 1]
    if job.done and total == 1 and items:
        return items[0]
    return None


@bp.post("/jobs/<job_id>/cancel")
def cancel_job(job_id: str) -> Response:
    """Cancel a job from its page and go back to the page."""
    canonical = canonical_id(job_id)
    try:
        found = store().cancel(canonical, client_id()) if canonical else None
    except NotHeld:
        raise Refusal(_("Other people submitted this job: only they can cancel it.")) from None
    if found is None:
        abort(404, description="No job with this id (it may have expired).")
    return redirect(url_for("pages.job_page", job_id=canonical), code=303)


@bp.post("/jobs/<job_id>/delete")
def delete_job(job_id: str) -> Response:
    """Delete a job's stored solutions from its page (only a holder may) and go back to it.
    The page's button asks first (a page of its own, so it works without JavaScript): only
    a post with `confirm` deletes."""
    canonical = canonical_id(job_id)
    if request.form.get("confirm") != "1":
        job = store().get(canonical) if canonical else None
        if job is not None and _can_delete(job, job.to_dict()):
            return _confirm_delete(job)
    try:
        outcome = store().delete(canonical, client_id()) if canonical else "gone"
    except NotHeld:
        if _composes(canonical):
            raise Refusal(
                _("Other people submitted this job: only they can delete its puzzles.")
            ) from None
        raise Refusal(
            _("Other people submitted this job: only they can delete its solutions.")
        ) from None
    if outcome == "gone":
        abort(404, description="No job with this id (it may have expired).")
    if outcome == "running":
        if _composes(canonical):
            raise Refusal(_("This job has not ended: cancel it first, then delete its puzzles."))
        raise Refusal(_("This job has not ended: cancel it first, then delete its solutions."))
    # One of several holders only lets go: the page says the solutions stay for the others.
    released = "1" if outcome == "withdrawn" else None
    return redirect(url_for("pages.job_page", job_id=canonical, released=released), code=303)


def _confirm_delete(job: Job) -> Response:
    """The page that asks whether to delete a job's stored solutions (or puzzles)."""
    if job.mode is Mode.COMPOSE:
        question = _("Delete the puzzles this job found?")
        button = _("Delete the puzzles found")
        what = " ".join(job.puzzle.split()[:8]) + (" …" if len(job.puzzle.split()) > 8 else "")
    else:
        question = _("Delete the stored solutions of this job?")
        button = _("Delete stored solutions")
        what = job.puzzle
    page = render_template(
        "confirm_delete.html", job=job, question=question, button=button, what=what
    )
    return Response(page, mimetype="text/html")


def _composes(job_id: str | None) -> bool:
    """Whether the job is a compose job (what it stores are puzzles, not solutions)."""
    job = store().get(job_id) if job_id else None
    return job is not None and job.mode is Mode.COMPOSE


def edit_link(job: Job) -> str:
    """The form filled in with a job's puzzle and options ("Edit and resubmit"), by its id."""
    if job.mode is Mode.COMPOSE:
        return compose.again_link(job)
    return url_for("pages.index") + "?" + urlencode({"from": job.id})


@bp.app_context_processor
def _language_links() -> dict[str, Any]:
    """Give every page (base.html's language switcher) language_url."""
    return {"language_url": language_url, "edit_link": edit_link}


def language_url(code: str) -> str:
    """This page in language `code`: its query string kept, only ?lang= replaced.

    A page drawn by a POST (the form re-shown with an error, a refused cancel) has no address
    to load again: a GET of /jobs is a 405. Its link goes to the form filled in with what was
    sent, to the job page, or else home.
    """
    if request.method in ("GET", "HEAD"):
        query = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
        return "?" + urlencode([*query, ("lang", code)])
    if request.endpoint == "pages.create_job":
        try:
            sent = request.form
        except HTTPException:  # the error page of a body refused unread (413): nothing to keep
            return url_for("pages.index", lang=code)
        values: dict[str, Any] = forms.form_values(sent)
        if sent.get("instead") == "count":
            values["mode"] = "count"  # the form came back for the count it was asked for
        return url_for("pages.index", **values, lang=code)
    job_id = (request.view_args or {}).get("job_id")
    if job_id:
        return url_for("pages.job_page", job_id=job_id, lang=code)
    return url_for("pages.index", lang=code)


@bp.app_template_filter("digit")
def digit(value: int) -> str:
    """Spell a digit in bases up to 36 (10 -> A)."""
    return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[value] if 0 <= value < 36 else str(value)
