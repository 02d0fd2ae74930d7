"""Gunicorn's workers, with its own refusal of a head too long as the API's problem+json.

A request line over 8190 bytes (the longest gunicorn reads) or a header section past its caps
is refused by gunicorn before the app sees it, with an HTML page; the app's own caps below
them (web/bodies.py: 414 and 431) cover the rest. These workers answer those two refusals as
the app does under /api/: application/problem+json with the same type, title and stable code.
`worker_class = "scripts.webworker.GeventWorker"` (scripts/webserver.py). Gunicorn loads this
class in its master process, before any worker monkey-patches, so it imports only the standard
library and gunicorn: nothing of the app; its texts are copies that tests/web/test_server_limits.py
compares with the app's (web/errors/problems.py, web/bodies.py). The page's language cannot be
known (gunicorn read no header): the API's problems are in English.
"""

from __future__ import annotations

import json
from typing import Any

from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.ggevent import GeventWorker as _GeventWorker

# Copies of the app's (web/errors/problems.py, web/bodies.py): it cannot be imported here.
MAX_REQUEST_LINE = 4094
MAX_HEADER_FIELD = 8190
TYPE_BASE = "/api/problems/"
PROBLEMS = {
    414: (
        "URI Too Long",
        "request-line-too-long",
        "Request line too long",
        f"The request line is longer than {MAX_REQUEST_LINE} bytes: shorten the query, "
        "or send the puzzle in a job's JSON body.",
    ),
    431: (
        "Request Header Fields Too Large",
        "header-too-large",
        "Header too large",
        f"The request's headers are larger than the server reads; a header line may have "
        f"{MAX_HEADER_FIELD} bytes.",
    ),
}


def problem_answer(exc: BaseException) -> bytes | None:
    """The whole HTTP answer to gunicorn's refusal of a head too long (None: another error)."""
    if isinstance(exc, LimitRequestLine):
        status = 414
    elif isinstance(exc, LimitRequestHeaders):
        status = 431
    else:
        return None
    reason, slug, title, detail = PROBLEMS[status]
    code = slug.replace("-", "_")
    body = {"type": TYPE_BASE + slug, "title": title, "status": status, "detail": detail}
    payload = json.dumps({**body, "code": code}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/problem+json\r\nContent-Length: {len(payload)}\r\n\r\n"
    )
    return head.encode("latin-1") + payload


class ProblemAnswers:
    """Mixin for a gunicorn worker: a head too long is answered as problem+json."""

    log: Any

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """Answer gunicorn's 414 and 431 as the API's problems; the rest as gunicorn does."""
        answer = problem_answer(exc)
        if answer is None:
            super().handle_error(req, client, addr, exc)  # type: ignore[misc]
            return
        where = addr[0] if addr else ""
        self.log.warning("Invalid request from ip=%s: %s", where, exc)
        try:
            util.write_nonblock(client, answer)
        except Exception:  # noqa: BLE001 (the client may be gone: as gunicorn's own)
            self.log.debug("Failed to send error message.")


class GeventWorker(ProblemAnswers, _GeventWorker):  # type: ignore[misc]
    """Gunicorn's gevent worker (scripts/webserver.py), answering heads too long as problems."""
