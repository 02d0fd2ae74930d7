"""Who is asking, and what it costs them: the client's identity, its rates of job-creating
requests (and the decorators that charge them) and of status reads, its cap of unfinished jobs
and storage left."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

from flask import current_app, g, request

from jobstore import Job, Rate, Submission
from web.store import store

P = ParamSpec("P")
R = TypeVar("R")

# Seconds a client at the cap of unfinished jobs is told to wait before retrying.
QUEUE_FULL_RETRY = 5


def client_id() -> str:
    """Return the client's identity for the per-client rate limit and cap of unfinished jobs."""
    # The remote address; ProxyFix takes it from X-Forwarded-For only behind
    # ALPHAMETIC_PROXY_HOPS trusted proxies, so clients cannot pick their own identity.
    return client_of(request.remote_addr or "127.0.0.1")


def client_of(address: str) -> str:
    """The client an address is: an IPv4 address itself, an IPv6 address its /64 (a host is
    handed a whole /64, so every address in it is the same client)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def rates() -> tuple[Rate, ...]:
    """The per-client rates of job creation (ALPHAMETIC_RATE_LIMIT)."""
    configured: tuple[Rate, ...] = current_app.extensions["alphametic.rates"]
    return configured


def read_rates() -> tuple[Rate, ...]:
    """The per-client rates of status reads (ALPHAMETIC_READ_RATE_LIMIT)."""
    configured: tuple[Rate, ...] = current_app.extensions["alphametic.read_rates"]
    return configured


def count_read() -> None:
    """Count a status read against the client's read rates (RateLimited beyond)."""
    store().count_request(client_id(), read_rates())


def queue(submission: Submission, fresh: bool = False) -> Job:
    """Queue an admitted job for this client (from a view marked @charged: the script that
    queues it counts the request). `fresh`: a new run even when an identical job exists
    (dedup skipped, the cap not)."""
    counted = _uncounted_rates()
    return store().queue(submission, client=client_id(), rates=counted, fresh=fresh)


def storage_left() -> int | None:
    """Solutions this client's jobs may still store (None: no storage budget)."""
    return store().storage_left(client_id())


def charged(view: Callable[P, R]) -> Callable[P, R]:
    """Mark a job-creating view: its request counts once against the client's rates, whatever
    it answers (malformed, refused, queued, or an identical job found; RateLimited beyond).

    A view that queues a job has it counted by the script that queues it (queue(): one round
    trip in all, so a frozen Redis costs one timeout, not two); any other answer is counted
    when the view ends.
    """
    return _charging(view, upfront=False)


def charged_upfront(view: Callable[P, R]) -> Callable[P, R]:
    """Mark a view that costs work before it answers (an estimate): its request counts once
    against the client's rates before the view runs (RateLimited then, before any work)."""
    return _charging(view, upfront=True)


def _charging(view: Callable[P, R], upfront: bool) -> Callable[P, R]:
    """The view, its request counted once: before it runs (upfront), else by the script that
    queues its job or when it ends."""

    @functools.wraps(view)
    def counted(*args: P.args, **kwargs: P.kwargs) -> R:
        g.alphametic_uncharged = True
        try:
            if upfront:
                _charge()
            return view(*args, **kwargs)
        finally:
            _charge()

    return counted


def _charge() -> None:
    """Count this request against the client's rates now, unless it was counted already."""
    if g.pop("alphametic_uncharged", False):
        store().count_request(client_id(), rates())


def _uncounted_rates() -> Sequence[Rate]:
    """The rates a script queueing this request's job counts it against (none when counted)."""
    return rates() if g.pop("alphametic_uncharged", False) else ()
