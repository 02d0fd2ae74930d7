"""gunicorn's settings for the web tier: `gunicorn -c python:scripts.webserver web.wsgi:app`.

`make run` (scripts/run.py), the Dockerfile and docker-compose.yml all start the server this
way, adding only the address and WEB_CONCURRENCY. The gevent worker serves each connection in
a greenlet, up to `worker_connections` per process, so clients that send or read slowly hold a
greenlet, not one of a few threads (issue 14; figures in BENCHMARKS.md, "Slow clients").
Deadlines: a request's headers must arrive within `keepalive` seconds (the gevent worker
reads them under a gevent.Timeout of that length), its body within web.bodies.BODY_SECONDS,
and each socket read or write may wait web.bodies.IO_SECONDS. Gunicorn imports this module in
its master process, so it imports nothing of the app: modules imported before a worker's
monkey-patching would keep unpatched locks.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

# Gunicorn's gevent worker (it monkey-patches each worker before the app is imported there),
# answering gunicorn's own refusal of a head too long as the API's problem+json.
worker_class = "scripts.webworker.GeventWorker"
worker_connections = 1000  # connections one process serves at once
keepalive = 5  # seconds: idle keep-alive connections, and the whole header of each request
graceful_timeout = 3  # seconds a stopping worker finishes its requests (long polls stop early)
timeout = 30  # seconds a worker may go without a heartbeat (a CPU-bound request) before a restart
# Newer gunicorns open a control socket at one fixed path under $HOME: a second server (another
# checkout, a test) would take it over. Older ones ignore the unknown setting.
control_socket_disable = True
# Gunicorn's own lines (and an access log, if configured) in ALPHAMETIC_LOG_FORMAT, escaped.
logger_class = "scripts.gunicorn_logging.GunicornLogger"
# The app refuses a request line over 4094 bytes (414) and a header line over 8190 (431) as
# problem+json (web.bodies.check_head): gunicorn's own limits sit above, as a backstop whose
# refusal the worker answers the same way (scripts/webworker.py). 8190 is the longest request
# line gunicorn reads.
limit_request_line = 8190
limit_request_field_size = 16380


def on_starting(server: Any) -> None:
    """Give every worker one session key when none is set (instead of --preload, see below)."""
    # --preload would import the app in the master, before the workers' monkey-patching: its
    # locks and events would then block whole processes. The key is what it was there for.
    if not os.environ.get("ALPHAMETIC_SECRET_KEY", "").strip():
        os.environ["ALPHAMETIC_SECRET_KEY"] = secrets.token_hex(32)
