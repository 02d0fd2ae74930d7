"""Every Lua transition as a call with named fields, and the replies callers decide on.

Each class is one script of lua_scripts/ (its `script`): its fields name what the script needs,
and keys() and argv() lay them out in the order the script's header documents, here and nowhere
else. Scripts.call(transition) runs one (lua.py). Replies a caller decides on are enums next to
their script's class (Created, Claimed, Written, Kept, Sharded, Dispatched, Resent,
CancelFound, Deleted, Withdrawn, Requeued, Explained, ExplainClaimed): what a script can answer
is listed in one place, and the store function running it returns the member. One convention
for a refusal: a client that holds no share of a job is answered FORBIDDEN by the script
(delete, withdraw) and told by the exception holders.NotHeld, never by a string.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import ClassVar

from .keys import Keys
from .lua import Arg, Transition
from .model import Mode
from .rates import Rate, rate_args, rate_keys


class Claimed(StrEnum):
    """What claim.lua answered: run it, or why not."""

    RUN = "run"
    DONE = "done"  # it had ended already, or its shards run it (a split, released job)
    GONE = "gone"  # no such job (expired)
    BUSY = "busy"  # another live run holds its lease
    CANCELED = "canceled"  # ended now: its cancel flag was up
    FAILED = "failed"  # ended now: its search time or its attempts used up


class Written(StrEnum):
    """What update.lua told the run that wrote (its codes 0..4, in this order)."""

    REFUSED = "refused"  # the run no longer holds the job: it writes nothing more
    WRITTEN = "written"
    CANCEL = "cancel"  # a cancel was asked for
    STOP = "stop"  # the worker is asked to stop: hand the job back
    YIELD = "yield"  # a job waits in a lane that goes first: give the worker up

    @classmethod
    def of(cls, code: int) -> Written:
        """The reply for update.lua's status code."""
        return list(cls)[code]


class Deleted(StrEnum):
    """What a delete did (delete.lua; FORBIDDEN is raised as NotHeld, never returned)."""

    GONE = "gone"
    RUNNING = "running"  # not ended: nothing deleted
    WITHDRAWN = "withdrawn"  # one of several holders let go: the solutions stay for the others
    DELETED = "deleted"
    FORBIDDEN = "forbidden"  # the client holds no share of it (holders.NotHeld)


class Withdrawn(StrEnum):
    """What a client's letting go of a job did (withdraw.lua; FORBIDDEN is raised as NotHeld,
    never returned)."""

    GONE = "gone"
    ENDED = "ended"  # it has ended: nothing to let go of
    WITHDRAWN = "withdrawn"  # one of several holders let go: it runs on for the others
    LET_GO = "let go"  # this client had let go before
    LAST = "last"  # the client is its last holder: the caller cancels it
    FORBIDDEN = "forbidden"  # the client holds no share of it (holders.NotHeld)


def job_keys(at: Keys, job_id: str) -> list[str]:
    """The keys every transition of a run starts with: record, solutions, grid, leases, stats."""
    return [at.job(job_id), at.solutions(job_id), at.grid(job_id), at.leases, at.stats]


@dataclass(frozen=True)
class Claim(Transition):
    """Start a run of a job, resuming from its checkpoint."""

    script: ClassVar[str] = "claim"
    at: Keys
    job_id: str
    now: float
    lease_until: float
    holder: str
    max_attempts: int
    ttl: int
    force: bool  # ignore a live lease: its holder is certainly dead
    hard_limit: float  # seconds after which Celery kills a run
    chunk: int
    soft_limit: float  # seconds of search a job may use, over all its runs
    shared: float  # the search budget a sharded job's shards share
    waiting: Sequence[str]  # the waiting sets of its queue's lanes
    nonce: str = ""  # the run's own part of its token (the claim stores "claims:nonce")

    def keys(self) -> list[str]:
        return [*job_keys(self.at, self.job_id), self.at.queued, *self.waiting]

    def argv(self) -> list[Arg]:
        return [
            repr(self.now), repr(self.lease_until), self.holder, self.max_attempts, self.ttl,
            self.job_id, "1" if self.force else "0", repr(self.hard_limit), self.at.finished,
            self.chunk, repr(self.soft_limit), repr(self.shared), self.nonce,
        ]  # fmt: skip


