"""The operator's page at /admin: jobs, queues and workers, with cancel, delete and re-queue.

Same gate as the API (web/admin/api.py): 404 when no token is configured, 401 without it. A person
logs in once with the token (a form, CSRF-checked); the session then holds a mark derived from
the token, so rotating the token logs everyone out. Works without JavaScript.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    flash,
    g,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response as Redirect

from jobstore import Mode, State
from jobstore.admin import list_jobs, queues, workers
from web.admin import api
from web.admin.api import (
    SESSION_KEY,
    TooManyTries,
    accepted,
    audit,
    cancel_ids,
    check,
    delete_job,
    page_size,
    parse_cursor,
    parse_filter,
    requeue_job,
    session_mark,
    token,
)
from web.errors.problems import problem
from web.security import check_csrf
from web.store import store

bp = Blueprint("admin", __name__, url_prefix="/admin")
ACTIONS = ("cancel", "delete", "requeue")


@bp.before_request
def guard() -> Response | None:
    """404 when admin is off; the login page (401) for anyone not logged in, bar the login."""
    if not token():
        abort(404)
    check_csrf()
    g.admin_auth = check(allow_session=True)
    if g.admin_auth is None and request.endpoint != "admin.login":
        return login_page("", 401)
    return None


def login_page(error: str, status: int) -> Response:
    """The login form."""
    page = render_template("admin_login.html", error=error)
    return Response(page, status=status, headers={"WWW-Authenticate": 'Bearer realm="admin"'})


@bp.post("/login")
def login() -> Response | Redirect:
    """Log this session in with the admin token."""
    sent = request.form.get("token", "")
    if not accepted(sent, token(), "login"):
        return login_page("That is not the admin token.", 401)
    session[SESSION_KEY] = session_mark(token())
    audit("login", [], "ok")
    return redirect(url_for("admin.index"), 303)


@bp.post("/logout")
def logout() -> Redirect:
    """Forget this session's login."""
    session.pop(SESSION_KEY, None)
    audit("logout", [], "ok")
    return redirect(url_for("admin.index"), 303)


@bp.get("")
def index() -> str:
    """Jobs (filtered, paged), queues and workers with their current jobs."""
    where = parse_filter(request.args)
    cursor = parse_cursor(request.args.get("cursor"))
    listing = list_jobs(store(), where, cursor, page_size(request.args.get("limit"), 50))
    filters = {"state": where.state, "mode": where.mode, "client": where.client}
    following = None
    if listing.next is not None:
        query: dict[str, Any] = {k: v for k, v in filters.items() if v}
        following = url_for("admin.index", **query, cursor=listing.next)
    return render_template(
        "admin.html",
        listing=listing,
        filters=filters,
        following=following,
        states=[s.value for s in State],
        modes=[m.value for m in Mode],
        queues=queues(store()),
        workers=workers(store()),
        replicas=store().health().get("replicas"),
        messages=get_flashed_messages(),
        back=request.full_path.rstrip("?"),
    )


def act(action: str, job_id: str) -> str:
    """Run one action on one job; a line saying what came of it."""
    if action == "cancel":
        return f"{job_id}: {cancel_ids([job_id])[job_id]}"
    _status, outcome = delete_job(job_id) if action == "delete" else requeue_job(job_id)
    return f"{job_id}: {outcome}"


@bp.post("/actions")
def actions() -> Redirect:
    """Cancel, delete or re-queue the jobs ticked (or the one whose button was pressed)."""
    # A row's own button posts its id as `one` and its action in the query string.
    one = request.form.get("one", "")
    action = request.args.get("action", "") if one else request.form.get("action", "")
    ids = [one] if one else [i for i in request.form.getlist("ids") if i][:100]
    if action not in ACTIONS or not ids:
        flash("Choose an action and at least one job.")
    elif action == "cancel" and len(ids) > 1:
        results = cancel_ids(ids)
        counts = {r: list(results.values()).count(r) for r in sorted(set(results.values()))}
        flash("cancel: " + ", ".join(f"{n} {r}" for r, n in counts.items()))
    else:
        for job_id in ids:
            flash(act(action, job_id))
    back = request.form.get("back", "")
    return redirect(back if back.startswith("/admin") else url_for("admin.index"), 303)


def too_many_tries(exc: TooManyTries) -> Response:
    """429 with Retry-After: problem+json on the API, the login page with the reason here."""
    detail = f"Too many wrong admin tokens from this address: retry in {exc.retry_after} s."
    wait = {"Retry-After": str(exc.retry_after)}
    if request.path.startswith("/admin/api/"):
        return problem(
            429, detail, slug="too-many-wrong-tokens", field="Authorization", headers=wait
        )
    page = login_page(detail, 429)
    page.headers.update(wait)
    return page


def init_admin(app: Flask) -> None:
    """Keep the token (ADMIN_TOKEN: ALPHAMETIC_ADMIN_TOKEN, checked by web.config) and register."""
    app.extensions["alphametic.admin_token"] = str(app.config.get("ADMIN_TOKEN") or "").strip()
    app.register_error_handler(TooManyTries, too_many_tries)
    app.register_blueprint(api.bp)
    app.register_blueprint(bp)
