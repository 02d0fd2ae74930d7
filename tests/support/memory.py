"""A Redis at its memory limit: how much it uses, and someone else's data filling it up."""

from __future__ import annotations

import redis


def used(client: redis.Redis) -> int:
    """Bytes Redis uses now."""
    return int(client.info("memory")["used_memory"])


def fill(client: redis.Redis, tag: str) -> int:
    """Fill Redis with someone else's data until it refuses writes (OOM); returns the keys."""
    n = 0
    for size in (256 * 1024, 16 * 1024, 1024, 64):  # to the last few bytes
        chunk = b"x" * size
        while n < 100_000:
            try:
                client.set(f"junk:{tag}:{n}", chunk)
            except redis.exceptions.OutOfMemoryError:
                break
            n += 1
    assert n < 100_000, "Redis never refused a write: is maxmemory set?"
    # Refused by a few bytes is not full for long: a client's buffer freed a moment later lets
    # the next small write in. Put the limit a little below what is used now, so it stays full.
    client.config_set("maxmemory", str(used(client) - 32 * 1024))
    return n


def hold_full(client: redis.Redis, tag: str, margin: int = 1024 * 1024) -> None:
    """Take Redis past its limit by about `margin` bytes of someone else's data and keep it
    there: what clients' requests take and free again (a refused batch of solutions in a
    query buffer: some 600 KB) never lets a write through."""
    before = used(client)
    client.config_set("maxmemory", str(before + 2 * margin))
    fill(client, tag)
    client.config_set("maxmemory", str(before + margin))