@dataclass(frozen=True)
class Update(Transition):
    """A run's write: progress fields, grid cells, one batch of solutions, maybe its end."""

    script: ClassVar[str] = "update"
    at: Keys
    job_id: str
    guard: str  # the run's token, "claims:nonce" (guard.lua)
    now: float
    lease_until: float
    ttl: int
    cap: int  # solutions a job stores at most
    seq: int  # the batch's number: a batch resent after a lost reply is not stored twice
    final: str  # the final state, "" while it runs
    width: int  # characters per compact solution
    batch: str  # the batch's compact solutions, concatenated
    chunk: int
    budget: int  # solutions a client may store within the TTL (0: no budget)
    lanes: Sequence[str]  # waiting sets of the lanes it yields to, `yield_to` of them counted
    yield_to: int
    fields: Mapping[str, str]
    grid: Mapping[str, str]

    def keys(self) -> list[str]:
        return [*job_keys(self.at, self.job_id), *self.lanes[: self.yield_to]]

    def argv(self) -> list[Arg]:
        args: list[Arg] = [
            self.guard, repr(self.now), repr(self.lease_until), self.ttl, self.cap, self.seq,
            self.job_id, self.final, self.width, self.batch, self.chunk, self.at.finished,
            self.budget, self.yield_to, len(self.fields),
        ]  # fmt: skip
        for name, value in self.fields.items():
            args += [name, value]
        args.append(len(self.grid))
        for name, value in self.grid.items():
            args += [name, value]
        return args


@dataclass(frozen=True)
class PutBack(Transition):
    """Hand a running job back to its queue without ending it."""

    script: ClassVar[str] = "putback"
    at: Keys
    job_id: str
    guard: str  # the run's token, "claims:nonce" (guard.lua)
    now: float
    message: str
    front: bool  # next to run (a stopping worker's job), else the back of its client's turn
    lane: int
    reason: str  # stopped | yielded
    ttl: int
    misjudged_for: int  # seconds its client's misjudged flag stays raised (0: not misjudged)
    turn: Sequence[str]  # lanes.turn_keys(): the client's turn set, its flag, lanes, waitings

    def keys(self) -> list[str]:
        job, leases, queued, stats = (
            self.at.job(self.job_id),
            self.at.leases,
            self.at.queued,
            self.at.stats,
        )
        return [job, leases, queued, self.turn[0], stats, *self.turn[1:]]

    def argv(self) -> list[Arg]:
        return [
            self.guard, repr(self.now), self.message, "1" if self.front else "0", self.lane,
            self.job_id, self.reason, self.ttl, self.misjudged_for,
        ]  # fmt: skip


class Sharded(StrEnum):
    """What split.lua answered."""

    SPLIT = "split"  # the shard records are written
    EXISTS = "exists"  # a delivery before wrote them: send on from where it stopped
    STALE = "stale"  # the run no longer holds the parent
    CANCELED = "canceled"  # its cancel flag was up: nothing written, the run ends canceled


@dataclass(frozen=True)
class Split(Transition):
    """Write a claimed parent's shard records: a Sharded."""

    script: ClassVar[str] = "split"
    at: Keys
    parent: str
    guard: str  # the run's token, "claims:nonce" (guard.lua)
    now: float
    ttl: int
    order: Sequence[str]  # shard ids in the order to send them
    lane: int
    shards: Sequence[tuple[str, tuple[int, ...], float]]  # (id, prefix, share) in search order

    def keys(self) -> list[str]:
        return [self.at.job(self.parent), *(self.at.job(sid) for sid, _, _ in self.shards)]

    def argv(self) -> list[Arg]:
        args: list[Arg] = [self.guard, repr(self.now), self.ttl, len(self.shards)]
        args += [",".join(self.order), self.lane]
        for sid, digits, share in self.shards:
            args += [sid, ",".join(map(str, digits)), repr(share)]
        return args


@dataclass(frozen=True)
class Release(Transition):
    """A split parent lets go of its lease: 1, or 0 when the run no longer holds it."""

    script: ClassVar[str] = "release"
    at: Keys
    parent: str
    guard: str  # the run's token, "claims:nonce" (guard.lua)

    def keys(self) -> list[str]:
        return [self.at.job(self.parent), self.at.leases]

    def argv(self) -> list[Arg]:
        return [self.guard, self.parent]


