"""Which engine the run expects: ALPHAMETIC_ENGINE as CI sets it ("native": the core must be
built, and the engine tests fail rather than skip without it)."""

from __future__ import annotations

import os

from alphametic.linear.native import ENV

EXPECTED = os.environ.get(ENV, "").strip().lower()
