"""Every Redis key and channel of one deployment, built in one place: Keys(prefix).

Redis layout (every key under the deployment's prefix {p}, every key with a TTL):
  {p}:job:{id}            hash: the job record (fields read by Job.from_hash)
  {p}:job:{id}:solutions  list: chunks of CHUNK compact solutions, concatenated; a compact
                          solution is one base-36 digit per letter of Puzzle.letters, so the
                          n-th solution is at a fixed place (only the last chunk is partial)
  {p}:job:{id}:grid       hash: "{letter}:{digit}" -> solutions with that letter on that digit
  {p}:job:{id}:composed   hash: a compose job's results, puzzle text -> the result as JSON
                          (each stored once: a result found again after a resume is not)
  {p}:job:{id}:composed:order  list: those puzzle texts in the order they were first stored
  {p}:dedup:{sha256}      string: the job key of an identical submission
  {p}:client:{client}     set: job keys of a client's jobs not seen finished yet (its cap)
  {p}:rate:{client}:{n}/{s}  counter: the client's job-creating requests in the current window
                          of a rate of n per s seconds (expires with the window; rates.py)
  {p}:leases              zset: running job ids scored by lease expiry (for takeover)
  {p}:queued              zset: submitted job ids scored by when their message was last sent
  {p}:job:{id}.{n}        the n-th shard of a big enumerate job (shards.py): a job record
                          (+ :solutions, :grid) with `parent`, `index`, `prefix` and `share`;
                          the parent gets `shards` (their number), and `ran` adds up their
                          search time (the job's time limit counts it)
  {p}:workers:{queue}     zset: worker names scored by their last heartbeat (workers.py)
  {p}:finished            pub/sub channel: every script that ends a job publishes its id there
                          (waiters.py wakes the requests waiting for it)
  {p}:jobs                zset: every job id scored by its creation (the admin's listing)
  {p}:waiting:{queue}:{lane}  zset: job keys queued in a lane (what a running job yields to)
  {p}:turns:{queue}:{band}:{client}  zset: job keys of a client's jobs waiting in a band of
                          lanes (the band's first lane): how many it has there sets the lane of
                          its next (lanes.py); members no longer waiting there leave lazily
  {p}:misjudged:{client}  string: set for a while after a job of the client estimated small
                          was not (its next jobs go to the BIG band, a turn back; lanes.py)
  {p}:stats               hash: counters and histogram buckets kept by the scripts (stats.py)
  {p}:masters             hash: replication id of each master the sweeps saw -> when first
                          seen (0: the first one known); a new one is a failover (sweep.py)
  {p}:budget:{client}     counter: solutions a client's jobs stored within the TTL window
  {p}:reserved            hash: job key -> "bytes per-solution reserved-at" of each admitted
                          enumeration: the memory it may still take is those bytes less what
                          it stored (reserve.lua; an ended job's share is dropped lazily)
  {p}:job:{id}:explain    hash: the job's explanation as a worker works it out and keeps it
                          (jobstore/explanations.py): state, body, client, task, lease
  {p}:explaining:{client} string: the explanation key of the one a client waits for
  {p}:alone:{what}:{client}  string: the token of the client's running `what` (an estimate)
                          while it runs, with a TTL (JobStore.alone: one at a time per client)
  {p}:broker:...          every key of the Celery broker (kombu's global_keyprefix): the lists
                          of task messages, one per queue and priority lane (lanes()), each
                          worker's canary.{node} list (worker/canary.py: it expires, kombu's
                          x-expires, and its binding table is swept), and kombu's own
                          (unacked messages, bindings, control mailboxes), and the purged
                          hash: delivery tag -> when, of each message `celery purge` deleted
                          (worker/broker.py; resend.lua cancels the jobs they were for)
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import LANES, Mode

# The broker's hash (under its prefix) of the delivery tags of the messages a purge deleted.
PURGED = "purged"
# kombu's separator between a queue's name and its priority in the name of a lane's list.
PRIORITY_SEP = "\x06\x16"


@dataclass(frozen=True)
class Keys:
    """The keys of one deployment, all under `prefix`."""

    prefix: str

    def job(self, job_id: str) -> str:
        """A job's record (a hash)."""
        return f"{self.prefix}:job:{job_id}"

    def solutions(self, job_id: str) -> str:
        """A job's stored solutions (a list of chunks)."""
        return f"{self.prefix}:job:{job_id}:solutions"

    def grid(self, job_id: str) -> str:
        """A job's letter x digit counts (a hash)."""
        return f"{self.prefix}:job:{job_id}:grid"

    def composed(self, job_id: str) -> str:
        """A compose job's results by their puzzle text (a hash)."""
        return f"{self.prefix}:job:{job_id}:composed"

    def composed_order(self, job_id: str) -> str:
        """A compose job's puzzle texts in the order first stored (a list)."""
        return f"{self.prefix}:job:{job_id}:composed:order"

    def dedup(self, fingerprint: str) -> str:
        """The job key of an identical submission (a string)."""
        return f"{self.prefix}:dedup:{fingerprint}"

    def client(self, client: str) -> str:
        """A client's unfinished jobs (a set of job keys)."""
        return f"{self.prefix}:client:{client}"

    def rate(self, client: str, amount: int | str, seconds: int | str) -> str:
        """A client's request counter for one rate window ("*" in a pattern)."""
        return f"{self.prefix}:rate:{client}:{amount}/{seconds}"

    def alone(self, what: str, client: str) -> str:
        """The marker of a client's running work of one kind (a string with a TTL)."""
        return f"{self.prefix}:alone:{what}:{client}"

    def workers(self, queue: str) -> str:
        """The heartbeats of a queue's workers (a zset)."""
        return f"{self.prefix}:workers:{queue}"

    @property
    def leases(self) -> str:
        """Running jobs scored by lease expiry (a zset)."""
        return f"{self.prefix}:leases"

    @property
    def queued(self) -> str:
        """Submitted jobs scored by when their message was last sent (a zset)."""
        return f"{self.prefix}:queued"

    @property
    def finished(self) -> str:
        """The pub/sub channel on which every end of a job is published."""
        return f"{self.prefix}:finished"

    @property
    def jobs(self) -> str:
        """Every job id scored by its creation time (a zset)."""
        return f"{self.prefix}:jobs"

    @property
    def masters(self) -> str:
        """Replication ids of the masters the sweeps saw, each with when first seen (a hash)."""
        return f"{self.prefix}:masters"

    @property
    def stats(self) -> str:
        """Counters and histograms of the whole deployment (a hash)."""
        return f"{self.prefix}:stats"

    def explanation(self, job_id: str) -> str:
        """A job's explanation, while it is worked out and once it is (a hash)."""
        return f"{self.prefix}:job:{job_id}:explain"

    def explaining(self, client: str) -> str:
        """The explanation a client waits for: one at a time (a string)."""
        return f"{self.prefix}:explaining:{client}"

    @property
    def reserved(self) -> str:
        """Memory reserved by the enumerations admitted (a hash: reserve.lua)."""
        return f"{self.prefix}:reserved"

    def budget(self, client: str) -> str:
        """Solutions a client's jobs stored within the TTL window (a counter)."""
        return f"{self.prefix}:budget:{client}"

    @property
    def broker(self) -> str:
        """The prefix of every key of the Celery broker (kombu's global_keyprefix)."""
        return f"{self.prefix}:broker:"

    @property
    def unacked(self) -> str:
        """kombu's hash of messages delivered to a worker and not acknowledged yet."""
        return self.broker + "unacked"

    @property
    def purged(self) -> str:
        """The delivery tags of the task messages a purge deleted, each with when (a hash)."""
        return self.broker + PURGED

    def lane(self, mode: Mode, lane: int) -> str:
        """kombu's list of the task messages of a mode's queue in one priority lane."""
        queue = self.broker + Mode(mode).queue
        return f"{queue}{PRIORITY_SEP}{lane}" if lane else queue

    def lanes(self, mode: Mode) -> list[str]:
        """The lists of a mode's queue, in the order workers take from them."""
        return [self.lane(mode, lane) for lane in LANES]

    def waiting(self, mode: Mode, lane: int) -> str:
        """The jobs waiting in a lane of a mode's queue (a zset of job keys): what a running
        job yields to (a lane's list may also hold stray duplicates of running jobs' messages)."""
        return f"{self.prefix}:waiting:{Mode(mode).queue}:{lane}"

    def turns(self, mode: Mode, band: int, client: str) -> str:
        """A client's jobs waiting in a band of a mode's lanes, named by its first lane (a zset
        of job keys): where its next job there takes its turn."""
        return f"{self.prefix}:turns:{Mode(mode).queue}:{band}:{client}"

    def misjudged(self, client: str) -> str:
        """Raised for a while after a job of the client estimated small was not (a string)."""
        return f"{self.prefix}:misjudged:{client}"

    def waitings(self, mode: Mode) -> list[str]:
        """The waiting sets of a mode's lanes, in the order workers take from the lanes."""
        return [self.waiting(mode, lane) for lane in LANES]
