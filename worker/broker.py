"""kombu's Redis transports (plain and Sentinel), made safe against a broker that stalls or dies.

An acknowledgement that fails (Redis stalled past the socket timeout, or gone) used to leave
its message counted as taken: kombu removes it from its own books only after Redis answered.
With prefetch off, a worker takes no more messages than it has pool processes, so each failed
ack cost a pool slot for good, and one was enough to stop a worker of concurrency 1 taking
anything while its heartbeat still said it was alive. Here a message is off the books whether
or not Redis heard the ack: it stays in the broker's unacknowledged set, and a later delivery
of it changes nothing (the job record says what became of the job).

On a lost connection kombu closes the channel and puts back the messages it took but did not
acknowledge; a task that outlived a Redis restart or a Sentinel failover acknowledges its
message on that old channel. Both rebuilt the channel's pool from a connection already torn
down, and the AttributeError ('NoneType' object has no attribute 'hostname' / 'client') was
fatal to the worker. Here they meet a connection error instead, which kombu and Celery expect
("Couldn't ack").

A Redis at its maxmemory (noeviction) answers OOM to kombu's bookkeeping of a message it hands
out (its copy in the unacknowledged set) and may to an ack: Celery took that error for an
unrecoverable one and the worker's main process exited. Here an ack is tried again after a
pause and then left to the visibility timeout, and a message whose copy could not be written
is run all the same (the job store's resend sweep covers a worker lost meanwhile).

A purge (`celery purge`, which deletes the queues' lists) names the delivery tag of every
message it deleted in the broker's purged hash (jobstore/messages.py): the job store's resend
sweep then knows a job's message was purged, not lost, and cancels the job; a message found
nowhere and not named there it sends again (jobstore/sweep.py). Without the names, a purged
message and one lost with a worker (killed with it in hand, maybe restarted under the same
name) left the same traces, and the sweep's guess canceled jobs whose message was only lost.

The broker is a Redis, though not the job store: redis-py's error classes come from
jobstore.connection, so that no worker module imports redis itself.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from kombu.transport import TRANSPORT_ALIASES, virtual
from kombu.transport import redis as kombu_redis

from jobstore.connection import ClosedConnection, OutOfMemory, RedisError
from jobstore.messages import record_purged

log = logging.getLogger(__name__)

TRANSPORT = "worker.broker:Transport"
SENTINEL_TRANSPORT = "worker.broker:SentinelTransport"
# Pauses (seconds) before an ack Redis refused for lack of memory is tried again.
OOM_PAUSES = (0.2, 0.5, 1.0)


def torn_down(connection: Any) -> bool:
    """True when a channel's transport connection is gone (closed after a failure)."""
    return connection is None or connection.client is None


class QoS(kombu_redis.QoS):
    """kombu's QoS, whose acks free their slot even when Redis cannot be told, and whose
    restore skips a channel that has lost its connection."""

    def append(self, message: Any, delivery_tag: Any) -> None:
        """Keep a copy of a message handed out in Redis's unacknowledged set; at Redis's
        memory limit only in this channel's books: it runs all the same."""
        try:
            super().append(message, delivery_tag)
        except OutOfMemory as error:
            log.warning("broker full, message %s taken without its copy: %s", delivery_tag, error)
            virtual.QoS.append(self, message, delivery_tag)

    def ack(self, delivery_tag: Any) -> None:
        """Acknowledge in Redis; the message leaves this channel's books whatever Redis did."""
        try:
            patiently(lambda: super(QoS, self).ack(delivery_tag), "ack")
        except OutOfMemory:
            virtual.QoS.ack(self, delivery_tag)  # its copy returns after the visibility timeout
        except RedisError:
            virtual.QoS.ack(self, delivery_tag)
            raise  # Celery logs "Couldn't ack"

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        """Reject in Redis; the message leaves this channel's books whatever Redis did."""
        try:
            patiently(lambda: super(QoS, self).reject(delivery_tag, requeue), "reject")
        except OutOfMemory:
            virtual.QoS.ack(self, delivery_tag)
        except RedisError:
            virtual.QoS.ack(self, delivery_tag)
            raise

    def restore_visible(self, *args: Any, **kwargs: Any) -> None:
        """kombu's periodic restore of messages past their visibility timeout; at Redis's
        memory limit, at a later round."""
        try:
            super().restore_visible(*args, **kwargs)
        except OutOfMemory as error:
            log.warning("broker full, restore of unacknowledged messages put off: %s", error)

    def restore_unacked(self, client: Any = None) -> None:
        """Put taken messages back, unless the connection is gone: they then stay in the
        unacknowledged set for the visibility timeout, and the job store's resend sweep sends
        again the message of any job still queued without one (jobstore/sweep.py)."""
        if client is None and torn_down(self.channel.connection):
            if self._delivered is not None:  # None only before kombu's __init__ ran
                self._delivered.clear()
            return
        super().restore_unacked(client)


