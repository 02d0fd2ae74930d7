"""Connections of the job store: a call interrupted with replies still owed drops its connection.

A caller can be cut off between sending and reading (a Celery soft time limit raised by a
signal, a reply of a pipeline it cannot parse): the connection goes back to the pool with
replies on their way. When they have not arrived yet, redis-py's own check (data waiting on a
connection handed out) sees nothing, and the next call read the first one's replies. And a
script still runs on a server that lost its scripts between their load and its run.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from jobstore import Keys, Settings
from jobstore.connection import connect
from jobstore.lua import Scripts
from jobstore.transitions import Stored


def test_a_pipeline_cut_off_between_its_replies_leaves_none_to_the_next_call(
    fresh_settings: Callable[..., Settings],
) -> None:
    """A pipeline's caller fails on its first reply while a slow command's reply is still
    on its way: the next call on the client gets its own value, not that reply."""
    client = connect(fresh_settings())
    client.set("text", "not a number")
    client.set("mine", "my value")

    def number(reply: Any, **_options: Any) -> int:
        return int(reply)

    client.set_response_callback("GETDEL", number)
    pipe = client.pipeline(transaction=False)
    pipe.execute_command("GETDEL", "text")  # its reply read as a number: ValueError
    pipe.blpop(["nothing"], 0.5)  # answered (None) half a second later
    with pytest.raises(ValueError):
        pipe.execute()
    assert client.get("mine") == "my value"
    assert client.blpop(["nothing"], 0.01) is None


def test_a_script_runs_though_the_server_keeps_losing_its_scripts(
    fresh_settings: Callable[..., Settings],
) -> None:
    """While another process flushes the script cache every 1 ms (as a restart or a failover
    empties it), every call of a script still runs: one refused NOSCRIPT after its load is
    loaded and run again. redis-py loads a script once a call: a flush between that load and
    its run raised NoScriptError (a script's first use meeting a Redis restart failed its job
    so). The flushes come far apart next to a call's few runs, whatever the machine's load."""
    settings = fresh_settings()
    client = connect(settings)
    keys = Keys(settings.key_prefix)
    client.rpush(keys.solutions("a"), "x" * 12)
    scripts = Scripts(client)
    flusher = subprocess.Popen([sys.executable, "-c", FLUSHER, settings.redis_url])
    try:
        time.sleep(0.2)  # the flusher connected and flushing
        answers = [scripts.call(Stored(keys, ["a"], 4, 3)) for _ in range(10_000)]
    finally:
        flusher.terminate()
        flusher.wait(10)
    assert answers == [[3]] * 10_000


# Flushes the script cache of the Redis at argv[1] every 1 ms until terminated.
FLUSHER = """
import sys, time, redis
client = redis.Redis.from_url(sys.argv[1])
while True:
    client.script_flush()
    time.sleep(0.001)
"""
