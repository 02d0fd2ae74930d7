"""The job store's Redis in one handle: the client, the settings, the keys and the scripts.

A worker holds one Handle and passes it to the store's functions (attempt.py, shards.py,
sweep.py, workers.py, stats.py, messages.py); it never builds a key, runs a script or reads a
field of the record itself, and never imports redis: the layout is the job store's alone. The
JobStore holds one too (its `handle`), for the functions it shares with the workers.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from .connection import client_for, connect
from .keys import Keys
from .lua import Scripts, scripts_for
from .settings import Settings


@dataclass(frozen=True)
class Handle:
    """One Redis client of the job store with what every transition needs beside it."""

    client: redis.Redis
    settings: Settings
    keys: Keys
    scripts: Scripts

    @classmethod
    def of(cls, client: redis.Redis, settings: Settings) -> Handle:
        """The handle of one client."""
        return cls(client, settings, Keys(settings.key_prefix), scripts_for(client))


def handle_for(settings: Settings) -> Handle:
    """The handle of this process's cached client (a forked pool process gets its own)."""
    return Handle.of(client_for(settings), settings)


def own_handle(settings: Settings) -> Handle:
    """A handle on a client of its own (a thread that must not share a pool's connections)."""
    return Handle.of(connect(settings), settings)
