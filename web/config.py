"""The web front end's settings: ALPHAMETIC_* variables, read the way the job store reads its own.

create_app(config) takes WebSettings.from_env(), lets `config` override any field by its Flask
name (RATE_LIMIT, MAX_CONTENT_LENGTH, ...; tests do), and puts every field into app.config
under that name. The job store's settings are config["SETTINGS"] or Settings.from_env().
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from limits import parse_many

from jobstore import Rate
from jobstore.settings import ConfigError, read_env

ENV_NAMES = {
    "rate_limit": "ALPHAMETIC_RATE_LIMIT",
    "read_rate_limit": "ALPHAMETIC_READ_RATE_LIMIT",
    "max_content_length": "ALPHAMETIC_MAX_BODY",
    "max_page_size": "ALPHAMETIC_MAX_PAGE_SIZE",
    "poll_seconds": "ALPHAMETIC_POLL_SECONDS",
    "max_wait": "ALPHAMETIC_MAX_WAIT",
    "max_waiters": "ALPHAMETIC_MAX_WAITERS",
    "client_waiters": "ALPHAMETIC_CLIENT_WAITERS",
    "max_estimates": "ALPHAMETIC_MAX_ESTIMATES",
    "secret_key": "ALPHAMETIC_SECRET_KEY",
    "proxy_hops": "ALPHAMETIC_PROXY_HOPS",
    "admin_token": "ALPHAMETIC_ADMIN_TOKEN",
}
# Characters an admin token needs at least (`openssl rand -hex 32` gives 64): a short one could
# be guessed in the tries the throttle allows (web/admin/api.py).
MIN_ADMIN_TOKEN = 32


@dataclass(frozen=True)
class WebSettings:
    """Everything configurable about the web front end, with production defaults."""

    rate_limit: str = "60/minute"  # job-creating requests per client, as `limits` reads it
    # Status reads (GET /api/jobs/{id}, long polls included) per client: a page polls once a
    # second; a client whose waits are answered at once cannot spin faster than this.
    read_rate_limit: str = "600/minute"
    max_content_length: int = 64 * 1024  # request body cap in bytes (413 beyond)
    max_page_size: int = 500  # solutions per page of the API at most
    poll_seconds: int = 1  # Retry-After of a job that is still going
    # Long polling (?wait=): the longest wait a request may ask for, how many requests of one
    # web process may wait at once, and how many of them one client may hold (the rest answer
    # at once). Under gevent a waiting request is a greenlet and a socket: half the 1000
    # connections a process serves (scripts/webserver.py), the other half for everything else.
    max_wait: float = 30.0
    max_waiters: int = 500
    client_waiters: int = 2
    # Estimates one web process works out at once (each is CPU in the process: more at once
    # only slows its other requests down); the rest are answered 429 `busy`.
    max_estimates: int = 1
    # Sessions carry only the CSRF token; a per-process key (when unset) is enough for one
    # process, several need ALPHAMETIC_SECRET_KEY set.
    secret_key: str = ""
    # Reverse proxies in front of the app whose X-Forwarded-For is trusted (0: none), so the
    # rate limit counts real clients rather than the proxy.
    proxy_hops: int = 0
    # The bearer token of /admin and /admin/api ('' turns them off: 404).
    admin_token: str = ""

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None
    ) -> WebSettings:
        """Settings from the environment, then `overrides` by Flask name (RATE_LIMIT, ...)."""
        values = read_env(cls, ENV_NAMES, environ)
        overrides = overrides or {}
        for f in fields(cls):
            if f.name.upper() in overrides:
                values[f.name] = overrides[f.name.upper()]
        settings = cls(**values)
        settings.rates()  # a rate that cannot be read fails at start, not at the first POST
        settings.read_rates()
        settings.check_admin_token()
        return settings

    def check_admin_token(self) -> None:
        """Refuse (ConfigError) an admin token shorter than MIN_ADMIN_TOKEN characters."""
        length = len(str(self.admin_token).strip())
        if 0 < length < MIN_ADMIN_TOKEN:
            raise ConfigError(
                f"ALPHAMETIC_ADMIN_TOKEN must be at least {MIN_ADMIN_TOKEN} characters long "
                f"(it has {length}); make one with `openssl rand -hex 32`"
            )

    def rates(self) -> tuple[Rate, ...]:
        """The per-client rates of job creation."""
        return _rates(self.rate_limit, "rate_limit", "create")

    def read_rates(self) -> tuple[Rate, ...]:
        """The per-client rates of status reads."""
        return _rates(self.read_rate_limit, "read_rate_limit", "read")

    def flask_config(self) -> dict[str, Any]:
        """The settings as Flask config keys (a random SECRET_KEY when none is set)."""
        config = {name.upper(): value for name, value in asdict(self).items()}
        config["SECRET_KEY"] = self.secret_key or secrets.token_hex(32)
        return config


def _rates(text: str, name: str, kind: str) -> tuple[Rate, ...]:
    """Rates of one kind read from a setting like '60/minute' (ConfigError naming it)."""
    try:
        items = parse_many(str(text))
    except ValueError:
        raise ConfigError(f"{ENV_NAMES[name]}={text!r} is not a rate like '60/minute'") from None
    return tuple(Rate(item.amount, item.get_expiry(), str(item), kind) for item in items)
