"""Every Lua script of the job store, and the one way to run them.

Each transition of a job (reserve, create, claim, update, renew, putback, cancel, withdraw, reap,
resend, delete, the sharded split/release/dispatch/finish/cancel-tree, an explanation's
explain/claim/end, a worker's heartbeat: beat, a compose run's results: compose) is one script
in jobstore/lua_scripts/, atomic inside Redis; stats.lua, rate.lua, turn.lua and guard.lua are
libraries put in front of the scripts using them, and in front of every script a library
generated here from model.TERMINAL (is_final): the final states are written once. Scripts get
every key from Python (jobstore.keys.Keys) and build none; terminal states are final; every
write by a worker names its attempt, so a stale attempt is refused.
A call is a Transition (transitions.py: one per script, its KEYS and ARGV from named fields)
run by Scripts.call. Scripts run by EVALSHA through redis-py's Script objects, which load the
text again when Redis has forgotten it (a restart, a failover).

A script whose first line is a shebang (`#!lua flags=allow-oom`) keeps it first, before the
libraries: Redis 7 reads a script's flags there only. The scripts that end jobs or free memory
for a user (cancel, cancel_tree, finish, withdraw, delete), and the small writes that keep a
live system looking alive (a run's lease renewal, renew; a split job's release; a worker's
heartbeat, beat) run even when Redis is at its maxmemory, where it refuses every other script
that writes; those that grow memory (create, update: admission and solutions) never do.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import redis
from redis.exceptions import NoScriptError

from .connection import replicated
from .model import TERMINAL

FOLDER = Path(__file__).with_name("lua_scripts")
# Runs of a script a call makes while Redis answers NOSCRIPT (each after loading it again):
# a server that keeps losing its scripts is a restart or a failover, not a steady state.
NOSCRIPT_TRIES = 10
# Scripts that call a shared Lua function get its file put in front of their own.
LIBRARIES = {
    "create": ("rate", "turn"),
    "count": ("rate",),
    "explain": ("rate",),
    "claim": ("stats",),
    "update": ("stats", "guard"),
    "renew": ("guard",),
    "release": ("guard",),
    "split": ("guard",),
    "compose": ("guard",),
    "cancel": ("stats",),
    "finish": ("stats",),
    "resend": ("stats",),
    "putback": ("turn", "guard"),
    "dispatch": ("turn",),
}
NAMES = (
    "create",
    "reserve",  # the memory an enumeration may store, reserved at its admission
    "count",
    "claim",
    "update",
    "renew",  # a run's lease alone, while Redis refuses its writes for lack of memory
    "cancel",
    "reap",
    "resend",
    "split",
    "release",
    "finish",
    "cancel_tree",
    "stored",
    "putback",
    "dispatch",
    "delete",
    "withdraw",
    "requeue",  # an operator's re-queue of a failed job (jobstore/admin.py)
    "explain",  # a job's explanation: asked for, taken by a worker, ended (explanations.py)
    "explain_claim",
    "explain_end",
    "alone",  # the end of a client's one-at-a-time work (JobStore.alone)
    "beat",  # a worker's heartbeat, or its withdrawal (workers.py)
    "compose",  # a compose run's results, each stored once by its puzzle text
)

Arg = str | int | float


class Transition:
    """One call of a script, built from named fields (jobstore/transitions.py): `script` names
    it, keys() and argv() lay the fields out as its header documents."""

    script: ClassVar[str]

    def keys(self) -> list[str]:
        """The script's KEYS."""
        raise NotImplementedError

    def argv(self) -> list[Arg]:
        """The script's ARGV."""
        raise NotImplementedError


def final_states() -> str:
    """The Lua library of every script: is_final(state), true for a state of model.TERMINAL."""
    names = ", ".join(f"['{state.value}'] = true" for state in sorted(TERMINAL))
    return (
        "-- The final states (jobstore/model.py TERMINAL): a job in one never changes again.\n"
        f"local FINAL_STATES = {{{names}}}\n"
        "local function is_final(state) return FINAL_STATES[state] == true end\n"
    )


def source(name: str) -> str:
    """The Lua text of one script, after the final states and the library functions it uses."""
    parts = (*LIBRARIES.get(name, ()), name)
    texts = [(FOLDER / f"{part}.lua").read_text(encoding="utf-8") for part in parts]
    shebang = ""
    if texts[-1].startswith("#!"):  # the script's flags: Redis reads them on the first line only
        shebang, _, texts[-1] = texts[-1].partition("\n")
        shebang += "\n"
    return shebang + "\n".join([final_states(), *texts])


SOURCES = {name: source(name) for name in NAMES}


class Scripts:
    """The job store's scripts registered on one Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._registered = {name: client.register_script(text) for name, text in SOURCES.items()}

    def run(
        self,
        name: str,
        keys: Sequence[str],
        args: Sequence[Arg],
        pipe: redis.client.Pipeline | None = None,
    ) -> Any:
        """Run one script (inside `pipe` when given: its reply comes with the pipeline's).

        Run on its own under Sentinel, it returns once a replica has its writes too
        (connection.replicated): what a caller was told is written survives a failover.
        """
        script = self._registered[name]
        if pipe is not None:
            return script(keys=list(keys), args=list(args), client=pipe)
        for tries_left in range(NOSCRIPT_TRIES - 1, -1, -1):
            try:
                return replicated(
                    self._client, lambda on: script(keys=list(keys), args=list(args), client=on)
                )
            except NoScriptError:
                # Refused unrun: the server lost its scripts (a restart, a failover) between
                # their load and this run. redis-py loads a script again once per call only:
                # a script's first use meeting a restart raised here, and failed its job.
                if not tries_left:
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    def call(self, transition: Transition, pipe: redis.client.Pipeline | None = None) -> Any:
        """Run one transition (as run())."""
        return self.run(transition.script, transition.keys(), transition.argv(), pipe)


@functools.cache
def scripts_for(client: redis.Redis) -> Scripts:
    """The scripts of one client, registered once per client."""
    return Scripts(client)