def patiently(call: Any, what: str) -> None:
    """Run a broker call; one Redis refused for lack of memory is tried again after each of
    OOM_PAUSES (an ack frees memory, and others free it meanwhile); then OutOfMemory."""
    for pause in (*OOM_PAUSES, None):
        try:
            call()
            return
        except OutOfMemory as error:
            if pause is None:
                log.warning("broker full, %s given up: %s", what, error)
                raise
            time.sleep(pause)


class GuardedPool:
    """For a kombu Redis channel: no pool rebuilt on a dead connection. A task that outlived a
    Redis restart or failover acks on the channel the reconnect closed; kombu's pool lookup
    raised an AttributeError there ("Unrecoverable error": the worker consumed nothing more)."""

    connection: Any

    def _get_pool(self, asynchronous: bool = False) -> Any:
        """kombu's pool, or a connection error once the channel's connection is torn down."""
        if torn_down(self.connection):
            raise ClosedConnection("this broker channel's connection is closed")
        return super()._get_pool(asynchronous)  # type: ignore[misc]


class RecordedPurge:
    """For a kombu Redis channel: a purge that names the messages it deleted (the purged
    hash), so the job store cancels their jobs instead of sending them again."""

    def _purge(self, queue: str) -> int:
        """Delete every list of a queue, reading each as it goes in the same transaction, and
        record the deleted messages' tags; returns how many it deleted (as kombu's)."""
        channel: Any = self  # a kombu Redis channel (every class using this one is)
        with channel.conn_or_acquire() as client:
            # kombu puts its prefix before the key of DEL, not of LRANGE.
            prefix = getattr(client, "global_keyprefix", "") or ""
            with client.pipeline() as pipe:
                for priority in channel.priority_steps:
                    listed = channel._q_for_pri(queue, priority)
                    pipe.lrange(prefix + listed, 0, -1)
                    pipe.delete(listed)
                replies = pipe.execute()
            deleted = [raw for messages in replies[::2] for raw in messages]
            record_purged(client, deleted)
        return len(deleted)


class Channel(RecordedPurge, GuardedPool, kombu_redis.Channel):
    """kombu's Redis channel with the purge, the QoS and the pool guard above."""

    QoS = QoS


class Transport(kombu_redis.Transport):
    """kombu's Redis transport with the channel above."""

    Channel = Channel


class SentinelChannel(RecordedPurge, GuardedPool, kombu_redis.SentinelChannel):
    """kombu's Sentinel channel with the purge, the QoS and the pool guard above."""

    QoS = QoS


class SentinelTransport(kombu_redis.SentinelTransport):
    """kombu's Sentinel transport with the channel above."""

    Channel = SentinelChannel


# Every redis:// and sentinel:// URL of this process uses the transports above. Naming them in
# Celery's broker_transport instead is not enough: on a lost connection kombu moves on to the
# next URL of broker_url, and takes that URL's scheme's transport (kombu's own) with it.
TRANSPORT_ALIASES.update(redis=TRANSPORT, rediss=TRANSPORT, sentinel=SENTINEL_TRANSPORT)
