"""The compose pages: the form (paste words, choose the options) and a compose job's page,
listing the puzzles found as they come, each with a link to solve it as a job of its own."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for

import alphametic
from alphametic import PuzzleError
from alphametic.explain.languages import TABLES
from alphametic.explain.text import ENGLISH, render
from alphametic.wordlists import LISTS, word_list
from jobstore import Job, Mode, OptionsError, RateLimited, ResultOrder, TooManyJobs
from jobstore.compose import DEFAULTS
from web.bodies import whole_number
from web.clients import charged, queue, uncharged
from web.i18n import locale_tag
from web.pages import forms, jobtext
from web.paging import pager
from web.security import check_csrf
from web.store import job_or_none, store

bp = Blueprint("compose", __name__)
bp.before_request(check_csrf)

PAGE_SIZE = 50
MAX_PAGE = 10**9
DEFAULT_FORM = {
    "words": "",
    "addends": str(DEFAULTS["addends"]),
    "solutions": str(DEFAULTS["solutions"]),
    "base": str(DEFAULTS["base"]),
    "leading_zeros": str(DEFAULTS["leading_zeros"]),
    "distinct_words": "",  # a checkbox: sent ("1") only when ticked
    "count_only": "",
    "skip_bad_words": "",  # "1" when ticked
}
# What a ticked checkbox sends, and what "Edit and resubmit" writes for an option set to true.
TICKED = frozenset({"1", "on", "true"})
# The built-in lists as the form offers them, each named in its own language.
LIST_NAMES = {"en": "English", "ja": "日本語", "th": "ไทย"}
FIRST_WORDS = 100


def form_values(source: Any) -> dict[str, str]:
    """Read the form's fields (or a query prefill) with defaults, as the user typed them."""
    return {key: str(source.get(key, default))[:200_000] for key, default in DEFAULT_FORM.items()}


def words_typed(text: str) -> list[str]:
    """The words of the text box: one or more a line; a line starting with # is a comment."""
    lines = (line for line in text.splitlines() if not line.strip().startswith("#"))
    return [word for line in lines for word in line.split()]


def ticked(sent: str) -> bool:
    """Whether a checkbox's value (or a query prefill's) says yes."""
    return sent.strip().lower() in TICKED


def _number(typed: str) -> int | str:
    """A whole number typed into a field, or the text itself (refused as out of range)."""
    value = whole_number(typed.strip())
    return typed if value is None else value


def _show_form(values: dict[str, str], errors: dict[str, str], status: int = 422) -> Any:
    """Render the compose form; 422 (or status) when it is re-shown because of errors."""
    settings = current_app.extensions["alphametic.settings"]
    chosen = request.args.get("list", "")
    page = render_template(
        "compose.html",
        form=values,
        errors=errors,
        bounds=forms.BOUNDS,
        policies=forms.POLICIES,
        most=settings.max_compose_words,
        lists=[(name, LIST_NAMES[name]) for name in LISTS],
        chosen=chosen if chosen in LISTS else locale_tag().split("-")[0],
        first=values.get("first", FIRST_WORDS),
        distinct=ticked(values.get("distinct_words", "")),
        count_only=ticked(values.get("count_only", "")),
    )
    return (page, status) if errors else page


@bp.get("/compose")
def compose_form() -> Any:
    """Show the compose form, prefilled from the query string if given: `list` (and `first`)
    fill the words in from a built-in list, its most frequent first."""
    source = request.args.get("from")
    if source is not None:  # "Edit and resubmit": a stored job's words, however many
        job = job_or_none(source)
        if job is None or job.mode is not Mode.COMPOSE:
            abort(404, description="No compose job with this id (it may have expired).")
        return _show_form(job_values(job), {})
    values = form_values(request.args)
    name = request.args.get("list", "")
    if name in LISTS:
        most = current_app.extensions["alphametic.settings"].max_compose_words
        asked = whole_number(request.args.get("first", "").strip())
        first = min(max(asked if asked is not None else FIRST_WORDS, 2), most)
        values["words"] = "\n".join(word_list(name, first))
        values["first"] = str(first)
    return _show_form(values, {})


