"""Web logs: a request id on every line and in X-Request-ID, an access log, JSON on demand.

The id is taken from the request's X-Request-ID only behind trusted proxies
(ALPHAMETIC_PROXY_HOPS > 0), so a client cannot forge lines in an operator's logs; otherwise
it is made here. Every line logged while a request is served carries it (a handler filter),
and one access line per request ends it. Gunicorn's own lines are formatted by
scripts/gunicorn_logging.py (it must not import the app).
"""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid
from typing import Any

from flask import Flask, Response, g, has_request_context, request

from jobstore.logformat import formatter, log_format

HEADER = "X-Request-ID"
VALID_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
TEXT = "%(asctime)s %(levelname)s %(name)s [request %(request_id)s] %(message)s"
access_log = logging.getLogger("alphametic.access")


class RequestContext(logging.Filter):
    """Put the current request's id on every record a handler emits ('-' outside requests)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Add request_id; never drops a record."""
        if not hasattr(record, "request_id"):
            found = g.get("request_id") if has_request_context() else None
            record.request_id = found or "-"
        return True


def install_handler(kind: str) -> None:
    """One stderr handler on the root logger, once per process, in the configured format."""
    root = logging.getLogger()
    if any(getattr(h, "alphametic", False) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.alphametic = True  # type: ignore[attr-defined]
    handler.setFormatter(formatter(kind, TEXT))
    handler.addFilter(RequestContext())
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > logging.INFO:
        root.setLevel(logging.INFO)


def request_id(trusted: bool) -> str:
    """The proxy's id when trusted and well-formed, else a new one."""
    sent = request.headers.get(HEADER, "") if trusted else ""
    return sent if VALID_ID.fullmatch(sent) else uuid.uuid4().hex


def init_logging(app: Flask) -> None:
    """Request ids, the access log and the process's log handler."""
    install_handler(log_format())
    trusted = int(app.config.get("PROXY_HOPS") or 0) > 0

    @app.before_request
    def start() -> None:
        """Name the request and note when it began."""
        g.request_id = request_id(trusted)
        g.request_started = time.perf_counter()

    @app.after_request
    def finish(response: Response) -> Response:
        """Return the id and write the access line."""
        response.headers[HEADER] = g.get("request_id", "")
        started = g.get("request_started")
        took = (time.perf_counter() - started) * 1000 if started is not None else 0.0
        fields: dict[str, Any] = {
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round(took, 2),
            "bytes": response.calculate_content_length(),
            "remote_addr": request.remote_addr,
        }
        access_log.info(
            '%s "%s %s" %s %.1f ms', request.remote_addr, request.method,
            request.full_path.rstrip("?"), response.status_code, took, extra={"fields": fields},
        )  # fmt: skip
        return response
