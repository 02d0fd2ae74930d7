"""Which engine the run expects: ALPHAMETIC_ENGINE as CI sets it ("native": the core must be
built, and the engine tests fail rather than skip without it); a block run on one engine;
the command line run with one native core hidden (a half-built install)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from alphametic.linear.native import ENV, is_built

EXPECTED = os.environ.get(ENV, "").strip().lower()

native_only = pytest.mark.skipif(
    not is_built() and EXPECTED != "native", reason="the native core is not built"
)


@contextmanager
def on(engine: str) -> Iterator[None]:
    """Set ALPHAMETIC_ENGINE for the searches started inside the block."""
    previous = os.environ.get(ENV)
    os.environ[ENV] = engine
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = previous


def without_core(module: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    """The command line in a fresh interpreter where one native core cannot be imported:
    call it with main()'s argument list as Python text and the environment to add."""
    hidden = f"import sys; sys.modules[{module!r}] = None; "
    hidden += "from alphametic.cli.main import main; "
    environ = {k: v for k, v in os.environ.items() if k != ENV}

    def cli(args: str, **env: str) -> subprocess.CompletedProcess[str]:
        code = hidden + f"sys.exit(main({args}))"
        return subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=environ | env,
            timeout=120,
        )

    return cli
