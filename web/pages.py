"""HTML pages: the puzzle form and the job page (Post/Redirect/Get, no JavaScript needed)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from alphametic import PuzzleError
from jobstore import Job, Mode, OptionsError, Page, TooManyJobs
from web.jobview import (
    QUEUE_FULL_RETRY,
    answer_of,
    job_or_none,
    page_items,
    refused,
    store,
    submit,
    valid_id,
)
from web.security import check_csrf

bp = Blueprint("pages", __name__)
bp.before_request(check_csrf)

PAGE_SIZE = 50
# (puzzle, mode, base, what the visitor gets): famous puzzles, one click away.
FAMOUS = [
    ("SEND + MORE = MONEY", "solve", 10, "Dudeney, 1924"),
    ("FORTY + TEN + TEN = SIXTY", "solve", 10, "one answer"),
    ("DONALD + GERALD = ROBERT", "solve", 10, "a classic"),
    ("ODD + ODD = EVEN", "enumerate", 10, "2 solutions"),
    ("CP + IS + FUN = TRUE", "enumerate", 10, "72 solutions"),
    ("ABC + DEF = GHI", "enumerate", 10, "1,088 solutions"),
    ("CP + IS + FUN = TRUE", "enumerate", 16, "39,564 solutions in base 16"),
    (
        "CP + IS + FUN = TRUE",
        "enumerate",
        24,
        "base 24: hundreds of thousands, a long job to cancel",
    ),
]
POLICIES = [
    ("multi-letter", "Words of 2+ letters may not start with 0 (one-letter words may be 0)"),
    ("every-word", "No word may start with 0, not even a one-letter word"),
    ("allow", "Leading zeros allowed"),
]
DEFAULT_FORM = {"puzzle": "", "mode": "solve", "leading_zeros": "multi-letter", "base": "10"}


def _form_values(source: Any) -> dict[str, str]:
    """Read the form fields (or query prefill) with defaults, as the user typed them."""
    return {key: str(source.get(key, default))[:20_000] for key, default in DEFAULT_FORM.items()}


def _show_form(
    values: dict[str, str], errors: dict[str, str], status: int = 422, **extra: Any
) -> Any:
    """Render the form page; 422 (or status) when it is re-shown because of errors."""
    page = render_template(
        "index.html", form=values, errors=errors, famous=FAMOUS, policies=POLICIES, **extra
    )
    return (page, status) if errors else page


@bp.get("/")
def index() -> Any:
    """Show the puzzle form, prefilled from the query string if given."""
    return _show_form(_form_values(request.args), {})


@bp.post("/jobs")
def create_job() -> Any:
    """Queue a job from the form and redirect to its page, or re-show the form with errors."""
    values = _form_values(request.form)
    try:
        base = int(values["base"])
    except ValueError:
        refused()  # counted like any job-creating request (submit counts the others)
        return _show_form(values, {"base": "The base must be a whole number from 2 to 36."})
    options = {"base": base, "leading_zeros": values["leading_zeros"]}
    try:
        job = submit(values["mode"], values["puzzle"], options)
    except PuzzleError as exc:
        return _show_form(values, {"puzzle": str(exc)}, position=exc.position)
    except TooManyJobs as exc:
        page, status = _show_form(values, {"queue": str(exc)}, 429)
        return page, status, {"Retry-After": str(QUEUE_FULL_RETRY)}
    except (OptionsError, ValueError) as exc:  # a bad mode, or a base or policy the engine refuses
        return _show_form(values, {"options": str(exc)})
    return redirect(url_for("pages.job_page", job_id=job.id), code=303)


@bp.get("/jobs/<job_id>")
def job_page(job_id: str) -> Any:
    """Show a job's state, progress, answer, solutions and (for enumerations) the grid."""
    job = job_or_none(job_id)
    if job is None:
        abort(404, description="No job with this id (it may have expired).")
    page_no = max(1, request.args.get("page", 1, type=int) or 1)
    offset = (page_no - 1) * PAGE_SIZE
    page = store().solutions(job.id, offset=offset, limit=PAGE_SIZE)
    grid = store().grid(job.id) if job.mode is Mode.ENUMERATE else None
    return render_template(
        "job.html",
        job=job,
        answer=answer_of(job, _only_solution(job, page)),
        solutions=page_items(job, page.items) if page else [],
        total=page.total if page else 0,
        truncated=page.truncated if page else False,
        offset=offset,
        page_no=page_no,
        page_size=PAGE_SIZE,
        grid=_grid_rows(grid, job),
    )


@bp.post("/jobs/<job_id>/cancel")
def cancel_job(job_id: str) -> Response:
    """Cancel a job from its page and go back to the page."""
    if not valid_id(job_id) or store().cancel(job_id) is None:
        abort(404, description="No job with this id (it may have expired).")
    return redirect(url_for("pages.job_page", job_id=job_id), code=303)


def _only_solution(job: Job, page: Page | None) -> dict[str, int] | None:
    """Return the one solution of a finished enumeration that found exactly one."""
    if job.done and page is not None and page.total == 1 and page.items:
        return dict(page.items[0])
    return None


def _grid_rows(grid: dict[str, list[int]] | None, job: Job) -> dict[str, Any] | None:
    """Lay out letter x digit counts, marking the digit a letter always takes (forced)."""
    if not grid:
        return None
    base = int((job.options or {}).get("base", 10))
    rows = []
    for letter in sorted(grid):
        counts = list(grid[letter]) + [0] * (base - len(grid[letter]))
        total = sum(counts)
        cells = [(count, total > 0 and count == total) for count in counts[:base]]
        rows.append((letter, cells))
    return {"digits": list(range(base)), "rows": rows}


@bp.app_template_filter("duration")
def duration(seconds: float | None) -> str:
    """Spell a number of seconds for people: "1 h 2 min", "3 min 4 s", "5 s"."""
    if seconds is None:
        return "unknown"
    whole = max(0, int(round(seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


@bp.app_template_filter("percent")
def percent(progress: float | None) -> str:
    """Spell a 0..1 progress as a percentage with one decimal."""
    return f"{100 * (progress or 0):.1f}%"


@bp.app_template_filter("digit")
def digit(value: int) -> str:
    """Spell a digit in bases up to 36 (10 -> A)."""
    return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[value] if 0 <= value < 36 else str(value)
