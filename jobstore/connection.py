"""Redis connections, and connection failures turned into Unavailable quickly.

A request must get its 503 within about the socket timeout whatever Redis does: a call that
times out is not retried (a frozen Redis would stack timeouts), only a dropped connection is
retried once (a restarted Redis leaves dead connections in the pool). And once a call timed
out, the store answers Unavailable at once for a moment (the Breaker), so a frozen Redis does
not tie up every server thread for a timeout each.

With REDIS_SENTINELS every client here follows the master the sentinels name (web, job store,
waiters, heartbeats: all connect through `connect`); the Celery broker does the same through
kombu's sentinel transport (worker/celery_app.py).

A Redis at its maxmemory (noeviction) refuses writes with an OOM error: to callers that is a
Redis that cannot take this write right now (it is in UNREACHABLE, so a worker's write backs
off and retries), and to the API a Full (an Unavailable: 503 with Retry-After, not 500).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

import redis
from kombu.exceptions import OperationalError
from redis.backoff import ExponentialBackoff
from redis.client import Pipeline
from redis.connection import parse_url
from redis.retry import Retry
from redis.sentinel import MasterNotFoundError, Sentinel, SentinelConnectionPool

from .settings import Settings

# Seconds a script call waits for the replicas to confirm its writes (Sentinel only; at most
# half the socket timeout, so WAIT answers before the socket gives up on it).
REPLICA_WAIT = 1.0
# How long a reading of the master's connected replicas is used before it is read again (and
# after a write they did not all confirm, it is read again at once).
REPLICAS_FRESH = 1.0

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

# Redis at its memory limit refuses writes ("OOM command not allowed ..."): redis-py raises
# this for any reply starting with OOM, a script's included.
OutOfMemory = redis.exceptions.OutOfMemoryError
# Seconds a client refused because Redis is at its memory limit is told to wait.
FULL_RETRY = 10

# Errors that mean "Redis cannot take this call right now": unreachable, or at its memory
# limit (a Lua bug is not one of them). Whoever catches them waits and tries again.
UNREACHABLE: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OperationalError,
    ConnectionError,
    OutOfMemory,
)


# For kombu's Redis transport (worker/broker.py): the broker is a Redis too, though not the job
# store, and its errors are redis-py's. Every redis-py error, and the one a closed one raises.
RedisError = redis.exceptions.RedisError
ClosedConnection = redis.exceptions.ConnectionError


class Unavailable(Exception):
    """Redis (the job store and broker) cannot be reached; try again later.

    `may_exist`: a write was sent whose outcome is unknown (its reply lost, or no replica
    confirmed it in time), so what it made may exist: `job_id` names it (a submission: the
    same submission sent again finds it). False: nothing was written."""

    def __init__(self, message: str, *, job_id: str = "", may_exist: bool = False) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.may_exist = may_exist


class Unconfirmed(ConnectionError):
    """A write that reached Redis, or may have, with no confirmed outcome: `job_id` may exist
    (guarded turns it into Unavailable(may_exist=True))."""

    def __init__(self, cause: BaseException, job_id: str) -> None:
        super().__init__(str(cause))
        self.job_id = job_id
        self.timed_out = isinstance(cause, TIMEOUTS)


class Full(Unavailable):
    """Redis is at its memory limit and refused a write (OOM); try again later."""

    retry_after = FULL_RETRY


class Breaker:
    """After a call timed out, calls fail at once for `pause` seconds; then one trial call
    goes to Redis while the others keep failing fast, and its outcome closes or reopens it.
    So a frozen Redis holds at most one server thread per process, not every one of them."""

    def __init__(self, pause: float = 1.0) -> None:
        self.pause = pause
        self._open_until = 0.0
        self._trial = False
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise Unavailable while open, or while another call is the trial."""
        with self._lock:
            if not self._open_until:
                return
            if time.monotonic() < self._open_until or self._trial:
                raise Unavailable("the job store is unavailable (it did not answer a moment ago)")
            self._trial = True  # this call finds out whether Redis answers again

    def ok(self) -> None:
        """Close after a call that reached Redis."""
        if self._open_until:
            with self._lock:
                self._open_until, self._trial = 0.0, False

    def trip(self) -> None:
        """Open after a call timed out."""
        with self._lock:
            self._open_until, self._trial = time.monotonic() + self.pause, False


