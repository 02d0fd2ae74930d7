"""Redis connections, and connection failures turned into Unavailable quickly.

A request must get its 503 within about the socket timeout whatever Redis does: a call that
times out is not retried (a frozen Redis would stack timeouts), only a dropped connection is
retried once (a restarted Redis leaves dead connections in the pool). And once a call timed
out, the store answers Unavailable at once for a moment (the Breaker), so a frozen Redis does
not tie up every server thread for a timeout each; the next call let through closes it again
whatever it raised, unless it timed out too.

Every reply goes to the call that sent for it (Paired, on every connection `connect` makes): a
call that times out, or fails in any way while its reply is pending, drops its connection, so
a late reply is never read by the next call (redis-py's Sentinel connection kept such a
connection: the next call read the previous one's reply, a job another job's record).

With REDIS_SENTINELS every client here follows the master the sentinels name (web, job store,
waiters, heartbeats: all connect through `connect`), and after a timeout asks them again
before its next call (a stalled master may be deposed by then); the Celery broker follows the
master through kombu's sentinel transport (worker/celery_app.py). A master stalled
past down-after resumes still a master though the sentinels promoted another: the pool also
leaves it at the next reading of the replicas (`follow_sentinels`), and alone it is below the
floor of 1 (the default with Sentinel), so it takes no write to lose at its demotion. Before
it is alone, a replica the sentinels have not moved yet still confirms its writes: a reading
taken while a sentinel reports the failover under way counts no replica, so those writes are
refused too (`failover_underway`).

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar, cast

import redis
from kombu.exceptions import OperationalError
from redis.backoff import ExponentialBackoff
from redis.client import Pipeline
from redis.connection import (
    AbstractConnection,
    Connection,
    ConnectionPool,
    SSLConnection,
    UnixDomainSocketConnection,
    parse_url,
)
from redis.retry import Retry
from redis.sentinel import (
    MasterNotFoundError,
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
)

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

# Errors that mean "Redis cannot take this call right now": unreachable, at its memory
# limit, or without a script it had (a Lua bug is none of them). Whoever catches them waits
# and tries again.
UNREACHABLE: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OperationalError,
    ConnectionError,
    OutOfMemory,
    # A script refused unrun by a server that lost its scripts under the call (a restart or a
    # failover between a pipeline's loading them and its retried run): the next call loads.
    redis.exceptions.NoScriptError,
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


class Paused(Unavailable):
    """Refused by the store's breaker without asking Redis (it did not answer a moment ago)."""


class Breaker:
    """After a call timed out, calls fail at once for `pause` seconds; then one trial call
    goes to Redis while the others keep failing fast. Every call let through ends by closing
    or reopening it, whatever it raised: a timeout reopens it, anything else (a reply, or an
    error that came with one: NotHeld, RateLimited, a full Redis) means Redis answered and
    closes it, so no outcome leaves it open. A frozen Redis holds at most one server thread
    per process, not every one of them."""

    def __init__(self, pause: float = 1.0) -> None:
        self.pause = pause
        self._open_until = 0.0
        self._trial = False
        self._lock = threading.Lock()
        self._local = threading.local()  # how deep this thread is in calls let through

    @property
    def is_open(self) -> bool:
        """Whether a call timed out and none has been answered since."""
        return bool(self._open_until)

    @contextmanager
    def call(self) -> Iterator[None]:
        """Let one store call through (or raise Paused) and end it by its outcome; a call
        made within one already let through is part of it, not refused again."""
        depth: int = getattr(self._local, "depth", 0)
        if not depth:
            self.check()
        self._local.depth = depth + 1
        try:
            yield
        except BaseException as error:
            if timed_out(error):
                self.trip()
            else:
                self.ok()
            raise
        else:
            self.ok()
        finally:
            self._local.depth = depth

    def check(self) -> None:
        """Raise Paused while open, or while another call is the trial."""
        with self._lock:
            if not self._open_until:
                return
            if time.monotonic() < self._open_until or self._trial:
                raise Paused("the job store is unavailable (it did not answer a moment ago)")
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


