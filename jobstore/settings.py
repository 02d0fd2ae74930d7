"""Settings from the environment: the one place web, workers and scripts read the job system's
configuration (the web's own settings are in web/config.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .model import Mode


class ConfigError(ValueError):
    """An environment variable holds a value that cannot be used."""


# Environment variable for each Settings field (fields absent here are derived, not read).
ENV_NAMES: dict[str, str] = {
    "redis_url": "REDIS_URL",
    "key_prefix": "ALPHAMETIC_KEY_PREFIX",
    "ttl": "ALPHAMETIC_TTL",
    "solve_soft_limit": "ALPHAMETIC_SOLVE_SOFT_LIMIT",
    "solve_hard_limit": "ALPHAMETIC_SOLVE_HARD_LIMIT",
    "enumerate_soft_limit": "ALPHAMETIC_ENUMERATE_SOFT_LIMIT",
    "enumerate_hard_limit": "ALPHAMETIC_ENUMERATE_HARD_LIMIT",
    "max_stored_solutions": "ALPHAMETIC_MAX_STORED_SOLUTIONS",
    "max_attempts": "ALPHAMETIC_MAX_ATTEMPTS",
    "max_compose_words": "ALPHAMETIC_MAX_COMPOSE_WORDS",
    "max_compose_results": "ALPHAMETIC_MAX_COMPOSE_RESULTS",
    "lease_seconds": "ALPHAMETIC_LEASE_SECONDS",
    "heartbeat_interval": "ALPHAMETIC_HEARTBEAT_INTERVAL",
    "progress_interval": "ALPHAMETIC_PROGRESS_INTERVAL",
    "cancel_poll_interval": "ALPHAMETIC_CANCEL_POLL_INTERVAL",
    "flush_interval": "ALPHAMETIC_FLUSH_INTERVAL",
    "flush_size": "ALPHAMETIC_FLUSH_SIZE",
    "redis_timeout": "ALPHAMETIC_REDIS_TIMEOUT",
    "broker_visibility_timeout": "ALPHAMETIC_VISIBILITY_TIMEOUT",
    "max_queued_per_client": "ALPHAMETIC_MAX_QUEUED_PER_CLIENT",
    "shard_threshold": "ALPHAMETIC_SHARD_THRESHOLD",
    "small_search": "ALPHAMETIC_SMALL_SEARCH",
    "shard_count": "ALPHAMETIC_SHARD_COUNT",
    "shard_window": "ALPHAMETIC_SHARD_WINDOW",
    "time_slice": "ALPHAMETIC_TIME_SLICE",
    "max_stored_per_client": "ALPHAMETIC_MAX_STORED_PER_CLIENT",
    "memory_watermark": "ALPHAMETIC_MEMORY_WATERMARK",
    "client_memory_share": "ALPHAMETIC_CLIENT_MEMORY_SHARE",
    "task_events": "ALPHAMETIC_TASK_EVENTS",
    "redis_sentinels": "REDIS_SENTINELS",
    "redis_sentinel_master": "REDIS_SENTINEL_MASTER",
    "redis_sentinel_password": "REDIS_SENTINEL_PASSWORD",
    "min_replicas": "ALPHAMETIC_MIN_REPLICAS",
}


# min_replicas unset: the floor follows REDIS_SENTINELS (Settings.replica_floor).
DEFAULT_FLOOR = -1


@dataclass(frozen=True)
class Settings:
    """Everything configurable about the job system, with production defaults."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    key_prefix: str = "alphametic"
    ttl: int = 86_400  # seconds every job key lives after its last write
    solve_soft_limit: float = 60.0  # a solve job ends failed "time limit" after this
    solve_hard_limit: float = 90.0  # the pool process is killed after this (backstop)
    enumerate_soft_limit: float = 1_800.0
    enumerate_hard_limit: float = 1_900.0
    max_stored_solutions: int = 1_000_000  # beyond this the job counts but stores no more
    max_compose_words: int = 2_000  # distinct words a compose job's list may have
    max_compose_results: int = 10_000  # a compose job stores this many results, then ends
    max_attempts: int = 3  # deliveries of one job before it is failed instead of re-run
    lease_seconds: float = 10.0  # a running job's lease; renewed with every progress write
    heartbeat_interval: float = 2.0  # how often a worker announces itself in Redis
    progress_interval: float = 0.2  # at most one progress write per this many seconds
    cancel_poll_interval: float = 0.02  # how often the search reads the cancel flag
    flush_interval: float = 0.1  # solutions are pushed at least this often ...
    flush_size: int = 1_000  # ... or as soon as this many are pending
    redis_timeout: float = 5.0  # socket timeout of every Redis call
    broker_visibility_timeout: float = 0.0  # 0: derived from the hard limits (see below)
    max_queued_per_client: int = 20  # unfinished jobs one client may have (0: no cap)
    # An enumerate job whose estimated search tree (alphametic.estimate, nodes) reaches this is
    # split into about shard_count shard tasks (jobstore/shards.py); 0 never shards.
    shard_threshold: float = 2e6  # about a second of search on this machine
    # A new job whose estimated search (alphametic.estimate, reference nodes) is at most this
    # goes to the first band of lanes, ahead of big jobs (jobstore/lanes.py): about 0.15 s.
    small_search: float = 3e5
    shard_count: int = 100  # at most about this many (fewer when a shard would be tiny)
    shard_window: int = 4  # shards of one job queued or running at a time (jobs take turns)
    # A run that has searched this long yields its worker when another job waits (it resumes
    # from its checkpoint at the back of the queue); a job waiting in a higher lane gets the
    # worker at the run's next progress write whatever the slice.
    time_slice: float = 2.0
    # Solutions one client's jobs may store within the TTL window; beyond, jobs still count
    # but store nothing (truncated, reason "budget"). 0: no budget.
    max_stored_per_client: int = 2_000_000
    # Above this share of Redis's maxmemory, new enumerations (which store) are refused (503).
    memory_watermark: float = 0.8
    # The most of that watermark one client's unfinished storing jobs may reserve: beyond, its
    # next one is refused (429) until one of them ends; other clients are not.
    client_memory_share: float = 0.25
    # 1: workers send Celery task events, so Flower and `celery events` show each job's task
    # (a failed job as a failure with its reason, a canceled one as revoked). Off by default:
    # the job record already tells everything, and events cost a publish per task state.
    task_events: int = 0
    # Sentinels ("host:port,host:port"): when set, every client follows the master they name
    # (REDIS_URL then gives only the database number and the master's password).
    redis_sentinels: str = ""
    redis_sentinel_master: str = "mymaster"
    redis_sentinel_password: str = ""  # the sentinels' own requirepass, if they have one
    # With Sentinel, a write is confirmed once every replica connected at the time has it;
    # below this many connected replicas, writes are refused (503) instead. 0: a master with
    # no replica left (the other one died, or was promoted) keeps accepting, degraded. Unset
    # (DEFAULT_FLOOR): 1 with Sentinel, so a deposed master, whose replicas left it, takes no
    # write; see `replica_floor`.
    min_replicas: int = DEFAULT_FLOOR

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Build settings from environment variables, defaulting what is unset or empty."""
        settings = cls(**read_env(cls, ENV_NAMES, environ))
        settings.validate()
        return settings

    def replace(self, **changes: Any) -> Settings:
        """Return a copy with some fields changed (validated like from_env)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(changes)
        settings = Settings(**data)
        settings.validate()
        return settings

    def validate(self) -> None:
        """Raise ConfigError when limits are inconsistent."""
        if not self.key_prefix or any(c in self.key_prefix for c in " {}*?[]"):
            raise ConfigError(f"ALPHAMETIC_KEY_PREFIX {self.key_prefix!r} is not a usable prefix")
        for mode in Mode:
            soft, hard = self.soft_limit(mode), self.hard_limit(mode)
            if not 0 < soft < hard:
                raise ConfigError(f"{mode}: need 0 < soft limit ({soft}) < hard limit ({hard})")
        if self.ttl <= 0 or self.max_stored_solutions < 0 or self.max_attempts < 1:
            raise ConfigError("ttl must be > 0, max_stored_solutions >= 0, max_attempts >= 1")
        if self.max_compose_words < 2 or self.max_compose_results < 1:
            raise ConfigError("need max compose words >= 2 and max compose results >= 1")
        if self.max_queued_per_client < 0:
            raise ConfigError("ALPHAMETIC_MAX_QUEUED_PER_CLIENT must be >= 0 (0: no cap)")
        if self.shard_window < 1 or self.time_slice <= 0 or self.max_stored_per_client < 0:
            raise ConfigError("need shard window >= 1, time slice > 0, per-client budget >= 0")
        if not 0 < self.memory_watermark <= 1:
            raise ConfigError("ALPHAMETIC_MEMORY_WATERMARK must be in (0, 1]")
        if not 0 < self.client_memory_share <= 1:
            raise ConfigError("ALPHAMETIC_CLIENT_MEMORY_SHARE must be in (0, 1]")
        if self.min_replicas < DEFAULT_FLOOR:
            raise ConfigError("ALPHAMETIC_MIN_REPLICAS must be >= 0")
        if self.redis_sentinels and not self.redis_sentinel_master:
            raise ConfigError("REDIS_SENTINEL_MASTER must name the master the sentinels watch")
        self.sentinels  # noqa: B018 (parsing them is the check)

    def soft_limit(self, mode: Mode | str) -> float:
        """Soft time limit in seconds for jobs of this mode (the field {queue}_soft_limit)."""
        return float(getattr(self, f"{Mode(mode).queue}_soft_limit"))

    def search_budget(self, mode: Mode | str, *, sharded: bool = False) -> float:
        """Seconds of search a job may use over all its runs: its soft limit; a sharded job's
        shards, searching side by side, share that much per shard it may run at once
        (`shard_window`): the most search it could do within its limit running that wide."""
        return self.soft_limit(mode) * (self.shard_window if sharded else 1)

    def hard_limit(self, mode: Mode | str) -> float:
        """Hard time limit in seconds for jobs of this mode (the field {queue}_hard_limit)."""
        return float(getattr(self, f"{Mode(mode).queue}_hard_limit"))

    @property
    def visibility_timeout(self) -> float:
        """Broker visibility timeout: well past the longest hard limit, so no early redelivery.

        broker_visibility_timeout overrides it (the chaos tests set it shorter than a job).
        """
        if self.broker_visibility_timeout > 0:
            return self.broker_visibility_timeout
        return int(max(self.hard_limit(mode) for mode in Mode)) + 600

    @property
    def replica_floor(self) -> int:
        """The fewest replicas a write needs: ALPHAMETIC_MIN_REPLICAS, or when unset 1 with
        Sentinel (a master stalled past down-after and deposed meanwhile comes back still a
        master but alone: it must take no write) and 0 without."""
        if self.min_replicas != DEFAULT_FLOOR:
            return self.min_replicas
        return 1 if self.redis_sentinels else 0

    @property
    def sentinels(self) -> list[tuple[str, int]]:
        """REDIS_SENTINELS as (host, port) pairs; empty when Sentinel is not used."""
        pairs = []
        for item in filter(None, (part.strip() for part in self.redis_sentinels.split(","))):
            host, _, port = item.rpartition(":")
            if not host or not port.isdigit() or not 0 < int(port) < 65536:
                raise ConfigError(f"REDIS_SENTINELS: {item!r} is not host:port")
            pairs.append((host.strip("[]"), int(port)))
        return pairs

    def env(self) -> dict[str, str]:
        """These settings as environment variables (to start a worker subprocess with them)."""
        return {ENV_NAMES[f.name]: str(getattr(self, f.name)) for f in fields(self)}


def read_env(
    cls: type, names: Mapping[str, str], environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The fields of a settings dataclass that the environment sets, converted to their types.

    Unset and empty variables are left out (the dataclass default applies). The web's own
    settings (web/config.py) are read the same way.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for f in fields(cls):
        raw = env.get(names[f.name], "").strip()
        if raw:
            values[f.name] = convert(names[f.name], raw, type(getattr(cls, f.name)))
    return values


def convert(name: str, raw: str, kind: type) -> Any:
    """Convert the string of variable `name` to a field's type or raise ConfigError."""
    try:
        if kind is int:
            return int(raw)
        if kind is float:
            return float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a {kind.__name__}") from None
    return raw
