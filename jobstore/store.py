"""JobStore: submit, read, wait for and cancel jobs. The web and the workers both use it.

The record it reads is the one job model (model.py); keys come from keys.py, transitions are
Lua (lua.py); a submission is checked by admission.py and counted by rates.py.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import alphametic
from alphametic.search import NODES_PER_SECOND

from . import compose, shards, transitions
from .admission import OverShare, StorageFull, Submission, TooManyJobs, admit
from .connection import (
    UNREACHABLE,
    Breaker,
    NotReplicated,
    Unavailable,
    Unconfirmed,
    connect,
    guarded,
    replicas_of,
    timed_out,
    written_nothing,
)
from .handle import Handle
from .holders import held, holder_field, withdraw
from .keys import Keys
from .lanes import SMALL_SECONDS, turn_keys
from .lua import scripts_for
from .messages import task_message
from .model import (
    BIG,
    CHUNK,
    FIRST,
    QUEUES,
    TERMINAL,
    UNFINISHED,
    Job,
    Mode,
    Page,
    ResultOrder,
    State,
    band_of,
    decode,
)
from .queue import place
from .rates import Busy, Rate, RateLimited
from .settings import Settings
from .stats import snapshot
from .transitions import CancelFound, Created, Deleted, Withdrawn
from .waiters import RECHECK, Waiters
from .workers import count_workers

# Bytes one stored solution takes in Redis per letter: one character in a chunk of a thousand
# (a list element of several kilobytes, rounded up by the allocator), with some room.
BYTES_PER_LETTER = 1.25
# Seconds a reservation counts before its job record exists (the create script runs next).
RESERVE_GRACE = 30.0


def bytes_per_solution(letters: int) -> float:
    """Bytes Redis takes for one stored solution of a puzzle of `letters` letters."""
    return letters * BYTES_PER_LETTER + 1


def search_left(record: Mapping[str, str | None], settings: Settings, now: float) -> float:
    """Seconds until a job (these fields of its record) ends at the earliest it can be told:
    0 once ended; while it runs, when its search finishes or its time limit stops it (its
    `eta`, `limit_at`); queued, the search its estimate says it needs (a small job's a moment)
    within its search time left, counted from now (its wait in the queue is not known)."""
    mode, state = record["mode"], record["state"]
    if not mode or not state or State(state) in TERMINAL:
        return 0.0
    sharded = int(record["shards"] or 0) > 0
    left = max(0.0, settings.search_budget(mode, sharded=sharded) - float(record["ran"] or 0))
    if state == State.RUNNING:
        limit_at, eta = record["limit_at"], record["eta"]
        left = max(0.0, float(limit_at) - now) if limit_at else left
        return min(left, float(eta)) if eta else left
    if record["estimate"]:
        return min(left, float(record["estimate"]) / NODES_PER_SECOND)
    return min(left, SMALL_SECONDS) if band_of(int(record["lane"] or BIG))[0] == FIRST else left


class JobStore:
    """Submit, read and cancel jobs (web and worker both use this)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.prefix = settings.key_prefix
        self.keys = Keys(settings.key_prefix)
        self.redis = connect(settings)
        self.breaker = Breaker(pause=settings.redis_timeout)
        self.scripts = scripts_for(self.redis)
        self.handle = Handle(self.redis, settings, self.keys, self.scripts)  # for shards.py
        self._waiters: Waiters | None = None
        self._memory = (0.0, 0, 0)  # (when last looked, used_memory, maxmemory)

    def admit(self, mode: str, puzzle: str, options: Mapping[str, Any] | None) -> Submission:
        """Check, parse and size a job request once (OptionsError or PuzzleError): what
        queue() takes. The edge (the API, the form) calls it, then queue()."""
        return admit(mode, puzzle, options, self.settings.small_search)

    def admit_compose(self, words: object, options: object) -> Submission:
        """Check a compose request's words and options once (OptionsError for their JSON
        shape, the engine's PuzzleError for a word, a count, a base or a policy): what
        queue() takes; a list whose sets of addends no run could walk within the job's search
        budget is refused too (sets_out_of_reach)."""
        settings = self.settings
        budget = settings.search_budget(Mode.COMPOSE, sharded=settings.shard_threshold > 0)
        return compose.admit_compose(words, options, settings.max_compose_words, budget)

    def submit(
        self,
        mode: str,
        puzzle: str,
        options: Mapping[str, Any] | None = None,
        *,
        client: str | None = None,
        rates: Sequence[Rate] = (),
        fresh: bool = False,
    ) -> Job:
        """admit() then queue(): a refused request still counts against the client's rates."""
        try:
            submission = self.admit(mode, puzzle, options)
        except (ValueError, alphametic.PuzzleError):
            self.count_request(client, rates)  # refused, but still a request of this client
            raise
        return self.queue(submission, client=client, rates=rates, fresh=fresh)

    @guarded
    def queue(
        self,
        submission: Submission,
        *,
        client: str | None = None,
        rates: Sequence[Rate] = (),
        fresh: bool = False,
    ) -> Job:
        """Queue an admitted job; an identical live or succeeded job is returned instead.

        Not one whose list the budget cut while this client's budget has room again, nor any
        when `fresh` (a new run is wanted: it counts against the rates and the cap all the
        same).

        With a client, every call counts against its `rates` (RateLimited beyond one, even for
        a job then refused), and raises TooManyJobs (queueing nothing) when it has the cap
        of unfinished jobs; an identical submission returning an existing job does not count
        towards that cap. With Sentinel it returns only once a replica has the job too, and
        raises Unavailable when none confirmed in time: the job may exist all the same, and
        the exception says so (may_exist, job_id), as it does for a reply lost on the way.
        """
        checked_mode, parsed = submission.mode, submission.puzzle
        new_id = str(uuid.uuid4())
        # A storing job's storage (an enumeration's solutions, a compose job's results) is
        # reserved first (refused: OverShare or StorageFull), released again unless its job is
        # created.
        storing = checked_mode in (Mode.ENUMERATE, Mode.COMPOSE)
        try:
            reserved = self.reserve(new_id, submission, client) if storing else False
        except (OverShare, StorageFull):
            self.count_request(client, rates)  # refused, but still a request of this client
            raise
        dedup = self.keys.dedup(submission.fingerprint)
        now = time.time()
        lane = FIRST if submission.small else BIG
        if lane == FIRST and client and self.redis.exists(self.keys.misjudged(client)):
            lane = BIG  # its client's jobs estimated small lately were not (lanes.py)
        budget = self.keys.budget(client) if client is not None else ""
        record = {
            "id": new_id,
            "mode": checked_mode.value,
            "puzzle": parsed.text,
            "options": json.dumps(parsed.options(), sort_keys=True),
            "letters": "".join(parsed.letters),
            "state": State.QUEUED.value,
            "created": repr(now),
            "attempt": "0",
            "dedup": dedup,
            "client": client or "",
            "budget_key": budget,
            "lane": str(lane),
            "queued_at": repr(now),
            holder_field(client): "1",  # the submitter holds it (holders.py)
            "clients": "1",
        }
        if submission.estimate is not None:  # the worker's pieces start from it (lanes.sized)
            record["estimate"] = repr(submission.estimate)
        message = task_message(checked_mode, new_id, self.settings.ttl, lane)
        record["message"] = message  # where the job stands in its queue (queue.py)
        cap = self.settings.max_queued_per_client if client is not None else 0
        rates = rates if client is not None else ()
        # One script counts the request against the client's rates, checks the dedup key and
        # the client's cap, creates the record and pushes its task message: one round trip,
        # and never a record without its message.
        # The band's lanes are in `turn`: the script picks the client's turn among them.
        turn = turn_keys(self.keys, checked_mode, lane, client or "")
        create = transitions.Create(
            self.keys, new_id, dedup, client or "", turn, rates, self.settings.ttl, cap,
            record["created"], message, holder_field(client), record, fresh,
            self.settings.max_stored_per_client if budget else 0,
        )  # fmt: skip
        # With Sentinel, call() returns only once a replica has the job (connection.replicated).
        created = False
        try:
            status, detail, *sent = self.created(create, new_id)
            created = status is Created.CREATED
        except Unconfirmed:
            created = True  # it may exist: its storage stays reserved
            raise
        finally:
            if reserved and not created:
                self.release(new_id)
        if status is Created.LIMITED:
            raise RateLimited(rates, int(detail))
        if status is Created.FULL:  # retry once the first of its unfinished jobs ends
            mine = self.redis.smembers(self.keys.client(client or ""))
            raise TooManyJobs(cap, self.first_end(sorted(mine)))
        if status is Created.EXISTING:
            job = self.get(detail)
            if job is not None:
                return job
            # It expired between the script and the read: this submission now creates anew.
            return self.queue(submission, client=client, fresh=fresh)
        # Its place in the queue, as every read of a queued job has it (one round trip).
        record.update(lane=str(detail), message=sent[0])
        return place(self.handle, Job.from_hash(record), sent[0])

    def created(self, create: transitions.Create, new_id: str) -> list[Any]:
        """Run the create script; raises Unconfirmed (the API's 503 saying the job may exist,
        and its id) when it reached Redis, or may have, without a confirmed outcome: its reply
        lost, or no replica confirmed the job. A retry of the same submission then finds it
        (dedup), counting once against the client's cap. The reply's first item is a Created."""
        try:
            reply: list[Any] = self.scripts.call(create)
        except UNREACHABLE as error:
            if written_nothing(error):
                raise
            answer = list(error.reply or []) if isinstance(error, NotReplicated) else []
            status = Created(answer[0]) if answer else None
            if status in (Created.LIMITED, Created.FULL):
                return [status, *answer[1:]]  # refused there: nothing made (the request counted)
            made = str(answer[1]) if status is Created.EXISTING else new_id
            raise Unconfirmed(error, made) from error
        return [Created(reply[0]), *reply[1:]]

    @guarded
    def storage_left(self, client: str) -> int | None:
        """Solutions the client's jobs may still store within the TTL window (None: no budget)."""
        budget = self.settings.max_stored_per_client
        if budget <= 0:
            return None
        return max(0, budget - int(self.redis.get(self.keys.budget(client)) or 0))

    @guarded
    def holds(self, job_id: str, client: str) -> bool:
        """Whether the client holds the job (submitted it and has not let go: holders.py)."""
        return bool(self.redis.hget(self.keys.job(job_id), holder_field(client)) == "1")

    def count_request(self, client: str | None, rates: Sequence[Rate]) -> None:
        """Count a job-creating request that was refused before submit's script counted it.

        Raises RateLimited when it takes the client over one of its rates. Best-effort: with
        Redis away the request goes uncounted, so the client still learns what is wrong with
        it (a 4xx) rather than getting a 503. A count that times out trips the breaker, so the
        request's own call answers 503 at once instead of waiting out a second timeout.
        """
        if client is None or not rates or self.breaker.is_open:
            return
        try:
            wait = int(self.scripts.call(transitions.Count(self.keys, client, rates)))
        except UNREACHABLE as error:
            if timed_out(error):
                self.breaker.trip()
            return
        if wait > 0:
            raise RateLimited(rates, wait)

    @contextlib.contextmanager
    def alone(
        self, client: str | None, what: str, seconds: float, lasts: float | None = None
    ) -> Iterator[None]:
        """Run the block as the client's only `what` (an estimate), else raise Busy at once,
        saying to retry once the running one has taken `lasts` seconds (what such work
        takes; default `seconds`), and no later than its marker's end.

        The marker expires after `seconds` (the most the work takes), so a process that dies
        inside the block frees it; best-effort like count_request: with Redis away, it runs.
        """
        if client is None:
            yield
            return
        key, token = self.keys.alone(what, client), uuid.uuid4().hex
        ttl = max(1, math.ceil(seconds * 1000))
        try:
            taken = bool(self.redis.set(key, token, nx=True, px=ttl))
        except UNREACHABLE:
            yield
            return
        if not taken:
            try:
                left = int(self.redis.pttl(key))
            except UNREACHABLE:
                left = ttl
            ran = ttl - max(left, 0)  # milliseconds the running one has taken so far
            wait = min(max(left, 0), (seconds if lasts is None else lasts) * 1000 - ran)
            raise Busy(what, math.ceil(max(wait, 0) / 1000))
        try:
            yield
        finally:
            with contextlib.suppress(*UNREACHABLE):
                self.scripts.call(transitions.Alone(self.keys, what, client, token))

    @guarded
    def get(self, job_id: str) -> Job | None:
        """The job with this id, or None if unknown or expired."""
        if not isinstance(job_id, str) or not job_id or len(job_id) > 64:
            return None
        data = self.redis.hgetall(self.keys.job(job_id))
        if not data or data.get("parent"):
            return None  # a shard record is part of its parent job, not a job of its own
        if data.get("shards"):
            data = shards.merged(self.handle, data)
        job = Job.from_hash(data)
        if job.state is State.QUEUED and data.get("message"):
            return place(self.handle, job, data["message"])
        return job

    @guarded
    def wait(
        self, job_id: str, timeout: float, gone: Callable[[], bool] | None = None
    ) -> Job | None:
        """The job once it has ended or after `timeout` seconds (None when it is unknown, or
        as soon as `gone()` says the waiting client hung up).

        Woken by the `finished` channel (waiters.py), so it answers within a
        millisecond or so of the end instead of a poll interval later.
        """
        deadline = time.monotonic() + timeout
        with self.waiters().watch(job_id) as ended:
            # A look at the state alone is enough to know whether to wait.
            if self.redis.hget(self.keys.job(job_id), "state") not in UNFINISHED:
                return self.get(job_id)
            while (left := deadline - time.monotonic()) > 0:
                if ended.pause(min(left, RECHECK), gone):
                    return None
                ended.event.clear()
                record, ended.record = ended.record, None
                # A worker's final write sends the record along; other ends send only the id.
                job = Job.from_hash(record) if record and "shards" not in record else None
                job = job or self.get(job_id)
                if job is None or job.done:
                    return job
        return self.get(job_id)

    def waiters(self) -> Waiters:
        """This store's one subscription for every waiting request (started on first use)."""
        if self._waiters is None:
            self._waiters = Waiters(self.settings)
        return self._waiters

    def close(self) -> None:
        """Stop this store's waiter subscription, if it has one (processes exit without this)."""
        if self._waiters is not None:
            self._waiters.close()

    @guarded
    def solutions(self, job_id: str, offset: int = 0, limit: int = 100) -> Page | None:
        """A page of the stored solutions (offset from the start), or None for unknown ids."""
        found = self.compact(job_id, offset, limit)
        if found is None:
            return None
        letters, texts, total, truncated = found
        items = [decode(letters, text) for text in texts]
        return Page(items, total, truncated, max(0, int(offset)), max(0, int(limit)))

    @guarded
    def compact(self, job_id: str, offset: int = 0, limit: int = 100) -> Any:
        """(letters, compact solution strings, total stored, truncated), or None if unknown."""
        offset, limit = max(0, int(offset)), max(0, int(limit))
        key = self.keys.solutions(job_id)
        first, last = offset // CHUNK, (offset + max(limit, 1) - 1) // CHUNK
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(self.keys.job(job_id), "letters", "truncated", "state", "shards")
            pipe.llen(key)
            pipe.lindex(key, -1)
            pipe.lrange(key, first, last)
            (letters, truncated, state, parts), chunks, tail, texts = pipe.execute()
        if state is None:
            return None
        if parts:
            fields = (letters, truncated, state, parts)
            return shards.compact(self.handle, job_id, fields, offset, limit)
        width = len(letters)
        total = (chunks - 1) * CHUNK + len(tail) // width if chunks else 0
        joined = "".join(texts)
        start = (offset - first * CHUNK) * width
        joined = joined[start : start + limit * width]
        items = [joined[i : i + width] for i in range(0, len(joined), width)]
        return letters, items, total, truncated == "1"

    @guarded
    def composed(
        self, job_id: str, offset: int = 0, limit: int = 100,
        order: ResultOrder = ResultOrder.FOUND,
    ) -> tuple[list[dict[str, Any]], int]:  # fmt: skip
        """A page of a compose job's results in the order asked (as first stored, easiest or
        hardest first), and how many."""
        return compose.results(self.redis, self.keys, job_id, max(0, offset), max(1, limit), order)

    @guarded
    def grid(self, job_id: str) -> dict[str, list[int]] | None:
        """Letter -> number of solutions per digit (all solutions, even beyond the cap)."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(self.keys.job(job_id), "letters", "options", "shards")
            pipe.hgetall(self.keys.grid(job_id))
            (letters, options, parts), cells = pipe.execute()
        if letters is None:
            return None
        if parts:
            cells = shards.grid(self.handle, job_id, int(parts))
        base = int(json.loads(options)["base"])
        result = {letter: [0] * base for letter in letters}
        for cell, count in cells.items():
            letter, digit = cell.split(":")
            if letter in result and int(digit) < base:
                result[letter][int(digit)] = int(count)
        return result

    @guarded
    def cancel(self, job_id: str, client: str | None = None) -> tuple[Job, bool] | None:
        """Request cancellation; returns the job and whether this call changed anything.

        A client's cancel of a job others hold too only lets go of it (holders.py), and
        raises NotHeld when the client does not hold it; without a client it cancels outright.
        """
        if client is not None:
            outcome = withdraw(self.scripts, self.keys, job_id, client)
            if outcome is not Withdrawn.LAST:
                job = self.get(job_id)
                return (job, outcome is Withdrawn.WITHDRAWN) if job is not None else None
        # Cancels every shard too when the job is sharded (shards.py).
        status, changed = shards.cancel(self.handle, job_id)
        if status is CancelFound.GONE:
            return None
        job = self.get(job_id)
        return (job, bool(int(changed))) if job is not None else None

    def memory(self) -> tuple[int, int]:
        """(bytes Redis uses, its maxmemory; 0: no limit): read again at each call while
        Redis has a limit (a reading even a second old missed others filling it), else once
        a second at most."""
        looked, used, cap = self._memory
        if cap > 0 or time.monotonic() - looked >= 1.0:
            info = self.redis.info("memory")
            used, cap = int(info["used_memory"]), int(info.get("maxmemory") or 0)
            self._memory = (time.monotonic(), used, cap)
        return used, cap

    def reserve(self, job_id: str, submission: Submission, client: str | None = None) -> bool:
        """Reserve the memory a new storing job may take (reserve.lua): True when reserved,
        False when Redis has no memory limit. Raises OverShare when the client's unfinished
        storing jobs would pass its share of the watermark, StorageFull when what Redis uses
        plus what every client's may still store would pass the watermark (both with the
        seconds until a job whose end frees room ends). A job then stops storing at the
        watermark, or waits, before Redis refuses writes."""
        used, cap = self.memory()
        if cap <= 0:
            return False
        watermark = int(self.settings.memory_watermark * cap)
        # No client (a script, a test): no share of its own (0), only the watermark.
        share = int(self.settings.client_memory_share * watermark) if client else 0
        most, per = self.most_stored(submission)
        budget = self.settings.max_stored_per_client if client else 0
        reserve = transitions.Reserve(
            self.keys, job_id, math.ceil(most * per), per, used, watermark, time.time(),
            RESERVE_GRACE, self.settings.ttl, client or "", share, budget,
        )  # fmt: skip
        ok, *why = self.scripts.call(reserve)
        if int(ok):
            return True
        reason, jobs = transitions.Refused(why[0]), [str(key) for key in why[1:]]
        if reason is transitions.Refused.SHARE:
            raise OverShare(share, self.first_end(jobs))
        raise StorageFull(self.first_end(jobs))

    def most_stored(self, submission: Submission) -> tuple[float, float]:
        """(how many solutions or results a new storing job can store at most, bytes each).

        An enumeration stores no more than its cap, nor more than it has solutions: fewer than
        its search's nodes when estimated (lanes.sized), and never more than every assignment
        of distinct digits to its letters (a product's honest bound when it has no estimate).
        """
        if isinstance(submission.puzzle, compose.WordList):  # results, up to their cap
            return self.settings.max_compose_results, compose.bytes_per_result(submission.puzzle)
        most = float(self.settings.max_stored_solutions)
        if submission.estimate is not None:  # its search's nodes: at least its solutions
            most = min(most, math.ceil(submission.estimate))
        puzzle = submission.puzzle
        if isinstance(puzzle, alphametic.Puzzle):
            most = min(most, alphametic.assignments(puzzle, most))
        return most, bytes_per_solution(len(puzzle.letters))

    def first_end(self, jobs: Sequence[str]) -> int:
        """Seconds until the first of these jobs (keys) ends, as far as can be told now, never
        later (a client told to retry after them is not kept waiting): 1 when one has ended."""
        fields = ("mode", "ran", "limit_at", "shards", "state", "eta", "estimate", "lane")
        with self.redis.pipeline(transaction=False) as pipe:
            for key in jobs:
                pipe.hmget(key, fields)
            records = pipe.execute()
        now = time.time()
        ends = [search_left(dict(zip(fields, r, strict=True)), self.settings, now) for r in records]
        return max(1, math.ceil(min(ends, default=1.0)))

    def release(self, job_id: str) -> None:
        """Drop a reservation whose job was not created (best-effort: it lapses by itself)."""
        with contextlib.suppress(*UNREACHABLE):
            self.redis.hdel(self.keys.reserved, self.keys.job(job_id))

    @guarded
    def delete(self, job_id: str, client: str | None = None) -> Deleted:
        """Remove an ended job's stored solutions and grid (only a holder may, unless client
        is None; one of several holders only lets go): gone | running | withdrawn | deleted.

        Raises NotHeld when the client does not hold it (as cancel does)."""
        if shards.parent_of(job_id) is not None or not job_id or len(job_id) > 64:
            return Deleted.GONE
        n = int(self.redis.hget(self.keys.job(job_id), "shards") or 0)
        ids = [shards.shard_id(job_id, i) for i in range(n)]
        delete = transitions.Delete(
            self.keys, job_id, ids, client or "", time.time(), holder_field(client)
        )
        outcome = held(Deleted(self.scripts.call(delete)), self.keys.job(job_id))
        if outcome is Deleted.DELETED:  # a compose job's results go too (none for others)
            parts = [job_id, *ids]
            self.redis.delete(*[self.keys.composed(p) for p in parts])
            self.redis.delete(*[self.keys.composed_order(p) for p in parts])
        return outcome

    @guarded
    def stats(self) -> dict[str, Any]:
        """Counters, histograms and live gauges of the deployment (stats.py)."""
        return snapshot(self.redis, self.prefix, self.settings.heartbeat_interval)

    def health(self) -> dict[str, Any]:
        """{"redis": reachable, "breaker": "open" while this store refuses calls at once (a
        call timed out a moment ago) else "closed", "workers": {queue: workers with a recent
        heartbeat}, "replicas": {"connected": replicas of the master, "floor": fewest writes
        need}}."""
        health: dict[str, Any] = {"redis": True}
        try:
            health.update(workers=self._workers(), replicas=self._replicas())
        except Unavailable:
            health.update(redis=False, workers=dict.fromkeys(QUEUES, 0))
        health["breaker"] = "open" if self.breaker.is_open else "closed"
        return health

    @guarded
    def _replicas(self) -> dict[str, int]:
        """The replicas connected to the master, and the floor below which writes are refused
        (the one connection.replicated enforces: a Sentinel client's, else 0)."""
        connected = int(self.redis.info("replication").get("connected_slaves", 0))
        replicas = replicas_of(self.redis)
        return {"connected": connected, "floor": replicas.floor if replicas else 0}

    @guarded
    def _workers(self) -> dict[str, int]:
        """Workers per queue with a recent heartbeat (the answer proves Redis answers)."""
        return count_workers(self.redis, self.prefix, self.settings.heartbeat_interval)
