"""The Celery application, configured from Settings and hardened for long, cancellable jobs."""

from __future__ import annotations

import logging
import os
from typing import Any
from urllib.parse import quote, urlsplit

from celery import Celery
from kombu import Exchange, Queue

from alphametic.linear.native import describe
from jobstore import QUEUES, Mode, Settings, explanations
from jobstore.messages import broker_prefix
from jobstore.model import LANES
from jobstore.settings import ConfigError

from . import broker  # noqa: F401 (sentinel:// means its transport: see worker/broker.py)
from .heartbeat import Heartbeat, PoolWatch
from .logs import install_logging
from .stopping import StopJobs

# Variables through which Celery would take its broker from the environment, bypassing
# REDIS_URL: the job store pushes every message into REDIS_URL, so they must agree.
BROKER_VARIABLES = ("CELERY_BROKER_URL", "BROKER_URL")

# Extra seconds between the job's own soft limit (enforced by the search hook, which saves
# partial results cleanly) and Celery's soft limit, which interrupts wherever the task is.
SOFT_LIMIT_MARGIN = 2.0
# An explanation's run takes a few seconds of CPU at most (worker/explain.py): a backstop.
EXPLAIN_LIMITS = {"soft_time_limit": 60.0, "time_limit": 70.0}


def hard_limit(settings: Settings, mode: Mode) -> float:
    """Celery's hard limit for a mode: the setting, but never inside the soft-limit backstop."""
    return max(settings.hard_limit(mode), settings.soft_limit(mode) + 2 * SOFT_LIMIT_MARGIN)


def broker_url(settings: Settings, environ: Any = os.environ) -> str:
    """REDIS_URL, the one source of truth for the broker; a different broker in Celery's own
    environment variables is refused with a clear message instead of queueing into the void.
    With REDIS_SENTINELS, the same database through kombu's sentinel transport."""
    for name in BROKER_VARIABLES:
        other = environ.get(name, "").strip()
        if other and other != settings.redis_url:
            raise ConfigError(
                f"{name}={other!r} differs from REDIS_URL={settings.redis_url!r}: jobs are "
                f"queued in REDIS_URL, so workers must take them from there. Unset {name}."
            )
    if settings.sentinels:
        return sentinel_url(settings)
    return settings.redis_url


def sentinel_url(settings: Settings) -> str:
    """kombu's `sentinel://[:password@]host:port/db;...` for REDIS_URL's database and password
    (the password is the master's; the sentinels' own goes in sentinel_kwargs)."""
    url = urlsplit(settings.redis_url)
    auth = f"{quote(url.username or '')}:{quote(url.password)}@" if url.password else ""
    db = url.path.strip("/") or "0"
    hosts = [(f"[{host}]" if ":" in host else host, port) for host, port in settings.sentinels]
    return ";".join(f"sentinel://{auth}{host}:{port}/{db}" for host, port in hosts)


def sentinel_options(settings: Settings) -> dict[str, Any]:
    """Transport options that make the broker ask the sentinels for the master; the
    sentinels' own calls time out too, so a dead sentinel is skipped, not waited for."""
    if not settings.sentinels:
        return {}
    sentinel_kwargs: dict[str, Any] = {
        "socket_timeout": min(settings.redis_timeout, 2.0),
        "socket_connect_timeout": min(settings.redis_timeout, 1.0),
    }
    if settings.redis_sentinel_password:
        sentinel_kwargs["password"] = settings.redis_sentinel_password
    return {"master_name": settings.redis_sentinel_master, "sentinel_kwargs": sentinel_kwargs}


