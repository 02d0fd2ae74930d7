"""Helpers of the operator tests (tests/ops): their settings, token and log format."""

from __future__ import annotations

import itertools
import uuid

from jobstore import Settings

ADMIN_TOKEN = "test-admin-token-0123456789abcdefghij"
JSON_LOGS = {"ALPHAMETIC_LOG_FORMAT": "json"}
_databases = itertools.count(1000)  # fresh_settings counts up from 1, the web tests use 1023


def own_settings(settings: Settings, **changes: object) -> Settings:
    """The session Redis on a database and prefix of their own, plus changes."""
    url = settings.redis_url.rsplit("/", 1)[0] + f"/{next(_databases)}"
    prefix = f"alphametic-ops-{uuid.uuid4().hex[:8]}"
    return settings.replace(redis_url=url, key_prefix=prefix, **changes)