class Dispatched(IntEnum):
    """What dispatch.lua answered for one shard."""

    TAKEN = -1  # another caller sent the one believed next: look again
    NONE = 0  # none left to send (or the parent runs no more)
    SENT = 1


@dataclass(frozen=True)
class Dispatch(Transition):
    """Send a sharded job's next shard: a Dispatched."""

    script: ClassVar[str] = "dispatch"
    at: Keys
    parent: str
    shard: str  # the one the caller believes is next
    message: str
    now: float
    ttl: int
    lane: int  # the band's first lane
    turn: Sequence[str]  # lanes.turn_keys() of the parent's client

    def keys(self) -> list[str]:
        return [self.at.job(self.parent), self.at.queued, self.at.job(self.shard), *self.turn]

    def argv(self) -> list[Arg]:
        return [self.shard, self.message, repr(self.now), self.ttl, self.lane]


@dataclass(frozen=True)
class Reap(Transition):
    """Re-queue a running job whose worker died: 1 when this caller did."""

    script: ClassVar[str] = "reap"
    at: Keys
    job_id: str
    now: float
    new_lease: float
    dead_holder: str  # "" when its lease expired
    message: str
    lane: str  # the job's lane list
    waiting: str  # that lane's waiting set

    def keys(self) -> list[str]:
        return [self.at.job(self.job_id), self.at.leases, self.lane, self.waiting]

    def argv(self) -> list[Arg]:
        return [repr(self.now), repr(self.new_lease), self.job_id, self.dead_holder, self.message]


class Resent(IntEnum):
    """What resend.lua did with a job whose message may be lost."""

    KEPT = 0  # nothing: its message is not lost (or it is no longer queued)
    SENT = 1  # its message sent again
    PURGED = 2  # a purge deleted its message (worker/broker.py): the job ended canceled
    SHARD_PURGED = 3  # a purge deleted a shard's message: the caller cancels its whole job


@dataclass(frozen=True)
class Resend(Transition):
    """Send again a lost message, or end a job whose message a purge deleted: a Resent."""

    script: ClassVar[str] = "resend"
    at: Keys
    job_id: str
    mode: Mode
    lane: str  # the job's lane list
    now: float
    cutoff: float  # sent before this, the job counts as waiting long
    ttl: int
    message: str
    started: float  # when Redis last started
    missing_for: float  # seconds a message may be nowhere before it is sent again

    def keys(self) -> list[str]:
        at = self.at
        keys = [at.queued, at.job(self.job_id), self.lane, at.unacked, at.leases, at.stats]
        return [*keys, at.purged, *at.lanes(self.mode)]

    def argv(self) -> list[Arg]:
        return [
            self.job_id, repr(self.now), repr(self.cutoff), self.ttl, self.message,
            self.at.finished, repr(self.started), repr(self.missing_for),
        ]  # fmt: skip


class CancelFound(StrEnum):
    """What a cancel found (cancel.lua, cancel_tree.lua: the first item of [status, changed])."""

    GONE = "gone"  # no such job
    DONE = "done"  # it had ended already
    ALREADY = "already"  # asked before: its run stops at its next look at the flag
    QUEUED = "queued"  # it was queued: it ended canceled now
    RUNNING = "running"  # it runs: its run (its shards' runs) stops at the next look
    RETRY = "retry"  # cancel_tree only: its shard count changed meanwhile


@dataclass(frozen=True)
class Cancel(Transition):
    """Cancel a job that is not sharded: [a CancelFound, changed]."""

    script: ClassVar[str] = "cancel"
    at: Keys
    job_id: str
    now: float

    def keys(self) -> list[str]:
        return [self.at.job(self.job_id), self.at.leases, self.at.stats]

    def argv(self) -> list[Arg]:
        return [repr(self.now), self.job_id, self.at.finished]


@dataclass(frozen=True)
class CancelTree(Transition):
    """Stop a sharded job's shards (and flag the parent on a user's cancel): [a CancelFound,
    changed]."""

    script: ClassVar[str] = "cancel_tree"
    at: Keys
    parent: str
    shards: Sequence[str]  # shard ids
    now: float
    user: bool  # a user's cancel (else a shard failed)

    def keys(self) -> list[str]:
        return [self.at.job(self.parent), self.at.leases, *map(self.at.job, self.shards)]

    def argv(self) -> list[Arg]:
        return [repr(self.now), len(self.shards), "1" if self.user else "0", *self.shards]