@bp.post("/compose")
@charged
def create_compose_job() -> Any:
    """Queue a compose job from the form and go to its page, or re-show the form's errors.

    `from` (a job page's "Run again", with `fresh=1`) takes the words and options of that
    stored compose job instead of the form's: a new run, however many words it has."""
    values = form_values(request.form)
    source = request.form.get("from")
    if source is not None:
        job = job_or_none(source)
        if job is None or job.mode is not Mode.COMPOSE:
            abort(404, description="No compose job with this id (it may have expired).")
        values = job_values(job)
    options = {
        "addends": _number(values["addends"]),
        "solutions": _number(values["solutions"]),
        "base": _number(values["base"]),
        "leading_zeros": values["leading_zeros"],
        "distinct_words": ticked(values["distinct_words"]),
        "count_only": ticked(values["count_only"]),
    }
    if values["skip_bad_words"]:
        options["skip_bad_words"] = True
    try:
        submission = store().admit_compose(words_typed(values["words"]), options)
    except (OptionsError, PuzzleError) as exc:
        uncharged()  # what was typed is refused: no job, no rate spent
        return _show_form(values, {forms.field_of(exc): forms.option_message(exc)})
    try:
        # "Run again" asks for a new run, not the identical job that exists (fresh).
        job = queue(submission, request.form.get("fresh") == "1")
    except TooManyJobs as exc:
        page, status = _show_form(values, {"queue": forms.queue_message(exc.cap)}, 429)
        return page, status, {"Retry-After": str(exc.retry_after)}
    return redirect(url_for("pages.job_page", job_id=job.id), code=303)


@bp.errorhandler(RateLimited)
def rate_limited(exc: RateLimited) -> Any:
    """Over the client's rate: the compose form again as it was typed, the reason under it."""
    message = forms.rate_message(exc.retry_after)
    page, status = _show_form(form_values(request.form), {"queue": message}, 429)
    return page, status, {"Retry-After": str(exc.retry_after)}


def solve_fields(job: Job, text: str) -> dict[str, str]:
    """What a result's "Solve it" button sends to the puzzle form's POST /jobs: the puzzle
    with the job's base and leading-zero rule, to solve it as a job of its own."""
    return {
        "puzzle": text,
        "mode": "solve",
        "base": str(job.options.get("base", 10)),
        "leading_zeros": str(job.options.get("leading_zeros", "multi-letter")),
    }


def result_rows(job: Job, items: list[dict[str, Any]], offset: int) -> list[dict[str, Any]]:
    """The results of one page as the table shows them: number, puzzle, its solution drawn on
    one line (one solution only), its difficulty in the page's language, its solve link."""
    table = TABLES.get(locale_tag(), ENGLISH)
    base = int(job.options.get("base", 10))
    policy = str(job.options.get("leading_zeros", "multi-letter"))
    rows = []
    for number, item in enumerate(items, offset + 1):
        line = ""
        if item.get("solution"):
            puzzle = alphametic.parse(item["puzzle"], base=base, leading_zeros=policy)
            line = alphametic.render_line(puzzle, item["solution"]).split(" | ", 1)[-1]
        rating = item.get("difficulty")
        # Its column is headed "Difficulty": each cell says the rating alone.
        said = render("rating", rating, table, base) if rating else ""
        rows.append(
            {"number": number, "puzzle": item["puzzle"], "line": line, "difficulty": said,
             "label": rating["label"] if rating else "", "solve": solve_fields(job, item["puzzle"])}
        )  # fmt: skip
    return rows


def job_page(job: Job, can_delete: bool = False, released: bool = False) -> str:
    """A compose job's page: state, progress, counters and one page of its results."""
    asked = min(MAX_PAGE, max(1, request.args.get("page", 1, type=int) or 1))
    named = request.args.get("order", "")
    order = ResultOrder(named) if named in set(ResultOrder) else ResultOrder.FOUND
    # One read of the page asked (the live page asks every 2 s); a second only when it was
    # past the last page.
    items, total = store().composed(job.id, (asked - 1) * PAGE_SIZE, PAGE_SIZE, order)
    page_no, last, offset = pager(total, asked, PAGE_SIZE)
    if page_no != asked:
        items, total = store().composed(job.id, offset, PAGE_SIZE, order)
    info = job.to_dict()
    settings = current_app.extensions["alphametic.settings"]
    return render_template(
        "compose_job.html",
        job=job,
        info=info,
        words=job.puzzle.split(),
        state_label=jobtext.state_labels()[job.state.value],
        policy_label=forms.policy_label(str(job.options.get("leading_zeros", "multi-letter"))),
        status_line=jobtext.compose_status_line(job, info, total),
        eta_text=jobtext.eta_text(job, info, settings.soft_limit(job.mode)),
        rows=result_rows(job, items, offset),
        total=total,
        order=order.value,
        orders=list(ResultOrder),
        page_no=page_no,
        last_page=last,
        can_delete=can_delete,
        released=released,
    )


def job_values(job: Job) -> dict[str, str]:
    """The compose form's fields as a stored compose job fills them in."""
    values = {key: str(job.options.get(key, default)) for key, default in DEFAULT_FORM.items()}
    skip = "1" if job.options.get("skip_bad_words") else ""
    return values | {"words": "\n".join(job.puzzle.split()), "skip_bad_words": skip}


def again_link(job: Job) -> str:
    """The compose form filled in with the job's words and options ("Edit and resubmit"): by
    the job's id, since hundreds of words do not fit in a request line (414)."""
    return url_for("compose.compose_form") + "?" + urlencode({"from": job.id})
