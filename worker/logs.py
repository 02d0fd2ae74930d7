"""Worker logs: the job id and attempt on every line a job's run writes; JSON on demand.

Celery sets up its log handlers in the main process (pool processes inherit them); the
after_setup_* signals then give each handler our filter and, with ALPHAMETIC_LOG_FORMAT=json,
the JSON formatter. task_prerun names the job (the task's first argument) and the task names the
attempt once its claim has decided it, inside Redis (name_attempt). Lines
Celery writes about a task outside its run ("received", "succeeded in") carry the job id taken
from the task's arguments.
"""

from __future__ import annotations

import logging
import re
from contextvars import ContextVar
from typing import Any

from celery import signals

from jobstore.logformat import formatter, log_format

TEXT = "[%(asctime)s: %(levelname)s/%(processName)s] %(message)s%(job_context)s"
JOB_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:\.\d+)?")
# (job id, attempt) of the run this process is in; ("", "") between runs.
CURRENT: ContextVar[tuple[str, str]] = ContextVar("alphametic_job", default=("", ""))


def job_in_arguments(args: Any) -> str:
    """The job id in a Celery log call's arguments ({'args': [id]} or their repr), else ''."""
    if isinstance(args, dict) and "args" in args:
        found = JOB_ID.search(str(args["args"]))
        return found.group(0) if found else ""
    return ""


class JobContext(logging.Filter):
    """Add job_id, attempt and (for text) a ' [job … attempt …]' suffix to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Annotate the record; never drops one."""
        job_id, attempt = CURRENT.get()
        named = job_in_arguments(record.args)
        if named and named != job_id:
            job_id, attempt = named, ""
        record.job_id, record.attempt = job_id or None, int(attempt) if attempt else None
        suffix = f" [job {job_id}" + (f" attempt {attempt}]" if attempt else "]")
        record.job_context = suffix if job_id else ""
        return True


def configure_handlers(logger: logging.Logger | None, **_: Any) -> None:
    """Give every handler of a logger Celery just set up our filter and format."""
    kind = log_format()
    for handler in getattr(logger, "handlers", []):
        if not any(isinstance(f, JobContext) for f in handler.filters):
            handler.addFilter(JobContext())
        handler.setFormatter(formatter(kind, TEXT))


def run_started(task_id: str = "", args: Any = None, **_: Any) -> None:
    """A task run begins in this process: its first argument is the job id."""
    job_id = str(args[0]) if args else ""
    CURRENT.set((job_id, ""))


def run_ended(**_: Any) -> None:
    """The run is over: later lines belong to no job."""
    CURRENT.set(("", ""))


def name_attempt(job_id: str, attempt: int) -> None:
    """Name the attempt a claim started on the run's lines (tasks.py calls it after claiming)."""
    if CURRENT.get()[0] == job_id and attempt:
        CURRENT.set((job_id, str(attempt)))


def install_logging() -> None:
    """Connect the signals (once); an unknown ALPHAMETIC_LOG_FORMAT fails the start."""
    log_format()
    signals.after_setup_logger.connect(configure_handlers, weak=False)
    signals.after_setup_task_logger.connect(configure_handlers, weak=False)
    signals.task_prerun.connect(run_started, weak=False)
    signals.task_postrun.connect(run_ended, weak=False)
