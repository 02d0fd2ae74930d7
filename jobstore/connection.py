"""Redis connections and the translation of connection failures into Unavailable."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

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


def guarded(method: Callable[P, R]) -> Callable[P, R]:
    """Decorate a store method so connection failures raise Unavailable."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except UNREACHABLE as error:
            raise Unavailable(f"the job store is unavailable: {error}") from error

    return wrapper


def connect(settings: Settings) -> redis.Redis:
    """A decoded-string Redis client with short timeouts and a few quick retries."""
    return redis.Redis.from_url(
        settings.redis_url,
        decode_responses=True,
        socket_timeout=settings.redis_timeout,
        socket_connect_timeout=min(settings.redis_timeout, 2.0),
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 2),
        health_check_interval=30,
    )


_clients: dict[tuple[int, str], redis.Redis] = {}


def client_for(settings: Settings) -> redis.Redis:
    """A per-process cached client (a forked pool process must not share its parent's)."""
    key = (os.getpid(), settings.redis_url)
    if key not in _clients:
        _clients[key] = connect(settings)
    return _clients[key]


def call(function: Callable[..., Any], *args: Any) -> Any:
    """Call a Redis function, turning connection failures into Unavailable."""
    return guarded(function)(*args)
