"""kombu's Redis Sentinel transport, made safe to use a channel whose master has died.

On a lost connection kombu closes the channel and puts back the messages it took but did not
acknowledge; a task that outlived the failover acknowledges its message on that old channel.
Both rebuilt the channel's pool from a connection already torn down, and the AttributeError
('NoneType' object has no attribute 'hostname' / 'client') was fatal to the worker: a Sentinel
failover killed every worker that held a message. Here they meet a connection error instead,
which kombu and Celery expect ("Couldn't ack"): the message stays unacknowledged, the job
record says what became of the job, and a later delivery of it changes nothing.
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import TRANSPORT_ALIASES
from kombu.transport import redis as kombu_redis

SENTINEL_TRANSPORT = "worker.broker:SentinelTransport"


def torn_down(connection: Any) -> bool:
    """True when a channel's transport connection is gone (closed after a failure)."""
    return connection is None or connection.client is None


class QoS(kombu_redis.QoS):  # type: ignore[misc]
    """kombu's QoS, whose restore skips a channel that has lost its connection."""

    def restore_unacked(self, client: Any = None) -> None:
        """Put taken messages back, unless the connection is gone: they then stay in the
        unacknowledged set for the visibility timeout, and the job store's resend sweep sends
        again the message of any job still queued without one (worker/heartbeat.py)."""
        if client is None and torn_down(self.channel.connection):
            self._delivered.clear()
            return
        super().restore_unacked(client)


class SentinelChannel(kombu_redis.SentinelChannel):  # type: ignore[misc]
    """kombu's Sentinel channel: the QoS above, and no pool rebuilt on a dead connection."""

    QoS = QoS

    def _get_pool(self, asynchronous: bool = False) -> Any:
        """kombu's pool, or a connection error once the channel's connection is torn down."""
        if torn_down(self.connection):
            raise redis.exceptions.ConnectionError("this broker channel's connection is closed")
        return super()._get_pool(asynchronous)


class SentinelTransport(kombu_redis.SentinelTransport):  # type: ignore[misc]
    """kombu's Sentinel transport with the channel above."""

    Channel = SentinelChannel


# Every sentinel:// URL of this process uses the transport above. Naming it in Celery's
# broker_transport instead is not enough: on a lost connection kombu moves on to the next
# URL of broker_url, and takes that URL's scheme's transport (kombu's own) with it.
TRANSPORT_ALIASES["sentinel"] = SENTINEL_TRANSPORT
