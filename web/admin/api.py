"""The operator's API under /admin/api/, behind ALPHAMETIC_ADMIN_TOKEN (a bearer token).

Without a configured token every /admin path answers 404, as if it did not exist; with one, a
request without the right token gets 401. Tokens are compared in constant time (of their
SHA-256 digests, so not even the length leaks), at least MIN_ADMIN_TOKEN characters long
(web/config.py). A client address that sent TOKEN_TRIES wrong ones is answered 429 with
Retry-After, whatever it sends, until its window ends (counted in Redis by jobstore.admin, so
every web process and replica agrees). The HTML page (web/admin/page.py) also accepts a session
that logged in with the token. Every action is logged with who (the address), what and the
outcome; refused tokens aggregated (the first of a window, the one that locks, each tenfold).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import re
from typing import Any

from flask import Blueprint, Response, abort, current_app, g, jsonify, request, session

from jobstore import UNFINISHED, Mode, State
from jobstore.admin import (
    TOKEN_TRIES,
    Filter,
    TokenTries,
    list_jobs,
    queues,
    refuse_token,
    requeue,
    token_tries,
    workers,
)
from web.bodies import check_json_depth, whole_number
from web.clients import client_id
from web.errors.answers import invalid
from web.errors.problems import problem
from web.store import canonical_id, store

bp = Blueprint("admin_api", __name__, url_prefix="/admin/api")
log = logging.getLogger("alphametic.admin")
SESSION_KEY = "admin"
MAX_LIMIT = 500
MAX_BULK = 1000  # jobs one bulk cancel touches at most
FILTER_FIELDS = ("state", "mode", "client")
# A cursor is the `next` of the page before: a creation time, repr() of a float, never negative.
CURSOR = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


class TooManyTries(Exception):
    """The client sent too many wrong admin tokens: refused unheard for `retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        """Keep the seconds until the client's window ends."""
        super().__init__(f"too many wrong admin tokens; retry in {retry_after} s")
        self.retry_after = retry_after


def token() -> str:
    """The configured admin token ('' when admin is off)."""
    return str(current_app.extensions.get("alphametic.admin_token", ""))


def same(sent: str, expected: str) -> bool:
    """Constant-time equality of two tokens (of their digests: lengths do not leak either)."""
    digest = hashlib.sha256
    return hmac.compare_digest(digest(sent.encode()).digest(), digest(expected.encode()).digest())


def session_mark(expected: str) -> str:
    """What a logged-in session holds: derived from the token, so changing it logs all out."""
    return hmac.new(expected.encode(), b"alphametic admin session", hashlib.sha256).hexdigest()


def bearer() -> str | None:
    """The bearer token of the request, or None when it sends no Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def check(allow_session: bool) -> str | None:
    """How the request is authorized ('bearer' or 'session'), or None; 404 when admin is off."""
    expected = token()
    if not expected:
        abort(404)
    sent = bearer()
    if sent is not None:
        return "bearer" if accepted(sent, expected, "refused") else None
    mark = session.get(SESSION_KEY)
    if allow_session and isinstance(mark, str) and same(mark, session_mark(expected)):
        return "session"
    return None


def accepted(sent: str, expected: str, action: str) -> bool:
    """Whether `sent` is the admin token; TooManyTries once this client has used its tries."""
    client = client_id()
    if not token_tries(store(), client).locked and same(sent, expected):
        return True
    tries = refuse_token(store(), client)
    report(action, tries)
    if tries.locked:
        raise TooManyTries(tries.seconds_left)
    return False


def report(action: str, tries: TokenTries) -> None:
    """Log refused tokens aggregated: a window's first, the one that locks, then each tenfold."""
    steps, rest = divmod(tries.count, TOKEN_TRIES.amount)
    if tries.count == 1 or (steps > 0 and rest == 0 and str(steps).strip("0") == "1"):
        locked = {"locked_for_s": tries.seconds_left} if tries.locked else {}
        audit(action, [], "wrong token", refused_in_window=tries.count, **locked)


def audit(action: str, job_ids: list[str], outcome: Any, **more: Any) -> None:
    """Log one admin action: who, what, on which jobs, and what came of it (and `more`)."""
    fields = {"admin_action": action, "job_ids": job_ids, "outcome": outcome,
              "remote_addr": request.remote_addr, "auth": g.get("admin_auth"), **more}  # fmt: skip
    said = "".join(f" {name}={value}" for name, value in more.items())
    log.info("admin %s %s: %s%s", action, ",".join(job_ids) or "-", outcome, said,
             extra={"fields": fields})  # fmt: skip


@bp.before_request
def guard() -> Response | None:
    """404 when admin is off, 401 (problem+json) without the right bearer token."""
    if not token():
        return problem(404, f"Nothing at {request.path}.")
    g.admin_auth = check(allow_session=False)
    if g.admin_auth is None:
        detail = "This needs the admin token: send `Authorization: Bearer <token>`."
        return problem(401, detail, title="Unauthorized", slug="unauthorized",
                       headers={"WWW-Authenticate": 'Bearer realm="alphametic admin"'})  # fmt: skip
    return None


def parse_filter(args: Any, prefix: str = "") -> Filter:
    """A listing filter from query or JSON arguments; unknown states and modes are refused."""
    given = {name: args.get(name) for name in FILTER_FIELDS}
    for name, value in given.items():
        if value is not None and not isinstance(value, str):
            # str() would turn {"client": 5} into "5", a filter that silently matches nothing.
            raise invalid(f"{prefix}{name} must be a string.", prefix + name)
    where = Filter(*(value or "" for value in given.values()))
    if where.state and where.state not in {s.value for s in State}:
        raise invalid(f"Unknown state {where.state!r}.", prefix + "state")
    if where.mode and where.mode not in {m.value for m in Mode}:
        raise invalid(f"Unknown mode {where.mode!r}.", prefix + "mode")
    return where


def body_filter(raw: object) -> Filter:
    """The filter of a bulk cancel's JSON body; unknown fields are refused, not ignored."""
    if not isinstance(raw, dict):
        raise invalid('"filter" must be an object such as {"state": "queued"}.', "filter")
    unknown = sorted(str(name) for name in raw if name not in FILTER_FIELDS)
    if unknown:  # a misspelt field ignored would widen the cancel to every job
        raise invalid(f"Unknown filter field(s): {', '.join(unknown)}.", "filter")
    return parse_filter(raw, "filter.")


def page_size(raw: str | None, default: int = 50) -> int:
    """A page size from 1 to MAX_LIMIT (422 naming `limit` otherwise)."""
    if raw is None or raw == "":
        return default
    size = whole_number(raw)
    if size is None or not 1 <= size <= MAX_LIMIT:
        raise invalid(f"limit must be a whole number from 1 to {MAX_LIMIT}.", "limit")
    return size


def parse_cursor(raw: str | None) -> float:
    """Where a page starts (the `next` of the page before); the newest job when absent."""
    if raw is None or raw == "":
        return math.inf
    cursor = float(raw) if CURSOR.fullmatch(raw) else math.nan
    if not math.isfinite(cursor):
        raise invalid("cursor must be the `next` value of the page before.", "cursor")
    return cursor


@bp.get("/jobs")
def jobs() -> Response:
    """Jobs newest first, filtered by state, mode and client; `next` pages on."""
    where = parse_filter(request.args)
    cursor, limit = parse_cursor(request.args.get("cursor")), page_size(request.args.get("limit"))
    listing = list_jobs(store(), where, cursor, limit)
    return jsonify(items=listing.items, next=listing.next, total=listing.total)


def cancel_ids(job_ids: list[str]) -> dict[str, str]:
    """Cancel each job: id -> 'canceled' (this call changed it), 'unchanged' or 'unknown'."""
    results = {}
    for job_id in job_ids[:MAX_BULK]:
        found = store().cancel(canonical_id(job_id) or job_id)
        results[job_id] = "unknown" if found is None else ("canceled" if found[1] else "unchanged")
    audit("cancel", list(results), results)
    return results


@bp.post("/jobs/cancel")
def cancel_many() -> Response:
    """Cancel the jobs named in {"ids": [...]} or matching {"filter": {state, mode, client}}."""
    check_json_depth(request.get_data(cache=True))  # 422 before the parser's recursion limit
    body = request.get_json(silent=True) or {}
    if not isinstance(body, dict):
        raise invalid('Send {"ids": ["<job id>", ...]} or {"filter": {"state": ...}}.', "body")
    ids = body.get("ids")
    if "filter" in body:
        listing = list_jobs(store(), body_filter(body["filter"]), limit=MAX_BULK)
        ids = [job["id"] for job in listing.items if job["state"] in UNFINISHED]
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise invalid('Send {"ids": ["<job id>", ...]} or {"filter": {"state": ...}}.', "ids")
    return jsonify(results=cancel_ids(ids))


@bp.post("/jobs/<job_id>/cancel")
def cancel_one(job_id: str) -> Response:
    """Cancel one job."""
    result = cancel_ids([job_id])[job_id]
    if result == "unknown":
        return problem(404, f"No job {job_id}.")
    return jsonify(id=job_id, result=result)


def delete_job(job_id: str) -> tuple[int, str]:
    """Delete an ended job's stored solutions and grid: (HTTP status, what happened)."""
    outcome = str(store().delete(canonical_id(job_id) or job_id))
    audit("delete", [job_id], outcome)
    status = {"deleted": 200, "gone": 404, "running": 409}.get(outcome, 409)
    if outcome == "running":
        outcome = "not deleted: the job has not ended (cancel it first)"
    return status, outcome


def _answer(job_id: str, status: int, outcome: str) -> Response:
    """The answer to one job's admin action: what happened, or a problem saying why not."""
    if status != 200:
        return problem(status, f"Job {job_id}: {outcome}.")
    return jsonify(id=job_id, result=outcome)


@bp.delete("/jobs/<job_id>")
def delete(job_id: str) -> Response:
    """Delete a finished or canceled job's stored data."""
    return _answer(job_id, *delete_job(job_id))


def requeue_job(job_id: str) -> tuple[int, str]:
    """Re-queue a failed job: (HTTP status, what happened)."""
    status, detail = requeue(store(), canonical_id(job_id) or job_id)
    audit("requeue", [job_id], status)
    if status == "requeued":
        return 200, f"re-queued on {detail}"
    if status == "gone":
        return 404, "unknown job"
    return 409, f"only a failed job can be re-queued (this one is {detail or status})"


@bp.post("/jobs/<job_id>/requeue")
def requeue_one(job_id: str) -> Response:
    """Start a failed job over under the same id."""
    return _answer(job_id, *requeue_job(job_id))


@bp.get("/queues")
def overview() -> Response:
    """Queues (messages waiting, workers) and each worker with the jobs it runs now."""
    return jsonify(queues=queues(store()), workers=workers(store()))
