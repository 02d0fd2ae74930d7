"""Gunicorn's own lines (start, workers booting, errors) in ALPHAMETIC_LOG_FORMAT too.

`--logger-class scripts.gunicorn_logging.GunicornLogger`. Gunicorn loads this class in its
master process, before any worker monkey-patches (gevent), so it imports only the standard
library and gunicorn: nothing of the app. Its JSON lines have the same core fields as the
app's (jobstore/logformat.py): time, level, logger, message, process.
"""

from __future__ import annotations

import json
import logging
import os
from datetime import UTC, datetime
from typing import Any

from gunicorn.glogging import Logger


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
        return json.dumps(entry, ensure_ascii=False, default=str)


class GunicornLogger(Logger):  # type: ignore[misc]
    """Gunicorn's logger, switched to JSON lines when ALPHAMETIC_LOG_FORMAT=json."""

    def setup(self, cfg: Any) -> None:
        """Set up as gunicorn does, then give its handlers the JSON format when asked."""
        super().setup(cfg)
        if os.environ.get("ALPHAMETIC_LOG_FORMAT", "").strip().lower() == "json":
            for logger in (self.error_log, self.access_log):
                for handler in logger.handlers:
                    handler.setFormatter(JsonLines())
