"""The job store: the one job model in Redis, shared by the web front end and the workers.

Rooms: settings.py (configuration from the environment) · model.py (Mode, State, Job: a new
field of the record or the API's status body goes here; a run's Checkpoint read and Progress
written) · keys.py (every Redis key, one object per prefix) · lua.py + lua_scripts/ (every
atomic transition: a new one is a .lua file there) · transitions.py (a script's KEYS and ARGV
from named fields, its replies) · handle.py (client, keys and scripts in one handle: what a
worker holds) · store.py (JobStore: submit, get, wait, page, cancel, delete) · holders.py (who
holds a shared job) · admission.py (what a submission must pass) · rates.py (per-client rates)
· lanes.py (priority lanes, yielding) · queue.py (a queued job's place) · attempt.py (the Redis
side of one run of a job) · shards.py (a sharded job split, sent, read and ended as one) ·
sweep.py (re-queueing jobs whose worker died, re-sending lost messages) · stats.py (counters
and histograms) · waiters.py (long polling) · explanations.py (a job's explanation: asked for,
worked out by a worker, kept) · compose.py (a compose job: its word list admitted, its results
kept by puzzle text) · workers.py (heartbeats) · messages.py (Celery task messages, built
without a broker) · connection.py (clients, Unavailable, the breaker) · admin.py (the
operator's queries) · logformat.py (log lines for web and workers, text or JSON).

It imports the engine (alphametic) and Celery's message protocol, never the worker package or
Flask; importing it builds no Celery app. It is the only package that talks to Redis: the
worker and the web import no redis, no Lua and no key module (tests/ship/test_structure.py).
"""

from __future__ import annotations

from .admission import OptionsError, OverShare, StorageFull, Submission, TooManyJobs
from .connection import Full, Unavailable
from .holders import NotHeld
from .keys import Keys
from .model import (
    CHUNK,
    DIGITS,
    QUEUES,
    TERMINAL,
    UNFINISHED,
    Job,
    Mode,
    Page,
    ResultOrder,
    State,
    decode,
)
from .rates import Busy, Rate, RateLimited
from .settings import ConfigError, Settings
from .store import JobStore

__all__ = [
    "CHUNK",
    "Busy",
    "DIGITS",
    "QUEUES",
    "TERMINAL",
    "UNFINISHED",
    "ConfigError",
    "Job",
    "JobStore",
    "Keys",
    "Mode",
    "NotHeld",
    "OptionsError",
    "OverShare",
    "Page",
    "Rate",
    "RateLimited",
    "ResultOrder",
    "Settings",
    "State",
    "StorageFull",
    "Submission",
    "TooManyJobs",
    "Unavailable",
    "Full",
    "decode",
]
