"""Redis connections, and connection failures turned into Unavailable quickly.

A request must get its 503 within about the socket timeout whatever Redis does: a call that
times out is not retried (a frozen Redis would stack timeouts), only a dropped connection is
retried once (a restarted Redis leaves dead connections in the pool). And once a call timed
out, the store answers Unavailable at once for a moment (the Breaker), so a frozen Redis does
not tie up every server thread for a timeout each.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import redis
from kombu.exceptions import OperationalError
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from .settings import Settings

P = ParamSpec("P")
R = TypeVar("R")

# Errors that mean "Redis cannot be reached right now" (a Lua bug is not one of them).
UNREACHABLE: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OperationalError,
    ConnectionError,
)


class Unavailable(Exception):
    """Redis (the job store and broker) cannot be reached; try again later."""


class Breaker:
    """After a timed-out call, calls fail at once for `pause` seconds instead of waiting."""

    def __init__(self, pause: float = 1.0) -> None:
        self.pause = pause
        self._open_until = 0.0
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise Unavailable while open."""
        if time.monotonic() < self._open_until:
            raise Unavailable("the job store is unavailable (it did not answer a moment ago)")

    def trip(self) -> None:
        """Open after a call timed out."""
        with self._lock:
            self._open_until = time.monotonic() + self.pause


def guarded(method: Callable[P, R]) -> Callable[P, R]:
    """Decorate a store method so connection failures raise Unavailable (fast while the
    store's breaker is open)."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        breaker = getattr(args[0], "breaker", None) if args else None
        if isinstance(breaker, Breaker):
            breaker.check()
        try:
            return method(*args, **kwargs)
        except UNREACHABLE as error:
            if isinstance(breaker, Breaker) and isinstance(error, TIMEOUTS):
                breaker.trip()
            raise Unavailable(f"the job store is unavailable: {error}") from error

    return wrapper


TIMEOUTS = (redis.exceptions.TimeoutError, TimeoutError)


def connect(settings: Settings) -> redis.Redis:
    """A decoded-string Redis client with short timeouts: a dropped connection is retried
    once, a timeout never (see the module's docstring)."""
    return redis.Redis.from_url(
        settings.redis_url,
        decode_responses=True,
        socket_timeout=settings.redis_timeout,
        socket_connect_timeout=min(settings.redis_timeout, 2.0),
        retry=Retry(
            ExponentialBackoff(cap=0.5, base=0.05), 1, (redis.exceptions.ConnectionError,)
        ),
        health_check_interval=30,
    )


_clients: dict[tuple[int, str], redis.Redis] = {}


def client_for(settings: Settings) -> redis.Redis:
    """A per-process cached client (a forked pool process must not share its parent's)."""
    key = (os.getpid(), settings.redis_url)
    if key not in _clients:
        _clients[key] = connect(settings)
    return _clients[key]