def timed_out(error: BaseException | None) -> bool:
    """Whether a call's error, or one it was raised from, is a timeout: Redis did not answer
    (a refused connection did answer, at once: Redis is away, not frozen)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:  # a chain that loops ends too
        if isinstance(error, TIMEOUTS) or (isinstance(error, Unconfirmed) and error.timed_out):
            return True
        seen.add(id(error))
        error = error.__cause__
    return False


def guarded(method: Callable[P, R]) -> Callable[P, R]:
    """Decorate a store method so connection failures raise Unavailable (Paused at once while
    the store's breaker is open)."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        breaker = getattr(args[0], "breaker", None) if args else None
        if not isinstance(breaker, Breaker):
            return answered(method, *args, **kwargs)
        with breaker.call():
            return answered(method, *args, **kwargs)

    return wrapper


def answered(method: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Call method; a Redis it cannot reach raises Unavailable (Full: Redis is full)."""
    try:
        return method(*args, **kwargs)
    except UNREACHABLE as error:
        if isinstance(error, OutOfMemory):
            raise Full(f"the job store is full: {error}") from error
        message = f"the job store is unavailable: {error}"
        if isinstance(error, Unconfirmed):
            raise Unavailable(message, job_id=error.job_id, may_exist=True) from error
        raise Unavailable(message) from error


TIMEOUTS = (redis.exceptions.TimeoutError, TimeoutError)


def connect(settings: Settings) -> redis.Redis:
    """A decoded-string Redis client with short timeouts: a dropped connection is retried
    once, a timeout never (see the module's docstring); with REDIS_SENTINELS, a client of
    whichever server the sentinels name master at the time."""
    if settings.sentinels:
        return follow_master(settings)
    url = parse_url(settings.redis_url)
    paired = PAIRED[url.get("connection_class", Connection)]
    pool = PairedPool.from_url(
        settings.redis_url, connection_class=paired, **client_options(settings)
    )
    return redis.Redis.from_pool(pool)


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
        settings.redis_sentinel_master,
        connection_pool_class=PairedSentinelPool,
        connection_class=PairedSentinelConnection,
        **credentials,
        **client_options(settings),
    )
    _replicas[id(client.connection_pool)] = Replicas(settings.replica_floor)
    return client


# redis-py is untyped here (Any to mypy): every subclass of one of its classes below is one of
# Any, hence each `type: ignore[misc]`.
class Paired(AbstractConnection):  # type: ignore[misc]
    """A connection that hands each reply to the call that sent for it (mixed into the ones
    `connect` makes): a read that fails in any way (a timeout above all: the reply may come
    later) drops the connection, as redis-py's plain Connection does and its Sentinel one
    does not (redis-py 8 reads there with disconnect_on_error=False); and one given back to
    its pool while it still owes a reply (its caller interrupted between sending and reading,
    as by a soft time limit, or unable to parse one reply of a pipeline) is dropped there
    (PairedPool), never handed to the next caller with the old reply on its way."""

    owed = 0  # replies sent for and not read yet
    _batch = 0  # commands in the buffer being sent

    def send_command(self, *args: Any, **kwargs: Any) -> None:
        """Send one command (one reply owed)."""
        self._batch = 1
        super().send_command(*args, **kwargs)

    def pack_commands(self, commands: Any) -> Any:
        """Pack a pipeline's commands (one reply owed for each once sent)."""
        commands = list(commands)
        self._batch = len(commands)
        return super().pack_commands(commands)

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        """Send what was packed; its replies are owed once it is sent (a failed send drops
        the connection, and with it what was owed)."""
        batch, self._batch = self._batch, 0  # a health check's PING, sent first, is its own
        super().send_packed_command(command, check_health)
        self.owed += batch

    def read_response(self, *args: Any, disconnect_on_error: bool = True, **kwargs: Any) -> Any:
        """Read one reply; any failure to read it drops the connection (pub/sub, which
        reads a stream of its own with no call waiting, still asks not to)."""
        try:
            reply = super().read_response(*args, disconnect_on_error=disconnect_on_error, **kwargs)
        except redis.exceptions.ResponseError:
            self.owed = max(0, self.owed - 1)  # an error reply, read whole
            raise
        self.owed = max(0, self.owed - 1)  # pub/sub messages come unasked
        return reply

    def disconnect(self, *args: Any, **kwargs: Any) -> None:
        """Close the socket: nothing is owed on it any more."""
        super().disconnect(*args, **kwargs)
        self.owed = 0


class PairedConnection(Paired, Connection):  # type: ignore[misc]
    """A Paired TCP connection (redis://)."""


class PairedSSLConnection(Paired, SSLConnection):  # type: ignore[misc]
    """A Paired TLS connection (rediss://)."""


class PairedUnixConnection(Paired, UnixDomainSocketConnection):  # type: ignore[misc]
    """A Paired Unix socket connection (unix://)."""


# The Paired class of each connection class a REDIS_URL can name (redis-py's parse_url).
PAIRED: dict[type, type[Paired]] = {
    Connection: PairedConnection,
    SSLConnection: PairedSSLConnection,
    UnixDomainSocketConnection: PairedUnixConnection,
}


class PairedSentinelConnection(Paired, SentinelManagedConnection):  # type: ignore[misc]
    """A Paired connection to the master the sentinels name. After a timeout the master may
    be frozen or deposed: its pool forgets it and drops its idle connections, so the next
    connection asks the sentinels again, and one in use now is dropped when given back
    (unless it is to the master they name by then)."""

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        """Read one reply; after a timeout, ask the sentinels again for the next."""
        try:
            return super().read_response(*args, **kwargs)
        except redis.exceptions.TimeoutError:
            self.forget_master()
            raise

    def forget_master(self) -> None:
        """Have the pool's next connection ask the sentinels where the master is."""
        proxy = self.connection_pool  # redis-py's proxy of the pool, holding its master
        proxy.reset()
        pool = proxy.connection_pool_ref()
        if pool is not None:
            pool.disconnect(inuse_connections=False)


class PairedPool(ConnectionPool):  # type: ignore[misc]
    """A pool that drops a connection given back while it still owes a reply (Paired)."""

    def release(self, connection: Any) -> None:
        """Take a connection back, closed first if a reply is still on its way."""
        if getattr(connection, "owed", 0):
            connection.disconnect()
        super().release(connection)


class PairedSentinelPool(PairedPool, SentinelConnectionPool):  # type: ignore[misc]
    """The Sentinel-managed pool of Paired connections to the master."""


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
    (INFO replication, at most once per REPLICAS_FRESH, each time on the master the sentinels
    name then), and the floor below which its writes are refused (Settings.replica_floor). A
    change is logged once."""

    def __init__(self, floor: int) -> None:
        self.floor = floor
        self.connected: int | None = None
        self.underway = False  # a sentinel said the master is being failed over
        self.read_at = 0.0
        self._lock = threading.Lock()

    def now(self, client: redis.Redis) -> int:
        """The replicas connected now (a reading up to REPLICAS_FRESH old); none while a
        sentinel says a failover of this master is under way (see failover_underway)."""
        with self._lock:
            if self.connected is not None and time.monotonic() - self.read_at < REPLICAS_FRESH:
                return self.connected
        follow_sentinels(client)
        connected = int(client.info("replication").get("connected_slaves", 0))
        underway = bool(connected) and failover_underway(client)
        if underway:
            connected = 0  # below any floor of 1: writes refused until the sentinels settle
        if underway != self.underway:
            level, said = (logging.WARNING, "under way") if underway else (logging.INFO, "over")
            log.log(level, "redis: a failover of the master is %s", said)
            self.underway = underway
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


def follow_sentinels(client: redis.Redis) -> None:
    """Ask the sentinels which server is master now; when they name another than the pool
    last connected to, redis-py drops the pool's idle connections (an in-use one as it is
    released), so the next call goes to the new master. A master stalled past down-after comes
    back still a master: without this, connections pooled before the stall stay on it."""
    pool = client.connection_pool
    if isinstance(pool, SentinelConnectionPool):
        pool.get_master_address()


def failover_underway(client: redis.Redis) -> bool:
    """Whether a sentinel that answers says the master is objectively down or being failed
    over. A master stalled just past down-after resumes while the sentinels' leader is still
    moving its replicas to the one it promoted: a replica not yet moved confirms the master's
    writes, then resyncs from the new master and drops them (soak seed 1: five accepted jobs
    lost this way). The leader's `failover_in_progress` covers that whole window; the master
    the sentinels name changes only at its end (follow_sentinels then moves the pool)."""
    pool = client.connection_pool
    if not isinstance(pool, SentinelConnectionPool):
        return False
    for sentinel in pool.sentinel_manager.sentinels:
        try:
            state = sentinel.sentinel_master(pool.service_name)
        except redis.exceptions.RedisError:
            continue  # an unreachable sentinel is not a failover
        flags = state.get("flags", "")
        names = flags.split(",") if isinstance(flags, str) else flags
        if "failover_in_progress" in names or "o_down" in names:
            return True
    return False


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