def guarded(method: Callable[P, R]) -> Callable[P, R]:
    """Decorate a store method so connection failures raise Unavailable (fast while the
    store's breaker is open)."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        breaker = getattr(args[0], "breaker", None) if args else None
        if isinstance(breaker, Breaker):
            breaker.check()
        try:
            result = method(*args, **kwargs)
        except UNREACHABLE as error:
            if isinstance(error, OutOfMemory):
                if isinstance(breaker, Breaker):
                    breaker.ok()  # Redis answered: it is full, not away
                raise Full(f"the job store is full: {error}") from error
            unconfirmed = error if isinstance(error, Unconfirmed) else None
            if isinstance(breaker, Breaker):
                if isinstance(error, TIMEOUTS) or (unconfirmed and unconfirmed.timed_out):
                    breaker.trip()
                else:
                    breaker.ok()  # refused at once: Redis is away, not frozen; no waiting
            message = f"the job store is unavailable: {error}"
            if unconfirmed is not None:
                raise Unavailable(message, job_id=unconfirmed.job_id, may_exist=True) from error
            raise Unavailable(message) from error
        if isinstance(breaker, Breaker):
            breaker.ok()
        return result

    return wrapper


TIMEOUTS = (redis.exceptions.TimeoutError, TimeoutError)


def connect(settings: Settings) -> redis.Redis:
    """A decoded-string Redis client with short timeouts: a dropped connection is retried
    once, a timeout never (see the module's docstring); with REDIS_SENTINELS, a client of
    whichever server the sentinels name master at the time."""
    if settings.sentinels:
        return follow_master(settings)
    return redis.Redis.from_url(settings.redis_url, **client_options(settings))


def client_options(settings: Settings) -> dict[str, Any]:
    """Connection options shared by the plain and the Sentinel-managed client."""
    return {
        "decode_responses": True,
        "socket_timeout": settings.redis_timeout,
        "socket_connect_timeout": min(settings.redis_timeout, 2.0),
        "retry": Retry(
            ExponentialBackoff(cap=0.5, base=0.05), 1, (redis.exceptions.ConnectionError,)
        ),
        "health_check_interval": 30,
    }


def follow_master(settings: Settings) -> redis.Redis:
    """A client of the current master: each new connection asks the sentinels where it is,
    and a demoted master's READONLY answer counts as a dropped connection (retried once)."""
    url = parse_url(settings.redis_url)  # the database and the master's credentials
    credentials = {key: url[key] for key in ("db", "username", "password") if key in url}
    timeouts: dict[str, Any] = {
        "socket_timeout": min(settings.redis_timeout, 2.0),
        "socket_connect_timeout": min(settings.redis_timeout, 1.0),
    }
    if settings.redis_sentinel_password:
        timeouts["password"] = settings.redis_sentinel_password
    sentinel = Sentinel(settings.sentinels, sentinel_kwargs=timeouts)
    client = sentinel.master_for(
        settings.redis_sentinel_master, **credentials, **client_options(settings)
    )
    _replicas[id(client.connection_pool)] = Replicas(settings.min_replicas)
    return client


# redis.exceptions is untyped here: subclassing its ConnectionError is Any to mypy.
class NotReplicated(redis.exceptions.ConnectionError):  # type: ignore[misc]
    """No replica confirmed a write in time: it may or may not survive a failover.

    `applied`: the script ran on the master (False: refused below the floor, nothing run);
    `reply`: what it answered there (None when it did not run)."""

    def __init__(self, message: str, *, applied: bool = False, reply: Any = None) -> None:
        super().__init__(message)
        self.applied = applied
        self.reply = reply


def written_nothing(error: BaseException) -> bool:
    """Whether a failed call certainly wrote nothing: refused below the replica floor, no
    master to send it to (Sentinel named none), or refused by a full Redis (OOM)."""
    if isinstance(error, NotReplicated):
        return not error.applied
    return isinstance(error, MasterNotFoundError | OutOfMemory)


class Replicas:
    """The replicas connected to the master a Sentinel-managed client writes to, as last read
    (INFO replication, at most once per REPLICAS_FRESH), and the floor below which its writes
    are refused (Settings.min_replicas). A change is logged once."""

    def __init__(self, floor: int) -> None:
        self.floor = floor
        self.connected: int | None = None
        self.read_at = 0.0
        self._lock = threading.Lock()

    def now(self, client: redis.Redis) -> int:
        """The replicas connected now (a reading up to REPLICAS_FRESH old)."""
        with self._lock:
            if self.connected is not None and time.monotonic() - self.read_at < REPLICAS_FRESH:
                return self.connected
        connected = int(client.info("replication").get("connected_slaves", 0))
        with self._lock:
            if connected != self.connected:
                self.log_change(connected)
            self.connected, self.read_at = connected, time.monotonic()
        return connected

    def log_change(self, connected: int) -> None:
        """One line for each change of the count: what it means for writes."""
        if connected < self.floor:
            level, meaning = logging.WARNING, "writes refused"
        elif connected == 0:
            level, meaning = logging.WARNING, "degraded: writes go on unconfirmed"
        else:
            level, meaning = logging.INFO, "writes confirmed by each"
        log.log(level, "redis: %d replica(s) connected to the master (floor %d): %s",
                connected, self.floor, meaning)  # fmt: skip

    def forget(self) -> None:
        """Read them again at the next write (a write they did not all confirm)."""
        with self._lock:
            self.read_at = 0.0


_replicas: dict[int, Replicas] = {}


def replicas_of(client: redis.Redis) -> Replicas | None:
    """The replica reading of a Sentinel-managed client (None for a plain one)."""
    return _replicas.get(id(client.connection_pool))


def replicated(client: redis.Redis, run: Callable[[Pipeline | None], R]) -> R:
    """Run one script call and, on a Sentinel-managed client, make sure every replica
    connected to the master has its writes too before returning, so whichever one a failover
    promotes holds everything confirmed.

    `run(pipe)` queues the call on `pipe` (or runs it at once when given None). WAIT counts
    only the writes of its own connection, so the call and the WAIT go down one connection as
    a pipeline (not MULTI: WAIT never blocks inside one). A master with no replica (its only
    one died, or was just promoted) confirms at once, unless that is below the floor
    (ALPHAMETIC_MIN_REPLICAS): then nothing is run and NotReplicated says why. Raises
    NotReplicated (a connection error: the store answers Unavailable, a worker retries) when
    the connected replicas did not all confirm within REPLICA_WAIT; the writes may exist on
    the master all the same.
    """
    pool = client.connection_pool
    if not isinstance(pool, SentinelConnectionPool):
        return run(None)
    replicas = replicas_of(client) or Replicas(0)
    want = replicas.now(client)
    if want < replicas.floor:
        replicas.forget()
        raise NotReplicated(
            f"{want} replica(s) connected, {replicas.floor} required (ALPHAMETIC_MIN_REPLICAS)"
        )
    if want == 0:
        return run(None)
    timeout = pool.connection_kwargs.get("socket_timeout") or 2 * REPLICA_WAIT
    wait_ms = int(min(REPLICA_WAIT, timeout / 2) * 1000)
    with client.pipeline(transaction=False) as pipe:
        run(pipe)
        pipe.wait(want, wait_ms)
        reply, confirmed = pipe.execute()
    if int(confirmed) < want:
        replicas.forget()
        raise NotReplicated(
            f"{confirmed} of {want} replica(s) confirmed the write within {wait_ms} ms",
            applied=True,
            reply=reply,
        )
    return cast(R, reply)


_clients: dict[tuple[int, str, str], redis.Redis] = {}


def client_for(settings: Settings) -> redis.Redis:
    """A per-process cached client (a forked pool process must not share its parent's)."""
    key = (os.getpid(), settings.redis_url, settings.redis_sentinels)
    if key not in _clients:
        _clients[key] = connect(settings)
    return _clients[key]
