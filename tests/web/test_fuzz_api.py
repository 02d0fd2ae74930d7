"""Hypothesis: any JSON in the API's fields gives 202 or a 422 problem, never anything else."""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobstore import JobStore

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
puzzle_like = st.text(alphabet="ABCDE +-=", max_size=24) | json_values
option_values = st.fixed_dictionaries(
    {},
    optional={
        "base": st.integers(-5, 40) | json_values,
        "leading_zeros": st.sampled_from(["allow", "every-word", "multi-letter"]) | json_values,
        "fixed": st.dictionaries(st.sampled_from("ABCZ"), st.integers(-2, 40), max_size=2)
        | json_values,
    },
)
bodies = (
    st.fixed_dictionaries(
        {},
        optional={
            "puzzle": puzzle_like,
            "mode": st.sampled_from(["solve", "enumerate"]) | json_values,
            "options": option_values | json_values,
        },
    )
    | json_values
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
    database=None,
)
@given(body=bodies)
def test_any_json_gives_202_or_422(app: Flask, job_store: JobStore, body: Any) -> None:
    client = app.test_client()
    started = time.monotonic()
    response = client.post("/api/jobs", data=json.dumps(body), content_type="application/json")
    assert time.monotonic() - started < 5
    assert response.status_code in (202, 422), (body, response.get_data(as_text=True))
    if response.status_code == 202:
        job_store.cancel(response.get_json()["id"])  # never leave work to the shared workers
    else:
        problem = response.get_json(force=True)
        assert response.mimetype == "application/problem+json"
        assert problem["status"] == 422 and problem["detail"]
