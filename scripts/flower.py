"""Flower for `make run FLOWER_PORT=5555`: on loopback, always behind a login, never the open API.

Flower answers its whole HTTP API (revoke, terminate, pool resize, ...) to anyone who can reach
it, and cross-site too, unless it has a login: so it starts only with FLOWER_BASIC_AUTH
(`user:password`, several separated by commas), and the variable that would open its API
without a login (FLOWER_UNAUTHENTICATED_API) is taken out of its environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
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


def login(env: Mapping[str, str]) -> str:
    """FLOWER_BASIC_AUTH, checked; without it Flower does not start."""
    auth = env.get("FLOWER_BASIC_AUTH", "").strip()
    if not auth:
        raise FlowerSettingsError(
            "Flower needs a login: set FLOWER_BASIC_AUTH=user:password (e.g. "
            "FLOWER_BASIC_AUTH=admin:long-password make run FLOWER_PORT=5555)"
        )
    credentials(auth)
    return auth


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
        return cls(int(raw_port), login(env))

    def argv(self) -> list[str]:
        """`celery flower` on loopback (the login comes through the environment, not argv)."""
        return [sys.executable, "-m", "celery", "-A", "worker", "flower",
                "--address=127.0.0.1", f"--port={self.port}"]  # fmt: skip

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        """The child's environment: the login set, the open-API switch removed."""
        return flower_env(base, self.basic_auth)


def flower_env(base: Mapping[str, str], auth: str) -> dict[str, str]:
    """An environment for Flower: this login, and never the switch that opens its API."""
    env = {name: value for name, value in base.items() if name != OPEN_API}
    env["FLOWER_BASIC_AUTH"] = auth
    return env


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m scripts.flower [flower options]`: compose's Flower, refused without a login."""
    try:
        auth = login(os.environ)
    except FlowerSettingsError as exc:
        print(f"flower: {exc}", file=sys.stderr)
        return 2
    options = list(sys.argv[1:] if argv is None else argv)
    command = [sys.executable, "-m", "celery", "-A", "worker", "flower", *options]
    os.execve(sys.executable, command, flower_env(os.environ, auth))
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
