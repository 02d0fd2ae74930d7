"""Log lines for web and workers alike: ALPHAMETIC_LOG_FORMAT=text (default) or json.

A JSON line has time, level, logger, message and process, then whichever context the line
carries (request_id on the web; job_id and attempt in workers) and a logger's extra `fields`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from datetime import UTC, datetime

from .settings import ConfigError

CONTEXT = ("request_id", "job_id", "attempt")
FORMATS = ("text", "json")


def log_format(environ: Mapping[str, str] | None = None) -> str:
    """The configured format; an unknown value fails at start rather than logging oddly."""
    env = os.environ if environ is None else environ
    value = env.get("ALPHAMETIC_LOG_FORMAT", "").strip().lower() or "text"
    if value not in FORMATS:
        raise ConfigError(f"ALPHAMETIC_LOG_FORMAT must be one of {FORMATS}, got {value!r}")
    return value


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON object (context fields and extra `fields` included)."""
        moment = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, object] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        for name in CONTEXT:
            value = getattr(record, name, None)
            if value not in (None, "", "-"):
                entry[name] = value
        extra = getattr(record, "fields", None)
        if isinstance(extra, Mapping):
            entry.update(extra)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def formatter(kind: str, text_format: str) -> logging.Formatter:
    """The formatter for a format name: JSON, or the given text layout."""
    return JsonFormatter() if kind == "json" else logging.Formatter(text_format)
