"""Every Redis key and channel of one deployment, built in one place: Keys(prefix).

Redis layout (every key under the deployment's prefix {p}, every key with a TTL):
  {p}:job:{id}            hash: the job record (fields read by Job.from_hash)
  {p}:job:{id}:solutions  list: chunks of CHUNK compact solutions, concatenated; a compact
                          solution is one base-36 digit per letter of Puzzle.letters, so the
                          n-th solution is at a fixed place (only the last chunk is partial)
  {p}:job:{id}:grid       hash: "{letter}:{digit}" -> solutions with that letter on that digit
  {p}:dedup:{sha256}      string: the job key of an identical submission
  {p}:client:{client}     set: job keys of a client's jobs not seen finished yet (its cap)
  {p}:rate:{client}:{n}/{s}  counter: the client's job-creating requests in the current window
                          of a rate of n per s seconds (expires with the window; rates.py)
  {p}:leases              zset: running job ids scored by lease expiry (for takeover)
  {p}:queued              zset: submitted job ids scored by when their message was last sent
  {p}:job:{id}.{n}        the n-th shard of a big enumerate job (shards.py): a job record
                          (+ :solutions, :grid) with `parent`, `index`, `prefix` and `share`;
                          the parent gets `shards` (their number) and `deadline`
  {p}:workers:{queue}     zset: worker names scored by their last heartbeat (workers.py)
  {p}:finished            pub/sub channel: every script that ends a job publishes its id there
                          (waiters.py wakes the requests waiting for it)
  {queue}                 kombu's list of a queue's task messages (named after the queue)
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Mode


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

    def dedup(self, fingerprint: str) -> str:
        """The job key of an identical submission (a string)."""
        return f"{self.prefix}:dedup:{fingerprint}"

    def client(self, client: str) -> str:
        """A client's unfinished jobs (a set of job keys)."""
        return f"{self.prefix}:client:{client}"

    def rate(self, client: str, amount: int | str, seconds: int | str) -> str:
        """A client's request counter for one rate window ("*" in a pattern)."""
        return f"{self.prefix}:rate:{client}:{amount}/{seconds}"

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

    @staticmethod
    def queue(mode: Mode) -> str:
        """kombu's list of a mode's task messages (named after the queue)."""
        return Mode(mode).queue