@dataclass(frozen=True)
class Finish(Transition):
    """End a sharded job once every shard has: its state afterwards (or gone, mismatch)."""

    script: ClassVar[str] = "finish"
    at: Keys
    parent: str
    shards: Sequence[str]  # shard ids
    now: float
    ttl: int
    cap: int  # solutions stored at most

    def keys(self) -> list[str]:
        keys = [self.at.job(self.parent), self.at.leases, self.at.stats]
        for kind in (self.at.job, self.at.solutions, self.at.grid):
            keys += map(kind, self.shards)
        return keys

    def argv(self) -> list[Arg]:
        args: list[Arg] = [repr(self.now), len(self.shards), self.ttl, self.parent]
        return [*args, self.cap, self.at.finished]


class Created(StrEnum):
    """What create.lua did with a submission (its reply's first item)."""

    CREATED = "created"  # detail: its lane; then the message it pushed
    EXISTING = "existing"  # detail: the id of the identical job
    LIMITED = "limited"  # over one of its client's rates (detail: seconds to wait)
    FULL = "full"  # its client has the cap of unfinished jobs


@dataclass(frozen=True)
class Create(Transition):
    """Count a submission against its client's rates, dedup it, check the cap, write the job
    and push its message: [a Created, detail, message]."""

    script: ClassVar[str] = "create"
    at: Keys
    job_id: str
    dedup: str  # the dedup key of its fingerprint
    client: str  # "" when anonymous
    turn: Sequence[str]  # lanes.turn_keys() of its client in its band
    rates: Sequence[Rate]
    ttl: int
    cap: int  # the client's unfinished jobs at most (0: none)
    created: str
    message: str
    holder: str  # the client's holder field (holders.py)
    record: Mapping[str, str]
    fresh: bool  # a new run is wanted: no dedup
    budget: int  # solutions the client may store (0: no budget)

    def keys(self) -> list[str]:
        at, turn = self.at, self.turn
        keys = [at.job(self.job_id), self.dedup, at.queued, turn[0], at.client(self.client)]
        keys += [at.jobs, at.stats, turn[1], *rate_keys(at.prefix, self.client, self.rates)]
        return [*keys, at.budget(self.client), *turn[2:]]

    def argv(self) -> list[Arg]:
        args: list[Arg] = [self.ttl, self.cap, self.job_id, self.created, self.message]
        args += [self.holder, len(self.rates), *rate_args(self.rates)]
        args += [item for pair in self.record.items() for item in pair]
        return [*args, "1" if self.fresh else "0", self.budget]


@dataclass(frozen=True)
class Renew(Transition):
    """Renew a running job's lease alone (Redis refuses the run's writes): 1, or 0 when the
    run no longer holds it."""

    script: ClassVar[str] = "renew"
    at: Keys
    job_id: str
    guard: str  # the run's token, "claims:nonce" (guard.lua)
    lease_until: float

    def keys(self) -> list[str]:
        return [self.at.job(self.job_id), self.at.leases]

    def argv(self) -> list[Arg]:
        return [self.guard, repr(self.lease_until), self.job_id]


@dataclass(frozen=True)
class Beat(Transition):
    """A worker's heartbeat in each of its queues' registries, or (withdraw) its last beat
    set to read as silent: the number of sets written."""

    script: ClassVar[str] = "beat"
    at: Keys
    name: str
    queues: Sequence[str]
    score: float
    drop_before: float
    keep: int
    withdraw: bool = False

    def keys(self) -> list[str]:
        return [self.at.workers(queue) for queue in self.queues]

    def argv(self) -> list[Arg]:
        return [self.name, repr(self.score), repr(self.drop_before), self.keep,
                "1" if self.withdraw else ""]  # fmt: skip


class Kept(IntEnum):
    """What compose.lua did with a compose run's new results (the status of its reply)."""

    REFUSED = 0  # the run no longer holds the job: it writes nothing more
    WRITTEN = 1
    TRUNCATED = 2  # one found no room (the job's cap, or its client's budget)


