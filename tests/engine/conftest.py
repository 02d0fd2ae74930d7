"""The engine fixture: the engine tests that use it run on both engines, Python and native.

``ALPHAMETIC_ENGINE=native`` in the environment (CI: .ci/run, the Makefile's test target)
means the native core must be there: its runs then fail instead of being skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from alphametic.linear.native import ENV, is_built
from tests.support.engines import EXPECTED

# What the session was started with, before the fixture switches engines.


@pytest.fixture(scope="session", params=["python", "native"])
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the tests under it once per engine (searches read ALPHAMETIC_ENGINE as they start)."""
    name: str = request.param
    if name == "native" and not is_built():
        if EXPECTED == "native":
            pytest.fail(f"{ENV}=native but the native cores (linear, steps, explain) did not build")
        pytest.skip("the native core is not built (no C compiler at install time)")
    previous = os.environ.get(ENV)
    os.environ[ENV] = name  # also reaches the CLI subprocesses the tests start
    try:
        yield name
    finally:
        if previous is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = previous
