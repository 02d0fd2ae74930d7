"""Schemathesis against /api/openapi.json on gunicorn with a real worker and Redis."""

from __future__ import annotations

from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import load_all_checks
from schemathesis.specs.openapi.checks import positive_data_acceptance

pytestmark = pytest.mark.slow

load_all_checks()


@pytest.fixture(scope="module")
def api_schema(live_server: str) -> Any:
    """The served document, loaded by schemathesis."""
    return schemathesis.openapi.from_url(live_server + "/api/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_api_conforms(case: Any, live_server: str) -> None:
    # Any string of the right type is schema-valid, but only real puzzles are accepted:
    # the grammar is the engine's, so "valid data accepted" cannot hold for the puzzle field.
    response = case.call_and_validate(
        base_url=live_server, excluded_checks=[positive_data_acceptance], timeout=20
    )
    if response.status_code == 202:
        # Fuzzed puzzles can be huge enumerations: never leave them to the shared worker.
        job = response.json()
        requests.post(live_server + job["links"]["cancel"], timeout=10)