@dataclass(frozen=True)
class Compose(Transition):
    """Store a compose run's new results, each once by its puzzle text, within the job's cap
    and its client's budget: [a Kept, results stored in all]."""

    script: ClassVar[str] = "compose"
    at: Keys
    job_id: str
    guard: str  # the run's token, "claims:nonce" (guard.lua)
    ttl: int
    cap: int
    budget: int  # results a client may store within the TTL (0: no budget)
    found: Sequence[tuple[str, str]]  # (puzzle text, result as JSON)

    def keys(self) -> list[str]:
        return [
            self.at.job(self.job_id),
            self.at.composed(self.job_id),
            self.at.composed_order(self.job_id),
        ]

    def argv(self) -> list[Arg]:
        pairs = [part for pair in self.found for part in pair]
        return [self.guard, self.ttl, self.cap, self.budget, *pairs]


@dataclass(frozen=True)
class Reserve(Transition):
    """Reserve the memory a new enumeration may store, unless what Redis uses plus what the
    admitted ones may still store would pass the watermark: [1 | 0, bytes reserved before]."""

    script: ClassVar[str] = "reserve"
    at: Keys
    job_id: str
    size: int  # bytes the job may store at most
    per_solution: float  # bytes one stored solution takes
    used: int  # bytes Redis uses now
    limit: int  # the watermark, in bytes
    now: float
    grace: float  # seconds a reservation counts before its job record exists
    ttl: int

    def keys(self) -> list[str]:
        return [self.at.reserved]

    def argv(self) -> list[Arg]:
        job = self.at.job(self.job_id)
        args: list[Arg] = [job, self.size, repr(self.per_solution), self.used, self.limit]
        return [*args, repr(self.now), repr(self.grace), self.ttl]


@dataclass(frozen=True)
class Count(Transition):
    """Count one request against a client's rates: seconds to wait when over one, else 0."""

    script: ClassVar[str] = "count"
    at: Keys
    client: str
    rates: Sequence[Rate]

    def keys(self) -> list[str]:
        return rate_keys(self.at.prefix, self.client, self.rates)

    def argv(self) -> list[Arg]:
        return [*rate_args(self.rates)]


@dataclass(frozen=True)
class Alone(Transition):
    """End a client's one-at-a-time `what`: its marker goes if it is still this run's."""

    script: ClassVar[str] = "alone"
    at: Keys
    what: str
    client: str
    token: str

    def keys(self) -> list[str]:
        return [self.at.alone(self.what, self.client)]

    def argv(self) -> list[Arg]:
        return [self.token]


@dataclass(frozen=True)
class Delete(Transition):
    """Remove an ended job's solutions and grid (and its shards'): a Deleted."""

    script: ClassVar[str] = "delete"
    at: Keys
    job_id: str
    shards: Sequence[str]  # shard ids
    client: str  # "" for anyone (the admin)
    now: float
    holder: str  # the client's holder field

    def keys(self) -> list[str]:
        at, shards = self.at, self.shards
        keys = [at.job(self.job_id), at.solutions(self.job_id), at.grid(self.job_id)]
        return [*keys, *map(at.solutions, shards), *map(at.grid, shards)]

    def argv(self) -> list[Arg]:
        return [self.client, repr(self.now), self.holder]


@dataclass(frozen=True)
class Withdraw(Transition):
    """A client lets go of a shared job: a Withdrawn."""

    script: ClassVar[str] = "withdraw"
    at: Keys
    job_id: str
    holder: str  # the client's holder field

    def keys(self) -> list[str]:
        return [self.at.job(self.job_id)]

    def argv(self) -> list[Arg]:
        return [self.holder]


class Requeued(StrEnum):
    """What requeue.lua did with an operator's re-queue of a job."""

    REQUEUED = "requeued"  # detail: its mode
    GONE = "gone"
    NOT_FAILED = "not-failed"  # only a failed job starts over (detail: its state)
    CHANGED = "changed"  # its shards changed since the caller read them: read them again


@dataclass(frozen=True)
class Requeue(Transition):
    """An operator starts a failed job over under its id: [a Requeued, detail]."""

    script: ClassVar[str] = "requeue"
    at: Keys
    job_id: str
    mode: Mode
    lane: int
    dedup: str  # its dedup key ("" when none)
    shards: Sequence[str]  # ids of the shards whose keys go
    shards_field: str  # the `shards` field as the caller read it ("" when none)
    now: float
    message: str
    ttl: int

    def keys(self) -> list[str]:
        at, job = self.at, self.at.job(self.job_id)
        keys = [job, at.queued, at.lane(self.mode, self.lane), self.dedup or job]
        for kind in (at.job, at.solutions, at.grid):
            keys += map(kind, self.shards)
        return keys

    def argv(self) -> list[Arg]:
        return [repr(self.now), self.job_id, self.message, self.ttl, self.shards_field]


