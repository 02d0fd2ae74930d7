"""Gunicorn's own lines (start, workers booting, errors) in ALPHAMETIC_LOG_FORMAT too.

`--logger-class scripts.gunicorn_logging.GunicornLogger`. Gunicorn loads this class in its
master process, before any worker monkey-patches (gevent), so it imports only the standard
library and gunicorn: nothing of the app. Its JSON lines have the same core fields as the
app's (jobstore/logformat.py): time, level, logger, message, process. In both formats, and in
gunicorn's access log when one is configured, control characters are escaped as the app's are.
"""

from __future__ import annotations

import json
import logging
import os
import re
from datetime import UTC, datetime
from typing import Any

from gunicorn.glogging import Logger

# A copy of jobstore.logformat's (it cannot be imported here); tests/ops/test_logs.py compares.
CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
ESCAPES = {"\n": "\\n", "\r": "\\r"}


def escape_controls(text: str) -> str:
    """The text with each control character written as an escape (\\n, \\r, \\u001b)."""
    return CONTROLS.sub(lambda found: ESCAPES.get(found[0], f"\\u{ord(found[0]):04x}"), text)


class JsonLines(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as JSON."""
        moment = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, Any] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return escape_controls(json.dumps(entry, ensure_ascii=False, default=str))


class Escaped(logging.Formatter):
    """Gunicorn's own text layout, its message line escaped (a traceback keeps its lines)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        """The line before any traceback, escaped."""
        return escape_controls(super().formatMessage(record))


class GunicornLogger(Logger):  # type: ignore[misc]
    """Gunicorn's logger, switched to JSON lines when ALPHAMETIC_LOG_FORMAT=json."""

    def setup(self, cfg: Any) -> None:
        """Set up as gunicorn does, then give its handlers the JSON or the escaped text format."""
        super().setup(cfg)
        json_lines = os.environ.get("ALPHAMETIC_LOG_FORMAT", "").strip().lower() == "json"
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                layout = handler.formatter or logging.Formatter()
                text = Escaped(layout._fmt, layout.datefmt)  # gunicorn's own layout, kept
                handler.setFormatter(JsonLines() if json_lines else text)
