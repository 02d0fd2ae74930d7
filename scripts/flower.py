"""Flower for `make run FLOWER_PORT=5555`: on loopback, always behind a login, never the open API.

Flower answers its whole HTTP API (revoke, terminate, pool resize, ...) to anyone who can reach
it, and cross-site too, unless it has a login: so it starts only with FLOWER_BASIC_AUTH
(`user:password`, several separated by commas), and the variable that would open its API
without a login (FLOWER_UNAUTHENTICATED_API) is taken out of its environment.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

OPEN_API = "FLOWER_UNAUTHENTICATED_API"
MIN_PASSWORD = 8


class FlowerSettingsError(ValueError):
    """FLOWER_PORT without usable credentials, or a bad port."""


def credentials(raw: str) -> list[tuple[str, str]]:
    """The (user, password) pairs of a FLOWER_BASIC_AUTH value; refuses weak or broken ones."""
    pairs = []
    for item in raw.split(","):
        user, colon, password = item.strip().partition(":")
        if not colon or not user or len(password) < MIN_PASSWORD:
            raise FlowerSettingsError(
                f"FLOWER_BASIC_AUTH must be user:password (a password of {MIN_PASSWORD}+ "
                "characters; several separated by commas): Flower is never started open"
            )
        pairs.append((user, password))
    return pairs


@dataclass(frozen=True)
class FlowerConfig:
    """Where Flower listens and who may log in."""

    port: int
    basic_auth: str

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> FlowerConfig | None:
        """None without FLOWER_PORT; an error with it but without a proper login."""
        raw_port = env.get("FLOWER_PORT", "").strip()
        if not raw_port:
            return None
        if not raw_port.isdigit() or not 0 < int(raw_port) <= 65535:
            raise FlowerSettingsError(f"FLOWER_PORT must be a port number, got {raw_port!r}")
        auth = env.get("FLOWER_BASIC_AUTH", "").strip()
        if not auth:
            raise FlowerSettingsError(
                "FLOWER_PORT is set but FLOWER_BASIC_AUTH is not: give Flower a login, e.g. "
                "FLOWER_BASIC_AUTH=admin:long-password make run FLOWER_PORT=5555"
            )
        credentials(auth)
        return cls(int(raw_port), auth)

    def argv(self) -> list[str]:
        """`celery flower` on loopback (the login comes through the environment, not argv)."""
        return [sys.executable, "-m", "celery", "-A", "worker", "flower",
                "--address=127.0.0.1", f"--port={self.port}"]  # fmt: skip

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        """The child's environment: the login set, the open-API switch removed."""
        env = {name: value for name, value in base.items() if name != OPEN_API}
        env["FLOWER_BASIC_AUTH"] = self.basic_auth
        return env