def celery_config(settings: Settings) -> dict[str, Any]:
    """Celery settings, each with the reason it is set."""
    return {
        "broker_url": broker_url(settings),
        # The job record in Redis is the result store: no Celery result backend, no PENDING.
        "result_backend": None,
        "task_ignore_result": True,
        # Acknowledge after the run, and re-queue when the pool process dies mid-job.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        # Reserve one message at a time, so a short job never waits behind a prefetched long one.
        "worker_prefetch_multiplier": 1,
        "worker_disable_prefetch": True,
        # Two queues, so a burst of enumerations never delays a solve.
        # Each queue has its own direct exchange and key: a message can reach only one queue.
        "task_queues": [Queue(q, Exchange(q), routing_key=q) for q in QUEUES],
        "task_default_queue": Mode.SOLVE.queue,
        "task_default_exchange": Mode.SOLVE.queue,
        "task_default_routing_key": Mode.SOLVE.queue,
        # Routes name only the queue, so kombu publishes to the anonymous exchange straight into
        # the queue's list: naming the exchange made every publish look up its bindings in
        # Redis first (one more round trip per submit). The queue still gets only its tasks.
        "task_routes": {
            **{mode.task: {"queue": mode.queue} for mode in Mode},
            explanations.TASK: {"queue": explanations.QUEUE_MODE.queue},
        },
        # Per-kind limits: Celery's soft limit backs up the hook's, the hard one kills the process.
        "task_annotations": {
            mode.task: {
                "soft_time_limit": settings.soft_limit(mode) + SOFT_LIMIT_MARGIN,
                "time_limit": hard_limit(settings, mode),
            }
            for mode in Mode
        }
        | {explanations.TASK: EXPLAIN_LIMITS},
        # Redis re-delivers unacknowledged messages after this: it must outlast any running job.
        "broker_transport_options": {
            "visibility_timeout": settings.visibility_timeout,
            # kombu looks for messages unacknowledged past that timeout only every
            # interval * throttle seconds (100 s by default): look every few seconds instead
            # (one ZRANGE), so a short timeout really redelivers as configured.
            "unacked_restore_interval": min(10.0, max(1.0, settings.visibility_timeout / 2)),
            "unacked_restore_throttle": 1,
            # All ten priority lanes (jobstore/model.py: three bands where clients take turns).
            "priority_steps": list(LANES),
            "socket_timeout": settings.redis_timeout,
            "socket_connect_timeout": min(settings.redis_timeout, 2.0),
            # Every broker key under the deployment's prefix: two deployments can share one
            # Redis database (lists, unacked messages, bindings, control mailboxes).
            "global_keyprefix": broker_prefix(settings),
            # With Sentinel: which master to follow (kombu's socket_timeout above matters
            # here: without it a publish to a frozen master hung for over a minute).
            **sentinel_options(settings),
        },
        # Survive Redis being down at start or restarting later: retry the broker forever.
        "broker_connection_retry_on_startup": True,
        "broker_connection_retry": True,
        "broker_connection_max_retries": None,
        # A connection break must not kill running jobs: they keep their lease through a short
        # outage (a duplicate delivery finds the job busy), and a long one ends in a takeover
        # that resumes from the checkpoint.
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        # A submit must fail fast (503) rather than hang when the broker is unreachable.
        "task_publish_retry_policy": {
            "max_retries": 2,
            "interval_start": 0,
            "interval_step": 0.2,
            "interval_max": 0.5,
        },
        # Plain JSON only: never unpickle anything that came over the wire.
        "task_serializer": "json",
        "accept_content": ["json"],
        # Progress lives in the job record; task events are for Flower (ALPHAMETIC_TASK_EVENTS).
        "worker_send_task_events": bool(settings.task_events),
        "task_send_sent_event": False,
        "task_track_started": False,
        "worker_hijack_root_logger": False,
    }


def make_app(settings: Settings | None = None, *, current: bool = False) -> Celery:
    """Create a Celery app for these settings (from the environment when omitted)."""
    settings = settings or Settings.from_env()
    app = Celery("worker", set_as_current=current, include=["worker.tasks"])
    app.conf.update(celery_config(settings))
    app.conf.alphametic_settings = settings
    app.steps["worker"].add(Heartbeat)
    app.steps["worker"].add(PoolWatch)
    install_logging()  # job id and attempt on every line; ALPHAMETIC_LOG_FORMAT
    # Which engine runs the sums, in one line; ALPHAMETIC_ENGINE=native without the native
    # core raises here, so such a worker refuses to start instead of running slowly.
    logging.getLogger(__name__).info("alphametic engine: %s", describe())
    app.steps["worker"].add(StopJobs)
    return app


app = make_app(current=True)
