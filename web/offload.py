"""CPU-heavy work (an estimate) off the event loop when the web server runs
gevent (scripts/webserver.py): in gevent's thread pool the hub keeps its share of the GIL, so
the process's other requests (/healthz, long polls) go on being served meanwhile. Under plain
threads the work simply runs in the request's thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from gevent import get_hub
from gevent.monkey import is_module_patched

R = TypeVar("R")


def offload(work: Callable[[], R]) -> R:
    """Run work in gevent's thread pool when this process is patched, else right here; what
    it raises is raised here."""
    if not is_module_patched("threading"):
        return work()
    # The pool prints a traceback for whatever its work raises (a bad puzzle's expected
    # PuzzleError among them, into a log meant to be one JSON object a line): the error
    # comes back as a value instead and is raised in the request, which answers it.
    done, value = get_hub().threadpool.apply(_caught, (work,))
    if not done:
        raise cast(BaseException, value)
    return cast(R, value)


def _caught(work: Callable[[], R]) -> tuple[bool, R | BaseException]:
    """(True, work's result), or (False, what it raised)."""
    try:
        return True, work()
    except Exception as exc:  # noqa: BLE001 (raised again in the request's greenlet)
        return False, exc
