"""Log lines for web and workers alike: ALPHAMETIC_LOG_FORMAT=text (default) or json.

A JSON line has time, level, logger, message and process, then whichever context the line
carries (request_id on the web; job_id and attempt in workers) and a logger's extra `fields`.
Both formats escape control characters (CR, LF, the rest of C0 and C1, U+2028/2029): a
client's text in a message (a path with %0A) cannot start a line of its own.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime

from .settings import ConfigError

CONTEXT = ("request_id", "job_id", "attempt")
FORMATS = ("text", "json")
# Every character a log reader may take for a line break or a terminal control (tab stays).
# scripts/gunicorn_logging.py keeps a copy (it must not import the app); a test compares them.
CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
ESCAPES = {"\n": "\\n", "\r": "\\r"}


def escape_controls(text: str) -> str:
    """The text with each control character written as an escape (\\n, \\r, \\u001b)."""
    return CONTROLS.sub(lambda found: ESCAPES.get(found[0], f"\\u{ord(found[0]):04x}"), text)


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
        # json.dumps escapes C0 but leaves DEL, C1 and U+2028/2029, which split lines too.
        return escape_controls(json.dumps(entry, default=str, ensure_ascii=False))


class TextFormatter(logging.Formatter):
    """The text layout with control characters escaped (a traceback keeps its lines)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        """The line before any traceback, escaped."""
        return escape_controls(super().formatMessage(record))


def formatter(kind: str, text_format: str) -> logging.Formatter:
    """The formatter for a format name: JSON, or the given text layout."""
    return JsonFormatter() if kind == "json" else TextFormatter(text_format)
