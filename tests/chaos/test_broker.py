"""The broker's books survive a Redis stall: an ack Redis never heard still frees its slot.

kombu counts a message as taken until its ack reaches Redis; with prefetch off a worker takes
no more messages than it has pool processes, so a worker whose ack timed out in a stall took
nothing ever again (worker/broker.py). Real kombu, real redis-server, SIGSTOPped mid-ack.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest
import redis
from kombu import Connection, Exchange, Producer, Queue

from tests.support.processes import RedisServer
from worker import broker


@pytest.mark.parametrize("reject", [False, True], ids=["ack", "reject"])
def test_an_ack_lost_in_a_redis_stall_frees_the_channels_slot(
    redis_factory: Callable[..., RedisServer], reject: bool
) -> None:
    """The message stays unacknowledged in Redis, but the channel can take the next one."""
    server = redis_factory()
    pid = server.pid
    assert pid is not None
    with Connection(server.url, transport_options={"socket_timeout": 0.5}) as connection:
        channel = connection.channel()
        assert isinstance(channel, broker.Channel)  # redis:// means the project's transport
        assert isinstance(channel.qos, broker.QoS)
        channel.basic_qos(0, 1, False)  # prefetch 1, as a worker of concurrency 1 has
        exchange = Exchange("stall", type="direct")
        queue = Queue("stall", exchange, routing_key="stall", channel=channel)
        queue.declare()
        Producer(channel).publish({"n": 1}, exchange=exchange, routing_key="stall")
        message = queue.get(no_ack=False)
        assert message is not None and not channel.qos.can_consume()  # its one slot is taken
        os.kill(pid, signal.SIGSTOP)
        try:
            with pytest.raises(redis.exceptions.RedisError):
                message.reject() if reject else message.ack()
        finally:
            os.kill(pid, signal.SIGCONT)
        assert channel.qos.can_consume(), "a lost ack kept the channel's only slot"
        Producer(channel).publish({"n": 2}, exchange=exchange, routing_key="stall")
        following = queue.get(no_ack=False)
        assert following is not None and following.payload == {"n": 2}
        following.ack()