@dataclass(frozen=True)
class Stored(Transition):
    """How many solutions each shard's list holds."""

    script: ClassVar[str] = "stored"
    at: Keys
    shards: Sequence[str]  # shard ids
    width: int
    chunk: int

    def keys(self) -> list[str]:
        return [*map(self.at.solutions, self.shards)]

    def argv(self) -> list[Arg]:
        return [self.width, self.chunk]


class Explained(StrEnum):
    """Where a job's explanation stands, as explain.lua answers a request for it."""

    DONE = "done"  # detail: the explanation's JSON
    FAILED = "failed"  # detail: the explainer's error
    QUEUED = "queued"
    RUNNING = "running"
    BUSY = "busy"  # its client waits for another one (detail: seconds to wait)
    LIMITED = "limited"  # over its client's rates (detail: seconds to wait)
    GONE = "gone"  # no such job


@dataclass(frozen=True)
class Explain(Transition):
    """Ask for a job's explanation: [an Explained, detail] (explanations.Asked reads it)."""

    script: ClassVar[str] = "explain"
    at: Keys
    job_id: str
    client: str
    rates: Sequence[Rate]
    mode: Mode  # whose queue's lane the explanation's message goes to
    lane: int
    now: float
    message: str
    task_id: str
    pending_seconds: int

    def keys(self) -> list[str]:
        at = self.at
        keys = [at.job(self.job_id), at.explanation(self.job_id), at.explaining(self.client)]
        keys += [at.lane(self.mode, self.lane), at.waiting(self.mode, self.lane), at.stats]
        return [*keys, *rate_keys(at.prefix, self.client, self.rates)]

    def argv(self) -> list[Arg]:
        args: list[Arg] = [repr(self.now), self.message, self.task_id, self.client]
        return [*args, self.pending_seconds, len(self.rates), *rate_args(self.rates)]


class ExplainClaimed(StrEnum):
    """What explain_claim.lua answered a worker: run it, or why not."""

    RUN = "run"
    GONE = "gone"  # no such explanation, or no such job
    STALE = "stale"  # the task message is not its current one
    DONE = "done"  # it has ended already
    BUSY = "busy"  # a live run holds it


@dataclass(frozen=True)
class ExplainClaim(Transition):
    """A worker takes an explanation: [an ExplainClaimed, and with RUN the job's puzzle,
    options and asker]."""

    script: ClassVar[str] = "explain_claim"
    at: Keys
    job_id: str
    mode: Mode
    lane: int
    task_id: str
    holder: str
    now: float
    lease_until: float

    def keys(self) -> list[str]:
        at = self.at
        return [at.explanation(self.job_id), at.job(self.job_id), at.waiting(self.mode, self.lane)]

    def argv(self) -> list[Arg]:
        return [self.task_id, self.holder, repr(self.now), repr(self.lease_until)]


@dataclass(frozen=True)
class ExplainEnd(Transition):
    """A worker's run of an explanation ends (done | failed) or gives it back (queued)."""

    script: ClassVar[str] = "explain_end"
    at: Keys
    job_id: str
    asker: str  # the client that asked for it
    mode: Mode
    lane: int
    task_id: str  # the run's
    outcome: Explained  # DONE | FAILED, or QUEUED: given back
    body: str  # the explanation, or the error
    now: float
    message: str  # the new message (queued), else ""
    new_task_id: str
    ttl: int
    pending_seconds: int

    def keys(self) -> list[str]:
        at = self.at
        keys = [at.explanation(self.job_id), at.job(self.job_id), at.explaining(self.asker)]
        return [*keys, at.stats, at.lane(self.mode, self.lane), at.waiting(self.mode, self.lane)]

    def argv(self) -> list[Arg]:
        args: list[Arg] = [self.task_id, self.outcome.value, self.body, repr(self.now)]
        args += [self.at.finished, self.job_id, self.message, self.new_task_id, self.ttl]
        return [*args, self.pending_seconds]
