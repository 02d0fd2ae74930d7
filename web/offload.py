"""CPU-heavy work (an explanation, an estimate) off the event loop when the web server runs
gevent (scripts/webserver.py): in gevent's thread pool the hub keeps its share of the GIL, so
the process's other requests (/healthz, long polls) go on being served meanwhile. Under plain
threads the work simply runs in the request's thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gevent import get_hub
from gevent.monkey import is_module_patched

R = TypeVar("R")


def offload(work: Callable[[], R]) -> R:
    """Run work in gevent's thread pool when this process is patched, else right here."""
    if not is_module_patched("threading"):
        return work()
    result: R = get_hub().threadpool.apply(work)
    return result
